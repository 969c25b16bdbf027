"""How the DAG builder makes the node of a call: a call of an intrinsic the target lowers
(``Target.lowerings``) becomes the target SDNode directly -- the mapping the generated
``LowerINTRINSIC_WO_CHAIN`` encodes (``lowering_ir_name``, ``lowering_node``,
``lowering_opcode``, ``lowering_operands``) --, a generic math intrinsic its ISD node
(``llvm.ctpop`` -> ``ISD::CTPOP`` ...), another intrinsic ``ISD::INTRINSIC_WO_CHAIN`` /
``INTRINSIC_VOID``, a call of a function ``ISD::CALL``; with the divergence kind the
target gives the intrinsic (``CallLowering``, cached per intrinsic). A call of a foreign
intrinsic the target rewrites (``Target.rewrites``: ``llvm.nvvm.shfl.sync.idx.i32`` ->
``llvm.dslike.shfl.idx.i32``, what the target's IR pass does in a real backend) is first
made a call of the target intrinsic with the rewrite's arguments (``rewritten``)."""

from __future__ import annotations

from typing import Any

from patterns.dag.isd import COMMUTATIVE, const_int, ISD_OF_INTRINSIC, vt_of
from patterns.dag.nodes import SDNode


def lowering_ir_name(target, low) -> str | None:
    intr = getattr(low, "intrinsic", None)
    if intr is None:
        return None
    if isinstance(intr, str):
        rec = (getattr(target, "intrinsics", {}) or {}).get(intr) if isinstance(getattr(target, "intrinsics", None), dict) else None
        if rec is not None:
            return getattr(rec, "ir_name", None)
        if intr.startswith("llvm."):
            return intr
        if intr.startswith("int_"):
            return "llvm." + intr[4:].replace("_", ".")
        return intr
    return getattr(intr, "ir_name", None)


def lowering_node(low) -> str:
    node: Any = getattr(low, "node", None) or getattr(low, "sdnode", None)
    if isinstance(node, str):
        return node
    try:  # (getattr(node, "name", str(node)), without making the text when unused)
        return node.name
    except AttributeError:
        return str(node)


def lowering_opcode(target, low) -> str:
    node = getattr(low, "node", None) or getattr(low, "sdnode", None)
    if not isinstance(node, str):
        opc = getattr(node, "opcode", None)
        if opc:
            return opc
    name = lowering_node(low)
    sd = (getattr(target, "sdnodes", {}) or {}).get(name)
    return getattr(sd, "opcode", name) if sd is not None else name


def lowering_operands(low, nargs: int) -> list[int]:
    m = getattr(low, "operand_map", None)
    if m is None:
        m = getattr(low, "operands", None)
    if not m:
        return list(range(nargs))
    out = []
    for x in m:
        out.append(x if isinstance(x, int) else int(getattr(x, "index", getattr(x, "arg", 0))))
    return out


class CallLowering:
    """The nodes of a function's calls: the target's name and lowering of each intrinsic
    called, cached."""

    def __init__(self, target) -> None:
        self.target = target
        self._intr_cache: dict[str, tuple] = {}
        self._decl_cache: dict[str, str] = {}
        self._rewrites: dict | None = None

    def declared_name(self, callee: str) -> str:
        """The target's name for an intrinsic call: overloaded intrinsics are called with a
        type suffix (``llvm.<target>.<name>.i32``) but declared without it."""
        got = self._decl_cache.get(callee)
        if got is None:
            known = getattr(self.target, "intrinsics_by_ir_name", None) or {}
            got = callee
            parts = callee.split(".")
            for k in range(len(parts), 1, -1):
                cand = ".".join(parts[:k])
                if cand in known:
                    got = cand
                    break
            self._decl_cache[callee] = got
        return got

    def intrinsic_info(self, name: str):
        """(isd opcode or target node, divergence kind name) for an intrinsic."""
        name = self.declared_name(name)
        got = self._intr_cache.get(name)
        if got is not None:
            return got
        t = self.target
        lowered = None
        for low in getattr(t, "lowerings", ()) or ():
            ir = lowering_ir_name(t, low)
            if ir == name:
                lowered = low
                break
        k = t.intrinsic_divergence(name)
        kind = getattr(k, "value", str(k))
        got = (lowered, kind)
        self._intr_cache[name] = got
        return got

    def rewritten(self, callee: str, args: list) -> tuple[str, list]:
        """(callee, arguments) after the target's rewrite of ``callee``, if it has one
        (only argument indices are modeled; a ``Const`` argument is not)."""
        rws = self._rewrites
        if rws is None:
            rws = self._rewrites = {}
            for rw in getattr(self.target, "rewrites", ()) or ():
                tgt = getattr(rw.target, "ir_name", None)
                if tgt and all(isinstance(i, int) for i in rw.operands):
                    rws[rw.foreign] = (tgt, tuple(rw.operands))
        got = rws.get(callee)
        if got is None:
            return callee, args
        return got[0], [args[i] for i in got[1]]

    def node(self, dag, ins, get) -> SDNode:
        """The node of call ``ins`` in ``dag``, its operands' nodes from ``get``."""
        callee = ins.callee or ""
        if not callee.startswith("llvm."):
            ops = tuple(get(x) for x in ins.operands)
            n = dag.node("ISD::CALL", vt_of(ins.type), ops, ir=ins)
            n.source = "divergent"
            return n
        callee, args = self.rewritten(callee, list(ins.operands))
        lowered, kind = self.intrinsic_info(callee)
        vt = vt_of(ins.type)
        if lowered is not None:
            mapping = lowering_operands(lowered, len(args))
            ops = tuple(get(args[i]) for i in mapping)
            n = dag.node(lowering_opcode(self.target, lowered), vt, ops, ir=ins,
                         intrinsic=callee, target_op=lowering_node(lowered))
        else:
            base = ".".join(callee.split(".")[:2])
            isd = ISD_OF_INTRINSIC.get(base)
            if isd is not None:
                if isd in ("ISD::CTLZ", "ISD::CTTZ"):
                    zero_poison = len(args) > 1 and const_int(args[1]) not in (None, 0)
                    if zero_poison:
                        isd += "_ZERO_UNDEF"
                    args = args[:1]
                elif isd == "ISD::ABS":
                    args = args[:1]
                ops = tuple(get(a) for a in args)
                if len(ops) == 2 and isd in COMMUTATIVE and ops[0].opcode == "ISD::Constant" \
                        and ops[1].opcode != "ISD::Constant":
                    ops = (ops[1], ops[0])  # (getNode: a constant to the right of min/max)
                n = dag.node(isd, vt, ops, ir=ins, intrinsic=callee)
            else:
                has_chain = vt == "isVoid"
                opc = "ISD::INTRINSIC_VOID" if has_chain else "ISD::INTRINSIC_WO_CHAIN"
                idn = dag.node("ISD::TargetConstant", "i32", value=self.declared_name(callee))
                idn.source = "uniform"
                n = dag.node(opc, vt, (idn,) + tuple(get(a) for a in args), ir=ins, intrinsic=callee)
        if kind == "source":
            n.source = "divergent"
        elif kind == "uniform":
            n.source = "uniform"
        return n

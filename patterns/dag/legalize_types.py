"""Integer type legalization as LLVM's DAGTypeLegalizer promotes integers
(LegalizeIntegerTypes.cpp), driven by the target's lowering table (``Target.legality``):
an integer type with no register class (AMDGPU: i8, and odd widths such as the i33 of
an induction variable) is computed in the next wider legal integer type
(getTypeToTransformTo: the smallest legal integer type at least as wide; i8 -> i32,
i33 -> i64 on AMDGPU).

Results (PromoteIntegerResult), with each operand read as LLVM reads a promoted value:
``any`` (GetPromotedInteger: the high bits are unspecified), ``zext``
(ZExtPromotedInteger: ``and p, 2^n-1``) or ``sext`` (SExtPromotedInteger:
``sign_extend_inreg p, i<n>``):

- constants (sign-extended when the type is a whole number of bytes, else
  zero-extended, as PromoteIntRes_Constant), undef, copies from registers (the virtual
  register has the promoted type);
- add/sub/mul/and/or/xor (any), shl (any, zext amount), srl (zext), sra (sext), udiv/urem/
  umin/umax (zext), sdiv/srem/smin/smax (sext), select (any), freeze (any), ctpop (zext);
- extensions and truncations into the type: an extension of a legal value to the wider
  type, a truncation to it, or the value itself when the widths agree;
- loads: an extending load into the wider type (the node's ``cc`` is ``EXTLOAD``; its
  memory operand keeps the memory type).

Operands (PromoteIntegerOperand) of nodes whose own type is legal: setcc (sext for a
signed compare, else zext), zero_extend / sign_extend (the in-register extension, then
to the result's width), truncate, a store (the wider value, the node's ``cc``
``TRUNCSTORE``: it stores the memory type), a copy to another block's register and a
return (any).

New nodes are divergent when an operand is (SelectionDAG::createOperands). Where it
stops, with a "not modelled" error at the node: integers wider than every legal
integer type (expansion into halves with carries), and any other operation on a
promoted type (the counts other than ctpop, rotates, calls ...). The combine driver runs it
after the first combine, as llc does, and combines the block again after it."""

from __future__ import annotations

from patterns.dag.nodes import make_node, SDNode, SelectionDAG, value_type_node
from tdgen.errors import expected, VerifyError

_ANY = frozenset({"ISD::ADD", "ISD::SUB", "ISD::MUL", "ISD::AND", "ISD::OR", "ISD::XOR", "ISD::FREEZE"})
_ZEXT = frozenset({"ISD::SRL", "ISD::UDIV", "ISD::UREM", "ISD::UMIN", "ISD::UMAX", "ISD::CTPOP"})
_SEXT = frozenset({"ISD::SRA", "ISD::SDIV", "ISD::SREM", "ISD::SMIN", "ISD::SMAX"})
_EXT = frozenset({"ISD::ZERO_EXTEND", "ISD::SIGN_EXTEND", "ISD::ANY_EXTEND"})
_SIGNED_CC = frozenset({"SETLT", "SETLE", "SETGT", "SETGE"})


def int_bits(vt: str) -> int:
    """The width of a scalar integer type name (``i33`` -> 33), else 0."""
    return int(vt[1:]) if vt[:1] == "i" and vt[1:].isdigit() else 0


def promoted_type(vt: str, lg) -> str | None:
    """getTypeToTransformTo for an integer type the table has no register class for: the
    narrowest legal integer type at least as wide, None when the type is legal (or not a
    scalar integer); raises nothing (a type wider than all is the caller's error)."""
    bits = int_bits(vt)
    if not bits or lg.is_type_legal(vt):
        return None
    wider = sorted(b for b in (int_bits(t) for t in lg.legal_types) if b >= bits)
    return f"i{wider[0]}" if wider else ""


def has_illegal_integers(nodes, lg) -> bool:
    """Whether a node of ``nodes`` has, or reads, an integer type the table has no register
    class for (the check before the type legalizer runs: one type lookup per distinct type)."""
    legal = lg.legal_types
    for vt in {n.vt for n in nodes if n.opcode != "ISD::VALUETYPE"}:  # (a VTSDNode carries a type, has none)
        if vt[:1] == "i" and vt not in legal and vt[1:].isdigit():
            return True
    return False


def promote_integers(dag: SelectionDAG, lg) -> bool:
    """Promote the block's illegal integer values in place (see the module docstring);
    the nodes renumbered in topological order with their use counts. Whether anything
    changed. Raises VerifyError at a node the model does not legalize."""
    cache: dict = {}

    def target_of(vt: str):
        hit = cache.get(vt)
        if hit is None:
            hit = cache[vt] = (promoted_type(vt, lg),)
        return hit[0]

    nodes = dag.nodes
    if not any(target_of(n.vt) is not None or any(target_of(o.vt) is not None for o in n.ops) for n in nodes):
        return False
    block = dag.block
    out: list[SDNode] = []
    prom: dict = {}  # old node -> its value in the promoted type
    alias: dict = {}  # a legal-typed node -> the value that replaces it

    def not_modelled(n: SDNode, what: str):
        return VerifyError(getattr(n.ir, "span", None), expected(
            "an operation the type legalizer models", f"{n.label()} ({what}; not modelled)"),
            record=n.ir_name())

    def new(opcode: str, vt: str, ops: list, like: SDNode | None = None) -> SDNode:
        m = make_node(0, opcode, vt, ops, like.ir if like is not None else None, block)
        m.divergent = any(o.divergent for o in ops)
        out.append(m)
        return m

    def const(value: int, vt: str) -> SDNode:
        c = new("ISD::Constant", vt, [])
        c.value = value
        c.source = "uniform"
        return c

    def zext_in_reg(p: SDNode, bits: int) -> SDNode:
        return new("ISD::AND", p.vt, [p, const((1 << bits) - 1, p.vt)], p)

    def sext_in_reg(p: SDNode, bits: int) -> SDNode:
        vtn = value_type_node(block, f"i{bits}")
        out.append(vtn)
        return new("ISD::SIGN_EXTEND_INREG", p.vt, [p, vtn], p)

    def read(o: SDNode, how: str) -> SDNode:
        p = prom.get(o)
        if p is None:
            return o
        bits = int_bits(o.vt)
        if how == "zext":
            return zext_in_reg(p, bits)
        if how == "sext":
            return sext_in_reg(p, bits)
        return p

    def resize(v: SDNode, vt: str, ext: str, like: SDNode) -> SDNode:
        """``v`` (a legal integer) as type ``vt``: extended with ``ext``, truncated, or itself."""
        a, b = int_bits(v.vt), int_bits(vt)
        if a == b:
            return v
        return new(ext if a < b else "ISD::TRUNCATE", vt, [v], like)

    for n in nodes:
        opc = n.opcode
        ops = n.ops
        if alias and any(o in alias for o in ops):
            n.ops = ops = [alias.get(o, o) for o in ops]
        if opc == "ISD::VALUETYPE":
            out.append(n)
            continue
        wide = target_of(n.vt)
        if wide == "" or any(target_of(o.vt) == "" for o in ops if o.opcode != "ISD::VALUETYPE"):
            raise not_modelled(n, "an integer wider than every legal integer type: expanding it into "
                                  "halves")
        if wide is not None:
            bits = int_bits(n.vt)
            if opc == "ISD::Constant" and type(n.value) is int:
                v = n.value & ((1 << bits) - 1)
                if bits % 8 == 0 and v >> (bits - 1):
                    v -= 1 << bits
                p = const(v, wide)
            elif opc in ("ISD::UNDEF", "ISD::CopyFromReg", "ISD::LOAD"):
                n.vt = wide  # (the register, or the extending load, of the promoted type)
                if opc == "ISD::LOAD":
                    n.cc = "EXTLOAD"
                out.append(n)
                p = n
            elif opc in _ANY or opc in _ZEXT or opc in _SEXT or opc in ("ISD::SHL", "ISD::SELECT"):
                how = "any" if opc in _ANY else ("zext" if opc in _ZEXT else ("sext" if opc in _SEXT else "any"))
                if opc == "ISD::SELECT":
                    new_ops = [read(ops[0], "zext")] + [read(o, "any") for o in ops[1:]]
                elif opc in ("ISD::SHL", "ISD::SRL", "ISD::SRA"):
                    amount = ops[1]
                    new_ops = [read(ops[0], how), read(amount, "zext") if amount in prom else amount]
                    if int_bits(new_ops[1].vt) != int_bits(wide):
                        new_ops[1] = resize(new_ops[1], wide, "ISD::ZERO_EXTEND", n)
                else:
                    new_ops = [read(o, how) for o in ops]
                p = new(opc, wide, new_ops, n)
                p.cc = n.cc
            elif opc in _EXT or opc == "ISD::TRUNCATE":
                src = ops[0]
                if src in prom:
                    src = read(src, "zext" if opc == "ISD::ZERO_EXTEND" else "sext" if opc == "ISD::SIGN_EXTEND"
                               else "any")
                p = resize(src, wide, "ISD::ANY_EXTEND" if opc == "ISD::TRUNCATE" else opc, n)
            else:
                raise not_modelled(n, f"{opc} of a promoted {n.vt}")
            prom[n] = p
            continue
        if any(o in prom for o in ops):
            if opc == "ISD::SETCC":
                how = "sext" if n.cc in _SIGNED_CC else "zext"
                n.ops = [read(o, how) for o in ops]
            elif opc in ("ISD::ZERO_EXTEND", "ISD::SIGN_EXTEND", "ISD::ANY_EXTEND", "ISD::TRUNCATE"):
                how = {"ISD::ZERO_EXTEND": "zext", "ISD::SIGN_EXTEND": "sext"}.get(opc, "any")
                v = read(ops[0], how)
                r = resize(v, n.vt, "ISD::ANY_EXTEND" if opc == "ISD::TRUNCATE" else opc, n)
                alias[n] = r  # (its users read ``r``)
                continue
            elif opc == "ISD::STORE":
                n.ops = [read(ops[0], "any")] + list(ops[1:])
                n.cc = "TRUNCSTORE"
            elif opc in ("ISD::CopyToReg", "ISD::RET", "ISD::SELECT"):
                n.ops = [read(o, "zext" if (opc == "ISD::SELECT" and k == 0) else "any") for k, o in enumerate(ops)]
            else:
                raise not_modelled(n, f"{opc} reading a promoted {next(o.vt for o in ops if o in prom)}")
        out.append(n)
    dag.relink(out, alias)
    return True

"""Selected machine code as MIR text: the machine instruction record (``MachineInstr``) and its printing.

``MachineInstr`` is one instruction the selector made; ``print_function`` renders the
instructions of one selected function (``patterns.select.isel.SelectedFunction``, one
``mir_line`` each, which is also ``MachineInstr.mir_text``) in a MIR-like layout that
uses LLVM's opcode and register-class names, so a reader can put it next to llc's
``-stop-after=finalize-isel`` output. Result DAGs with Target.td instructions print as
llc leaves them after isel: ``REG_SEQUENCE %a, %subreg.sub0, %b, %subreg.sub1``,
``IMPLICIT_DEF``, ``EXTRACT_SUBREG`` as ``COPY %v.sub0``, and every def of a
multi-result instruction (``%1:vreg_64, %2:sreg_64 = V_MAD_U64_U32_e64 ...``). A compiled
module (``patterns.native``), so printing reads the instructions as native fields.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["MachineInstr", "print_function", "mir_line", "print_llvm_mir"]


class MachineInstr:
    """One selected machine instruction: ``opcode``, result register ``dst`` of class
    ``regclass`` in register file ``file`` ("scalar" | "vector" | None), ``operands``
    (text), the IR value ``ir`` it came from (``%name``), the DAG node ``node`` (``t12``),
    the pattern record, its sort key within the block, and ``more_defs``: results after
    the first (V_MAD_U64_U32's carry-out) as (vreg, register class) pairs. ``node`` may
    be given as the node's id (an int), spelled ``t<id>`` when read. Equal when every
    field is (as a dataclass with ``eq``; not hashable)."""

    # (any value is taken, as the plain class takes it: the JSON writer falls back to
    # json.dumps for values of other types)
    opcode: Any
    dst: Any
    regclass: Any
    file: Any
    operands: Any
    ir: Any
    _node: Any
    pattern: Any
    order: int
    more_defs: Any
    # the instruction's own implicit operands in MIR syntax (``("implicit-def $scc",)``),
    # beside those its opcode declares (the spec's Defs/Uses, added by the MIR writer);
    # set by a target's Select steps; not one of the compared fields
    implicit: Any

    _FIELDS: Final = ("opcode", "dst", "regclass", "file", "operands", "ir", "node", "pattern", "order", "more_defs")

    def __init__(self, opcode: object, dst: object, regclass: object, file: object, operands: object,
                 ir: object, node: object, pattern: object = None, order: int = 0, more_defs: object = ()) -> None:
        self.opcode = opcode
        self.dst = dst
        self.regclass = regclass
        self.file = file
        self.operands = operands
        self.ir = ir
        self._node = node
        self.pattern = pattern
        self.order = order
        self.more_defs = more_defs
        self.implicit = ()

    @property
    def node(self) -> object:
        n = self._node
        return f"t{n}" if type(n) is int else n

    @node.setter
    def node(self, value: object) -> None:
        self._node = value

    def _values(self) -> tuple:
        return (self.opcode, self.dst, self.regclass, self.file, self.operands, self.ir, self.node, self.pattern,
                self.order, self.more_defs)

    def __repr__(self) -> str:
        return "MachineInstr(" + ", ".join(f"{f}={v!r}" for f, v in zip(self._FIELDS, self._values())) + ")"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MachineInstr):
            return NotImplemented
        return self._values() == other._values()

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, MachineInstr):
            return NotImplemented
        return self._values() != other._values()

    __hash__ = None  # type: ignore[assignment]  # (mutable, as a dataclass with eq is)

    def mir_text(self) -> str:
        return mir_line(self, "")

    def as_json(self) -> dict:
        out = {"opcode": self.opcode, "dst": self.dst, "regclass": self.regclass, "file": self.file,
               "operands": self.operands, "ir": self.ir, "node": self.node, "pattern": self.pattern}
        more = self.more_defs
        if more:
            out["more_defs"] = [{"dst": d, "regclass": rc} for d, rc in more]
        return out


_LOWER: Final[dict] = {}  # register class name -> its MIR spelling (lower case)


def mir_line(mi, indent: str = "    ") -> str:
    """``indent`` + ``mi.mir_text()``: ``%3:vgpr_32 = V_ADD_U32_e64 %1, %2, 0  ; %v``."""
    ops = ", ".join(mi.operands)
    dst = mi.dst
    if mi.more_defs:
        defs = ([(dst, mi.regclass)] if dst else []) + list(mi.more_defs)
        lhs = ", ".join(f"{d}:{rc.lower() if rc else '_'}" for d, rc in defs) + " = "
    elif dst:
        rc = mi.regclass
        low = _LOWER.get(rc)
        if low is None:
            low = _LOWER[rc] = rc.lower() if rc else "_"
        lhs = f"{dst}:{low} = "
    else:
        lhs = ""
    text = f"{indent}{lhs}{mi.opcode} {ops}".rstrip()
    ir = mi.ir
    return f"{text}  ; {ir}" if ir else text


def print_function(fn) -> str:
    """MIR-like text of one selected function (``patterns.select.isel.SelectedFunction``)."""
    out = [f"name:            {fn.name}", "body:             |"]
    lower = _LOWER
    for bi, blk in enumerate(fn.blocks):
        label = f"bb.{bi}" + (f".{blk.name}" if blk.name and not blk.name.isdigit() else "")
        out.append(f"  {label}:")
        mi: MachineInstr
        for mi in blk.instrs:  # (mir_line written out)
            if mi.more_defs:
                out.append(mir_line(mi))
                continue
            dst = mi.dst
            if dst:
                rc = mi.regclass
                low = lower.get(rc)
                if low is None:
                    low = lower[rc] = rc.lower() if rc else "_"
                text = f"    {dst}:{low} = {mi.opcode} {', '.join(mi.operands)}".rstrip()
            else:
                text = f"    {mi.opcode} {', '.join(mi.operands)}".rstrip()
            ir = mi.ir
            out.append(f"{text}  ; {ir}" if ir else text)
        out.append("")
    return "\n".join(out).rstrip() + "\n"


# --- LLVM's MIR syntax ----------------------------------------------------------------


def _inst_info(target, opcode: str) -> tuple[tuple[str, ...], bool, bool]:
    """(implicit operands in MIR syntax, early-clobber def, ends the block) of
    ``opcode`` from the target's instruction record (its Defs/Uses, Constraints,
    isBarrier/isReturn): the spec's data, no target named here."""
    inst = target.instructions.get(opcode) if target is not None else None
    if inst is None:
        return (), False, False
    ec = getattr(inst, "early_clobber", None)
    barrier = getattr(inst, "barrier", None)
    field = getattr(inst, "field", None)
    if ec is None:
        ec = field is not None and "@earlyclobber" in str(field("Constraints", "") or "")
    if barrier is None:
        barrier = field is not None and bool(field("isBarrier", 0) or field("isReturn", 0))
    imp = tuple(f"implicit-def ${r.lower()}" for r in (getattr(inst, "implicit_defs", ()) or ())) + \
        tuple(f"implicit ${r.lower()}" for r in (getattr(inst, "implicit_uses", ()) or ()))
    return imp, bool(ec), bool(barrier)


def _mir_class(rc) -> str:
    return rc.lower() if rc else "_"


def print_llvm_mir(fn, target) -> str:
    """One selected function as a MIR document LLVM's parser reads (``llc -x mir
    -run-pass=none -verify-machineinstrs``): ``---``, ``name``, ``tracksRegLiveness``,
    ``registers`` (every virtual register with the class of its def, in LLVM's lower-case
    names), ``liveins``, ``body`` with ``bb.N`` blocks, their ``successors`` (the blocks
    a branch names, and the next block unless the last instruction ends the block) and
    each instruction with the implicit operands its opcode declares (the target's
    Defs/Uses: ``implicit-def $scc``, ``implicit $exec``) and its own, ``...`` at the
    end. The ``; %ir`` comments stay (MIR comments)."""
    classes: dict[int, str] = {}
    lines_of_blocks = []
    nblocks = len(fn.blocks)
    for bi, blk in enumerate(fn.blocks):
        body = []
        succ: list[int] = []
        ends = False
        for mi in blk.instrs:
            imp, ec, barrier = _inst_info(target, mi.opcode)
            ends = barrier
            defs = []
            if mi.dst:
                defs.append((mi.dst, mi.regclass))
            defs.extend(mi.more_defs or ())
            for d, rc in defs:
                if d.startswith("%") and d[1:].isdigit() and rc:
                    classes.setdefault(int(d[1:]), _mir_class(rc))
            lhs = ", ".join(d for d, _rc in defs)
            if lhs:
                lhs = ("early-clobber " if ec else "") + lhs + " = "
            ops = list(mi.operands)
            if mi.opcode != "PHI":
                for o in ops:
                    if o.startswith("%bb.") and int(o[4:]) not in succ:
                        succ.append(int(o[4:]))
            own = tuple(getattr(mi, "implicit", ()) or ())
            named = {y.rsplit("$", 1)[-1] for y in own}
            extra = [x for x in imp if x.rsplit("$", 1)[-1] not in named]
            text = f"    {lhs}{mi.opcode} {', '.join(ops + list(own) + extra)}".rstrip()
            body.append(f"{text}  ; {mi.ir}" if mi.ir else text)
        if not ends and bi + 1 < nblocks and (bi + 1) not in succ:
            succ.append(bi + 1)
        # (no ``.name``: a block name refers to the IR block, and the document has no IR)
        head = [f"  bb.{bi}:"]
        if succ:
            head.append("    successors: " + ", ".join(f"%bb.{s}" for s in succ))
        if bi == 0 and fn.liveins:
            head.append("    liveins: " + ", ".join(sorted(fn.liveins)))
        lines_of_blocks.append(head + ([""] if len(head) > 1 else []) + body)
    out = ["---", f"name:            {fn.name}", "tracksRegLiveness: true"]
    if classes:
        out.append("registers:")
        out.extend(f"  - {{ id: {k}, class: {c} }}" for k, c in sorted(classes.items()))
    if fn.liveins:
        out.append("liveins:")
        out.extend(f"  - {{ reg: '{r}' }}" for r in sorted(fn.liveins))
    out.append("body:             |")
    for k, b in enumerate(lines_of_blocks):
        if k:
            out.append("")
        out.extend(b)
    out.append("...")
    return "\n".join(out) + "\n"

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

__all__ = ["MachineInstr", "print_function", "mir_line"]


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

"""The records the machine interpreter runs and reports: ``MInstr`` (one machine instruction),
``IllegalState`` (a state selected code must never reach) and ``NotModeledInstr`` (an
instruction without a meaning). Kept apart so the reader of llc's MIR
(``patterns.run.mir_reader``), the generic instructions' meanings
(``patterns.run.machine_generic``) and the wave state (``patterns.run.machine_state``)
share them without importing each other."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MInstr", "IllegalState", "NotModeledInstr"]


class IllegalState(Exception):
    """A state the selected code must never reach (module docstring)."""

    def __init__(self, message: str, instr: "MInstr | None" = None, lane: int | None = None):
        self.message = message
        self.instr = instr
        self.lane = lane
        where = f"{instr.where}: " if instr is not None and instr.where else ""
        text = f" in `{instr.text()}`" if instr is not None else ""
        super().__init__(f"{where}illegal state: {message}{text}")


class NotModeledInstr(Exception):
    """An instruction the machine interpreter has no meaning for."""

    def __init__(self, what: str, instr: "MInstr | None" = None):
        self.what = what
        self.instr = instr
        where = f"{instr.where}: " if instr is not None and instr.where else ""
        super().__init__(f"{where}not modeled: {what}")


@dataclass
class MInstr:
    """One machine instruction to run (module docstring)."""

    opcode: str
    defs: list[tuple[str, str | None, str | None]]
    operands: list[str]
    ir: str | None = None
    where: str = ""
    implicit_defs: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)

    def text(self) -> str:
        lhs = ", ".join(f"{d}:{(rc or '_').lower()}" for d, rc, _f in self.defs)
        rhs = f"{self.opcode} {', '.join(self.operands)}".rstrip()
        return f"{lhs} = {rhs}" if lhs else rhs

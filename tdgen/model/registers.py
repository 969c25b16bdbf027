"""Register classes (``RegisterClass``, ``reg_names``, ``reg_tuples``) and operand kinds.

``RegisterClass(name, file, types, registers, size=None, alignment=None)``: ``file`` is
``"scalar"`` or ``"vector"``; ``size`` (bits) and ``alignment`` default to the first
type's width. Wide classes made of narrower registers give ``subreg_indices`` and, per
register, its components in ``subregs`` (see ``reg_tuples``). ``OperandKind(name, vt,
operand_type)``: an ``Operand<vt>`` (``i32imm`` etc. are builtin).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..types import ValueType
from .record import Record, guard_constructors


@dataclass(frozen=True)
class RegisterClass(Record):
    """A register class in the ``"scalar"`` or ``"vector"`` register file."""

    name: str
    file: str
    types: tuple[ValueType, ...]
    registers: tuple[str, ...]
    size: int | None = None
    alignment: int | None = None
    copy_cost: int = 1
    subreg_indices: tuple[str, ...] = ()
    subregs: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        # size/alignment default to the first type's width: always ints once built
        if self.size is None:
            first = self.types[0] if self.types and isinstance(self.types[0], ValueType) else None
            object.__setattr__(self, "size", first.bits if first is not None else 0)
        if self.alignment is None:
            object.__setattr__(self, "alignment", self.size)

    @property
    def size_bits(self) -> int:
        return int(self.size or 0)

    @property
    def alignment_bits(self) -> int:
        return int(self.alignment or 0)


def reg_tuples(base: tuple[str, ...], width: int, stride: int = 1) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """Registers made of ``width`` consecutive ``base`` registers, starting every
    ``stride``: ``(names, subregs)`` for a wide RegisterClass, named like LLVM's
    tuples (``VGPR0_VGPR1``). ``reg_tuples(("S0","S1","S2","S3"), 2, 2)`` ->
    ``(("S0_S1", "S2_S3"), (("S0", "S1"), ("S2", "S3")))``."""
    parts = tuple(tuple(base[i : i + width]) for i in range(0, len(base) - width + 1, stride))
    return tuple("_".join(p) for p in parts), parts


def reg_names(prefix: str, count: int, start: int = 0) -> tuple[str, ...]:
    """``reg_names("S", 4)`` -> ``("S0", "S1", "S2", "S3")``."""
    return tuple(f"{prefix}{i}" for i in range(start, start + count))


@dataclass(frozen=True)
class OperandKind(Record):
    """``def name : Operand<vt>`` (an immediate or other non-register operand)."""

    name: str
    vt: ValueType
    operand_type: str = "OPERAND_IMMEDIATE"
    print_method: str | None = None
    builtin: bool = False


guard_constructors(RegisterClass, OperandKind)

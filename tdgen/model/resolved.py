"""Resolved views of a target's instructions, for the matcher and the emitters.

``ResolvedInstruction``: a def with its classes, multiclass and template arguments
applied (operands as ``OperandRef`` s, parsed patterns, every field value);
``SelectionPattern``: one source/result pair the instruction selector tries. Built by
``tdgen.resolve``; reached through ``Target.instructions`` / ``selection_patterns()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..dag import Dag, Leaf, Node
from ..errors import Span
from .instructions import Defm, Instruction
from .record import pair_value


@dataclass(frozen=True)
class OperandRef:
    """One operand of a resolved instruction: ``kind`` is a register class or operand
    kind name (``VGPR_32``, ``i32imm``)."""

    name: str
    kind: str
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def tablegen(self) -> str:
        return f"{self.kind}:${self.name}"


@dataclass(frozen=True)
class ResolvedInstruction:
    """An instruction def with its class chain, multiclass and args applied."""

    name: str
    outs: tuple[OperandRef, ...]
    ins: tuple[OperandRef, ...]
    asm: str
    patterns: tuple[Dag, ...]
    fields: tuple[tuple[str, Any], ...]
    field_types: tuple[tuple[str, str], ...]
    classes: tuple[str, ...]
    declared_by: Instruction
    defm: Defm | None = None
    span: Span | None = field(default=None, compare=False, repr=False)
    implicit_defs: tuple[str, ...] = ()
    implicit_uses: tuple[str, ...] = ()

    def field(self, name: str, default: Any = None) -> Any:
        return pair_value(self.fields, name, default)

    @property
    def operands(self) -> tuple[OperandRef, ...]:
        return self.outs + self.ins

    @property
    def added_complexity(self) -> int:
        return int(self.field("AddedComplexity", 0) or 0)


@dataclass(frozen=True)
class SelectionPattern:
    """One pattern the instruction selector tries.

    ``src``: the DAG matched (the value of ``set`` for instruction patterns);
    ``dst``: result DAG, instruction name as operator (for instruction patterns:
    its ``ins`` as typed leaves ``Kind:$name``); ``results``: the ``set`` destinations
    (typed leaves) -- empty for ``Pat``. ``order``: record order; ``record``: name of the
    instruction or ``Pat`` it came from."""

    src: Node
    dst: Dag
    results: tuple[Leaf, ...]
    added_complexity: int
    order: int
    record: str
    span: Span | None = field(default=None, compare=False)
    instruction: str | None = None

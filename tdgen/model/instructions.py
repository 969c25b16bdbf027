"""Instruction records: classes, defs, multiclasses/defm, standalone ``Pat`` s, field values.

- ``InstrField(name, type, default=REQUIRED)``, ``Param(name, type)``, ``Ref(name)``,
  ``Code(text)``: typed fields, template arguments and values of a class;
- ``InstrClass(name, params, parent, parent_args, fields, lets)``, ``Instruction(name,
  cls, args, outs, ins, asm, pattern, lets)``, ``Multiclass(name, params, defs)``,
  ``Defm(name, multiclass, args)``, ``Pat(src, dst, added_complexity=0)``;
- ``INSTRUCTION_FIELD_NAMES`` / ``BASE_FIELDS``: the TableGen ``Instruction`` fields a
  spec may set; ``value_text``: a field value as TableGen text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..types import ValueType
from .record import Record, guard_constructors, pair_value
from .semantics import Semantics


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class InstrField:
    """A typed field declared by a class; ``default`` REQUIRED means a def must set it."""

    name: str
    type: str
    default: Any = REQUIRED


@dataclass(frozen=True)
class Param:
    """A template argument of a class or multiclass (``string opName``)."""

    name: str
    type: str
    default: Any = REQUIRED


@dataclass(frozen=True)
class Ref:
    """A value referring to a template argument by name."""

    name: str


@dataclass(frozen=True)
class Code:
    """A raw TableGen expression as a field value (emitted verbatim)."""

    text: str


# TableGen's Instruction fields a spec may set, with their TableGen types and defaults
# (None = left unset '?'). Spec names outs/ins/asm/pattern map to the real field names.
INSTRUCTION_FIELD_NAMES = {
    "outs": "OutOperandList",
    "ins": "InOperandList",
    "asm": "AsmString",
    "pattern": "Pattern",
}
BASE_FIELDS: dict[str, tuple[str, Any]] = {
    "Namespace": ("string", None),
    "Size": ("int", 0),
    "isCommutable": ("bit", 0),
    "isConvergent": ("bit", 0),
    "isPseudo": ("bit", 0),
    "isCodeGenOnly": ("bit", 0),
    "isAsCheapAsAMove": ("bit", 0),
    "isReMaterializable": ("bit", 0),
    "isMoveImm": ("bit", 0),
    "isBranch": ("bit", 0),
    "isTerminator": ("bit", 0),
    "isBarrier": ("bit", 0),
    "isReturn": ("bit", 0),
    "mayLoad": ("bit", None),
    "mayStore": ("bit", None),
    "hasSideEffects": ("bit", None),
    "AddedComplexity": ("int", 0),
    "Constraints": ("string", ""),
    "DecoderNamespace": ("string", ""),
    "usesCustomInserter": ("bit", 0),
}


def _is_dag_field(name: str) -> bool:
    return name in ("outs", "ins", "pattern")


@dataclass(frozen=True)
class InstrClass(Record):
    """``class name<params> : parent<parent_args> { fields; lets }`` over Instruction."""

    name: str
    params: tuple[Param, ...] = ()
    parent: "InstrClass | None" = None
    parent_args: tuple[Any, ...] = ()
    fields: tuple[InstrField, ...] = ()
    lets: tuple[tuple[str, Any], ...] = ()
    implicit_defs: tuple[str, ...] | None = None
    implicit_uses: tuple[str, ...] | None = None
    semantics: Semantics | None = None  # what it does on a wave (tdgen.model.semantics)

    def chain(self) -> tuple["InstrClass", ...]:
        """This class and its ancestors, outermost (root) first."""
        out: list[InstrClass] = []
        c: InstrClass | None = self
        while c is not None:
            out.append(c)
            c = c.parent
        return tuple(reversed(out))

    def let(self, name: str, default: Any = None) -> Any:
        return pair_value(self.lets, name, default)


@dataclass(frozen=True)
class Instruction(Record):
    """``def name : cls<args> { let ... }`` -- one machine instruction.

    ``outs``/``ins`` are TableGen dag text (``"(outs VGPR_32:$vdst)"``), ``pattern`` a
    DAG text or a tuple of them; any may come from the class instead."""

    name: str
    cls: InstrClass | None = None
    args: tuple[Any, ...] = ()
    outs: str | None = None
    ins: str | None = None
    asm: str | None = None
    pattern: str | tuple[str, ...] | None = None
    lets: tuple[tuple[str, Any], ...] = ()
    implicit_defs: tuple[str, ...] | None = None
    implicit_uses: tuple[str, ...] | None = None
    semantics: Semantics | None = None  # what it does on a wave (tdgen.model.semantics)

    def let(self, name: str, default: Any = None) -> Any:
        return pair_value(self.lets, name, default)


@dataclass(frozen=True)
class Multiclass(Record):
    """``multiclass name<params> { def suffix : ...; }``; ``defs`` are Instruction
    templates whose ``name`` is the suffix appended to the defm name."""

    name: str
    params: tuple[Param, ...]
    defs: tuple[Instruction, ...]


@dataclass(frozen=True)
class Defm(Record):
    """``defm name : multiclass<args>``."""

    name: str
    multiclass: Multiclass
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Pat(Record):
    """``def : Pat<src, dst>`` with ``let AddedComplexity = added_complexity``."""

    src: str
    dst: str
    added_complexity: int = 0
    name: str | None = None


def value_text(v: Any) -> str:
    """A field value as TableGen text (for emitters)."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, Ref):
        return v.name
    if isinstance(v, Code):
        return v.text
    if isinstance(v, ValueType):
        return v.name
    if v is None:
        return "?"
    name = getattr(v, "name", None)
    if isinstance(name, str):
        return name
    raise TypeError(f"no TableGen text for {v!r}")


guard_constructors(InstrClass, Instruction, Multiclass, Defm, Pat)

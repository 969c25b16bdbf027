"""Intrinsic records: ``Intrinsic``, its properties (``IntrNoMem``, ``ImmArg(1)`` ...) and names.

``Intrinsic(name, results, params, properties, divergence, clang_builtin)``: ``name`` is
the TableGen name ``int_<prefix>_...``; ``ir_name`` (``llvm.<prefix>....``),
``enum_name`` (``Intrinsic::<prefix>_...``) and ``target_prefix`` are derived.
``ir_name_of`` / ``tablegen_name_of`` / ``enum_name_of`` convert between the spellings.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..hw import DivergenceKind
from ..types import IntrinsicType
from .record import Record, guard_constructors

RET_INDEX = -1  # IntrProperty.arg for properties of the return value (RetIndex)


@dataclass(frozen=True)
class IntrProperty:
    """An intrinsic property; ``arg`` is the parameter index for ImmArg/NoCapture/...
    (``ArgIndex<arg>``), or ``RET_INDEX`` for the return value (``RetIndex``)."""

    name: str
    arg: int | None = None

    @property
    def tablegen(self) -> str:
        if self.arg is None:
            return self.name
        if self.arg == RET_INDEX:
            return f"{self.name}<RetIndex>"
        return f"{self.name}<ArgIndex<{self.arg}>>"

    def __str__(self) -> str:
        return self.tablegen


IntrNoMem = IntrProperty("IntrNoMem")
IntrReadMem = IntrProperty("IntrReadMem")
IntrWriteMem = IntrProperty("IntrWriteMem")
IntrArgMemOnly = IntrProperty("IntrArgMemOnly")
IntrInaccessibleMemOnly = IntrProperty("IntrInaccessibleMemOnly")
IntrConvergent = IntrProperty("IntrConvergent")
IntrSpeculatable = IntrProperty("IntrSpeculatable")
IntrWillReturn = IntrProperty("IntrWillReturn")
IntrNoCallback = IntrProperty("IntrNoCallback")
IntrNoFree = IntrProperty("IntrNoFree")
IntrNoSync = IntrProperty("IntrNoSync")
IntrHasSideEffects = IntrProperty("IntrHasSideEffects")
IntrNoReturn = IntrProperty("IntrNoReturn")
IntrCold = IntrProperty("IntrCold")

INTR_PROPERTIES = {
    p.name: p
    for p in (
        IntrNoMem, IntrReadMem, IntrWriteMem, IntrArgMemOnly, IntrInaccessibleMemOnly,
        IntrConvergent, IntrSpeculatable, IntrWillReturn, IntrNoCallback, IntrNoFree,
        IntrNoSync, IntrHasSideEffects, IntrNoReturn, IntrCold,
    )
}


def ImmArg(index: int) -> IntrProperty:
    """``ImmArg<ArgIndex<index>>``: operand ``index`` (0-based over the params) must be
    an immediate."""
    return IntrProperty("ImmArg", index)


def NoUndef(index: int = RET_INDEX) -> IntrProperty:
    """``NoUndef<RetIndex>`` (default) or ``NoUndef<ArgIndex<index>>``."""
    return IntrProperty("NoUndef", index)


def NoCapture(index: int) -> IntrProperty:
    return IntrProperty("NoCapture", index)


def ReadOnly(index: int) -> IntrProperty:
    return IntrProperty("ReadOnly", index)


def ir_name_of(tablegen_name: str) -> str:
    """``int_dslike_shfl_idx_i32`` -> ``llvm.dslike.shfl.idx.i32``."""
    assert tablegen_name.startswith("int_")
    return "llvm." + tablegen_name[4:].replace("_", ".")


def tablegen_name_of(ir_name: str) -> str:
    """``llvm.dslike.shfl.idx.i32`` -> ``int_dslike_shfl_idx_i32``."""
    assert ir_name.startswith("llvm.")
    return "int_" + ir_name[5:].replace(".", "_")


def enum_name_of(ir_name: str) -> str:
    """``llvm.nvvm.shfl.sync.idx.i32`` -> ``Intrinsic::nvvm_shfl_sync_idx_i32``."""
    return "Intrinsic::" + ir_name[5:].replace(".", "_")


@dataclass(frozen=True)
class Intrinsic(Record):
    """An LLVM intrinsic declared by the target (see module docstring)."""

    name: str
    results: tuple[IntrinsicType, ...] = ()
    params: tuple[IntrinsicType, ...] = ()
    properties: tuple[IntrProperty, ...] = ()
    divergence: DivergenceKind = DivergenceKind.FOLLOWS_OPERANDS
    clang_builtin: str | None = None
    doc: str = ""
    default_attrs: bool = False

    @property
    def ir_name(self) -> str:
        return ir_name_of(self.name)

    @property
    def enum_name(self) -> str:
        """C++ enumerator: ``Intrinsic::dslike_shfl_idx_i32``."""
        return "Intrinsic::" + self.name[4:]

    @property
    def target_prefix(self) -> str:
        return self.name.split("_")[1] if self.name.count("_") >= 1 else ""

    @property
    def has_chain(self) -> bool:
        """Whether SelectionDAG uses INTRINSIC_W_CHAIN / INTRINSIC_VOID: the call may
        touch memory (no IntrNoMem) or has side effects (IntrHasSideEffects drops
        ``memory(none)`` even with IntrNoMem, as llvm-tblgen-19 emits it)."""
        return IntrNoMem not in self.properties or IntrHasSideEffects in self.properties

    @property
    def is_overloaded(self) -> bool:
        return any(t.is_overloaded for t in self.results + self.params)

    def has(self, prop: IntrProperty) -> bool:
        return prop in self.properties


guard_constructors(Intrinsic)

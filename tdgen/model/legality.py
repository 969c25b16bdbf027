"""The target's lowering tables: what the constructor of a backend's ``<NS>ISelLowering``
says with ``addRegisterClass``, ``setOperationAction`` / ``AddPromotedToType``,
``setLoadExtAction``, ``setTruncStoreAction`` and ``setBooleanContents``, as data.

- ``RegisterFor(vt, register_class)``: ``addRegisterClass(MVT::vt, &NS::RCRegClass)``; a
  type with a register class is a *legal type* (TargetLoweringBase::isTypeLegal), every
  other one is legalized by the DAG type legalizer (promoted, expanded, split, scalarized).
- ``OperationAction(ops, types, action, promote_to=None, lowering="", doc="")``:
  ``setOperationAction({ISD::X, ...}, {MVT::Y, ...}, action)`` with ``action`` one of
  ``Legal`` / ``Promote`` / ``Expand`` / ``Custom`` / ``LibCall``; ``promote_to`` is
  ``AddPromotedToType`` (Promote only); ``lowering`` names the C++ function a ``Custom``
  entry stands for (``LowerCTLZ_CTTZ``), whose executable model is the target's
  ``TargetHooks.legalize`` entry of the opcode (tdgen/hooks.py).
- ``LoadExtAction(exts, value_types, memory_types, action)``: ``setLoadExtAction``
  (``EXTLOAD`` / ``SEXTLOAD`` / ``ZEXTLOAD``); ``TruncStoreAction(value_type,
  memory_type, action)``: ``setTruncStoreAction``.
- ``Legality(register_classes, operations, load_ext, trunc_store, boolean_contents,
  boolean_vector_contents)``: the whole table, listed in ``Target(legality=...)``;
  ``action(op, vt)`` answers TargetLoweringBase::getOperationAction for a legal type
  (the last entry naming the pair wins, as repeated calls do in C++).

Where the model stops: TargetLoweringBase::initActions' own defaults (the operations it
marks Expand for every type before the target's constructor runs) are not modelled: an
operation the table does not name is Legal on a legal type. Condition-code actions
(``setCondCodeAction``), indexed load/store actions and libcall names are not modelled.
Opcode names are LLVM 19's ``ISD::`` names (``tdgen.model.isd_opcodes``), checked when
the spec is loaded (``tdgen.check.legality``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Final

from ..types import ValueType
from .record import Record, guard_constructors
from .registers import RegisterClass

LEGALIZE_ACTIONS: Final = ("Legal", "Promote", "Expand", "LibCall", "Custom")
LOAD_EXTENSIONS: Final = ("EXTLOAD", "SEXTLOAD", "ZEXTLOAD")
BOOLEAN_CONTENTS: Final = ("UndefinedBooleanContent", "ZeroOrOneBooleanContent",
                           "ZeroOrNegativeOneBooleanContent")


@dataclass(frozen=True)
class RegisterFor(Record):
    """``addRegisterClass(MVT::<vt>, &<NS>::<register_class>RegClass)``."""

    vt: ValueType
    # a class the spec declares; or the name of a backend class that holds no registers
    # the model allocates (AMDGPU's VReg_1, the lane-mask pseudo class of i1)
    register_class: RegisterClass | str


@dataclass(frozen=True)
class OperationAction(Record):
    """``setOperationAction({ISD::<op>...}, {MVT::<vt>...}, <action>)`` (and, for
    Promote with ``promote_to``, ``AddPromotedToType(ISD::<op>, MVT::<vt>, MVT::<to>)``).
    ``ops`` are ISD names without the namespace (``"ADD"``)."""

    ops: tuple[str, ...]
    types: tuple[ValueType, ...]
    action: str
    promote_to: ValueType | None = None
    lowering: str = ""
    doc: str = ""


@dataclass(frozen=True)
class LoadExtAction(Record):
    """``setLoadExtAction({ISD::<ext>...}, {MVT::<value>...}, {MVT::<memory>...}, <action>)``."""

    exts: tuple[str, ...]
    value_types: tuple[ValueType, ...]
    memory_types: tuple[ValueType, ...]
    action: str


@dataclass(frozen=True)
class TruncStoreAction(Record):
    """``setTruncStoreAction(MVT::<value_type>, MVT::<memory_type>, <action>)``."""

    value_type: ValueType
    memory_type: ValueType
    action: str


@dataclass(frozen=True)
class Legality(Record):
    """A target's lowering tables (see the module docstring)."""

    register_classes: tuple[RegisterFor, ...] = ()
    operations: tuple[OperationAction, ...] = ()
    load_ext: tuple[LoadExtAction, ...] = ()
    trunc_store: tuple[TruncStoreAction, ...] = ()
    boolean_contents: str = "UndefinedBooleanContent"
    boolean_vector_contents: str = "UndefinedBooleanContent"

    @cached_property
    def legal_types(self) -> dict[str, str]:
        """Value type name -> the name of its register class (isTypeLegal's types)."""
        return {r.vt.name: getattr(r.register_class, "name", r.register_class) for r in self.register_classes
                if isinstance(r.vt, ValueType)}

    @cached_property
    def actions(self) -> dict[tuple[str, str], tuple[str, str | None, str]]:
        """(ISD name, value type name) -> (action, promoted-to type name or None,
        lowering name), the last entry naming the pair winning."""
        out: dict[tuple[str, str], tuple[str, str | None, str]] = {}
        for e in self.operations:
            to = e.promote_to.name if isinstance(e.promote_to, ValueType) else None
            for op in e.ops:
                for vt in e.types:
                    if isinstance(vt, ValueType):
                        out[(op, vt.name)] = (e.action, to, e.lowering)
        return out

    def is_type_legal(self, vt: str) -> bool:
        return vt in self.legal_types

    def action(self, op: str, vt: str) -> str:
        """getOperationAction(ISD::<op>, MVT::<vt>): the table's entry, else Legal on a
        legal type; on a type that is not legal, what the type legalizer does first
        (``Promote`` / ``Expand`` by type, see ``patterns.dag.legalize_types``)."""
        hit = self.actions.get((op, vt))
        if hit is not None:
            return hit[0]
        return "Legal"

    def promoted_type(self, op: str, vt: str) -> str | None:
        """AddPromotedToType's type of (op, vt), or None (the next legal type up)."""
        hit = self.actions.get((op, vt))
        return hit[1] if hit is not None else None

    @cached_property
    def load_ext_actions(self) -> dict[tuple[str, str, str], str]:
        """(extension, value type, memory type) -> action."""
        return {(x, v.name, m.name): e.action for e in self.load_ext for x in e.exts
                for v in e.value_types for m in e.memory_types
                if isinstance(v, ValueType) and isinstance(m, ValueType)}

    @cached_property
    def trunc_store_actions(self) -> dict[tuple[str, str], str]:
        """(value type, memory type) -> action."""
        return {(e.value_type.name, e.memory_type.name): e.action for e in self.trunc_store
                if isinstance(e.value_type, ValueType) and isinstance(e.memory_type, ValueType)}


guard_constructors(RegisterFor, OperationAction, LoadExtAction, TruncStoreAction, Legality)

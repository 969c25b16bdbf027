"""The C++ of a target's lowering tables (``Target.legality``): ``<NS>ISelLoweringActions.inc``,
a fragment for the body of the ``<NS>TargetLowering`` constructor, as LLVM backends write it
by hand: ``addRegisterClass``, ``computeRegisterProperties``, ``setBooleanContents``,
``setOperationAction`` / ``AddPromotedToType``, ``setLoadExtAction``,
``setTruncStoreAction``, in the table's order.

The fragment names the register classes ``&<NS>::<Class>RegClass`` (what
``<NS>GenRegisterInfo.inc`` declares) and the subtarget's register info as ``TRI``
(``computeRegisterProperties(TRI)``): the constructor that includes it defines both. A
target without a table gets no file. The template only formats what ``context`` builds."""

from __future__ import annotations

from .types import ValueType


def file_name(target) -> str:
    return f"{target.namespace}ISelLoweringActions.inc"


def contexts(target) -> list[tuple[str, str, dict]]:
    """``(file name, template, context)``: one file when the target has a table."""
    if target.legality is None:
        return []
    return [(file_name(target), "isellowering_actions.inc.j2", context(target))]


def mvt(vt: ValueType) -> str:
    """The C++ ``MVT::`` enumerator of a value type (``OtherVT`` is ``MVT::Other``)."""
    name = vt.name
    return "MVT::" + {"OtherVT": "Other", "untyped": "Untyped"}.get(name, name)


def _set(items: list[str]) -> str:
    return items[0] if len(items) == 1 else "{" + ", ".join(items) + "}"


def context(target) -> dict:
    lg = target.legality
    ns = target.namespace
    regs = [{"vt": mvt(r.vt), "rc": f"&{ns}::{getattr(r.register_class, 'name', r.register_class)}RegClass"}
            for r in lg.register_classes]
    ops = []
    for e in lg.operations:
        ops.append({
            "ops": _set([f"ISD::{o}" for o in e.ops]),
            "types": _set([mvt(t) for t in e.types]),
            "action": e.action,
            "promoted": [(f"ISD::{o}", mvt(t), mvt(e.promote_to)) for o in e.ops for t in e.types]
            if e.promote_to is not None else [],
            "comment": e.lowering,
        })
    # (LLVM 19's setLoadExtAction takes one value type per call)
    load_ext = [{"exts": _set([f"ISD::{x}" for x in e.exts]), "value": mvt(v),
                 "memory": _set([mvt(t) for t in e.memory_types]), "action": e.action}
                for e in lg.load_ext for v in e.value_types]
    trunc = [{"value": mvt(e.value_type), "memory": mvt(e.memory_type), "action": e.action} for e in lg.trunc_store]
    return {
        "namespace": ns,
        "registers": regs,
        "boolean": lg.boolean_contents,
        "boolean_vector": lg.boolean_vector_contents,
        "operations": ops,
        "load_ext": load_ext,
        "trunc_store": trunc,
    }

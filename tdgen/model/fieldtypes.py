"""The kind of value each field of a record takes, and the SpecError when it is given another.

``field_errors(rec)`` compares every field of a record with its annotation (read with
``typing.get_type_hints``: tuples of an element type, unions, classes) and words each
mismatch at the constructor call: ``expected a list of (SDNode), found ...``, with a hint
for a type written as a string (``use the object tdgen.types.i32, not its name``).
``found_text`` words a wrong value the same way for other constructors' messages.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Union

from ..errors import SpecError, expected
from ..types import IntrinsicType, ValueType

_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    h = _HINTS.get(cls)
    if h is None:
        import typing

        h = typing.get_type_hints(cls)
        _HINTS[cls] = h
    return h


def _describe_type(tp: Any) -> str:
    import types as _t
    import typing

    origin = typing.get_origin(tp)
    if tp is Any:
        return "any value"
    if tp is type(None):
        return "None"
    if origin in (Union, _t.UnionType):
        return " or ".join(_describe_type(a) for a in typing.get_args(tp))
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            inner = typing.get_args(args[0])
            if typing.get_origin(args[0]) is tuple and len(inner) == 2 and inner[0] is str:
                return "a dict (name -> value)"
            return f"a list of ({_describe_type(args[0])})"
        return "a pair"
    if isinstance(tp, type):
        return {"str": "a string", "int": "an integer", "bool": "a bool"}.get(tp.__name__, tp.__name__)
    return str(tp)


def _matches(v: Any, tp: Any) -> bool:
    import types as _t
    import typing

    if tp is Any:
        return True
    origin = typing.get_origin(tp)
    if origin in (Union, _t.UnionType):
        return any(_matches(v, a) for a in typing.get_args(tp))
    if origin is tuple:
        if not isinstance(v, tuple):
            return False
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_matches(x, args[0]) for x in v)
        return len(v) == len(args) and all(_matches(x, a) for x, a in zip(v, args))
    if origin is not None:
        return isinstance(v, origin)
    if tp is type(None):
        return v is None
    if isinstance(tp, type):
        if tp is int:  # (a bool is no integer here: TableGen reads True as an undefined name)
            return isinstance(v, int) and not isinstance(v, bool)
        return isinstance(v, tp)
    return True


def found_text(v: Any) -> str:
    if isinstance(v, tuple):
        bad = ", ".join(sorted({type(x).__name__ for x in v}))
        return f"a list of ({bad})" if v else "an empty list"
    if isinstance(v, str):
        return f"'{v}'"
    name = getattr(v, "name", None)
    return f"{type(v).__name__} {name}" if isinstance(name, str) else f"{type(v).__name__} {v!r}"


def field_errors(rec: Any) -> list[SpecError]:
    """Every field of ``rec`` holding the wrong kind of value, as SpecErrors at the
    constructor call (one per field, in field order)."""
    hints = _hints(type(rec))
    errs: list[SpecError] = []
    for f in fields(rec):
        if f.name == "span":
            continue
        tp = hints.get(f.name, Any)
        v = getattr(rec, f.name)
        if not _matches(v, tp):
            name = getattr(rec, "name", None)
            found, index = found_text(v), _bad_item(v, tp)
            if index is not None and isinstance(v[index], tuple):
                found = (f"a list inside the list at item {index} ({found_text(v[index])}): list the records "
                         "themselves (unpack an inner list with *)")
            elif index is not None:
                notes = [f"item {index}", _type_name_hint(v[index], tp)]
                found = f"{found_text(v[index])} (" + "; ".join(n for n in notes if n) + ")"
            elif not _is_list_type(tp) and _type_name_hint(v, tp):
                found += f" ({_type_name_hint(v, tp)})"
            errs.append(SpecError(
                rec.field_span(f.name, index)[0],
                expected(_describe_type(tp), found),
                record=name if isinstance(name, str) else type(rec).__name__,
                field=f.name,
            ))
    return errs


def _is_list_type(tp: Any) -> bool:
    import typing

    return typing.get_origin(tp) is tuple


def _leaf_types(tp: Any) -> set[Any]:
    """The non-container types a field type admits (list element types included)."""
    import types as _t
    import typing

    origin = typing.get_origin(tp)
    if origin in (Union, _t.UnionType) or origin is tuple:
        out: set[Any] = set()
        for a in typing.get_args(tp):
            if a is not Ellipsis:
                out |= _leaf_types(a)
        return out
    return {tp}


def _type_name_hint(v: Any, tp: Any) -> str:
    """For a type written as a string (``"i32"``, ``"llvm_i32_ty"``) where the type
    object belongs: which object to use, or the nearest known name."""
    if not isinstance(v, str):
        return ""
    from ..types import INTRINSIC_TYPES, VALUE_TYPES

    wants = _leaf_types(tp)
    table: dict[str, Any] = {}
    if IntrinsicType in wants:
        table.update(INTRINSIC_TYPES)
    if ValueType in wants:
        table.update(VALUE_TYPES)
    if not table:
        return ""
    if v in table:
        return f"use the object tdgen.types.{v}, not its name"
    if IntrinsicType in wants and v in VALUE_TYPES:
        same = sorted(t.tablegen for t in INTRINSIC_TYPES.values() if t.vt is not None and t.vt.name == v)
        if same:
            return f"use the intrinsic type tdgen.types.{same[0]}"
    import difflib

    near = difflib.get_close_matches(v, sorted(table), n=1)
    return f"no such type in tdgen.types, nearest: {near[0]}" if near else "no such type in tdgen.types"


def _bad_item(v: Any, tp: Any) -> int | None:
    """The index of the first wrong element when ``tp`` is a list type that ``v`` is a
    list for (None otherwise)."""
    import types as _t
    import typing

    if not isinstance(v, tuple):
        return None
    cands = typing.get_args(tp) if typing.get_origin(tp) in (Union, _t.UnionType) else (tp,)
    for c in cands:
        args = typing.get_args(c)
        if typing.get_origin(c) is tuple and len(args) == 2 and args[1] is Ellipsis:
            for i, x in enumerate(v):
                if not _matches(x, args[0]):
                    return i
    return None

"""The base of every DSL record: where it was declared, frozen fields, construction errors.

- ``Record``: remembers its ``span`` (file:line:col of the constructor call, captured
  from the call stack; excluded from ``==``), stores lists as tuples and dicts as tuples
  of ``(key, value)`` pairs (so records compare with ``==`` and hash), and checks the
  kind of every field at construction (``tdgen.model.fieldtypes``).
- Construction errors: a constructor given a value of the wrong kind, an unknown
  keyword or a missing required argument raises a ``SpecError`` at the call; inside
  ``collecting_construction_errors`` (while ``tdgen.spec.load_target`` runs a spec) it
  records its errors instead and returns the record marked invalid (``is_invalid``).
  ``guard_constructors`` wraps the generated ``__init__`` of each record class for the
  argument mistakes.
- ``parse_field``: DAG text stored in a record's field, parsed with spans in the spec.
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field, fields, replace
from typing import Any, Iterator

from ..dag import Leaf, Node
from ..errors import ErrorList, ParseError, Span, SpecError, expected
from ..srcpos import caller_span, value_span
from .fieldtypes import field_errors


def _freeze(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, tuple):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple((k, _freeze(x)) for k, x in v.items())
    if isinstance(v, (set, frozenset)):
        return frozenset(v)
    return v


@dataclass(frozen=True)
class Record:
    """Base of every declaration: remembers its span, freezes lists/dicts."""

    span: Span | None = field(default=None, compare=False, repr=False, kw_only=True)

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name == "span":
                continue
            v = getattr(self, f.name)
            fv = _freeze(v)
            if fv is not v:
                object.__setattr__(self, f.name, fv)
        if self.span is None:
            object.__setattr__(self, "span", caller_span())
        report_construction_errors(self, field_errors(self))

    @property
    def kind(self) -> str:
        return type(self).__name__

    def field_span(self, name: str, index: int | None = None) -> tuple[Span | None, bool]:
        """Where argument ``name`` of this record's constructor call is (see srcpos)."""
        names = [f.name for f in fields(self) if f.name != "span"]
        pos = names.index(name) if name in names else None
        return value_span(self.span, name, index=index, positional=pos)


# ------------------------------------------------------- construction errors

# While ``tdgen.spec.load_target`` runs a spec, the list its constructors report into.
_SINK: contextvars.ContextVar[list[SpecError] | None] = contextvars.ContextVar("tdgen_construction_errors", default=None)


@contextlib.contextmanager
def collecting_construction_errors() -> Iterator[list[SpecError]]:
    """Within this context a malformed record does not raise: its constructor adds its
    SpecErrors to the yielded list and returns the record marked invalid
    (``is_invalid``), so loading goes on and reports every error of the spec together.
    Outside it (records built from Python code) constructors raise at once."""
    errs: list[SpecError] = []
    token = _SINK.set(errs)
    try:
        yield errs
    finally:
        _SINK.reset(token)


def is_invalid(rec: Any) -> bool:
    """Whether ``rec`` was built with errors inside ``collecting_construction_errors``."""
    d = getattr(rec, "__dict__", None)
    return bool(d and d.get("_invalid"))


# Fields a constructor call left out (filled with None so the record exists): their
# type errors repeat the "missing argument" error and are dropped.
_FILLED: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("tdgen_filled_fields", default=frozenset())


def report_construction_errors(rec: Any, errs: list[SpecError]) -> None:
    """Raise ``errs`` (outside a loading context) or record them and mark ``rec`` invalid."""
    filled = _FILLED.get()
    if filled:
        errs = [e for e in errs if e.field not in filled]
    if not errs:
        return
    sink = _SINK.get()
    if sink is None:
        raise errs[0] if len(errs) == 1 else ErrorList(errs)
    sink.extend(errs)
    if getattr(rec, "__dict__", None) is not None:
        rec.__dict__["_invalid"] = True


def pair_value(pairs: tuple, key: str, default: Any = None) -> Any:
    """The value of ``key`` in a tuple of ``(key, value)`` pairs (a frozen dict)."""
    for k, v in pairs:
        if k == key:
            return v
    return default


# ------------------------------------------------------------- parsing fields


def rebase(node: Node, span: Span | None) -> Node:
    """``node`` with every span replaced by ``span`` (text not placed in the spec)."""
    if isinstance(node, Leaf):
        return replace(node, span=span)
    return replace(
        node,
        span=span,
        operator=replace(node.operator, span=span),
        args=tuple(rebase(a, span) for a in node.args),
    )


def parse_field(rec: Record, fname: str, text: str, index: int | None = None, record_name: str | None = None) -> Node:
    """Parse DAG text stored in field ``fname`` of ``rec`` with spans in the spec file.

    When the text is not a plain literal in the constructor call, every position maps
    to the field (or record) span."""
    from ..dag_parse import parse_pattern

    base, exact = rec.field_span(fname, index)
    rname = record_name or getattr(rec, "name", None)
    if exact:
        return parse_pattern(text, base, record=rname, field=fname)
    try:
        node = parse_pattern(text, None, record=rname, field=fname)
    except ParseError as e:
        raise ParseError(base, e.message, record=rname, field=fname) from None
    return rebase(node, base)


# ------------------------------------------------- constructor argument mistakes


def guard_constructors(*classes: type) -> None:
    """Guard the constructor of each record class (``_guard_init``); every module that
    defines record classes calls this for them once they are defined."""
    for cls in classes:
        _guard_init(cls)


def _guard_init(cls: type) -> None:
    """Wrap ``cls.__init__`` so a call with an unknown keyword, a missing required
    argument or too many positional arguments is a SpecError at the spec line (not a
    Python TypeError). Inside ``collecting_construction_errors`` the record is still
    built (known arguments kept, missing ones None), reported and marked invalid."""
    import inspect

    init = cls.__init__
    if getattr(init, "_tdgen_guarded", False):
        return
    sig = inspect.signature(init)
    params = [p for p in list(sig.parameters.values())[1:] if p.name != "span"]
    positional = [p.name for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    known = {p.name for p in sig.parameters.values()} - {"self"}
    required = [p.name for p in params if p.default is inspect.Parameter.empty]

    def __init__(self, *args: Any, **kw: Any) -> None:
        extra_kw = [k for k in kw if k not in known]
        given = set(positional[: len(args)]) | set(kw)
        twice = [k for k in kw if k in positional[: len(args)]]
        missing = [n for n in required if n not in given]
        if not (extra_kw or twice or missing or len(args) > len(positional)):
            init(self, *args, **kw)
            return
        span = kw.get("span") or caller_span()
        raw = kw.get("name", args[0] if args and positional and positional[0] == "name" else None)
        record = raw if isinstance(raw, str) else cls.__name__
        errs: list[SpecError] = []
        shown = ", ".join(positional)
        for k in extra_kw:
            import difflib

            near = difflib.get_close_matches(k, positional, n=1)
            hint = f" (nearest: '{near[0]}')" if near else ""
            errs.append(SpecError(span, expected(f"a field of {cls.__name__} ({shown})", f"'{k}'{hint}"), record=record, field=k))
        for k in twice:
            errs.append(SpecError(span, expected("one value", "it given by position and by keyword"), record=record, field=k))
        for k in missing:
            errs.append(SpecError(span, expected(f"a value (required by {cls.__name__})", "none"), record=record, field=k))
        if len(args) > len(positional):
            errs.append(SpecError(
                span, expected(f"at most {len(positional)} positional arguments ({shown})", len(args)), record=record
            ))
        if _SINK.get() is None:
            raise errs[0] if len(errs) == 1 else ErrorList(errs)
        kept = {k: v for k, v in kw.items() if k in known and k not in twice}
        kept.update({k: None for k in missing})
        kept.setdefault("span", span)
        token = _FILLED.set(frozenset(missing))
        try:
            init(self, *args[: len(positional)], **kept)
        finally:
            _FILLED.reset(token)
        report_construction_errors(self, errs)

    __init__._tdgen_guarded = True  # type: ignore[attr-defined]
    __init__.__wrapped__ = init  # type: ignore[attr-defined]
    __init__.__doc__ = init.__doc__
    cls.__init__ = __init__  # type: ignore[method-assign]

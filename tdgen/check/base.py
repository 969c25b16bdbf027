"""The state every check shares: the target, where problems go, and how records are visited.

``CheckerBase`` holds the target (``t``), the ``Diagnostics`` (``d``) and whether the
spec already has construction errors (``tolerant``: records marked invalid, and those
built on them, are skipped); ``err`` reports one ``SpecError``, ``each`` runs a check over
records; ``known_value_type`` / ``known_intrinsic_type`` tell a type of tdgen.types from
a made-up one. The checks of each kind of record are mixins of it (``tdgen.check.records``
...), put together by ``tdgen.check.checker.Checker``.
"""

from __future__ import annotations

from typing import Any

from ..errors import Diagnostics, Span, SpecError, TdgenError, expected
from ..model.invalid import depends_on_invalid
from ..model.target import Target
from ..types import VALUE_TYPES


def plural(n: int, word: str) -> str:
    """``1 operand``, ``2 operands``."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def known_intrinsic_type(t) -> bool:
    """One of tdgen.types' intrinsic types, an ``LLVMMatchType<N>`` or an
    ``LLVMQualPointerType<N>`` (as their constructors make them)."""
    from ..types import INTRINSIC_TYPES, LLVMMatchType, LLVMQualPointerType

    if INTRINSIC_TYPES.get(t.tablegen) == t:
        return True
    m = t.match
    if isinstance(m, int) and not isinstance(m, bool) and 0 <= m < 64 and t == LLVMMatchType(m):
        return True
    a = getattr(t, "addrspace", None)
    return isinstance(a, int) and not isinstance(a, bool) and 0 <= a < (1 << 24) and t == LLVMQualPointerType(a)


def known_value_type(vt) -> bool:
    """One of tdgen.types' value types (not a ValueType made up with another name)."""
    return VALUE_TYPES.get(getattr(vt, "name", None)) == vt


class CheckerBase:
    """The target being checked, where its problems go, and how records are visited."""

    def __init__(self, target: Target, diags: Diagnostics, *, tolerant: bool = False) -> None:
        self.t = target
        self.d = diags
        self.tolerant = tolerant

    def err(self, span: Span | None, message: str, record: str | None = None, field: str | None = None) -> None:
        self.d.add(SpecError(span, message, record=record, field=field))

    def each(self, records, check, *args) -> None:
        """``check(rec, *args)`` for every record; when tolerant, records depending on
        invalid ones are skipped and a crash on one record drops only that record."""
        for rec in records:
            if not self.tolerant:
                check(rec, *args)
                continue
            if depends_on_invalid(getattr(rec, "declared_by", rec)) or depends_on_invalid(getattr(rec, "defm", None)):
                continue
            try:
                check(rec, *args)
            except TdgenError as e:
                self.d.add(e)
            except Exception:  # noqa: BLE001 -- a knock-on of an invalid record
                continue

    def types_known(self) -> bool:
        """Whether every value type the type inference reads (register classes', operand
        kinds', profile constraints', intrinsics') is one of tdgen.types' (a made-up one is
        reported by the record's own check; the inference-based checks are then left out)."""
        got = self.__dict__.get("_types_known")
        if got is None:
            t = self.t
            vts = [vt for rc in t.register_classes for vt in rc.types] + [o.vt for o in t.operands]
            vts += [getattr(c, "vt") for p in t.emitted_profiles() for c in p.constraints if hasattr(c, "vt")]
            got = all(known_value_type(vt) for vt in vts) and all(
                getattr(ty, "tablegen", None) is not None and known_intrinsic_type(ty)
                for i in t.intrinsics for ty in (*i.results, *i.params))
            self.__dict__["_types_known"] = got
        return got

    def check_cpp_syntax(self, rec, fld: str, code: Any) -> None:
        """Predicate / transform C++ must parse (``tdgen.cppexpr.cpp_syntax_problem``)."""
        from ..cppexpr import cpp_syntax_problem

        if not isinstance(code, str) or not code.strip():
            return
        why = cpp_syntax_problem(code)
        if why is not None:
            self.err(rec.field_span(fld)[0], expected("C++ statements that parse", f"{why}"), rec.name, fld)

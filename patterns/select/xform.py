"""SDNodeXForms run on a matched constant: the immediate a result DAG's operand transform computes (``apply_xform``).

An SDNodeXForm in a result DAG (``(NegateImm $c)``, or an ImmLeaf's ``xform`` written in
by ``patterns.select.patsrc.promote_xforms``) runs its spec ``model``'s
``transform(N, cur)``, else its C++ code translated by ``tdgen.cppexpr``.
"""

from __future__ import annotations

from typing import Callable

from tdgen.cppexpr import compile_xform_code
from patterns.support.intops import to_signed

__all__ = ["XformConstant", "apply_xform"]

_CONSTANT_OPCODES = ("ISD::Constant", "ISD::TargetConstant")


class XformConstant:
    """What an SDNodeXForm model returns: ``cur.target_constant(value, vt)`` /
    ``cur.constant(value, vt)`` (an immediate operand either way)."""

    __slots__ = ("value", "vt")

    def __init__(self, value: int, vt: str = "i32"):
        self.value, self.vt = value, vt


class _XformCur:
    """The ``cur`` (CurDAG) an SDNodeXForm model is given."""

    @staticmethod
    def target_constant(value: int, vt: str = "i32") -> XformConstant:
        return XformConstant(value, vt)

    constant = target_constant


_XFORM_FNS: dict[tuple, Callable] = {}


def _bits_of(vt) -> int:
    return int(vt[1:]) if isinstance(vt, str) and vt[:1] == "i" and vt[1:].isdigit() else 64


def _xform_error(spec: tuple, want: str, found: str):
    from tdgen.errors import Span, SpecError, expected

    name, _node, _code, model, where = spec
    return SpecError(Span(*where) if where else None, expected(want, found), record=name,
                     field="model" if model is not None else "code")


def _xform_fn(spec: tuple) -> Callable:
    """``fn(node) -> int`` for an SDNodeXForm ``spec`` (name, node, code, model, (path,
    line, col) of the record): its ``model``'s ``transform(N, cur)``, else its code
    translated (``compile_xform_code``); tdgen.check makes sure one of them exists."""
    fn = _XFORM_FNS.get(spec)
    if fn is not None:
        return fn
    name, _node, code, model, _span = spec
    if model is not None:
        ns: dict = {}
        exec(compile(model, f"<{name}.model>", "exec"), ns)  # noqa: S102 - the spec's own model source
        transform = ns["transform"]

        def fn(n):
            try:
                res = transform(n, _XformCur)
            except Exception as e:  # noqa: BLE001 - a bug in the spec's model, reported at its record
                raise _xform_error(spec, "a model that runs", f"{type(e).__name__}: {e}") from None
            if isinstance(res, XformConstant):
                return to_signed(int(res.value), _bits_of(res.vt))
            if isinstance(res, int) and not isinstance(res, bool):
                return to_signed(res, _bits_of(n.vt))
            raise _xform_error(spec, "cur.target_constant(value, vt) from transform", repr(res))
    else:
        translated = compile_xform_code(code)
        if translated is None:  # (tdgen.check reports such a record; a model is required)
            raise _xform_error(spec, "code tdgen executes or a model", "neither")

        def fn(n):
            try:
                return translated(n.value, n.vt)[0]
            except (ArithmeticError, ValueError) as e:
                raise _xform_error(spec, f"a transform defined for the constant {n.value}",
                                   f"{type(e).__name__}: {e}") from None
    _XFORM_FNS[spec] = fn
    return fn


def apply_xform(spec: tuple, n) -> int:
    """The immediate SDNodeXForm ``spec`` makes of the matched constant node ``n`` (its
    value sign-normalized at the result type's width, as MIR prints an immediate).
    ``spec`` is a plain literal (name, node, code, model, (path, line, col) of the
    record), so selector code can carry it (patterns.select.isel)."""
    fn = _XFORM_FNS.get(spec)
    if fn is None:
        fn = _xform_fn(spec)
    if n.opcode not in _CONSTANT_OPCODES or n.value.__class__ is not int:
        raise _xform_error(spec, f"a constant operand ({spec[0]} takes '{spec[1]}' nodes)", n.opcode)
    return fn(n)

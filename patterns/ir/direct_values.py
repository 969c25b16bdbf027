"""The values the direct IR builder makes: spans, constants in opt's canonical spelling, cast checks.

Stage job: the small helpers of ``patterns/ir/reader_direct.py`` and
``patterns/ir/direct_body.py`` that build values without the generic constructors' cost
(a ``Span`` without the frozen dataclass's setattr, a ``Constant``'s fields as the
resolver computes them, its slot setters), and ``Bail``, the exception that sends a file
to the exact path.
"""

from __future__ import annotations

from typing import Any, Final

from tdgen.errors import Span

from patterns.ir.core import I1, Constant, IntType, PtrType, unsigned_value
from patterns.support.intops import to_signed


class Bail(Exception):
    """The input is outside the simple forms (or wrong): use the exact path."""


_new: Final = object.__new__


def new_span(path: str, line: int, col: int) -> Span:
    """``Span(path, line, col)`` without the frozen dataclass's per-field setattr."""
    s = _new(Span)
    d = s.__dict__
    d["path"] = path
    d["line"] = line
    d["col"] = col
    d["end_line"] = None
    d["end_col"] = None
    return s


def const_fields(ty, tok: str) -> tuple:
    """(text, kind, value) of the constant the resolver builds for ``ty tok`` (raises
    Bail where the resolver reports an error)."""
    c = tok[0]
    if c == "-" or c.isdigit():
        if type(ty) is not IntType:
            raise Bail
        v = to_signed(int(tok), ty.bits)
        if ty.bits == 1:
            return ("true" if v else "false", "int", v & 1)
        return (str(v), "int", v)
    if tok == "true" or tok == "false":
        if ty != I1:
            raise Bail
        return (tok, "int", 1 if tok == "true" else 0)
    if tok == "null":
        if type(ty) is not PtrType:
            raise Bail
        return ("null", "null", None)
    if tok == "zeroinitializer":
        if type(ty) is IntType:
            return ("false" if ty.bits == 1 else "0", "int", 0)
        if type(ty) is PtrType:
            return ("null", "null", None)
        raise Bail
    if tok == "undef" or tok == "poison":
        return (tok, tok, None)
    raise Bail


# The setters of Constant's slots (a frozen dataclass): calling them directly is cheaper
# than object.__setattr__, which looks each descriptor up first.
C_TYPE: Final = vars(Constant)["type"].__set__
C_TEXT: Final = vars(Constant)["text"].__set__
C_KIND: Final = vars(Constant)["kind"].__set__
C_VALUE: Final = vars(Constant)["value"].__set__
C_ELEMENTS: Final = vars(Constant)["elements"].__set__
C_U: Final = vars(Constant)["_u"].__set__


def const_entry(ty: Any, tok: str) -> tuple:
    """What ``const`` gives every constant ``ty tok``: (text, kind, value, type, the
    unsigned value ``Constant.__init__`` derives)."""
    text, kind, value = const_fields(ty, tok)
    return text, kind, value, ty, unsigned_value(ty, text, kind, value)


def cast_ok(op: str, s, d) -> bool:
    sc, dc = type(s), type(d)
    if op == "trunc":
        return sc is IntType and dc is IntType and s.bits > d.bits
    if op == "zext" or op == "sext":
        return sc is IntType and dc is IntType and s.bits < d.bits
    if op == "ptrtoint":
        return sc is PtrType and dc is IntType
    if op == "inttoptr":
        return sc is IntType and dc is PtrType
    if op == "addrspacecast":
        return sc is PtrType and dc is PtrType and s != d
    # bitcast between scalars of equal size, pointer-ness preserved
    if sc is PtrType or dc is PtrType:
        return sc is PtrType and dc is PtrType and s == d
    return False

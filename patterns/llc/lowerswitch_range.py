"""The range LowerSwitch assumes for a switch's condition: computeKnownBits' range met with LazyValueInfo's, as LLVM 19 does.

LLVM 19's LowerSwitch (``patterns.llc.lowerswitch``) bounds the value it switches on by
``ConstantRange::fromKnownBits(computeKnownBits(V), unsigned)`` intersected with
``LazyValueInfo::getConstantRange(V, switch)``; the bounds decide which leaf tests can
be shortened and whether the default is unreachable. Here (``condition_range``):

- the known bits are the engine's ValueTracking (``patterns.llc.valuetracking``; no
  dominator tree is given, as LowerSwitch gives none; ``llvm.assume`` facts are not
  read);
- LazyValueInfo is modelled as the range each value's definition gives: constants;
  the ``range(...)`` attribute of an argument or of a call's result; the
  ConstantRange rules of ``and``, ``or``, ``lshr``, ``udiv``, ``urem`` (no wrap
  flags involved), ``zext`` and ``sext``, over their operands' ranges made the same
  way; everything else is the full range.

Where LVI can be tighter than this (the result then differs from llc's: a bound wider
than LLVM's, so a leaf keeps a test LLVM drops, or a default kept reachable): LVI also
narrows a value on the CFG edges into the switch's block (a dominating ``br`` on
``icmp pred V, C``, a ``switch`` on V, ``and``/``or`` of such conditions, assumes);
it reads ``!range`` metadata of loads and calls, phis (the union of the incoming
edges' ranges), ``select``, ``trunc``, the other binary operators (``add``, ``sub``,
``mul``, ``shl``, ``ashr``, ``xor``, ``sdiv``, ``srem``, with their ``nuw``/``nsw``
flags) and the intrinsics ConstantRange knows (min/max, abs, ctlz, cttz, ctpop).
None of those are modelled.

A range is ``(lo, hi)``, half-open, unsigned, wrapping as ConstantRange's ``Lower`` and
``Upper`` (``lo == hi``: the full set when ``lo`` is the maximum, empty when 0).
"""

from __future__ import annotations

import re

from patterns.ir.core import Constant, IntType
from patterns.ir.function import Argument, Instruction
from patterns.support.intops import signed_of_unsigned


def full(bits: int) -> tuple:
    m = (1 << bits) - 1
    return m, m


def _empty() -> tuple:
    return 0, 0


def _is_full(r: tuple, bits: int) -> bool:
    return r[0] == r[1] == (1 << bits) - 1


def _is_empty(r: tuple) -> bool:
    return r[0] == r[1] == 0


def _non_empty(lo: int, hi: int, bits: int) -> tuple:
    m = (1 << bits) - 1
    lo &= m
    hi &= m
    return full(bits) if lo == hi else (lo, hi)


def _wrapped(r: tuple) -> bool:
    return r[0] > r[1]


def _size(r: tuple, bits: int) -> int:
    if _is_full(r, bits):
        return 1 << bits
    return (r[1] - r[0]) % (1 << bits)


def umin(r: tuple, bits: int) -> int:
    if _is_full(r, bits) or _wrapped(r) and r[1] != 0:
        return 0
    return r[0]


def umax(r: tuple, bits: int) -> int:
    m = (1 << bits) - 1
    if _is_full(r, bits) or _wrapped(r):
        return m
    return (r[1] - 1) & m


def smin(r: tuple, bits: int) -> int:
    """getSignedMin, as a signed int."""
    lo, hi = r
    smin_u = 1 << (bits - 1)
    if _is_full(r, bits) or (signed_of_unsigned(lo, bits) > signed_of_unsigned(hi, bits) and hi != smin_u):
        return -smin_u
    return signed_of_unsigned(lo, bits)


def smax(r: tuple, bits: int) -> int:
    """getSignedMax, as a signed int."""
    lo, hi = r
    if _is_full(r, bits) or signed_of_unsigned(lo, bits) > signed_of_unsigned(hi, bits):
        return (1 << (bits - 1)) - 1
    return signed_of_unsigned((hi - 1) & ((1 << bits) - 1), bits)


def from_known(zero: int, one: int, bits: int) -> tuple:
    """ConstantRange::fromKnownBits, unsigned."""
    m = (1 << bits) - 1
    if not (zero | one) & m:
        return full(bits)
    return _non_empty(one, (~zero & m) + 1, bits)


def to_known(r: tuple, bits: int) -> tuple:
    """ConstantRange::toKnownBits: the leading bits the unsigned minimum and maximum share."""
    m = (1 << bits) - 1
    if _is_full(r, bits):
        return 0, 0
    lo, hi = umin(r, bits), umax(r, bits)
    diff = (lo ^ hi).bit_length()
    keep = m & ~((1 << diff) - 1)
    return ~lo & keep, lo & keep


def _smallest(a: tuple, b: tuple, bits: int) -> tuple:
    return a if _size(a, bits) < _size(b, bits) else b


def intersect(a: tuple, b: tuple, bits: int) -> tuple:
    """ConstantRange::intersectWith (the smallest range preferred)."""
    if _is_empty(a) or _is_full(b, bits):
        return a
    if _is_empty(b) or _is_full(a, bits):
        return b
    if not _wrapped(a) and _wrapped(b):
        a, b = b, a
    (al, au), (bl, bu) = a, b
    if not _wrapped(a) and not _wrapped(b):
        if al < bl:
            if au <= bl:
                return _empty()
            return (bl, au) if au < bu else b
        if au < bu:
            return a
        return (al, bu) if al < bu else _empty()
    if _wrapped(a) and not _wrapped(b):
        if bl < au:
            if bu < au:
                return b
            if bu <= al:
                return bl, au
            return _smallest(a, b, bits)
        if bl < al:
            return _empty() if bu <= al else (al, bu)
        return b
    if bu < au:
        if bl < au:
            return _smallest(a, b, bits)
        if bl < al:
            return al, bu
        return b
    if bu <= al:
        return a if bl < al else (bl, au)
    return _smallest(a, b, bits)


# --- the LazyValueInfo model ------------------------------------------------------------
def _and(a: tuple, b: tuple, bits: int) -> tuple:
    za, oa = to_known(a, bits)
    zb, ob = to_known(b, bits)
    kb = from_known(za | zb, oa & ob, bits)
    return intersect(kb, _non_empty(0, min(umax(a, bits), umax(b, bits)) + 1, bits), bits)


def _or(a: tuple, b: tuple, bits: int) -> tuple:
    za, oa = to_known(a, bits)
    zb, ob = to_known(b, bits)
    kb = from_known(za & zb, oa | ob, bits)
    return intersect(kb, _non_empty(max(umin(a, bits), umin(b, bits)), 0, bits), bits)


def _lshr(a: tuple, b: tuple, bits: int) -> tuple:
    lo_b, hi_b = umin(b, bits), umax(b, bits)
    lo = 0 if hi_b >= bits else umin(a, bits) >> hi_b  # (APInt's lshr: 0 past the width)
    hi = 0 if lo_b >= bits else umax(a, bits) >> lo_b
    return _non_empty(lo, hi + 1, bits)


def _udiv(a: tuple, b: tuple, bits: int) -> tuple:
    if umax(b, bits) == 0:
        return _empty()
    lo = umin(a, bits) // umax(b, bits)
    d = umin(b, bits)
    if d == 0:
        d = b[0] if b[1] == 1 else 1
    return _non_empty(lo, umax(a, bits) // d + 1, bits)


def _urem(a: tuple, b: tuple, bits: int) -> tuple:
    if umax(b, bits) == 0:
        return _empty()
    if b[1] == (b[0] + 1) & ((1 << bits) - 1) and a[1] == (a[0] + 1) & ((1 << bits) - 1):
        return _non_empty(a[0] % b[0], a[0] % b[0] + 1, bits)
    if umax(a, bits) < umin(b, bits):
        return a
    return _non_empty(0, min(umax(a, bits), umax(b, bits) - 1) + 1, bits)


def _zext(r: tuple, sb: int, db: int) -> tuple:
    if _is_empty(r):
        return _empty()
    if _is_full(r, sb) or _wrapped(r):
        return (r[0] if r[1] == 0 else 0), 1 << sb
    return r


def _sext(r: tuple, sb: int, db: int) -> tuple:
    if _is_empty(r):
        return _empty()
    dm = (1 << db) - 1
    s_lo, s_hi = signed_of_unsigned(r[0], sb), signed_of_unsigned(r[1], sb)
    if _is_full(r, sb) or (s_lo > s_hi and r[1] != 1 << (sb - 1)):
        return (-(1 << (sb - 1))) & dm, 1 << (sb - 1)
    if r[1] == 1 << (sb - 1):
        return s_lo & dm, r[1]
    return s_lo & dm, s_hi & dm


_BINARY = {"and": _and, "or": _or, "lshr": _lshr, "udiv": _udiv, "urem": _urem}


def lvi_range(v, bits: int, depth: int = 0) -> tuple:
    """The range this model gives LazyValueInfo's answer for ``v`` (module docstring)."""
    if isinstance(v, Constant) and v._u is not None:
        return v._u, (v._u + 1) & ((1 << bits) - 1)
    if isinstance(v, Argument):
        return _range_attr(v.attr_text, bits)
    if not isinstance(v, Instruction) or depth > 8 or v.block is None:
        return full(bits)
    op = v.opcode
    if op == "call":
        return _range_attr(v.ret_attrs, bits)
    if op in _BINARY and len(v.operands) == 2:
        a = lvi_range(v.operands[0], bits, depth + 1)
        b = lvi_range(v.operands[1], bits, depth + 1)
        if _is_empty(a) or _is_empty(b):
            return _empty()
        return _BINARY[op](a, b, bits)
    if op in ("zext", "sext"):
        src = v.operands[0]
        if not isinstance(src.type, IntType):
            return full(bits)
        sb = src.type.bits
        r = lvi_range(src, sb, depth + 1)
        return _zext(r, sb, bits) if op == "zext" else _sext(r, sb, bits)
    return full(bits)


def _range_attr(attrs, bits: int) -> tuple:
    for a in attrs or ():
        m = _RANGE.fullmatch(a) if isinstance(a, str) else None
        if m is not None and int(m.group(1)) == bits:
            msk = (1 << bits) - 1
            return _non_empty(int(m.group(2)) & msk, int(m.group(3)) & msk, bits)
    return full(bits)


_RANGE = re.compile(r"range\(i(\d+) (-?\d+), (-?\d+)\)")


def condition_range(fn, cond) -> tuple:
    """(signed min, signed max) of the range LowerSwitch assumes for ``cond`` (module
    docstring)."""
    from patterns.llc.instsimplify_query import SimplifyQuery
    from patterns.llc.valuetracking import known_bits

    bits = cond.type.bits
    zero, one = known_bits(SimplifyQuery(fn, None, {}, {}), cond)
    r = intersect(from_known(zero, one, bits), lvi_range(cond, bits), bits)
    return smin(r, bits), smax(r, bits)


__all__ = ["condition_range", "intersect", "from_known", "lvi_range", "smin", "smax"]

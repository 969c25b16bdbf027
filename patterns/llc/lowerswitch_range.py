"""The range LowerSwitch assumes for a switch's condition: computeKnownBits' range met with LazyValueInfo's, as LLVM 19 does.

LLVM 19's LowerSwitch (``patterns.llc.lowerswitch``) bounds the value it switches on by
``ConstantRange::fromKnownBits(computeKnownBits(V), unsigned)`` intersected with
``LazyValueInfo::getConstantRange(V, switch)``; the bounds decide which leaf tests can
be shortened and whether the default is unreachable. Here (``condition_range``):

- the known bits are the engine's ValueTracking (``patterns.llc.valuetracking``; no
  dominator tree is given, as LowerSwitch gives none; ``llvm.assume`` facts are not
  read);
- LazyValueInfo (``_LVI``) is modelled as its block values: a value in the block that
  defines it has the range of its definition (constants; the ``range(...)`` attribute
  of a call's result; the ConstantRange rules of ``and``, ``or``, ``lshr``, ``udiv``,
  ``urem``, ``zext``, ``sext`` over their operands' block values; a phi: the union of
  its incoming values on their edges); an argument in the entry block has its
  ``range(...)`` attribute; elsewhere a value is the union over the block's incoming
  edges of its value at the end of the predecessor met with what the edge tells: a
  ``br`` on the value itself, on ``icmp pred V, C`` (either side; ``V + C1`` against
  C2 too), on ``xor c, true`` and on ``and``/``or`` of such conditions; a ``switch`` on
  the value (its case values, or for the default all but the other cases'). A block
  reached again while its value is being made (a cycle) makes it the full range, as
  in LVI.

Where LVI can be tighter than this (the result then differs from llc's: a bound wider
than LLVM's, so a leaf keeps a test LLVM drops, or a default kept reachable): compares
against a non-constant (LVI reads the other side's range), the other compare idioms of
getValueFromICmpCondition (masks, ``urem``, ``or``/``and`` operands), conditions on a
value computed from V (LVI folds them through V's users), ``llvm.assume`` and guards,
``!range`` metadata of loads and calls, ``select``, ``trunc``, the other binary
operators (``add``, ``sub``, ``mul``, ``shl``, ``ashr``, ``xor``, ``sdiv``, ``srem``,
with their ``nuw``/``nsw`` flags) and the intrinsics ConstantRange knows (min/max,
abs, ctlz, cttz, ctpop). None of those are modelled.

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


def _single(u: int, bits: int) -> tuple:
    m = (1 << bits) - 1
    return u & m, (u + 1) & m


def union(a: tuple, b: tuple, bits: int) -> tuple:
    """ConstantRange::unionWith (the smallest range preferred)."""
    if _is_full(a, bits) or _is_empty(b):
        return a
    if _is_full(b, bits) or _is_empty(a):
        return b
    if not _wrapped(a) and _wrapped(b):
        a, b = b, a
    (al, au), (bl, bu) = a, b
    m = (1 << bits) - 1
    if not _wrapped(a) and not _wrapped(b):
        if bu < al or au < bl:
            return _smallest((al, bu), (bl, au), bits)
        lo = bl if bl < al else al
        hi = bu if ((bu - 1) & m) > ((au - 1) & m) else au
        return full(bits) if lo == 0 and hi == 0 else (lo, hi)
    if not _wrapped(b):
        if bu <= au or bl >= al:
            return a
        if bl <= au and al <= bu:
            return full(bits)
        if au < bl and bu < al:
            return _smallest((al, bu), (bl, au), bits)
        if au < bl and al <= bu:
            return bl, au
        return al, bu
    if bl <= au or al <= bu:
        return full(bits)
    return (bl if bl < al else al), (bu if bu > au else au)


def _region(pred: str, c: int, bits: int) -> tuple:
    """ConstantRange::makeExactICmpRegion(pred, {c}): the values x with ``x pred c``."""
    m = (1 << bits) - 1
    smin = 1 << (bits - 1)
    if pred == "eq":
        return _single(c, bits)
    if pred == "ne":
        return _non_empty(c + 1, c, bits) if bits > 0 else full(bits)
    if pred == "ult":
        return _empty() if c == 0 else (0, c)
    if pred == "ule":
        return _non_empty(0, c + 1, bits)
    if pred == "ugt":
        return _empty() if c == m else ((c + 1) & m, 0)
    if pred == "uge":
        return _non_empty(c, 0, bits)
    if pred == "slt":
        return _empty() if c == smin else (smin, c)
    if pred == "sle":
        return _non_empty(smin, c + 1, bits)
    if pred == "sgt":
        return _empty() if c == smin - 1 else ((c + 1) & m, smin)
    return _non_empty(c, smin, bits)  # sge


_SWAP = {"eq": "eq", "ne": "ne", "ult": "ugt", "ule": "uge", "ugt": "ult", "uge": "ule", "slt": "sgt", "sle": "sge",
         "sgt": "slt", "sge": "sle"}
_NOT = {"eq": "ne", "ne": "eq", "ult": "uge", "ule": "ugt", "ugt": "ule", "uge": "ult", "slt": "sge", "sle": "sgt",
        "sgt": "sle", "sge": "slt"}


def _int_const(v):
    return v._u if isinstance(v, Constant) and v._u is not None else None


def _add_offset(x, v):
    """C when ``x`` is ``add v, C``."""
    if isinstance(x, Instruction) and x.opcode == "add" and len(x.operands) == 2 and x.operands[0] is v:
        return _int_const(x.operands[1])
    return None


class _LVI:
    """LazyValueInfo's block values, as far as modelled (module docstring)."""

    def __init__(self, fn) -> None:
        self.fn = fn
        self.cache: dict = {}
        self.busy: set = set()
        self.preds: dict = {b: [] for b in fn.blocks}
        for b in fn.blocks:
            t = b.instructions[-1] if b.instructions else None
            if t is not None and t.opcode in ("br", "switch", "callbr"):
                for s in t.targets:
                    if s in self.preds:
                        self.preds[s].append(b)

    def block_value(self, v, bb, bits: int) -> tuple:
        c = _int_const(v)
        if c is not None:
            return _single(c, bits)
        if isinstance(v, Instruction) and v.block is bb:
            key = (v, bb)
            if key in self.cache:
                return self.cache[key]
            if key in self.busy:
                return full(bits)
            self.busy.add(key)
            r = self.definition(v, bb, bits)
            self.busy.discard(key)
            self.cache[key] = r
            return r
        if not isinstance(v, (Instruction, Argument)):
            return full(bits)
        if bb is self.fn.blocks[0]:
            return _range_attr(v.attr_text, bits) if isinstance(v, Argument) else full(bits)
        key = (v, bb)
        if key in self.cache:
            return self.cache[key]
        if key in self.busy:
            return full(bits)  # (a cycle: LVI takes the value as overdefined)
        self.busy.add(key)
        r = _empty()
        for p in self.preds.get(bb, ()):
            r = union(r, self.edge_value(v, p, bb, bits), bits)
            if _is_full(r, bits):
                break
        self.busy.discard(key)
        self.cache[key] = r
        return r

    def edge_value(self, v, p, bb, bits: int) -> tuple:
        c = _int_const(v)
        if c is not None:
            return _single(c, bits)
        local = self.edge_local(v, p, bb, bits)
        if local is not None and local[1] == (local[0] + 1) & ((1 << bits) - 1) and not _is_full(local, bits):
            return local
        return intersect(full(bits) if local is None else local, self.block_value(v, p, bits), bits)

    def edge_local(self, v, p, bb, bits: int):
        t = p.instructions[-1] if p.instructions else None
        if t is None:
            return None
        if t.opcode == "br" and len(t.targets) == 2 and t.targets[0] is not t.targets[1]:
            is_true = t.targets[0] is bb
            cond = t.operands[0]
            if cond is v:
                return _single(1 if is_true else 0, 1)
            return self.from_condition(v, cond, is_true, bits, 0)
        if t.opcode == "switch" and t.operands[0] is v:
            default = t.targets[0] is bb
            r = full(bits) if default else _empty()
            for cv, dest in t.cases:
                one = _single(cv._u, bits)
                if dest is not bb:
                    r = _difference(r, one, bits)
                else:
                    r = union(r, one, bits)
            return r
        return None

    def from_condition(self, v, cond, is_true: bool, bits: int, depth: int):
        """getValueFromCondition: the range ``cond`` being ``is_true`` allows ``v``, or
        None (nothing known)."""
        if depth >= 6 or not isinstance(cond, Instruction):
            return None
        op = cond.opcode
        if op == "icmp" and len(cond.operands) == 2:
            a, b = cond.operands
            pred = cond.predicate if is_true else _NOT[cond.predicate]
            for lhs, rhs, pr in ((a, b, pred), (b, a, _SWAP[pred])):
                c = _int_const(rhs)
                if c is None or not isinstance(lhs.type, IntType) or lhs.type.bits != bits:
                    continue
                if lhs is v:
                    return _region(pr, c, bits)
                off = _add_offset(lhs, v)
                if off is not None:
                    return _shift(_region(pr, c, bits), -off, bits)
                off = _add_offset(v, lhs)
                if off is not None:
                    return _shift(_region(pr, c, bits), off, bits)
            return None
        if op == "xor" and len(cond.operands) == 2 and _int_const(cond.operands[1]) == 1 \
                and cond.type == IntType(1):
            return self.from_condition(v, cond.operands[0], not is_true, bits, depth + 1)
        if op in ("and", "or") and cond.type == IntType(1):
            lv = self.from_condition(v, cond.operands[0], is_true, bits, depth + 1)
            rv = self.from_condition(v, cond.operands[1], is_true, bits, depth + 1)
            lv = full(bits) if lv is None else lv
            rv = full(bits) if rv is None else rv
            if is_true != (op == "and"):
                r = union(lv, rv, bits)
            else:
                r = intersect(lv, rv, bits)
            return None if _is_full(r, bits) else r
        return None

    def definition(self, v, bb, bits: int) -> tuple:
        """The range of ``v`` in its own block ``bb``."""
        op = v.opcode
        if op == "call":
            return _range_attr(v.ret_attrs, bits)
        if op in _BINARY and len(v.operands) == 2:
            a = self.block_value(v.operands[0], bb, bits)
            b = self.block_value(v.operands[1], bb, bits)
            if _is_empty(a) or _is_empty(b):
                return _empty()
            return _BINARY[op](a, b, bits)
        if op in ("zext", "sext"):
            src = v.operands[0]
            if not isinstance(src.type, IntType):
                return full(bits)
            sb = src.type.bits
            r = self.block_value(src, bb, sb)
            return _zext(r, sb, bits) if op == "zext" else _sext(r, sb, bits)
        if op == "phi":
            r = _empty()
            for x, p in v.incoming:
                r = union(r, self.edge_value(x, p, bb, bits), bits)
                if _is_full(r, bits):
                    break
            return r
        return full(bits)


def _shift(r: tuple, d: int, bits: int) -> tuple:
    """ConstantRange's add of the constant ``d``."""
    if _is_full(r, bits) or _is_empty(r):
        return r
    m = (1 << bits) - 1
    return (r[0] + d) & m, (r[1] + d) & m


def _difference(a: tuple, b: tuple, bits: int) -> tuple:
    """ConstantRange::difference: ``a`` without ``b`` (intersected with b's inverse)."""
    if _is_empty(b):
        return a
    if _is_full(b, bits):
        return _empty()
    return intersect(a, (b[1], b[0]), bits)


def _range_attr(attrs, bits: int) -> tuple:
    for a in attrs or ():
        m = _RANGE.fullmatch(a) if isinstance(a, str) else None
        if m is not None and int(m.group(1)) == bits:
            msk = (1 << bits) - 1
            return _non_empty(int(m.group(2)) & msk, int(m.group(3)) & msk, bits)
    return full(bits)


_RANGE = re.compile(r"range\(i(\d+) (-?\d+), (-?\d+)\)")


def condition_range(fn, cond, sw) -> tuple:
    """(signed min, signed max) of the range LowerSwitch assumes for ``cond`` (module
    docstring) at the switch ``sw``."""
    from patterns.llc.instsimplify_query import SimplifyQuery
    from patterns.llc.valuetracking import known_bits

    bits = cond.type.bits
    zero, one = known_bits(SimplifyQuery(fn, None, {}, {}), cond)
    bb = sw.block
    r = intersect(from_known(zero, one, bits), _LVI(fn).block_value(cond, bb, bits), bits)
    return smin(r, bits), smax(r, bits)


__all__ = ["condition_range", "intersect", "union", "from_known", "smin", "smax"]

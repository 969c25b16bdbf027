"""InstSimplify's compares (``simplify_icmp``, simplifyICmpInst): operands equal or
constant, decided by the constant range of the left side (computeConstantRange:
``constant_range``), by conflicting known bits (isKnownNonEqual), by a binary operator on
one side with the other side its operand (simplifyICmpWithBinOp) or by the branch
condition of the single predecessor (isImpliedByDomCondition: ``dom_edge``,
``implied_by_dom_condition``, with isImpliedCondICmps' constant-range implication).
"""

from __future__ import annotations

from typing import Any, Final

from patterns.ir.effects import pure_intrinsic
from patterns.ir.function import Instruction
from patterns.support.intops import signed_of_unsigned
from patterns.llc.instsimplify_query import (
    const_value, int_bits, MAX_DEPTH, MINMAX_PRED, SimplifyQuery,
)
from patterns.ir.opcodes import INVERSE_PREDICATE as INVERSE, SWAPPED_PREDICATE as SWAP
from patterns.llc.valuetracking import known_bits
from patterns.support.intops import clz as _clz


_INSTRUCTION: Final = Instruction


# --- compares -----------------------------------------------------------------------
def constant_range(sq: SimplifyQuery, v, signed: bool, depth: int = 0):
    """computeConstantRange for the modeled ops: (lo, hi) inclusive, in the signed or
    unsigned order, or None (the full range)."""
    bits = int_bits(v)
    m = (1 << bits) - 1
    c = const_value(v)
    if c is not None:
        x = signed_of_unsigned(c, bits) if signed else c
        return x, x
    if depth >= MAX_DEPTH:
        return None
    bo = sq.binop(v)
    if bo is None:
        return _intrinsic_range(sq, v, signed, bits)
    opc, a, b = bo
    cb = const_value(b)
    lo: Any = None
    hi: Any = None
    # setLimitsForBinOp: the unsigned limits
    if opc == "and" and cb is not None:
        lo, hi = 0, cb
    elif opc == "or" and cb is not None:
        lo, hi = cb, m
    elif opc == "lshr" and cb is not None and cb < bits:
        lo, hi = 0, m >> cb
    elif opc == "lshr" and const_value(a) is not None:
        lo, hi = 0, const_value(a)
    elif opc == "shl" and const_value(a) is not None:
        ca = const_value(a)
        if ca >> (bits - 1) & 1:
            pass
        else:
            lo, hi = ca, (ca << _clz(ca, bits)) & m if ca else 0
    elif opc == "ashr" and cb is not None and cb < bits:
        smin, smax = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        slo, shi = smin >> cb, smax >> cb
        if signed:
            return slo, shi
        return None
    if lo is None:
        return None
    if signed:
        if hi >> (bits - 1) & 1 and not lo >> (bits - 1) & 1:
            return None  # wraps the signed range
        return signed_of_unsigned(lo, bits), signed_of_unsigned(hi, bits)
    return lo, hi


def _intrinsic_range(sq: SimplifyQuery, v, signed: bool, bits: int):
    """setLimitsForIntrinsic: (lo, hi) of an intrinsic call in the asked order, or None."""
    kind = pure_intrinsic(v)
    if kind is None:
        return None
    if kind in ("ctpop", "ctlz", "cttz"):
        return 0, bits
    ops = sq.ops(v)
    smin, smax = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if kind == "abs":
        poison = const_value(ops[1]) == 1
        if signed:
            return (0, smax) if poison else None
        return 0, smax if poison else smax + 1
    if kind not in MINMAX_PRED:
        return None
    c = const_value(ops[1])
    if c is None:
        c = const_value(ops[0])
    if c is None:
        return None
    if kind[0] == "u":
        lo, hi = (0, c) if kind == "umin" else (c, (1 << bits) - 1)
        if not signed:
            return lo, hi
        if hi >> (bits - 1) & 1 and not lo >> (bits - 1) & 1:
            return None
        return signed_of_unsigned(lo, bits), signed_of_unsigned(hi, bits)
    sc = signed_of_unsigned(c, bits)
    lo, hi = (smin, sc) if kind == "smin" else (sc, smax)
    if signed:
        return lo, hi
    if lo < 0 <= hi:
        return None
    return lo & ((1 << bits) - 1), hi & ((1 << bits) - 1)


def simplify_icmp(sq: SimplifyQuery, pred, a, b, rec, cxt, truth: bool = False):
    """simplifyICmpInst for the modeled cases: the i1 constant it folds to (``cxt``
    an i1 instruction) or None; with ``truth`` True/False/None instead (what
    isICmpTrue asks, ``cxt`` the instruction asking)."""
    bits = int_bits(a)
    ca: int | None = const_value(a)
    cb: int | None = const_value(b)
    if truth:
        one = _truth
    else:
        one = lambda t: sq.const(1 if t else 0, cxt) if cxt is not None and int_bits(cxt) == 1 else None  # noqa: E731
    if ca is not None and cb is not None:
        return one(compare_pred(pred, ca, cb, bits))
    if ca is not None:
        a, b, pred = b, a, SWAP[pred]
        cb = ca
        ca = None
    if sq.same(a, b):
        return one(pred in ("eq", "ule", "uge", "sle", "sge"))
    if cb is not None:
        signed = pred in ("slt", "sle", "sgt", "sge")
        rg = constant_range(sq, a, signed)
        if rg is not None:
            x = signed_of_unsigned(cb, bits) if signed else cb
            lo, hi = rg
            t = _range_cmp(pred, lo, hi, x)
            if t is not None:
                return one(t)
    if cb is None:
        # simplifyICmpWithBinOp: a binary operator on one side, the other side one
        # of its operands
        t = _icmp_with_binop(sq, pred, a, b)
        if t is None:
            t = _icmp_with_binop(sq, SWAP[pred], b, a)
        if t is not None:
            return one(t)
    if pred in ("eq", "ne") and cb != 0:
        ka, kb = known_bits(sq, a), known_bits(sq, b)
        if (ka[0] & kb[1]) or (ka[1] & kb[0]):
            return one(pred == "ne")
    if cxt is not None:
        t = implied_by_dom_condition(sq, pred, a, b, cxt)
        if t is not None:
            return one(t)
    return None


def _icmp_with_binop(sq, pred, lhs, rhs):
    """simplifyICmpWithBinOpOnLHS for ``(lhs = X op Y) pred rhs`` with ``rhs`` one of
    X, Y: or (never below X unsigned; signed by the sign bits), and (never above
    X unsigned), lshr (x >>u y never above x)."""
    bo = sq.binop(lhs)
    if bo is None:
        return None
    opc, x, y = bo
    if opc == "or" or opc == "and":
        if sq.same(x, rhs):
            other = y
        elif sq.same(y, rhs):
            other = x
        else:
            return None
        if opc == "and":
            return False if pred == "ugt" else True if pred == "ule" else None
        if pred == "ult":
            return False
        if pred == "uge":
            return True
        if pred == "slt" or pred == "sge":
            bits = int_bits(lhs)
            sign = 1 << (bits - 1)
            kr, ky = known_bits(sq, rhs), known_bits(sq, other)
            if kr[0] & sign and ky[1] & sign:  # rhs >= 0, y < 0
                return pred == "slt"
            if kr[1] & sign or ky[0] & sign:
                return pred != "slt"
        return None
    if opc == "lshr" and sq.same(x, rhs):
        return False if pred == "ugt" else True if pred == "ule" else None
    return None


def dom_edge(sq, blk):
    """getDomPredecessorCondition: (predicate true on the edge, l0, l1) of the icmp
    the single predecessor of ``blk`` branches on, or None."""
    hit = sq.dom_cond.get(blk, 0)
    if hit != 0:
        return hit
    res = None
    preds = blk.predecessors if blk is not None else ()
    if len(preds) == 1 and preds[0].instructions:
        term = preds[0].instructions[-1]
        targets = term.targets if term.opcode == "br" else ()
        if len(term.operands) == 1 and len(targets) == 2 and targets[0] is not targets[1] \
                and blk in targets:
            cond = sq.r(term.operands[0])
            if type(cond) is _INSTRUCTION and cond.opcode == "icmp" and cond.predicate in INVERSE:
                lp = cond.predicate if blk is targets[0] else INVERSE[cond.predicate]
                res = (lp, sq.r(cond.operands[0]), sq.r(cond.operands[1]))
    sq.dom_cond[blk] = res
    return res


def implied_by_dom_condition(sq, pred, a, b, cxt):
    """isImpliedByDomCondition: what the branch of ``cxt``'s block's single
    predecessor says about ``a pred b`` on the edge into the block."""
    e = dom_edge(sq, cxt.block)
    if e is None:
        return None
    return _implied(sq, e[0], e[1], e[2], pred, a, b)


def _implied(sq, lp, l0, l1, rp, r0, r1):
    """isImpliedCondICmps (the condition ``l0 lp l1`` is true)."""
    if sq.same(l0, r1) and not sq.same(l0, r0):
        r0, r1, rp = r1, r0, SWAP[rp]
    if sq.same(r0, l1) and not sq.same(r0, l0):
        l0, l1, lp = l1, l0, SWAP[lp]
    if sq.same(l1, r1) and not sq.same(l0, r0):
        l0, l1, lp = l1, l0, SWAP[lp]
        r0, r1, rp = r1, r0, SWAP[rp]
    bits = int_bits(l0)
    c1, c2 = const_value(l1), const_value(r1)
    if sq.same(l0, r0) and (c1 is not None or c2 is not None):
        if c1 is not None and c2 is not None:
            # isImpliedCondCommonOperandWithConstants: the dominating region inside
            # the asked one -> true, the two disjoint -> false
            dom = constant_region(lp, c1, bits)
            sat = constant_region(rp, c2, bits)
            if regions_disjoint(dom, sat):
                return False
            if regions_subset(dom, sat):
                return True
            return None
    if sq.same(l0, r0) and sq.same(l1, r1):
        if lp == rp:
            return True
        if lp == INVERSE[rp]:
            return False
        return _IMPLIES.get((lp, rp))
    return None


# (lhs predicate true, rhs predicate on the same operands) -> rhs value
_IMPLIES: Final = {
    ("eq", "ule"): True, ("eq", "uge"): True, ("eq", "sle"): True, ("eq", "sge"): True,
    ("ult", "ule"): True, ("ult", "ne"): True, ("ugt", "uge"): True, ("ugt", "ne"): True,
    ("slt", "sle"): True, ("slt", "ne"): True, ("sgt", "sge"): True, ("sgt", "ne"): True,
    ("ult", "eq"): False, ("ugt", "eq"): False, ("slt", "eq"): False, ("sgt", "eq"): False,
    ("ult", "uge"): False, ("ugt", "ule"): False, ("slt", "sge"): False, ("sgt", "sle"): False,
    ("ult", "ugt"): False, ("ugt", "ult"): False, ("slt", "sgt"): False, ("sgt", "slt"): False,
    ("eq", "ult"): False, ("eq", "ugt"): False, ("eq", "slt"): False, ("eq", "sgt"): False,
    ("eq", "ne"): False,
}


NO_EDGE: Final = object()  # (``dom_cond`` has no entry for the block yet)


def _truth(t):
    return t


def compare_pred(pred: str, a: int, b: int, bits: int) -> bool:
    if pred[0] == "s":
        a, b = signed_of_unsigned(a, bits), signed_of_unsigned(b, bits)
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[
        pred if pred in ("eq", "ne") else pred[1:]]


def _range_cmp(pred: str, lo: int, hi: int, x: int):
    """ConstantRange::icmp for a range [lo, hi] against the constant x (None: unknown)."""
    p = pred if pred in ("eq", "ne") else pred[1:]
    if p == "eq" or p == "ne":
        if lo == hi == x:
            return p == "eq"
        if x < lo or x > hi:
            return p == "ne"
        return None
    if p == "lt":
        return True if hi < x else (False if lo >= x else None)
    if p == "le":
        return True if hi <= x else (False if lo > x else None)
    if p == "gt":
        return True if lo > x else (False if hi <= x else None)
    return True if lo >= x else (False if hi < x else None)


def constant_region(pred: str, c: int, bits: int) -> list[tuple[int, int]]:
    """ConstantRange::makeExactICmpRegion(pred, c): the values ``v`` (unsigned, ``bits``
    wide) for which ``v pred c`` holds, as sorted, disjoint, non-adjacent inclusive
    intervals of the unsigned line (a wrapped range is split at 0; the empty region is
    ``[]``)."""
    m = (1 << bits) - 1
    half = 1 << (bits - 1)

    def signed(lo: int, hi: int) -> list[tuple[int, int]]:
        # a signed interval [lo, hi] (lo <= hi, signed values) on the unsigned line
        if lo > hi:
            return []
        if hi < 0:
            return [(lo + m + 1, hi + m + 1)]
        if lo >= 0:
            return [(lo, hi)]
        return [(0, hi), (lo + m + 1, m)]

    sc = c - (m + 1) if c >= half else c
    if pred == "eq":
        out = [(c, c)]
    elif pred == "ne":
        out = [(0, c - 1), (c + 1, m)]
    elif pred == "ult":
        out = [(0, c - 1)]
    elif pred == "ule":
        out = [(0, c)]
    elif pred == "ugt":
        out = [(c + 1, m)]
    elif pred == "uge":
        out = [(c, m)]
    elif pred == "slt":
        out = signed(-half, sc - 1)
    elif pred == "sle":
        out = signed(-half, sc)
    elif pred == "sgt":
        out = signed(sc + 1, half - 1)
    elif pred == "sge":
        out = signed(sc, half - 1)
    else:  # pragma: no cover - icmp predicates only
        raise AssertionError(pred)
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(iv for iv in out if iv[0] <= iv[1]):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def regions_subset(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> bool:
    """Every value of region ``a`` lies in region ``b`` (``b`` merged: non-adjacent)."""
    return all(any(blo <= lo and hi <= bhi for blo, bhi in b) for lo, hi in a)


def regions_disjoint(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> bool:
    return not any(lo <= bhi and blo <= hi for lo, hi in a for blo, bhi in b)

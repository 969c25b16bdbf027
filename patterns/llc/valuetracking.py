"""ValueTracking's computeKnownBits (``known_bits``), ComputeNumSignBits
(``num_sign_bits``) and isKnownToBeAPowerOfTwo (``is_power_of_two``) for the modeled
operations, memoized on the ``SimplifyQuery`` per range of query depths (depth limit 6;
ComputeNumSignBits in LLVM 19's order: most operators answer from their operands,
``and``/``or``/``xor`` also from the known bits). LLVM computes every query afresh; the
answers here are memoized per value together with the range of query depths that give
them, so each query gets exactly the answer of its own depth whatever was asked before.
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import Constant, IntType
from patterns.ir.effects import pure_intrinsic
from patterns.ir.function import Instruction
from patterns.support.intops import signed_of_unsigned
from patterns.llc.instsimplify_query import (
    ANY_DEPTH, BINOPS, const_value, int_bits, MAX_DEPTH, MINMAX_PRED, SimplifyQuery,
)
from patterns.support.knownbits import (
    abs_masks as _abs_masks, add_carry_masks as _add_carry_masks, clz as _clz, count_masks as _count_masks,
    mul_masks as _mul_masks, reverse_masks as _reverse_masks, shift_masks as _shift_masks, smax_masks,
    smin_masks, umax_masks, umin_masks,
)


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction
_INT_TYPE: Final = IntType


def _up(lo1: int, hi1: int, lo2: int, hi2: int) -> tuple[int, int]:
    """The query depths of a value whose operands were asked one level deeper and gave
    their answers for depths lo1..hi1 and lo2..hi2 (below the depth limit)."""
    lo = (lo1 if lo1 > lo2 else lo2) - 1
    hi = (hi1 if hi1 < hi2 else hi2) - 1
    return (lo if lo > 0 else 0), (hi if hi < MAX_DEPTH else MAX_DEPTH - 1)


# --- ValueTracking ------------------------------------------------------------------
# Known bits are (zero, one) mask pairs here (knownbits.Known's two fields; the
# width is the value's type's). LLVM recomputes computeKnownBits and
# ComputeNumSignBits at every query, and an answer can depend on the query's depth
# (MaxAnalysisRecursionDepth cuts the recursion off). The memo keeps that exact: each
# answer is stored with the range of query depths ``lo..hi`` that give it -- the
# depths at which the recursion below reaches the same leaves and cut-offs (a
# binary operator's range is its operands' ranges moved up one level and
# intersected; a phi's incoming values are always asked at the last level, so its
# answer holds at every depth before that) -- and reused only for a query inside
# that range. Facts stay true under replaceAllUsesWith, so the memo is kept for the
# whole pass.
def known_bits(sq: SimplifyQuery, v, depth: int = 0) -> tuple:
    """computeKnownBits: (known zero, known one) of ``v`` asked at ``depth``."""
    return _kb(sq, v, depth)[0]


def _kb(sq: SimplifyQuery, v, depth: int) -> tuple:
    """(known bits, lo, hi): the answer at ``depth`` and the query depths giving it."""
    c = type(v)
    if c is _INSTRUCTION:
        t = v.type
        if type(t) is not _INT_TYPE:
            return _NOTHING, 0, ANY_DEPTH
        if depth >= MAX_DEPTH:
            return _NOTHING, MAX_DEPTH, ANY_DEPTH
        memo = sq.known_cache
        ent = memo.get(v)
        if ent is not None:
            if type(ent) is tuple:
                if ent[1] <= depth <= ent[2]:
                    return ent
            else:
                for e in ent:
                    if e[1] <= depth <= e[2]:
                        return e
        e = _known_inst(sq, v, depth, t.bits)
        if e[2] == MAX_DEPTH - 1 and e[0] == _NOTHING:
            # (nothing known up to the last level: the cut-off below it answers
            # nothing too, so the range goes on past the limit -- exact, and a
            # reader one level up keeps its own range up to the last level)
            e = e[0], e[1], ANY_DEPTH
        if ent is None:
            memo[v] = e
        elif type(ent) is tuple:
            memo[v] = [ent, e]
        else:
            ent.append(e)
        return e
    if c is _CONSTANT:
        cv = const_value(v)
        if cv is not None:  # (constants are answered before the depth limit)
            return (~cv & ((1 << v.type.bits) - 1), cv), 0, ANY_DEPTH
    return _NOTHING, 0, ANY_DEPTH  # arguments, undef, poison: nothing known


def _known_inst(sq: SimplifyQuery, v: Instruction, depth: int, bits: int) -> tuple:
    """computeKnownBits of the integer instruction ``v`` at ``depth`` (below the
    limit) for the modeled opcodes, with the range of depths giving the same answer
    (see ``_kb``)."""
    e: tuple[tuple[int, int], int, int]  # (a memo entry unboxed: read natively)
    za: int
    oa: int
    zb: int
    ob: int
    opc = v.opcode
    if v.block is None:
        return _NOTHING, 0, MAX_DEPTH - 1
    m = (1 << bits) - 1
    d1 = depth + 1
    kb_ = _kb
    if opc in BINOPS:
        bo = sq.bo.get(v)
        if bo:
            a, b = bo[1], bo[2]
        else:
            ops = v.operands
            a, b = ops[0], ops[1]
            if sq.rep:
                a, b = sq.r(a), sq.r(b)
        # kb_(a, d1) and kb_(b, d1), with the memo's usual hit written out, and
        # the cut-off too (what kb_ answers first at the limit, for an operand of
        # an integer operator, which has its type)
        memo = sq.known_cache
        Inst = Instruction
        if type(a) is Inst:
            ent = memo.get(a)
            if type(ent) is tuple:
                e = ent
                if not e[1] <= d1 <= e[2]:
                    e = _CUT if d1 >= MAX_DEPTH else kb_(sq, a, d1)
            else:
                e = _CUT if d1 >= MAX_DEPTH else kb_(sq, a, d1)
            (za, oa), alo, ahi = e
        else:  # a constant or an argument: the same at every depth
            cv = const_value(a)
            za, oa = _NOTHING if cv is None else (~cv & m, cv)
            alo, ahi = 0, ANY_DEPTH
        if type(b) is Inst:
            ent = memo.get(b)
            if type(ent) is tuple:
                e = ent
                if not e[1] <= d1 <= e[2]:
                    e = _CUT if d1 >= MAX_DEPTH else kb_(sq, b, d1)
            else:
                e = _CUT if d1 >= MAX_DEPTH else kb_(sq, b, d1)
            (zb, ob), blo, bhi = e
        else:
            cv = const_value(b)
            zb, ob = _NOTHING if cv is None else (~cv & m, cv)
            blo, bhi = 0, ANY_DEPTH
        lo = (alo if alo > blo else blo) - 1
        hi = (ahi if ahi < bhi else bhi) - 1
        if lo < 0:
            lo = 0
        if hi >= MAX_DEPTH:
            hi = MAX_DEPTH - 1
        if not (za | oa | zb | ob):
            # (every rule below gives nothing known for two operands without known
            # bits, at every width: the bitwise ones at sight; add_carry_masks' known
            # is masked by (lz|lo)&(rz|ro) = 0; mul_masks: no trailing zeros and no
            # leading zeros (the product of two all-ones maxima overflows, or at one
            # bit is 1); shift_masks by an amount of least value 0: nothing)
            return _NOTHING, lo, hi
        if opc == "and":
            return (za | zb, oa & ob), lo, hi
        if opc == "or":
            return (za & zb, oa | ob), lo, hi
        if opc == "xor":
            return ((za & zb) | (oa & ob), (za & ob) | (oa & zb)), lo, hi
        if opc == "add":
            return _add_carry_masks(za, oa, zb, ob, m, True, False), lo, hi
        if opc == "sub":  # (a + ~b + 1)
            return _add_carry_masks(za, oa, ob, zb, m, False, True), lo, hi
        if opc == "mul":
            return _mul_masks(za, oa, zb, ob, bits, bits), lo, hi
        return _shift_masks(za, oa, opc, zb, ob, bits, bits), lo, hi
    r = sq.r
    if opc == "phi":
        # ComputeKnownBits of a phi: the common bits of its incoming values, each
        # looked at with one level of recursion left (whatever the phi's own depth)
        if depth >= MAX_DEPTH - 1:
            return _NOTHING, MAX_DEPTH - 1, MAX_DEPTH - 1
        res = None
        for inc, _blk in v.incoming:
            inc = r(inc)
            if inc is v:
                continue
            k = kb_(sq, inc, MAX_DEPTH - 1)[0]
            res = k if res is None else (res[0] & k[0], res[1] & k[1])
            if not (res[0] | res[1]):
                break
        return (_NOTHING if res is None else res), 0, MAX_DEPTH - 2
    if opc == "select":
        k1, lo1, hi1 = kb_(sq, r(v.operands[1]), d1)
        k2, lo2, hi2 = kb_(sq, r(v.operands[2]), d1)
        return (k1[0] & k2[0], k1[1] & k2[1]), *_up(lo1, hi1, lo2, hi2)
    if opc in ("zext", "sext", "trunc"):
        src = r(v.operands[0])
        sb = int_bits(src)
        if sb is None:
            return _NOTHING, 0, MAX_DEPTH - 1
        (z, o), slo, shi = kb_(sq, src, d1)
        lo, hi = _up(slo, shi, slo, shi)
        if opc == "trunc":
            return (z & m, o & m), lo, hi
        if opc == "zext":
            return (z | (m & ~((1 << sb) - 1)), o), lo, hi
        hi_bits = m & ~((1 << sb) - 1)
        if z >> (sb - 1) & 1:
            z |= hi_bits
        if o >> (sb - 1) & 1:
            o |= hi_bits
        return (z, o), lo, hi
    if opc == "call":
        kind = pure_intrinsic(v)
        if kind is None or kind == "bswap":
            return _NOTHING, 0, MAX_DEPTH - 1
        ops = v.operands
        (za, oa), alo, ahi = kb_(sq, r(ops[0]), d1)
        if kind in MINMAX_PRED:
            (zb, ob), blo, bhi = kb_(sq, r(ops[1]), d1)
            lo, hi = _up(alo, ahi, blo, bhi)
            return _MINMAX_KNOWN[kind](za, oa, zb, ob, bits), lo, hi
        lo, hi = _up(alo, ahi, alo, ahi)
        if kind == "bitreverse":
            return _reverse_masks(za, oa, bits), lo, hi
        flag = len(ops) > 1 and const_value(ops[1]) == 1  # (zero / INT_MIN poison)
        if kind == "abs":
            return _abs_masks(za, oa, bits, flag), lo, hi
        return _count_masks(kind, za, oa, bits, flag), lo, hi
    return _NOTHING, 0, MAX_DEPTH - 1


def num_sign_bits(sq: SimplifyQuery, v, depth: int = 0) -> int:
    """ComputeNumSignBits of ``v`` asked at ``depth`` (memoized like ``known``)."""
    return _sb(sq, v, depth)[0]


def _sb(sq: SimplifyQuery, v, depth: int) -> tuple:
    """(sign bits, lo, hi), as ``_kb``."""
    if depth >= MAX_DEPTH:
        return 1, MAX_DEPTH, ANY_DEPTH  # (constants too: the limit is tested first)
    if type(v) is _INSTRUCTION:
        t = v.type
        if type(t) is not _INT_TYPE:
            return 1, 0, ANY_DEPTH
        memo = sq.sign_cache
        ent = memo.get(v)
        if ent is not None:
            if type(ent) is tuple:
                if ent[1] <= depth <= ent[2]:
                    return ent
            else:
                for e in ent:
                    if e[1] <= depth <= e[2]:
                        return e
        e = _sign_bits_inst(sq, v, depth, t.bits)
        if e[2] == MAX_DEPTH - 1 and e[0] == 1:
            e = 1, e[1], ANY_DEPTH  # (the cut-off's answer too: see ``_kb``)
        if ent is None:
            memo[v] = e
        elif type(ent) is tuple:
            memo[v] = [ent, e]
        else:
            ent.append(e)
        return e
    c = const_value(v)
    if c is not None:
        bits = v.type.bits
        s = signed_of_unsigned(c, bits)
        return _clz(~s & ((1 << bits) - 1) if s < 0 else s, bits), 0, MAX_DEPTH - 1
    return 1, 0, ANY_DEPTH  # (arguments, undef: nothing known)


def _sign_bits_inst(sq: SimplifyQuery, v: Instruction, depth: int, bits: int) -> tuple:
    """ComputeNumSignBitsImpl of the integer instruction ``v`` at ``depth`` (below
    the limit), in LLVM 19's order for the modeled opcodes: most operators answer
    from their operands and return; ``and``/``or``/``xor`` (and any operator whose
    own rule gave up) fall through to the known bits of ``v`` at the same depth,
    keeping the better answer. With the range of depths giving the same answer
    (see ``_kb``): ``L``..``H`` is the intersection of the ranges of the operands
    asked (one level down), so the answer's range is ``L - 1``..``H - 1``. (Each
    operand's question is written out: ``sb_``/``kb_`` at ``d1``, then the range
    narrowed.)"""
    opc = v.opcode
    d1 = depth + 1
    sb_ = _sb
    L, H = 1, MAX_DEPTH  # narrowed by every operand asked
    m = (1 << bits) - 1
    first = 1
    bo = sq.bo.get(v)
    if bo is None:
        bo = sq.binop_tuple(v)
    if bo:
        _, a, b = bo
        if opc == "ashr":
            # ashr x, C adds C sign bits; any other amount: x's (a constant amount
            # of the width or more gives up)
            t, L, H = sb_(sq, a, d1)
            if L < 1:
                L = 1
            if H > MAX_DEPTH:
                H = MAX_DEPTH
            cb = const_value(b)
            if cb is None or cb < bits:
                if cb is not None:
                    t = t + cb if t + cb < bits else bits
                return t, L - 1, H - 1
        elif opc == "shl":
            cb = const_value(b)
            if cb is not None and cb < bits:
                t, L, H = sb_(sq, a, d1)
                if L < 1:
                    L = 1
                if H > MAX_DEPTH:
                    H = MAX_DEPTH
                if cb < t:  # (else every sign bit is shifted out)
                    return t - cb, L - 1, H - 1
        elif opc == "and" or opc == "or" or opc == "xor":
            t, L, H = sb_(sq, a, d1)
            if L < 1:
                L = 1
            if H > MAX_DEPTH:
                H = MAX_DEPTH
            if t != 1:
                t2, xl, xh = sb_(sq, b, d1)
                if xl > L:
                    L = xl
                if xh < H:
                    H = xh
                first = t if t < t2 else t2
        elif opc == "add":
            t, L, H = sb_(sq, a, d1)
            if L < 1:
                L = 1
            if H > MAX_DEPTH:
                H = MAX_DEPTH
            if t != 1:
                if const_value(b) == m:  # x + -1
                    (z, _o), xl, xh = _kb(sq, a, d1)
                    if xl > L:
                        L = xl
                    if xh < H:
                        H = xh
                    if (z | 1) == m:  # x is 0 or 1: the result is 0 or -1
                        return bits, L - 1, H - 1
                    if z >> (bits - 1) & 1:  # x >= 0: no carry out
                        return t, L - 1, H - 1
                t2, xl, xh = sb_(sq, b, d1)
                if xl > L:
                    L = xl
                if xh < H:
                    H = xh
                if t2 != 1:
                    return (t if t < t2 else t2) - 1, L - 1, H - 1
        elif opc == "sub":
            t2, L, H = sb_(sq, b, d1)
            if L < 1:
                L = 1
            if H > MAX_DEPTH:
                H = MAX_DEPTH
            if t2 != 1:
                if const_value(a) == 0:  # the negation of b
                    (z, _o), xl, xh = _kb(sq, b, d1)
                    if xl > L:
                        L = xl
                    if xh < H:
                        H = xh
                    if (z | 1) == m:
                        return bits, L - 1, H - 1
                    if z >> (bits - 1) & 1:
                        return t2, L - 1, H - 1
                t, xl, xh = sb_(sq, a, d1)
                if xl > L:
                    L = xl
                if xh < H:
                    H = xh
                if t != 1:
                    return (t if t < t2 else t2) - 1, L - 1, H - 1
        elif opc == "mul":
            s0, L, H = sb_(sq, a, d1)
            if L < 1:
                L = 1
            if H > MAX_DEPTH:
                H = MAX_DEPTH
            if s0 != 1:
                s1, xl, xh = sb_(sq, b, d1)
                if xl > L:
                    L = xl
                if xh < H:
                    H = xh
                if s1 != 1:
                    valid = (bits - s0 + 1) + (bits - s1 + 1)
                    return (1 if valid > bits else bits - valid + 1), L - 1, H - 1
    elif opc == "sext" or opc == "trunc":
        src = sq.r(v.operands[0])
        sb = int_bits(src)
        if sb is not None:
            t, L, H = sb_(sq, src, d1)
            if L < 1:
                L = 1
            if H > MAX_DEPTH:
                H = MAX_DEPTH
            if opc == "sext":
                return t + (bits - sb), L - 1, H - 1
            return (t - (sb - bits) if t > sb - bits else 1), L - 1, H - 1
    elif opc == "select":
        r = sq.r
        t, L, H = sb_(sq, r(v.operands[1]), d1)
        if L < 1:
            L = 1
        if H > MAX_DEPTH:
            H = MAX_DEPTH
        if t != 1:
            t2, xl, xh = sb_(sq, r(v.operands[2]), d1)
            if xl > L:
                L = xl
            if xh < H:
                H = xh
            return (t if t < t2 else t2), L - 1, H - 1
    elif opc == "phi":
        inc = v.incoming
        if 0 < len(inc) <= 4:  # (larger in-degrees are not analyzed)
            r = sq.r
            t = bits
            for x, _b in inc:
                if t == 1:
                    break
                n, xl, xh = sb_(sq, r(x), d1)
                if xl > L:
                    L = xl
                if xh < H:
                    H = xh
                if n < t:
                    t = n
            return t, L - 1, H - 1
    # the known bits of ``v`` at the same depth: its leading copies of a known sign
    lo, hi = L - 1, H - 1
    (z, o), klo, khi = _kb(sq, v, depth)
    if klo > lo:
        lo = klo
    if khi < hi:
        hi = khi
    if z >> (bits - 1) & 1:
        mask = z
    elif o >> (bits - 1) & 1:
        mask = o
    else:
        return first, lo, hi
    n = _clz(~mask & m, bits)
    return (n if n > first else first), lo, hi


def is_power_of_two(sq: SimplifyQuery, v, or_zero: bool, depth: int = 0) -> bool:
    """isKnownToBeAPowerOfTwo for the shapes the modeled ops build."""
    c = const_value(v)
    if c is not None:
        return (c != 0 or or_zero) and c & (c - 1) == 0
    bo = sq.binop(v)
    if bo is None:
        kind = pure_intrinsic(v)
        if kind is None or depth >= MAX_DEPTH:
            return False
        ops = sq.ops(v)
        if kind in MINMAX_PRED:
            return is_power_of_two(sq, ops[1], or_zero, depth + 1) and is_power_of_two(sq, ops[0], or_zero, depth + 1)
        if kind == "bitreverse" or kind == "bswap":
            return is_power_of_two(sq, ops[0], or_zero, depth + 1)
        return False
    opc, a, b = bo
    # 1 << x and signmask >>u x: a power of two unless shifted out (then poison),
    # answered before the depth limit
    if opc == "shl" and const_value(a) == 1:
        return True
    if opc == "lshr" and const_value(a) == 1 << (int_bits(v) - 1):
        return True
    if depth >= MAX_DEPTH:
        return False
    if opc == "and" and or_zero:
        if sq.is_neg(b, a) is not None or sq.is_neg(a, b) is not None:
            return True
        return is_power_of_two(sq, a, True, depth + 1) or is_power_of_two(sq, b, True, depth + 1)
    return False


_MINMAX_KNOWN: Final = {"smax": smax_masks, "smin": smin_masks, "umax": umax_masks, "umin": umin_masks}


_NOTHING: Final = (0, 0)  # known bits: nothing known
_CUT: Final = (_NOTHING, MAX_DEPTH, ANY_DEPTH)  # ``_kb`` of an integer instruction at the depth limit

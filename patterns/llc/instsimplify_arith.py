"""InstSimplify's arithmetic and shifts (simplifyAddInst, simplifySubInst,
simplifyMulInst, simplifyShlInst, simplifyLShrInst, simplifyAShrInst): negations, the
sub reassociations, ``x >> x``, ``-1 >>a x``, shift amounts whose known bits decide the
result, an ``ashr`` of an all-sign-bits value; i1 arithmetic as logic.
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import Constant
from patterns.ir.function import Instruction
from patterns.llc.instsimplify_binop import (
    expand_commutative, fold_constants, simplify_associative, simplify_by_dom_eq, thread_over_phi,
)
from patterns.llc.instsimplify_logic import not_pair, simplify_and, simplify_xor
from patterns.llc.instsimplify_query import const_value, int_bits, RECURSION_LIMIT, same_value
from patterns.llc.valuetracking import known_bits, num_sign_bits


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction


def simplify_add(sq, a, b, rec, cxt):
    if type(a) is _CONSTANT:
        if type(b) is _CONSTANT:
            c, a, b = fold_constants(sq, "add", a, b)
            if c is not None:
                return c
            if const_value(b) == 0:
                return a
        else:
            ca = const_value(a)
            if ca is not None:  # (foldOrCommuteConstant moves the constant right)
                if ca == 0:
                    return b
                a, b = b, a
    elif type(b) is _CONSTANT and const_value(b) == 0:
        return a
    bo = sq.bo
    if type(a) is _INSTRUCTION:
        A = bo.get(a)
        if A is None:
            A = sq.binop_tuple(a)
    else:
        A = False
    if type(b) is _INSTRUCTION:
        B = bo.get(b)
        if B is None:
            B = sq.binop_tuple(b)
    else:
        B = False
    oa, ob = A and A[0], B and B[0]
    if not (oa or ob):
        if int_bits(a) == 1 and rec:
            return simplify_xor(sq, a, b, rec - 1, cxt)
        return None
    sa = A if oa == "sub" else None
    sb = B if ob == "sub" else None
    # isKnownNegation: x + (0 - x), (a - b) + (b - a)
    if (sa is not None and const_value(sa[1]) == 0 and same_value(sa[2], b)) \
            or (sb is not None and const_value(sb[1]) == 0 and same_value(sb[2], a)):
        return sq.const(0, a)
    if sa is not None and sb is not None and same_value(sa[1], sb[2]) and same_value(sa[2], sb[1]):
        return sq.const(0, a)
    # X + (Y - X) -> Y ; (Y - X) + X -> Y
    if sb is not None and same_value(sb[2], a):
        return sb[1]
    if sa is not None and same_value(sa[2], b):
        return sa[1]
    if (oa == "xor" and not_pair(A, b, a)) or (ob == "xor" and not_pair(B, a, b)):
        return sq.const(-1, a)
    if rec and int_bits(a) == 1:
        v = simplify_xor(sq, a, b, rec - 1, cxt)
        if v is not None:
            return v
    if oa == "add" or ob == "add":
        return simplify_associative(sq, "add", a, b, rec, cxt, A, B)
    return None


def simplify_sub(sq, a, b, rec, cxt):
    if type(a) is _CONSTANT or type(b) is _CONSTANT:
        if type(a) is _CONSTANT and type(b) is _CONSTANT:
            c, a, b = fold_constants(sq, "sub", a, b)  # (sub does not commute: only a fold)
            if c is not None:
                return c
        if const_value(b) == 0:
            return a
        if sq.same(a, b):
            return sq.const(0, a)
        if const_value(a) == 0:
            bits = int_bits(a)
            if known_bits(sq, b)[0] == ((1 << (bits - 1)) - 1):  # 0 or the minimum signed value
                return b
    elif a is b:
        return sq.const(0, a)
    if rec:
        A, B = sq.binop(a), sq.binop(b)
        ad = A if A is not None and A[0] == "add" else None
        if ad is not None:  # (X + Y) - Z -> X + (Y - Z) or Y + (X - Z)
            _, X, Y = ad
            for p, q in ((X, Y), (Y, X)):
                v = simplify_sub(sq, q, b, rec - 1, cxt)
                if v is not None:
                    w = simplify_add(sq, p, v, rec - 1, cxt)
                    if w is not None:
                        return w
        ad = B if B is not None and B[0] == "add" else None
        if ad is not None:  # X - (Y + Z) -> (X - Y) - Z or (X - Z) - Y
            _, Y, Z = ad
            for p, q in ((Y, Z), (Z, Y)):
                v = simplify_sub(sq, a, p, rec - 1, cxt)
                if v is not None:
                    w = simplify_sub(sq, v, q, rec - 1, cxt)
                    if w is not None:
                        return w
        sb = B if B is not None and B[0] == "sub" else None
        if sb is not None:  # Z - (X - Y) -> (Z - X) + Y
            _, X, Y = sb
            v = simplify_sub(sq, a, X, rec - 1, cxt)
            if v is not None:
                w = simplify_add(sq, v, Y, rec - 1, cxt)
                if w is not None:
                    return w
        if int_bits(a) == 1:
            v = simplify_xor(sq, a, b, rec - 1, cxt)
            if v is not None:
                return v
    if rec != RECURSION_LIMIT or cxt is None or sq.dom_cond.get(cxt.block, 0) is None:
        return None
    return simplify_by_dom_eq(sq, "sub", a, b, rec, cxt)


def simplify_mul(sq, a, b, rec, cxt):
    if type(a) is _CONSTANT or type(b) is _CONSTANT:
        if type(a) is _CONSTANT:
            if type(b) is _CONSTANT:
                c, a, b = fold_constants(sq, "mul", a, b)
                if c is not None:
                    return c
            elif const_value(a) is not None:  # (foldOrCommuteConstant moves the constant right)
                a, b = b, a
        cb = const_value(b)
        if cb == 0:
            return sq.const(0, a)
        if cb == 1:
            return a
    if rec and int_bits(a) == 1:
        v = simplify_and(sq, a, b, rec - 1, cxt)
        if v is not None:
            return v
    bo = sq.bo
    if type(a) is _INSTRUCTION:
        A = bo.get(a)
        if A is None:
            A = sq.binop_tuple(a)
    else:
        A = False
    if type(b) is _INSTRUCTION:
        B = bo.get(b)
        if B is None:
            B = sq.binop_tuple(b)
    else:
        B = False
    oa, ob = A and A[0], B and B[0]
    if oa == "mul" or ob == "mul":
        v = simplify_associative(sq, "mul", a, b, rec, cxt, A, B)
        if v is not None:
            return v
    if oa == "add" or ob == "add":
        v = expand_commutative(sq, "mul", a, b, "add", rec, cxt, A, B)
        if v is not None:
            return v
    if (type(a) is _INSTRUCTION and a.opcode == "phi") or (type(b) is _INSTRUCTION and b.opcode == "phi"):
        return thread_over_phi(sq, "mul", a, b, rec, cxt)
    return None


def _simplify_shift(sq, opc, a, b, rec, cxt):
    """simplifyShift (the part shl, lshr and ashr share)."""
    if type(a) is _CONSTANT or type(b) is _CONSTANT:
        if type(a) is _CONSTANT and type(b) is _CONSTANT:
            c, a, b = fold_constants(sq, opc, a, b)  # (shifts do not commute: only a fold)
            if c is not None:
                return c
        if const_value(a) == 0:
            return sq.const(0, a)
        cb = const_value(b)
        if cb == 0:
            return a
        bits = int_bits(a)
        if cb is not None and cb >= bits:
            return None  # poison: not modeled, left alone
    else:
        cb = None
        bits = int_bits(a)
    if (type(a) is _INSTRUCTION and a.opcode == "phi") or (type(b) is _INSTRUCTION and b.opcode == "phi"):
        v = thread_over_phi(sq, opc, a, b, rec, cxt)
        if v is not None:
            return v
    if cb is not None:
        # (a constant amount below the width, not 0: never poison, and its trailing
        # zeros stop below log2(width), so the known-bits rules below say nothing)
        return None
    zb, ob = known_bits(sq, b)
    if ob >= bits:  # (the least possible amount)
        return None  # poison
    nz = ~zb & ((1 << bits) - 1)  # (the amount's possible ones: trailing zeros known)
    if (bits if nz == 0 else (nz & -nz).bit_length() - 1) >= (bits - 1).bit_length():
        return a
    return None


def simplify_shl(sq, a, b, rec, cxt):
    v = _simplify_shift(sq, "shl", a, b, rec, cxt)
    if v is not None:
        return v
    return None


def simplify_lshr(sq, a, b, rec, cxt):
    v = _simplify_shift(sq, "lshr", a, b, rec, cxt)
    if v is not None:
        return v
    if a is b or sq.same(a, b):
        return sq.const(0, a)
    return None


def simplify_ashr(sq, a, b, rec, cxt):
    v = _simplify_shift(sq, "ashr", a, b, rec, cxt)
    if v is not None:
        return v
    if a is b or sq.same(a, b):
        return sq.const(0, a)
    bits = int_bits(a)
    m = (1 << bits) - 1
    if const_value(a) == m:
        return a
    sh = sq.binop(a, "shl")
    if sh is not None and const_value(sh[1]) == m and same_value(sh[2], b):
        return sq.const(m, a)
    if num_sign_bits(sq, a) == bits:
        return a
    return None

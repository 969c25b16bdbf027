"""InstSimplify's ``and``/``or``/``xor`` (simplifyAndInst, simplifyOrInst,
simplifyXorInst): constants and identities, absorption, ``x op ~x``, the logic identities
(``(A ^ B) | (A | B)``, ``(~A & B) ^ (A | B)`` ...), masks that only clear known-zero bits of
a shift, and the folds shared with the other operators.
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import Constant
from patterns.ir.function import Instruction
from patterns.llc.instsimplify_binop import (
    expand_commutative, fold_constants, simplify_associative, simplify_by_dom_eq, thread_over_phi,
)
from patterns.llc.instsimplify_query import (
    ADDSUB, ANDOR, const_value, int_bits, RECURSION_LIMIT, same_value, SimplifyQuery,
)
from patterns.llc.valuetracking import is_power_of_two, known_bits


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction


def _logic_of_add_sub(sq, opc, a, b):
    """simplifyLogicOfAddSub: (X + C) op (~C - X)."""
    for p, q in ((a, b), (b, a)):
        ad, sb = sq.binop(p, "add"), sq.binop(q, "sub")
        if ad is None or sb is None:
            continue
        c1, c2 = const_value(ad[2]), const_value(sb[1])
        if c1 is None or c2 is None or not same_value(ad[1], sb[2]):
            continue
        m = (1 << int_bits(a)) - 1
        if ~c1 & m == c2:
            return sq.const(0 if opc == "and" else m, a)
    return None


def _and_commutative(sq, a, b, A):
    """The commuted part of simplifyAndInst for (a, b); ``A``: a's binop tuple."""
    oa = A and A[0]
    if oa == "xor" and not_pair(A, b, a):  # ~A & A
        return sq.const(0, a)
    if oa == "or":
        if same_value(A[1], b) or same_value(A[2], b):  # (A | ?) & A
            return b
        # (X | ~Y) & (X | Y) -> X
        o2 = sq.binop(b, "or")
        if o2 is not None:
            for X, nY in ((A[1], A[2]), (A[2], A[1])):
                Y = sq.is_not(nY)
                if Y is None:
                    continue
                if (same_value(o2[1], X) and same_value(o2[2], Y)) or (same_value(o2[2], X) and same_value(o2[1], Y)):
                    return X
    if oa == "sub" and const_value(A[1]) == 0 and same_value(A[2], b) and is_power_of_two(sq, b, True):  # -A & A
        return b
    if oa == "add":
        m = (1 << int_bits(a)) - 1
        if same_value(A[1], b) and const_value(A[2]) == m and is_power_of_two(sq, b, True):
            return sq.const(0, a)
    return None


def simplify_and(sq, a, b, rec, cxt):
    if type(a) is _CONSTANT or type(b) is _CONSTANT:
        if type(a) is _CONSTANT:
            if type(b) is _CONSTANT:
                c, a, b = fold_constants(sq, "and", a, b)
                if c is not None:
                    return c
                if sq.same(a, b):
                    return a
            elif const_value(a) is not None:  # (foldOrCommuteConstant moves the constant right)
                a, b = b, a
        bits = int_bits(a)
        m = (1 << bits) - 1
        cb = const_value(b)
        if cb == 0:
            return sq.const(0, a)
        if cb == m:
            return a
    elif a is b:
        return a
    else:
        cb = None
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
        if (type(a) is _INSTRUCTION and a.opcode == "phi") or (type(b) is _INSTRUCTION and b.opcode == "phi"):
            v = thread_over_phi(sq, "and", a, b, rec, cxt)
            if v is not None:
                return v
        if rec != RECURSION_LIMIT or cxt is None or sq.dom_cond.get(cxt.block, 0) is None:
            return None
        return simplify_by_dom_eq(sq, "and", a, b, rec, cxt)
    # (its rules need an xor, or, sub or add operand)
    v = None
    if oa in _AND_COMMUTED:
        v = _and_commutative(sq, a, b, A)
    if v is None and ob in _AND_COMMUTED:
        v = _and_commutative(sq, b, a, B)
    if v is not None:
        return v
    if oa in ADDSUB and ob in ADDSUB and oa != ob:
        v = _logic_of_add_sub(sq, "and", a, b)
        if v is not None:
            return v
    if cb is not None:
        if oa == "shl" or oa == "lshr":
            s = const_value(A[2])
            if s is not None and s < bits:
                inv = ~cb & m
                if (oa == "shl" and (inv >> s) == 0) or (oa == "lshr" and ((inv << s) & m) == 0):
                    return a
        # and (2^x - 1), 2^C -> 0 when x <= C
        if cb & (cb - 1) == 0 and oa == "add" and const_value(A[2]) == m and is_power_of_two(sq, A[1], False):
            if cb.bit_length() >= (~known_bits(sq, A[1])[0] & m).bit_length():  # (the maximum)
                return sq.const(0, a)
    if oa == "and" or ob == "and":
        v = simplify_associative(sq, "and", a, b, rec, cxt, A, B)
        if v is not None:
            return v
    if oa == "or" or ob == "or":
        v = expand_commutative(sq, "and", a, b, "or", rec, cxt, A, B)
        if v is not None:
            return v
    if oa == "xor" or ob == "xor":
        v = expand_commutative(sq, "and", a, b, "xor", rec, cxt, A, B)
        if v is not None:
            return v
    if (type(a) is _INSTRUCTION and a.opcode == "phi") or (type(b) is _INSTRUCTION and b.opcode == "phi"):
        v = thread_over_phi(sq, "and", a, b, rec, cxt)
        if v is not None:
            return v
    # ((X | Y) ^ X) & ((X | Y) ^ Y) -> 0
    if oa == "xor" and ob == "xor":
        xa, xb = A, B
        for X, O in ((xa[1], xa[2]), (xa[2], xa[1])):
            o = sq.binop(O, "or")
            if o is None:
                continue
            for p, Y in ((o[1], o[2]), (o[2], o[1])):
                if same_value(p, X) and ((xb[1] is O and same_value(xb[2], Y)) or (xb[2] is O and same_value(xb[1], Y))):
                    return sq.const(0, a)
        # (A ^ C) & (A ^ ~C) -> 0
        c1, c2 = const_value(xa[2]), const_value(xb[2])
        if c1 is not None and c2 is not None and same_value(xa[1], xb[1]) and c2 == ~c1 & ((1 << int_bits(a)) - 1):
            return sq.const(0, a)
    if rec != RECURSION_LIMIT or cxt is None or sq.dom_cond.get(cxt.block, 0) is None:
        return None
    return simplify_by_dom_eq(sq, "and", a, b, rec, cxt)


def _or_logic(sq, x, y, X, Y):
    """simplifyOrLogic(X, Y); ``X``, ``Y``: their binop tuples (or False)."""
    ox, oy = X and X[0], Y and Y[0]
    if ox != "xor" and oy != "xor" and oy != "and":
        return None  # (every rule below needs one of these shapes)
    m = (1 << int_bits(x)) - 1
    same = same_value
    ny = _not_of(Y, m) if oy == "xor" else None
    NY = sq.binop(ny) if ny is not None else None
    if ny is not None:
        if same(ny, x):  # X | ~X
            return sq.const(m, x)
        if NY is not None and NY[0] == "and" and (same(NY[1], x) or same(NY[2], x)):  # X | ~(X & ?)
            return sq.const(m, x)
    if oy == "and" and (same(Y[1], x) or same(Y[2], x)):  # X | (X & ?)
        return x
    if ox == "xor" and oy == "or" and _pair(sq, Y, X[1], X[2]):  # (A ^ B) | (A | B)
        return y
    nx = _not_of(X, m) if ox == "xor" else None
    NX = sq.binop(nx) if nx is not None else None
    nox = NX and NX[0]
    if nox == "xor" and oy == "or" and _pair(sq, Y, NX[1], NX[2]):  # ~(A ^ B) | (A | B)
        return sq.const(m, x)
    if ox == "and" and oy == "xor":  # (A & ~B) | (A ^ B) -> A ^ B
        for A, nB in ((X[1], X[2]), (X[2], X[1])):
            B = sq.is_not(nB)
            if B is not None and _pair(sq, Y, A, B):
                return y
    if ox == "xor" and oy == "and":  # (~A ^ B) | (A & B) -> ~A ^ B
        for nA, B in ((X[1], X[2]), (X[2], X[1])):
            A = sq.is_not(nA)
            if A is not None and _pair(sq, Y, A, B):
                return x
    if ox == "or" and oy == "xor":  # (~A | B) | (A ^ B) -> -1
        for nA, B in ((X[1], X[2]), (X[2], X[1])):
            A = sq.is_not(nA)
            if A is not None and _pair(sq, Y, A, B):
                return sq.const(m, x)
    if ox == "and" and NY is not None and NY[0] == "or":  # (~A & B) | ~(A | B) -> ~A
        for nA, B in ((X[1], X[2]), (X[2], X[1])):
            A = sq.is_not(nA)
            if A is not None and _pair(sq, NY, A, B):
                return nA
    if nox == "xor" and oy == "and" and _pair(sq, Y, NX[1], NX[2]):  # ~(A ^ B) | (A & B)
        return x
    if nox == "and" and oy == "xor" and _pair(sq, Y, NX[1], NX[2]):  # ~(A & B) | (A ^ B)
        return x
    return None


def _pair(sq: SimplifyQuery, bo, p, q) -> bool:
    """``bo``'s operands are p and q in either order."""
    return (same_value(bo[1], p) and same_value(bo[2], q)) or (same_value(bo[1], q) and same_value(bo[2], p))


def simplify_or(sq, a, b, rec, cxt):
    if type(a) is _CONSTANT or type(b) is _CONSTANT:
        if type(a) is _CONSTANT:
            if type(b) is _CONSTANT:
                c, a, b = fold_constants(sq, "or", a, b)
                if c is not None:
                    return c
            elif const_value(a) is not None:  # (foldOrCommuteConstant moves the constant right)
                a, b = b, a
        bits = int_bits(a)
        m = (1 << bits) - 1
        cb = const_value(b)
        if cb == m:
            return sq.const(m, a)
        if cb == 0 or (type(a) is _CONSTANT and sq.same(a, b)):
            return a
    elif a is b:
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
        if (type(a) is _INSTRUCTION and a.opcode == "phi") or (type(b) is _INSTRUCTION and b.opcode == "phi"):
            v = thread_over_phi(sq, "or", a, b, rec, cxt)
            if v is not None:
                return v
        if rec != RECURSION_LIMIT or cxt is None or sq.dom_cond.get(cxt.block, 0) is None:
            return None
        return simplify_by_dom_eq(sq, "or", a, b, rec, cxt)
    # (simplifyOrLogic needs an xor on the left or an xor/and on the right)
    v = None
    if oa == "xor" or ob == "xor" or ob == "and":
        v = _or_logic(sq, a, b, A, B)
    if v is None and (ob == "xor" or oa == "xor" or oa == "and"):
        v = _or_logic(sq, b, a, B, A)
    if v is not None:
        return v
    if oa in ADDSUB and ob in ADDSUB and oa != ob:
        v = _logic_of_add_sub(sq, "or", a, b)
        if v is not None:
            return v
    if oa == "or" or ob == "or":
        v = simplify_associative(sq, "or", a, b, rec, cxt, A, B)
        if v is not None:
            return v
    if oa == "and" or ob == "and":
        v = expand_commutative(sq, "or", a, b, "and", rec, cxt, A, B)
        if v is not None:
            return v
    # (A & C1) | (B & C2) with C1 == ~C2: ((V + N) & C1) | (V & C2) -> V + N
    if oa == "and" and ob == "and":
        aa, ba = A, B
        c1, c2 = const_value(aa[2]), const_value(ba[2])
        m = (1 << int_bits(a)) - 1
        if c1 is not None and c2 is not None and c1 == ~c2 & m:
            A_, B_ = aa[1], ba[1]
            for (P, Q, cm) in ((A_, B_, c2), (B_, A_, c1)):
                ad = sq.binop(P, "add")
                if cm and (cm & (cm + 1)) == 0 and ad is not None:
                    for x_, n_ in ((ad[1], ad[2]), (ad[2], ad[1])):
                        if same_value(x_, Q) and known_bits(sq, n_)[0] & cm == cm:
                            return P
    if (type(a) is _INSTRUCTION and a.opcode == "phi") or (type(b) is _INSTRUCTION and b.opcode == "phi"):
        v = thread_over_phi(sq, "or", a, b, rec, cxt)
        if v is not None:
            return v
    if oa == "xor" and ob == "xor":  # (A ^ C) | (A ^ ~C) -> -1
        xa, xb = A, B
        c1, c2 = const_value(xa[2]), const_value(xb[2])
        m = (1 << int_bits(a)) - 1
        if c1 is not None and c2 is not None and same_value(xa[1], xb[1]) and c2 == ~c1 & m:
            return sq.const(m, a)
    if rec != RECURSION_LIMIT or cxt is None or sq.dom_cond.get(cxt.block, 0) is None:
        return None
    return simplify_by_dom_eq(sq, "or", a, b, rec, cxt)


def _and_or_not(sq, x, y, X, Y):
    """simplifyXorInst's foldAndOrNot(X, Y); ``X``, ``Y``: their binop tuples."""
    ox, oy = X[0], Y[0]
    if ox == "and" and oy == "or":  # (~A & B) ^ (A | B) -> A
        for nA, B in ((X[1], X[2]), (X[2], X[1])):
            A = sq.is_not(nA)
            if A is not None and _pair(sq, Y, A, B):
                return A
    if ox == "or" and oy == "and":  # (~A | B) ^ (A & B) -> ~A
        for nA, B in ((X[1], X[2]), (X[2], X[1])):
            A = sq.is_not(nA)
            if A is not None and _pair(sq, Y, A, B):
                return nA
    return None


def simplify_xor(sq, a, b, rec, cxt):
    if type(a) is _CONSTANT:
        if type(b) is _CONSTANT:
            c, a, b = fold_constants(sq, "xor", a, b)
            if c is not None:
                return c
            if const_value(b) == 0:
                return a
            if sq.same(a, b):
                return sq.const(0, a)
        else:
            ca = const_value(a)
            if ca is not None:  # (foldOrCommuteConstant moves the constant right)
                if ca == 0:
                    return b
                a, b = b, a
    elif type(b) is _CONSTANT:
        # (foldOrCommuteConstant leaves a non-constant left operand where it is,
        # and a constant is not the same value as it)
        if const_value(b) == 0:
            return a
    elif a is b:
        return sq.const(0, a)
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
    if A or B:
        oa, ob = A and A[0], B and B[0]
        if (oa == "xor" and not_pair(A, b, a)) or (ob == "xor" and not_pair(B, a, b)):
            return sq.const(-1, a)
        if oa and ob:
            if oa in ANDOR and ob in ANDOR and oa != ob:
                v = _and_or_not(sq, a, b, A, B) or _and_or_not(sq, b, a, B, A)
                if v is not None:
                    return v
            if oa in ADDSUB and ob in ADDSUB and oa != ob:
                v = _logic_of_add_sub(sq, "xor", a, b)
                if v is not None:
                    return v
        if oa == "xor" or ob == "xor":
            v = simplify_associative(sq, "xor", a, b, rec, cxt, A, B)
            if v is not None:
                return v
    if rec != RECURSION_LIMIT or cxt is None or sq.dom_cond.get(cxt.block, 0) is None:
        return None
    return simplify_by_dom_eq(sq, "xor", a, b, rec, cxt)


_AND_COMMUTED: Final = frozenset({"xor", "or", "sub", "add"})  # (the shapes _and_commutative looks at)


def not_pair(T, x, v) -> bool:
    """``v`` (binop tuple ``T``, an ``xor``) is ``~x``: ``xor x, -1`` in either order."""
    a, b = T[1], T[2]
    if type(b) is _CONSTANT and (a is x or same_value(a, x)) and const_value(b) == (1 << int_bits(v)) - 1:
        return True
    return type(a) is _CONSTANT and (b is x or same_value(b, x)) and const_value(a) == (1 << int_bits(v)) - 1


def _is_phi(v) -> bool:
    return type(v) is _INSTRUCTION and v.opcode == "phi"


def _not_of(T, m: int):
    """X when the binop tuple ``T`` is ``xor X, -1`` (either operand order)."""
    if const_value(T[2]) == m:
        return T[1]
    if const_value(T[1]) == m:
        return T[2]
    return None

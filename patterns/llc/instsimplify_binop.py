"""The folds InstSimplify shares among the binary operators: ``simplify_binop`` (the
dispatch to an opcode's simplifier through ``SimplifyQuery.h``), foldOrCommuteConstant
(``fold_constants``), simplifyAssociativeBinOp (``simplify_associative``), the distributive
expandCommutativeBinOp (``expand_commutative``), threading over a phi's incoming values
(``thread_over_phi``) and simplifyByDomEq (``simplify_by_dom_eq``: an operation whose
operands a dominating branch proved equal).
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import Constant
from patterns.ir.function import Instruction
from patterns.llc.instsimplify_icmp import dom_edge, implied_by_dom_condition, NO_EDGE
from patterns.support.intops import signed_of_unsigned
from patterns.llc.instsimplify_query import (
    const_value, int_bits, RECURSION_LIMIT, same_value,
)
from patterns.ir.opcodes import COMMUTATIVE_BINOPS as COMMUTATIVE


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction


def simplify_binop(sq, opc, a, b, rec, cxt):
    return sq.h[opc](sq, a, b, rec, cxt)


def fold_constants(sq, opc, a, b):
    """foldOrCommuteConstant: (folded constant, a, b) with a constant moved right."""
    if type(a) is not _CONSTANT and type(b) is not _CONSTANT:
        return None, a, b
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        bits = int_bits(a)
        m = (1 << bits) - 1
        if opc == "add":
            r = ca + cb
        elif opc == "sub":
            r = ca - cb
        elif opc == "mul":
            r = ca * cb
        elif opc == "and":
            r = ca & cb
        elif opc == "or":
            r = ca | cb
        elif opc == "xor":
            r = ca ^ cb
        elif cb >= bits:
            return None, a, b  # poison: not modeled, left alone
        elif opc == "shl":
            r = ca << cb
        elif opc == "lshr":
            r = ca >> cb
        else:
            r = signed_of_unsigned(ca, bits) >> cb
        return sq.const(r & m, a), a, b
    if ca is not None and opc in COMMUTATIVE:
        a, b = b, a
    return None, a, b


def simplify_associative(sq, opc, lhs, rhs, rec, cxt, L, R):
    """simplifyAssociativeBinOp; ``L``, ``R``: the operands' binop tuples (or False)."""
    if rec <= 0:
        return None
    rec -= 1
    f = sq.h[opc]
    op0 = L if L and L[0] == opc else None
    op1 = R if R and R[0] == opc else None
    if op0 is not None:  # (A op B) op C -> A op (B op C)
        _, A, B = op0
        v = f(sq, B, rhs, rec, cxt)
        if v is not None:
            if v is B or same_value(v, B):
                return lhs
            w = f(sq, A, v, rec, cxt)
            if w is not None:
                return w
    if op1 is not None:  # A op (B op C) -> (A op B) op C
        _, B, C = op1
        v = f(sq, lhs, B, rec, cxt)
        if v is not None:
            if v is B or same_value(v, B):
                return rhs
            w = f(sq, v, C, rec, cxt)
            if w is not None:
                return w
    if opc not in COMMUTATIVE:
        return None
    if op0 is not None:  # (A op B) op C -> (C op A) op B
        _, A, B = op0
        v = f(sq, rhs, A, rec, cxt)
        if v is not None:
            if v is A or same_value(v, A):
                return lhs
            w = f(sq, v, B, rec, cxt)
            if w is not None:
                return w
    if op1 is not None:  # A op (B op C) -> B op (C op A)
        _, B, C = op1
        v = f(sq, C, lhs, rec, cxt)
        if v is not None:
            if v is C or same_value(v, C):
                return rhs
            w = f(sq, B, v, rec, cxt)
            if w is not None:
                return w
    return None


def expand_commutative(sq, opc, lhs, rhs, over, rec, cxt, L, R):
    """expandCommutativeBinOp: distribute ``opc`` over ``over`` when it simplifies;
    ``L``, ``R``: the operands' binop tuples (or False)."""
    if rec <= 0:
        return None
    rec -= 1
    f = sq.h[opc]
    for v, other, bo in ((lhs, rhs, L), (rhs, lhs, R)):
        if not bo or bo[0] != over:
            continue
        _, b0, b1 = bo
        l_ = f(sq, b0, other, rec, cxt)
        if l_ is None:
            continue
        r_ = f(sq, b1, other, rec, cxt)
        if r_ is None:
            continue
        if (same_value(l_, b0) and same_value(r_, b1)) or (over in COMMUTATIVE and same_value(l_, b1) and same_value(r_, b0)):
            return v
        s = sq.h[over](sq, l_, r_, rec, cxt)
        if s is not None:
            return s
    return None


def thread_over_phi(sq, opc, lhs, rhs, rec, cxt):
    """threadBinOpOverPHI: the same simplified value on every incoming edge."""
    if rec <= 0:
        return None
    rec -= 1
    if type(lhs) is _INSTRUCTION and lhs.opcode == "phi":
        pi, other, left = lhs, rhs, True
    else:
        pi, other, left = rhs, lhs, False
    if not sq.value_dominates_phi(other, pi):
        return None
    f = sq.h[opc]
    common = None
    for inc, _blk in pi.incoming:
        inc = sq.r(inc)
        if inc is pi:
            continue
        v = f(sq, inc, other, rec, None) if left else f(sq, other, inc, rec, None)
        if v is None or (common is not None and not same_value(v, common)):
            return None
        common = v
    return common


def simplify_by_dom_eq(sq, opc, a, b, rec, cxt):
    """simplifyByDomEq (top level only)."""
    if rec != RECURSION_LIMIT or cxt is None:
        return None
    blk = cxt.block
    e = sq.dom_cond.get(blk, NO_EDGE)
    if e is NO_EDGE:
        e = dom_edge(sq, blk)
    if e is None:
        return None
    e1, e2 = e[1], e[2]
    if not (e1 is a or e1 is b or e2 is a or e2 is b or same_value(e1, a) or same_value(e1, b) or same_value(e2, a)
            or same_value(e2, b)):
        return None
    if implied_by_dom_condition(sq, "eq", a, b, cxt) is True:
        if opc in ("sub", "xor"):
            return sq.const(0, a)
        if opc in ("and", "or"):
            return b
    return None

"""The state InstSimplify's folds query (``SimplifyQuery``): the function, EarlyCSE's
replacements (the IR as replaceAllUsesWith leaves it), dominance, the memos of
ValueTracking, each binary operator's tuple; and the vocabulary the folds share
(opcode sets, predicate swaps and inverses, constants' values, the min/max intrinsics'
orders). The folds themselves are module-level
functions of ``instsimplify`` and its ``instsimplify_*`` parts, taking the query.
"""

from __future__ import annotations

from typing import Any, Final

from patterns.ir.core import Constant, IntType
from patterns.ir.function import Instruction
from patterns.llc.analyses import dom_tree
from patterns.support.intops import signed_of_unsigned


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction
_INT_TYPE: Final = IntType


BINOPS: Final = frozenset({"add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr"})
ANDOR: Final = frozenset({"and", "or"})

ADDSUB: Final = frozenset({"add", "sub"})
# (commutativity and the swapped/inverse predicates: patterns.ir.opcodes)
MAX_DEPTH: Final = 6  # ValueTracking's MaxAnalysisRecursionDepth
RECURSION_LIMIT: Final = 3  # InstSimplify's RecursionLimit
ANY_DEPTH: Final = 1 << 30  # the top of a memoized answer's depth range when no depth changes it


def int_bits(v) -> Any:  # (int for an integer type, else None)
    t = v.type
    return t.bits if type(t) is _INT_TYPE else None


def const_value(v) -> int | None:
    """The unsigned value of an integer constant, else None."""
    if type(v) is not _CONSTANT:
        return None
    return v._u  # (Constant.unsigned_value, made with the constant)


def same_value(a, b) -> bool:
    """The same value: one object, or integer constants of one width and value."""
    if a is b:
        return True
    if type(a) is _CONSTANT and type(b) is _CONSTANT:
        ca = const_value(a)
        return ca is not None and ca == const_value(b) and int_bits(a) == int_bits(b)
    return False


class SimplifyQuery:
    """One function's EarlyCSE state: replacements, dominance, analyses."""

    def __init__(self, fn, idom: dict | None, rep: dict, h: dict, dom: tuple | None = None):
        self.fn = fn
        self.idom = idom
        self.rep = rep
        # value -> (answer, lo, hi) or a list of them, per range of query depths (see
        # ``valuetracking._kb``): facts stay true under replacement
        self.known_cache: dict = {}
        self.sign_cache: dict = {}
        # visited instruction -> its binop tuple (opcode, a, b), False when it is no
        # binary operator, None when to be built again (see _resimplify); an
        # instruction is visited when it has an entry
        self.bo: dict = {}
        self.dom_cond: dict = {}  # block -> its single predecessor's branch condition (see _edge)
        self.pre, self.post, self.kids = {}, {}, {}
        # the simplifier of each binary opcode (``simplify_binop``): opcode ->
        # f(sq, a, b, rec, cxt)
        self.h = h
        if idom is None:
            return  # (the analyses only: no dominance queries)
        self.kids, self.pre, self.post = dom if dom is not None else dom_tree(fn, idom)

    # --- the IR as replaceAllUsesWith has left it -------------------------------------
    def r(self, v):
        if type(v) is not _INSTRUCTION:
            return v  # (only instructions are replaced)
        rep: dict = self.rep
        while True:
            w = rep.get(v)
            if w is None:
                return v
            v = w

    def ops(self, i) -> list:
        return [self.r(o) for o in i.operands]

    def binop(self, v, opc: str | None = None):
        """(opcode, a, b) of a binary-operator instruction ``v`` (operands resolved).
        Kept once ``v`` is visited: its operands were visited before it (they dominate
        it), so their replacements are final for this run."""
        if type(v) is not _INSTRUCTION:
            return None
        bo = self.bo.get(v)
        if bo is None:
            bo = self.binop_tuple(v)
        if bo is False or (opc is not None and bo[0] != opc):
            return None
        return bo

    def binop_tuple(self, v):
        """``binop``'s tuple, or False for any other instruction, when none is kept."""
        if v.opcode not in BINOPS or v.block is None or len(v.operands) != 2:
            bo = False
        else:
            a, b = v.operands
            bo = (v.opcode, self.r(a), self.r(b))
        if v in self.bo:  # (visited)
            self.bo[v] = bo
        return bo

    def const(self, u: int, like) -> Constant:
        t = like.type
        bits = t.bits
        u &= (1 << bits) - 1
        if bits == 1:
            return Constant(t, "true" if u else "false", "int", 1 if u else 0)
        s = signed_of_unsigned(u, bits)
        return Constant(t, str(s), "int", s)

    def same(self, a, b) -> bool:
        if a is b:
            return True
        if type(a) is _CONSTANT and type(b) is _CONSTANT:
            ca, cb = const_value(a), const_value(b)
            return ca is not None and ca == cb and int_bits(a) == int_bits(b)
        return False

    def is_not(self, v, x=None):
        """``v`` is ``xor X, -1`` (either operand order): X (``x`` when given and equal)."""
        if type(v) is not _INSTRUCTION:
            return None
        bo = self.bo.get(v)
        if bo is None:
            bo = self.binop_tuple(v)
        if bo is False or bo[0] != "xor":
            return None
        _, a, b = bo
        m = (1 << int_bits(v)) - 1
        if type(b) is _CONSTANT and const_value(b) == m and (x is None or same_value(a, x)):
            return a
        if type(a) is _CONSTANT and const_value(a) == m and (x is None or same_value(b, x)):
            return b
        return None

    def is_neg(self, v, x=None):
        bo = self.binop(v, "sub")
        if bo is None or const_value(bo[1]) != 0:
            return None
        return bo[2] if x is None or same_value(bo[2], x) else None

    def dominates_block(self, a, b) -> bool:
        pre, post = self.pre, self.post
        if a not in pre or b not in pre:
            return False
        return pre[a] <= pre[b] and post[b] <= post[a]

    def value_dominates_phi(self, v, phi) -> bool:
        if getattr(v, "block", None) is None or not hasattr(v, "opcode"):
            return True  # arguments and constants
        if v.block is phi.block:
            if v.opcode != "phi":
                return False
            insts = phi.block.instructions
            return insts.index(v) < insts.index(phi)
        return self.dominates_block(v.block, phi.block)


MINMAX_PRED: Final = {"smax": "sge", "smin": "sle", "umax": "uge", "umin": "ule"}  # (the non-strict order)
MINMAX_INVERSE: Final = {"smax": "smin", "smin": "smax", "umax": "umin", "umin": "umax"}

"""InstSimplify's simplifyInstruction (``simplify_instruction``): the entry of the folds, the phis, and
simplifyIntrinsic for the pure integer intrinsics; ``new_simplify_query`` makes the query
state with the table of the binary operators' simplifiers.

The simplifications are InstSimplify's (llvm/lib/Analysis/InstructionSimplify.cpp, LLVM
19) for the integer binary operators, phis and compares, with its recursion limit of 3
levels: constant folding and identities, ``x op x``, ``x op ~x``, negations,
``simplifyAssociativeBinOp`` (regroup when a sub-pair folds), the distributive
``expandCommutativeBinOp`` (``mul`` over ``add``, ``and`` over ``or``/``xor``, ``or`` over
``and``), threading ``mul``/``and``/``or``/shifts over a phi's incoming values, the
sub reassociations, the shift folds (``x >> x``, ``-1 >>a x``, shift amounts whose known
bits decide the result, an ``ashr`` of an all-sign-bits value), the and/or/xor logic
identities (absorption, ``(A ^ B) | (A | B)``, ``(~A & B) ^ (A | B)`` ...), masks that only
clear known-zero bits of a shift, and ``simplifyByDomEq`` (an operation whose operands a
dominating branch proved equal: ``x - y``, ``x ^ y`` -> 0, ``x & y``, ``x | y`` -> ``y``).
Known bits and sign bits follow ValueTracking's computeKnownBits / ComputeNumSignBits for
the modeled operations (depth limit 6; ComputeNumSignBits in LLVM 19's order: most
operators answer from their operands, ``and``/``or``/``xor`` also from the known bits).
LLVM computes every query afresh; the answers here are memoized per value together with
the range of query depths that give them, so each query gets exactly the answer of its
own depth whatever was asked before. Poison is not modeled: a shift by the width or
more, which InstSimplify folds to poison, is left as it is. Compares fold when their operands are equal,
constant, decided by the constant range of the left side (computeConstantRange), by
conflicting known bits (isKnownNonEqual), by a binary operator on one side with the
other side its operand (``x | y`` never below ``x``, ``x & y`` and ``x >> y`` never above
it: simplifyICmpWithBinOp) or by the branch condition of the single predecessor
(isImpliedByDomCondition).

The integer intrinsics without memory effects (``llvm.ctpop``, ``bitreverse``, ``bswap``,
``ctlz``, ``cttz``, ``abs``, ``smin``, ``smax``, ``umin``, ``umax``; ``patterns.ir.effects.PURE_INTRINSICS``):
EarlyCSE takes their calls like any other value; InstSimplify's simplifyIntrinsic folds
them (a min/max of equal operands, of a saturating constant, of a nested min/max
sharing an operand (foldMinMaxSharedOp), or whose order ``isICmpTrue`` decides;
``abs(abs x)``, ``bitreverse(bitreverse x)``, ``ctpop`` of a power of two or of a value
with only its lowest bit possibly set, ``cttz(1 << x)``, ``ctlz(negative >>u x)``,
constants); their known bits follow ValueTracking (KnownBits::umin/umax/smin/smax/abs,
the counts bounded by their operand's known bits) and their constant ranges
setLimitsForIntrinsic. Not modeled: simplifyICmpWithMinMax and simplifyICmpWithZero
(a compare of two min/max of different kinds, or against zero by isKnownNonZero).
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import Constant, IntType
from patterns.ir.effects import pure_intrinsic
from patterns.ir.function import Instruction
from patterns.llc.instsimplify_arith import (
    simplify_add, simplify_ashr, simplify_lshr, simplify_mul, simplify_shl, simplify_sub,
)
from patterns.llc.instsimplify_icmp import compare_pred, simplify_icmp
from patterns.llc.instsimplify_logic import simplify_and, simplify_or, simplify_xor
from patterns.support.intops import signed_of_unsigned
from patterns.llc.instsimplify_query import (
    BINOPS, const_value, int_bits, MINMAX_INVERSE, MINMAX_PRED, RECURSION_LIMIT, same_value,
    SimplifyQuery,
)
from patterns.llc.valuetracking import is_power_of_two, known_bits


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction
_INT_TYPE: Final = IntType


# --- InstSimplify -------------------------------------------------------------------
# The simplifiers below keep InstructionSimplify.cpp's order of rules. What they
# add is cheap tests that skip a group of
# rules only when none of them could apply: a rule about a constant operand when
# neither operand is constant, a rule about an operand's opcode when neither operand
# is such an instruction. ``A``/``B`` are the ``binop`` tuples of the two operands
# (False for anything else), read from ``bo`` directly.
def simplify_instruction(sq, i, ops=None):
    """simplifyInstruction for the modeled instructions: a replacement value or None.
    ``ops``: the instruction's operands, resolved (``ops(i)``) when the caller has them."""
    opc = i.opcode
    if ops is None:
        ops = sq.ops(i)
    if opc in BINOPS:
        if int_bits(i) is None:
            return None
        a, b = ops
        v = sq.h[opc](sq, a, b, RECURSION_LIMIT, i)
        return None if v is i else v
    if opc == "phi":
        return simplify_phi(sq, i)
    if opc == "icmp":
        a, b = ops
        if int_bits(a) is None:
            return None
        return simplify_icmp(sq, i.predicate, a, b, RECURSION_LIMIT, i)
    if opc == "select":
        c, t, f = ops
        cv = const_value(c)
        if cv is not None:
            return t if cv else f
        if sq.same(t, f):
            return t
        return None
    if opc == "call":
        kind = pure_intrinsic(i)
        if kind is not None and type(i.type) is _INT_TYPE:
            return simplify_intrinsic(sq, kind, i, ops)
    return None


def call_of(sq: SimplifyQuery, v, kind: str):
    """The resolved operands of ``v`` when it is a call of the intrinsic ``kind``."""
    if type(v) is not _INSTRUCTION or v.opcode != "call" or pure_intrinsic(v) != kind:
        return None
    return sq.ops(v)


def simplify_intrinsic(sq: SimplifyQuery, kind: str, i, ops):
    """simplifyIntrinsic for the pure integer intrinsics (``patterns.ir.effects.PURE_INTRINSICS``):
    simplifyUnaryIntrinsic / simplifyBinaryIntrinsic, then constant folding."""
    bits = i.type.bits
    m = (1 << bits) - 1
    if len(ops) == 1:
        x = ops[0]
        if kind == "bitreverse" or kind == "bswap":
            inner = call_of(sq, x, kind)
            if inner is not None:  # bitreverse (bitreverse x) -> x
                return inner[0]
        elif kind == "ctpop":
            if is_power_of_two(sq, x, False):
                return sq.const(1, i)
            if not (~known_bits(sq, x)[0] & m & ~1):  # only the lowest bit may be set
                return x
        cx = const_value(x)
        if cx is None:
            return None
        if kind == "ctpop":
            return sq.const(bin(cx).count("1"), i)
        if kind == "bitreverse":
            return sq.const(int(format(cx, f"0{bits}b")[::-1], 2), i)
        if kind == "bswap" and bits % 16 == 0:
            return sq.const(int.from_bytes(cx.to_bytes(bits // 8, "little"), "big"), i)
        return None
    if len(ops) != 2:
        return None
    a, b = ops
    if kind in MINMAX_PRED:
        return _simplify_minmax(sq, kind, i, a, b, bits)
    ca, cb = const_value(a), const_value(b)
    if kind == "abs":
        if call_of(sq, a, "abs") is not None:  # abs (abs x) -> abs x
            return a
        if ca is not None and cb is not None:
            s = signed_of_unsigned(ca, bits)
            if s == -(1 << (bits - 1)) and cb:
                return None  # (poison: not modeled)
            return sq.const(abs(s), i)
        return None
    if kind == "cttz":
        bo = sq.binop(a, "shl")
        if bo is not None and const_value(bo[1]) == 1:  # cttz (1 << x) -> x
            return bo[2]
    elif kind == "ctlz":
        bo = sq.binop(a)
        if bo is not None and bo[0] in ("lshr", "ashr"):
            c0 = const_value(bo[1])
            if c0 is not None and c0 >> (bits - 1) & 1:
                # ctlz (neg >>u x) -> x; ctlz (neg >>s x) -> 0
                return bo[2] if bo[0] == "lshr" else sq.const(0, i)
    if ca is not None and cb is not None and kind in ("ctlz", "cttz"):
        if ca == 0:
            return None if cb else sq.const(bits, i)  # (zero is poison when the flag is set)
        if kind == "ctlz":
            return sq.const(bits - ca.bit_length(), i)
        return sq.const((ca & -ca).bit_length() - 1, i)
    return None


def _simplify_minmax(sq: SimplifyQuery, kind: str, i, a, b, bits: int):
    """simplifyBinaryIntrinsic for smin/smax/umin/umax."""
    if a is b or sq.same(a, b):
        return a
    if type(a) is _CONSTANT and type(b) is not _CONSTANT:
        a, b = b, a
    cb = const_value(b)
    if cb is not None:
        if cb == _saturation(kind, bits):  # umax(x, -1) -> -1 ...
            return sq.const(cb, i)
        if cb == _saturation(MINMAX_INVERSE[kind], bits):  # umin(x, -1) -> x ...
            return a
        inner = call_of(sq, a, kind)
        if inner is not None:
            # max (max x, C1), C2 -> max x, C1 when C1 >= C2
            for ic in (const_value(inner[0]), const_value(inner[1])):
                if ic is not None:
                    if compare_pred(MINMAX_PRED[kind], ic, cb, bits):
                        return a
                    break
    v = _minmax_shared_op(sq, kind, a, b)
    if v is None:
        v = _minmax_shared_op(sq, kind, b, a)
    if v is not None:
        return v
    pred = MINMAX_PRED[kind]
    # (isICmpTrue with the call as the context: a dominating branch condition
    # can decide the order, isImpliedByDomCondition at the end of simplifyICmpInst)
    if simplify_icmp(sq, pred, a, b, RECURSION_LIMIT, i, True) is True:
        return a
    if simplify_icmp(sq, pred, b, a, RECURSION_LIMIT, i, True) is True:
        return b
    return None


def _minmax_shared_op(sq: SimplifyQuery, kind: str, x, y):
    """foldMinMaxSharedOp: ``x`` a min/max of (p, q) and ``y`` p, q or a min/max of
    p and q: m(m(p, q), p) -> m(p, q); m(inverse-m(p, q), p) -> p."""
    if type(x) is not _INSTRUCTION or x.opcode != "call":
        return None
    kx = pure_intrinsic(x)
    if kx not in MINMAX_PRED:
        return None
    p, q = sq.ops(x)
    same = sq.same
    hit = same(y, p) or same(y, q)
    if not hit and type(y) is _INSTRUCTION and y.opcode == "call" and pure_intrinsic(y) in MINMAX_PRED:
        yp, yq = sq.ops(y)
        hit = (same(yp, p) and same(yq, q)) or (same(yp, q) and same(yq, p))
    if not hit:
        return None
    if kx == kind:
        return x
    if kx == MINMAX_INVERSE[kind]:
        return y
    return None


def simplify_phi(sq, p):
    common = None
    rep = sq.rep
    for v, _b in p.incoming:
        if type(v) is _INSTRUCTION and v in rep:
            v = sq.r(v)
        if v is p:
            continue
        if type(v) is _CONSTANT and v.kind in ("undef", "poison"):
            return None  # (only the plain all-equal case is modeled)
        if common is not None and not (v is common or same_value(v, common)):
            return None
        common = v
    if common is None:
        return None
    return common


# the simplifier of each binary opcode, f(sq, a, b, rec, cxt) (``SimplifyQuery.h``)
BINOP_SIMPLIFIERS: Final = {"add": simplify_add, "sub": simplify_sub, "mul": simplify_mul, "and": simplify_and, "or": simplify_or,
                            "xor": simplify_xor, "shl": simplify_shl, "lshr": simplify_lshr, "ashr": simplify_ashr}


def new_simplify_query(fn, idom: dict | None, rep: dict, dom: tuple | None = None) -> SimplifyQuery:
    """The simplifier's state for ``fn`` (``idom`` None: the analyses only, no dominance)."""
    return SimplifyQuery(fn, idom, rep, BINOP_SIMPLIFIERS, dom)


def _saturation(kind: str, bits: int) -> int:
    """MinMaxIntrinsic::getSaturationPoint, unsigned: the value min/max of anything with
    which is itself."""
    if kind == "umax":
        return (1 << bits) - 1
    if kind == "umin":
        return 0
    if kind == "smax":
        return (1 << (bits - 1)) - 1
    return 1 << (bits - 1)

"""What LoopStrengthReduce's ScalarEvolution sees in the modeled case: the values SCEV
treats as opaque (SCEVUnknown, ``opaque``), the sign bits, ranges and maxima it asks
ValueTracking for, and ``Scev``: the affine form of each value of a loop (sums of +-1
times opaque values, products, quotients, constant multiples and {0,+,1}), with
``scev_kind``/``scale_of`` naming a term's kind and scale (see ``patterns.llc.lsr``).
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import Constant, I32
from patterns.ir.function import Argument, Instruction


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction


# Opcodes whose result SCEV treats as an opaque value (SCEVUnknown) when no operand is
# a constant (a constant shift is a multiply / division, ``xor x, -1`` a subtraction,
# ``or`` with a constant may be an add, ``xor (and x, C), C`` an and).
_OPAQUE: Final = frozenset({"and", "or", "xor", "lshr", "ashr", "shl"})


def is_const(v) -> bool:
    return type(v) is _CONSTANT


def opaque(v, body) -> bool:
    """``v`` is defined in the loop and SCEV sees it as an opaque value: a phi, an
    opaque operation of two values, or an arithmetic shift right by a constant (1 to
    31) of a value that is not an add or shl (createSCEV looks for sext-of-trunc
    patterns only there)."""
    if type(v) is not _INSTRUCTION or v.block not in body:
        return False
    if v.opcode == "phi":
        return True
    if v.opcode in _OPAQUE and len(v.operands) == 2 and not any(is_const(o) for o in v.operands):
        return "disjoint" not in v.flags
    return ashr_by_constant(v)


def ashr_by_constant(v) -> bool:
    if v.opcode != "ashr" or len(v.operands) != 2 or v.flags:
        return False
    a, b = v.operands
    return is_const(b) and isinstance(b.value, int) and 1 <= b.value <= 31 and not is_const(a) and \
        not (type(a) is _INSTRUCTION and a.opcode in ("add", "shl"))


def no_int_min(x) -> bool:
    """ScalarEvolution's signed range of the opaque ``x`` leaves out INT_MIN (so -1 * x
    gets ``nsw``), by the facts the model knows: two sign bits or more
    (ComputeNumSignBits, ``sign_bits_of``), or a known-zero sign bit (computeKnownBits,
    ``sign_zero``)."""
    return sign_bits_of(x, 0) >= 2 or sign_zero(x, 0)


def const_int(v):
    return v.value & 0xFFFFFFFF if type(v) is _CONSTANT and isinstance(v.value, int) else None


def sign_bits_of(x, depth: int) -> int:
    """``_sign_bits1``, or the leading zeros of a value whose sign bit is known zero
    when more (ComputeNumSignBits falls back on computeKnownBits: ``and x, 7`` has 29)."""
    r = _sign_bits1(x, depth)
    if r < 32 and type(x) is _INSTRUCTION and sign_zero(x, depth):
        r = max(r, 32 - umax_of(x, depth).bit_length())
    return r


def _sign_bits1(x, depth: int) -> int:
    """A lower bound of ComputeNumSignBits(x): constants; ``ashr`` keeps the operand's
    (adding a constant amount), ``lshr`` by C >= 1 gives C (by a variable amount it
    keeps a non-negative operand's), ``shl`` by C takes C away; bitwise operations
    keep the smaller of their operands', ``add``/``sub`` one less."""
    k = const_int(x)
    if k is not None:
        v = k if k < 1 << 31 else ~k & 0xFFFFFFFF
        return 32 - v.bit_length()
    if type(x) is not _INSTRUCTION or depth > 4 or len(x.operands) != 2:
        return 1
    a, b = x.operands
    op, c = x.opcode, const_int(b)
    if op == "ashr":
        return min(32, sign_bits_of(a, depth + 1) + (c if c is not None and c < 32 else 0))
    if op == "lshr":
        if c is not None and 1 <= c < 32:
            return c  # (C leading zeros)
        return sign_bits_of(a, depth + 1) if sign_zero(a, depth + 1) else 1
    if op == "shl" and c is not None and c < 32:
        return max(1, sign_bits_of(a, depth + 1) - c)
    if op in ("and", "or", "xor"):
        return min(sign_bits_of(a, depth + 1), sign_bits_of(b, depth + 1))
    if op in ("add", "sub"):
        return max(1, min(sign_bits_of(a, depth + 1), sign_bits_of(b, depth + 1)) - 1)
    return 1


def umax_of(x, depth: int) -> int:
    """An upper bound of the unsigned value of ``x`` from its known bits."""
    k = const_int(x)
    if k is not None:
        return k
    full = 0xFFFFFFFF
    if type(x) is not _INSTRUCTION or depth > 4 or len(x.operands) != 2:
        return full
    a, b = x.operands
    op, c = x.opcode, const_int(b)
    if op == "and":
        return min(umax_of(a, depth + 1), umax_of(b, depth + 1))
    if op in ("or", "xor"):
        return (1 << max(umax_of(a, depth + 1), umax_of(b, depth + 1)).bit_length()) - 1
    if op == "lshr" and c is not None and c < 32:
        return umax_of(a, depth + 1) >> c
    if op == "ashr" and c is not None and c < 32 and sign_zero(a, depth + 1):
        return umax_of(a, depth + 1) >> c
    return full


def sign_zero(x, depth: int) -> bool:
    if type(x) is _CONSTANT:
        return isinstance(x.value, int) and 0 <= x.value < (1 << 31)
    if type(x) is not _INSTRUCTION or depth > 4 or len(x.operands) != 2:
        return False
    a, b = x.operands
    op = x.opcode
    if op == "lshr":
        return (is_const(b) and isinstance(b.value, int) and 1 <= b.value <= 31) or sign_zero(a, depth + 1)
    if op == "and":
        return sign_zero(a, depth + 1) or sign_zero(b, depth + 1)
    if op == "or":
        return sign_zero(a, depth + 1) and sign_zero(b, depth + 1)
    if op == "ashr":
        return sign_zero(a, depth + 1)
    return False


def invariant_atom(v, body) -> bool:
    """A loop-invariant value SCEV sees as opaque: an argument, or an instruction
    outside the loop that is a load, a call or an opaque operation."""
    if isinstance(v, Argument):
        return True
    if type(v) is not _INSTRUCTION or v.block in body:
        return False
    if v.opcode in ("load", "call"):
        return True
    return v.opcode in _OPAQUE and not any(is_const(o) for o in v.operands) and "disjoint" not in v.flags


class Scev:
    """SCEV of the loop's integer values as far as the class needs: a sum of
    coefficient * atom terms (loop-variant atoms, loop-invariant atoms), a constant,
    and the step of the add-recurrence {0,+,step} of ``%i`` it contains (0: none).
    None for a value outside these forms."""

    def __init__(self, body, iv):
        self.body, self.iv = body, iv
        self.memo: dict = {}
        self.vmemo: dict = {}

    def of(self, v):
        if type(v) is _CONSTANT:
            return ({}, {}, v.value if isinstance(v.value, int) else None, 0) if isinstance(v.value, int) else None
        if v is self.iv:
            return ({}, {}, 0, 1)
        r = self.memo.get(v, 0)
        if r != 0:
            return r
        self.memo[v] = None  # (cycles through phis: opaque)
        r = self._of(v)
        self.memo[v] = r
        return r

    def varies(self, v) -> bool:
        """``v``'s SCEV is certainly loop-variant (where ``of`` does not say what it
        is): an opaque value of the loop, a sum with loop-variant terms or a recurrence
        of the loop, or a constant multiple, shift, mask or product of a value that
        varies (SCEV folds no product of a varying value to an invariant)."""
        if type(v) is not _INSTRUCTION or v.block not in self.body:
            return False
        r = self.vmemo.get(v)
        if r is None:
            self.vmemo[v] = False  # (cycles: not known)
            r = self.vmemo[v] = self._varies(v)
        return r

    def _varies(self, v) -> bool:
        if opaque(v, self.body):
            return True
        e = self.of(v)
        if e is not None:
            return bool(e[0]) or e[3] != 0
        ops = v.operands
        if v.opcode in ("mul", "shl", "lshr", "ashr", "and", "or") and len(ops) == 2 and not v.flags:
            a, b = ops
            if v.opcode == "mul" and not is_const(a) and not is_const(b):
                return self.varies(a) or self.varies(b)
            if is_const(b) and isinstance(b.value, int) and b.value not in (0, -1) and \
                    (v.opcode in ("mul", "and", "or") or 0 < b.value < 32):
                return self.varies(a)
        return False

    def _of(self, v):
        if opaque(v, self.body):
            return ({v: 1}, {}, 0, 0)
        if invariant_atom(v, self.body):
            return ({}, {v: 1}, 0, 0)
        if type(v) is not _INSTRUCTION or v.block not in self.body or v.type != I32:
            return None
        ops = v.operands
        if self.iv not in ops and (_product(v, self.body) or _udiv(v, self.body) or _scaled(v, self.body)):
            return ({v: 1}, {}, 0, 0)
        if v.opcode in ("add", "sub") and "disjoint" not in v.flags:
            a, b = self.of(ops[0]), self.of(ops[1])
            if a is None or b is None:
                return None
            r = _lin(a, b, 1 if v.opcode == "add" else -1)
            # (getAddExpr folds X + X * Y to X * (1 + Y), X * Y + X * Z to X * (Y + Z):
            # such sums are not followed)
            seen: set = set()
            for x in list(r[0]) + list(r[1]):
                fs = {x.operands[0]} if scale_of(x) else \
                    set(x.operands) if type(x) is _INSTRUCTION and x.opcode == "mul" else {x}
                if fs & seen:
                    return None
                seen |= fs
            return r
        if v.opcode == "xor" and is_const(ops[1]) and ops[1].value == -1:
            a = self.of(ops[0])
            if a is None:
                return None
            return _lin(({}, {}, -1, 0), a, -1)
        return None


def _product(v, body) -> bool:
    """``v`` is a product SCEV keeps as a term of its own (a SCEVMulExpr x * y): ``mul``
    without flags of two different values of the loop or loop-invariant that SCEV sees
    as opaque, one of them of the loop. (SCEVExpander finds ``v`` itself for the
    term: FindValueInExprValueMap, ``v``'s SCEV having been computed as an operand of
    the interesting value that reads it.)"""
    if v.opcode != "mul" or v.flags or len(v.operands) != 2 or v.block not in body:
        return False
    a, b = v.operands
    if a is b or not all(opaque(o, body) or invariant_atom(o, body) for o in (a, b)):
        return False
    return opaque(a, body) or opaque(b, body)


def _udiv(v, body) -> bool:
    """``v`` is a quotient SCEV keeps as a term of its own (a SCEVUDivExpr x /u 2^C):
    ``lshr`` without flags by a constant C (1 to 31) of an opaque value of the loop
    (not ``%i``: the caller checks). (The expander finds ``v`` itself for the term.)"""
    if v.opcode != "lshr" or v.flags or len(v.operands) != 2 or v.block not in body:
        return False
    a, b = v.operands
    return is_const(b) and isinstance(b.value, int) and 1 <= b.value <= 31 and opaque(a, body)


def scale_of(v):
    """The constant C of ``v`` = ``mul x, C`` (2 <= C < 2^31) or ``shl x, k`` (1 <= k <=
    30, C = 2^k), both without flags: SCEV's C * x (a SCEVMulExpr with a constant
    first). None for other values."""
    if type(v) is not _INSTRUCTION or v.flags or len(v.operands) != 2 or v.opcode not in ("mul", "shl"):
        return None
    a, b = v.operands
    k = const_int(b)
    if k is None or is_const(a):
        return None
    if v.opcode == "shl":
        return 1 << k if 1 <= k <= 30 else None
    return k if 2 <= k < 1 << 31 else None


def _scaled(v, body) -> bool:
    """``v`` is a constant multiple SCEV keeps as a term of its own (C * x, ``scale_of``)
    of an opaque value x of the loop (not ``%i``: the caller checks). (The expander
    finds ``v`` itself for the term; its negation -C * x leading a sum is ``mul x,
    -C``.)"""
    return v.block in body and scale_of(v) is not None and opaque(v.operands[0], body)


def scev_kind(x, k: int) -> str:
    """The expander's term kind of coefficient ``k`` times the atom ``x``."""
    if scale_of(x):
        return "ns" if k == -1 else "s"
    if type(x) is _INSTRUCTION and x.opcode == "mul":
        return "np" if k == -1 else "p"
    if type(x) is _INSTRUCTION and x.opcode == "lshr" and is_const(x.operands[1]):
        return "nd" if k == -1 else "d"  # (x /u 2^C: an lshr by a variable amount is a value)
    return "n" if k == -1 else "u"


def _lin(a, b, k: int):
    """a + k * b."""
    var, inv = dict(a[0]), dict(a[1])
    for d, src in ((var, b[0]), (inv, b[1])):
        for x, c in src.items():
            c = d.get(x, 0) + k * c
            if c:
                d[x] = c
            else:
                d.pop(x, None)
    return (var, inv, (a[2] + k * b[2]) & 0xFFFFFFFF, a[3] + k * b[3])


def signed_range_of(x) -> tuple:
    """A superset of ScalarEvolution's signed range of the opaque ``x`` from the facts
    the model knows (sign bits, a known-zero sign bit)."""
    n = sign_bits_of(x, 0)
    lo, hi = -(1 << (32 - n)), (1 << (32 - n)) - 1
    return (0, hi) if sign_zero(x, 0) else (lo, hi)

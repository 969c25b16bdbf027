"""The value facts the rules ask, built on known bits: haveNoCommonBitsSet (``no_common_bits``,
with the masked-merge shape), isADDLike (``add_like``), the active bits of a multiply
operand, isKnownNeverZero (``never_zero``) and a known-zero sign bit (``sign_bit_zero``,
``non_negative``)."""

from __future__ import annotations

from typing import Final

from patterns.dag.combine.context import Ctx, is_c, is_not, MAX_DEPTH
from patterns.support.intops import int_width
from patterns.dag.combine.known import known_bits, known_lz
from patterns.dag.nodes import SDNode


def no_common_bits(x: SDNode, y: SDNode, ctx: Ctx) -> bool:
    """SelectionDAG::haveNoCommonBitsSet: the masked-merge shape (``_masked_merge``, each
    operand order), else by known bits: every bit is known zero on one side at least."""
    if (x.opcode in _MERGE_OPS or y.opcode in _MERGE_OPS) and (_masked_merge(x, y) or _masked_merge(y, x)):
        return True
    kx = known_bits(x, ctx, 0)
    if not kx.zero:
        return False
    ky = known_bits(y, ctx, 0)
    return (kx.zero | ky.zero) == (1 << kx.bits) - 1


_EXT_TRUNC: Final = frozenset({"ISD::ZERO_EXTEND", "ISD::TRUNCATE"})
_MERGE_OPS: Final = _EXT_TRUNC | {"ISD::AND"}


def _masked_merge(a: SDNode, b: SDNode) -> bool:
    """The structural test of haveNoCommonBitsSet (LLVM 19), one operand order: ``a`` is
    ``and`` with an operand ``not m`` and ``b`` is ``m`` itself or an ``and`` with ``m``
    as an operand ((x & ~m) vs m, (x & ~m) vs (y & m)). A zero_extend or truncate is
    looked through on ``a``, ``b`` and ``m``."""
    if a.opcode in _EXT_TRUNC:
        a = a.ops[0]
    if a.opcode != "ISD::AND" or len(a.ops) != 2:
        return False
    if b.opcode in _EXT_TRUNC:
        b = b.ops[0]
    b_and = b.opcode == "ISD::AND" and len(b.ops) == 2
    for v in a.ops:
        if v.opcode == "ISD::XOR" and is_not(v):
            m = v.ops[0]
            if m.opcode in _EXT_TRUNC:
                m = m.ops[0]
            if b is m or (b_and and (b.ops[0] is m or b.ops[1] is m)):
                return True
    return False


def add_like(v: SDNode, ctx: Ctx) -> bool:
    """SelectionDAG::isADDLike: an or of operands without common bits (the xor with the
    sign mask too)."""
    if v.opcode == "ISD::OR":
        return no_common_bits(v.ops[0], v.ops[1], ctx)
    if v.opcode == "ISD::XOR" and is_c(v.ops[1]):
        bits = int_width(v.vt)
        return bits != 0 and (v.ops[1].value & ((1 << bits) - 1)) == 1 << (bits - 1)
    return False


def active_bits(v: SDNode, ctx: Ctx) -> int:
    """KnownBits::countMaxActiveBits."""
    k = known_bits(v, ctx, 0)
    return k.bits - k.lead_zeros()


def only_mul_users(v: SDNode, ctx: Ctx) -> bool:
    ctx.ensure_users()
    return all(u.opcode == "ISD::MUL" for u in v.users)


def non_negative(n: SDNode, ctx: Ctx, depth: int = 0) -> bool:
    """Known bits: the sign bit of ``n`` is zero."""
    return known_lz(n, ctx, depth) >= 1


def sign_bit_zero(n: SDNode, ctx: Ctx) -> bool:
    """SelectionDAG::SignBitIsZero."""
    bits = int_width(n.vt)
    return bool(bits) and bool(known_bits(n, ctx).zero >> (bits - 1) & 1)


def never_zero(n: SDNode, ctx: Ctx, depth: int = 0) -> bool:
    """SelectionDAG::isKnownNeverZero for the modeled nodes (no nuw/nsw/exact flags are
    modeled on nodes: the rules needing them do not apply), then the known bits."""
    if depth >= MAX_DEPTH:
        return False
    opc = n.opcode
    if opc == "ISD::Constant":
        return isinstance(n.value, int) and n.value != 0
    ops = n.ops
    d1 = depth + 1
    if opc == "ISD::OR" or opc == "ISD::UMAX":
        if never_zero(ops[1], ctx, d1) or never_zero(ops[0], ctx, d1):
            return True
    elif opc == "ISD::SELECT":
        if never_zero(ops[1], ctx, d1) and never_zero(ops[2], ctx, d1):
            return True
    elif opc == "ISD::SHL" or opc == "ISD::SRL" or opc == "ISD::SRA":
        k = known_bits(ops[0], ctx, d1)
        bits = k.bits
        if opc == "ISD::SHL" and k.one & 1:
            return True
        if opc != "ISD::SHL" and k.one >> (bits - 1) & 1:
            return True
        most = known_bits(ops[1], ctx, d1).max_value()
        if most < bits and ((k.one << most) & k.mask if opc == "ISD::SHL" else k.one >> most):
            return True
    elif opc == "ISD::SMAX" or opc == "ISD::SMIN":
        k1 = known_bits(ops[1], ctx, d1)
        k0 = known_bits(ops[0], ctx, d1)
        bits = k1.bits
        s = 1 << (bits - 1)
        if opc == "ISD::SMAX":
            # strictly positive: sign bit known zero and some one known
            if (k1.zero & s and k1.one) or (k0.zero & s and k0.one):
                return True
        elif k1.one & s or k0.one & s:
            return True
        if k1.one and k0.one:
            return True
        if never_zero(ops[1], ctx, d1) and never_zero(ops[0], ctx, d1):
            return True
    elif opc == "ISD::UMIN":
        if never_zero(ops[1], ctx, d1) and never_zero(ops[0], ctx, d1):
            return True
    elif opc in ("ISD::BITREVERSE", "ISD::BSWAP", "ISD::CTPOP", "ISD::ABS", "ISD::ZERO_EXTEND",
                 "ISD::SIGN_EXTEND"):
        return never_zero(ops[0], ctx, d1)
    elif opc == "ISD::SUB":
        a, b = ops
        if is_c(a) and a.value == 0:
            return never_zero(b, ctx, d1)
        ka, kb = known_bits(a, ctx, d1), known_bits(b, ctx, d1)
        return bool((ka.zero & kb.one) | (ka.one & kb.zero))  # KnownBits::ne
    return bool(known_bits(n, ctx, depth).one)

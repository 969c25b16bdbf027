"""The visits of the integer intrinsic nodes: visitCTLZ / visitCTTZ / visitCTPOP
(``visit_COUNT``), visitABS (``visit_ABS``) and visitIMINMAX (``visit_MINMAX``, with
SimplifyDemandedBits' min/max case: an operand whose known bits decide the order is the
result)."""

from __future__ import annotations

from typing import Final

from patterns.dag.combine.context import Ctx, is_c, set_result
from patterns.support.intops import int_width
from patterns.dag.combine.known import known_bits
from patterns.dag.combine.queries import sign_bit_zero
from patterns.dag.combine.reassoc import commuted_other
from patterns.dag.combine.setcc import visit_other
from patterns.dag.nodes import SDNode
from patterns.support.intops import ctz
from patterns.support.knownbits import Known, signed_min_max


def visit_COUNT(n: SDNode, ctx: Ctx) -> bool:
    """visitCTPOP / visitCTLZ(_ZERO_UNDEF) / visitCTTZ(_ZERO_UNDEF) / visitBITREVERSE: a
    constant operand folds (FoldConstantArithmetic; a zero count is the width for the
    zero-undef forms too); ctpop of a shift by a constant that moves out only bits known
    zero (shl: leading, srl: trailing) counts the shift's source; then the opcode's other
    rules (other_rules: ctlz/cttz of a value never zero, the zero-defined lowering)."""
    x = n.ops[0] if n.ops else None
    bits = int_width(n.vt)
    if x is not None and is_c(x) and bits:
        v = x.value & ((1 << bits) - 1)
        opc = n.opcode
        if opc == "ISD::CTPOP":
            r = bin(v).count("1")
        elif opc == "ISD::BITREVERSE":
            r = int(format(v, f"0{bits}b")[::-1], 2)
        elif opc in ("ISD::CTLZ", "ISD::CTLZ_ZERO_UNDEF"):
            r = bits - v.bit_length()
        else:
            r = ctz(v, bits)
        ctx.replace(n, ctx.const(r, n.vt))
        return True
    if n.opcode == "ISD::CTPOP" and x is not None and bits and x.opcode in ("ISD::SHL", "ISD::SRL") \
            and is_c(x.ops[1]) and (x.ops[1].value & ((1 << bits) - 1)) < bits:
        # a shift that moves no set bit out: ctpop of its source
        amt = x.ops[1].value & ((1 << bits) - 1)
        k = known_bits(x.ops[0], ctx, 0)
        m = (1 << bits) - 1
        if amt <= (k.lead_zeros() if x.opcode == "ISD::SHL" else ctz(~k.zero & m, bits)):
            set_result(ctx, n, "ISD::CTPOP", [x.ops[0]])
            return True
    if n.opcode in ("ISD::CTLZ", "ISD::CTTZ"):
        return visit_other(n, ctx)
    return False


def visit_ABS(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::visitABS: abs of a constant, abs (abs x) -> abs x, abs x -> x when
    the sign bit is known zero."""
    x = n.ops[0]
    if is_c(x):
        bits = int_width(n.vt)
        v = x.value & ((1 << bits) - 1)
        ctx.replace(n, ctx.const(v if not v >> (bits - 1) else (1 << bits) - v, n.vt))
        return True
    if x.opcode == "ISD::ABS" or sign_bit_zero(x, ctx):
        ctx.replace(n, x)
        return True
    return False


_MINMAX_FLIP: Final = {"ISD::SMIN": "ISD::UMIN", "ISD::SMAX": "ISD::UMAX", "ISD::UMIN": "ISD::SMIN", "ISD::UMAX": "ISD::SMAX"}


def visit_MINMAX(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::visitIMINMAX's rules for two non-constant operands: the same operand
    twice; umin (smax ..) with both sign bits known zero is smin (the saturation shape
    InstCombine breaks, the one flip a target with all four legal makes); then
    SimplifyDemandedBits with every bit demanded: an operand whose known bits decide the
    order is the result (KnownBits::ule/ult, uge/ugt, sle/slt, sge/sgt). Then the
    existing steps of the opcode (the commuted form, smax(x, 0 - x) -> abs), and last the
    target's combine of the opcode (PerformDAGCombine: ``TargetHooks.dag_combine``)."""
    ops = n.ops
    if len(ops) == 2:
        a, b = ops
        opc = n.opcode
        if a is b:
            ctx.replace(n, a)
            return True
        if not (is_c(a) and is_c(b)):
            if opc == "ISD::UMIN" and a.opcode == "ISD::SMAX" and "ISD::SMIN" in ctx.legal \
                    and sign_bit_zero(a, ctx) and sign_bit_zero(b, ctx):
                set_result(ctx, n, "ISD::SMIN", [a, b])
                return True
            pick = _minmax_by_known(opc, known_bits(a, ctx, 1), known_bits(b, ctx, 1))
            if pick is not None:
                ctx.replace(n, a if pick == 0 else b)
                return True
    if n.opcode == "ISD::SMAX":
        if visit_other(n, ctx):
            return True
    elif commuted_other(n, ctx):
        return True
    f = ctx.combines.get(n.opcode)  # (the target's combine: PerformDAGCombine)
    return f is not None and bool(f(n, ctx))


def _minmax_by_known(opc: str, ka: Known, kb: Known):
    """0 or 1: the operand of a min/max that known bits prove is the result (the
    non-strict comparison asked first, then the strict one), or None."""
    bits = ka.bits
    if opc[5] == "U":  # ISD::UMIN / ISD::UMAX
        alo, ahi, blo, bhi = ka.one, ka.max_value(), kb.one, kb.max_value()
    else:
        alo, ahi = signed_min_max(ka.zero, ka.one, bits)
        blo, bhi = signed_min_max(kb.zero, kb.one, bits)
    if opc[6:] == "MIN":
        # a <= b: true when max(a) <= min(b), false when min(a) > max(b)
        if ahi <= blo:
            return 0
        if alo > bhi:
            return 1
        # a < b (asked when a <= b is undecided): true when max(a) < min(b) (covered),
        # false when min(a) >= max(b)
        if alo >= bhi:
            return 1
        return None
    if alo >= bhi:
        return 0
    if ahi < blo:
        return 1
    if ahi <= blo:
        return 1
    return None

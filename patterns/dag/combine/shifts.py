"""The shift visits: DAGCombiner's visitSHL, visitSRL, visitSRA, with visitShiftByConstant
(``shift_by_constant``: combineShiftOfShiftedLogic, a logic op with a constant pulled through
a constant shift) and shifts of shifts (``shift_of_shift``)."""

from __future__ import annotations

from typing import Any, Final

from patterns.dag.combine.context import Ctx, FOLD, is_c, is_not, set_result, SHIFTS
from patterns.support.intops import int_width
from patterns.dag.combine.demanded import demanded_root
from patterns.dag.combine.known import known_bits
from patterns.dag.combine.queries import non_negative
from patterns.dag.combine.setcc import other_rules
from patterns.dag.nodes import SDNode
from patterns.support.intops import wrap_vt


_LOGIC3: Final = frozenset({"ISD::AND", "ISD::OR", "ISD::XOR"})


def _shift_by_constant(n: SDNode, ctx: Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    """DAGCombiner::visitShiftByConstant (after SimplifyDemandedBits in the shift visits;
    AMDGPU's isDesirableToCommuteWithShift allows it before type legalization), for a
    shift of a logic op used once: combineShiftOfShiftedLogic, shift (logic (shift x, c0),
    y), c1 -> logic (shift x, c0 + c1), (shift y, c1) when the inner shift is the same
    kind, used once and c0 + c1 < 32; else a logic op (or an add under shl) with a
    constant whose first operand is a shift by a constant, or a copy/select when the
    shift has other users: shift (op x, C), c -> op (shift x, c), (shift C, c)."""
    if a.opcode not in _LOGIC3 and not (a.opcode == "ISD::ADD" and opc == "ISD::SHL"):
        return False
    if not a.uses == 1:
        return False
    bits = int_width(n.vt)
    c1 = b.value & ((1 << bits) - 1)
    vt = n.vt
    if is_not(a):
        return False  # (a not stays a not: llc-19 keeps shift (not (shift x)) for shl, srl, sra)
    if a.opcode in _LOGIC3:
        for v, y in ((a.ops[0], a.ops[1]), (a.ops[1], a.ops[0])):
            if v.opcode == opc and v.uses == 1 and is_c(v.ops[1]):
                c0 = v.ops[1].value & ((1 << bits) - 1)
                if c0 + c1 >= bits:
                    continue
                s1 = ctx.new(opc, vt, [v.ops[0], ctx.const(c0 + c1, vt)], like=n)
                s2 = ctx.new(opc, vt, [y, b], like=n)
                set_result(ctx, n, a.opcode, [s1, s2])
                return True
    x = a.ops[0]
    by_const = x.opcode in SHIFTS and is_c(x.ops[1])
    copy_or_select = x.opcode in ("ISD::CopyFromReg", "ISD::SELECT")
    if not (by_const or copy_or_select) or (copy_or_select and n.uses == 1):
        return False
    if not is_c(a.ops[1]):
        return False
    inner = ctx.new(opc, vt, [x, b], like=n)
    set_result(ctx, n, a.opcode, [inner, ctx.const(FOLD[opc](a.ops[1].value, c1), vt)])
    return True


def visit_SHL(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::visitSHL (SimplifyDemandedBits, then visitShiftByConstant)."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value << (b.value & 31), n.vt))  # constant folding
            return True
        if wrap_vt(a.value, n.vt) == 0:
            ctx.replace(n, a)  # 0 << x
            return True
    if bc:
        c = b.value
        if c == 0:
            ctx.replace(n, a)  # x << 0
            return True
        if (ao == "ISD::ADD" or ao == "ISD::OR") and is_c(a.ops[1]) and a.uses == 1:
            # (shl (add x, c1), c2) -> (add (shl x, c2), c1 << c2)
            sh = ctx.new("ISD::SHL", n.vt, [a.ops[0], b], like=n)
            set_result(ctx, n, ao, [sh, ctx.const(a.ops[1].value << (c & 31), n.vt)])
            return True
        if ao == "ISD::SHL":
            if is_c(a.ops[1]) and _shift_of_shift(n, ctx, "ISD::SHL", a, b):
                return True
        elif ao == "ISD::MUL":
            if is_c(a.ops[1]) and a.uses == 1:
                # (shl (mul x, c1), c2) -> (mul x, c1 << c2), the mul used once
                set_result(ctx, n, "ISD::MUL", [a.ops[0], ctx.const(a.ops[1].value << (c & 31), n.vt)])
                return True
        elif ao == "ISD::SRL":
            if is_c(a.ops[1]):
                c1, c2 = a.ops[1].value & 31, c & 31
                if c1 > 0 and c2 > 0 and (c1 == c2 or a.uses == 1):
                    # (shl (srl x, c1), c2) -> (and (shl|srl x, |c2-c1|), (-1 >> c1) << c2)
                    x = a.ops[0]
                    mask = ctx.const(((0xFFFFFFFF >> c1) << c2) & 0xFFFFFFFF, n.vt)
                    if c1 == c2:
                        inner = x
                    else:
                        inner = ctx.new("ISD::SHL" if c2 > c1 else "ISD::SRL", n.vt,
                                        [x, ctx.const(abs(c2 - c1), n.vt)], like=n)
                    set_result(ctx, n, "ISD::AND", [inner, mask])
                    return True
    # SimplifyDemandedBits (passed over where it cannot change anything: demanded_root)
    if demanded_root(n, ctx):
        return True
    return bc and (ao in _LOGIC3 or ao == "ISD::ADD") and a.uses == 1 and _shift_by_constant(n, ctx, "ISD::SHL", a, b)


def visit_SRL(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::visitSRL (SimplifyDemandedBits, then visitShiftByConstant)."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const((a.value & 0xFFFFFFFF) >> (b.value & 31), n.vt))  # constant folding
            return True
        if wrap_vt(a.value, n.vt) == 0:
            ctx.replace(n, a)  # 0 >> x
            return True
    if bc:
        c = b.value
        if c == 0:
            ctx.replace(n, a)  # x >> 0
            return True
        if ao == "ISD::SRL":
            if is_c(a.ops[1]) and _shift_of_shift(n, ctx, "ISD::SRL", a, b):
                return True
        elif ao == "ISD::SHL":
            if is_c(a.ops[1]):
                c1, c2 = a.ops[1].value & 31, c & 31
                if c1 > 0 and c2 > 0 and (c1 == c2 or a.uses == 1):
                    # (srl (shl x, c1), c2) -> (and (srl|shl x, |c2-c1|), -1 >> c2)
                    x = a.ops[0]
                    mask = ctx.const(0xFFFFFFFF >> c2, n.vt)
                    if c1 == c2:
                        inner = x
                    else:
                        inner = ctx.new("ISD::SRL" if c2 > c1 else "ISD::SHL", n.vt,
                                        [x, ctx.const(abs(c2 - c1), n.vt)], like=n)
                    set_result(ctx, n, "ISD::AND", [inner, mask])
                    return True
        elif ao == "ISD::CTLZ" and _srl_of_ctlz(n, ctx, a, c):
            return True
    # SimplifyDemandedBits (passed over where it cannot change anything: demanded_root)
    if demanded_root(n, ctx):
        return True
    return bc and ao in _LOGIC3 and a.uses == 1 and _shift_by_constant(n, ctx, "ISD::SRL", a, b)


def _srl_of_ctlz(n: SDNode, ctx: Ctx, a: SDNode, c: int) -> bool:
    """visitSRL's (srl (ctlz x), log2(width)): 1 exactly when x is zero. A known one in x
    makes it 0, x known zero makes it 1, and x with one bit that may be set, bit k, makes
    it (x >> k) ^ 1."""
    x: Any
    bits = int_width(n.vt)
    if not bits or bits & (bits - 1) or c != bits.bit_length() - 1:
        return False
    x = a.ops[0]
    k = known_bits(x, ctx, 0)
    if k.one:
        ctx.replace(n, ctx.const(0, n.vt))
        return True
    unknown = ~k.zero & ((1 << bits) - 1)
    if not unknown:
        ctx.replace(n, ctx.const(1, n.vt))
        return True
    if unknown & (unknown - 1):
        return False
    sh = unknown.bit_length() - 1
    if sh:
        x = ctx.new("ISD::SRL", n.vt, [x, ctx.const(sh, n.vt)], like=n)
    set_result(ctx, n, "ISD::XOR", [x, ctx.const(1, n.vt)])
    return True


def visit_SRA(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::visitSRA (SimplifyDemandedBits, then visitShiftByConstant), with
    sra (shl x, 32-n), 32-n -> sign_extend_inreg x, i<n> for n = 8, 16."""
    ops = n.ops
    if len(ops) != 2:
        return other_rules(n, ctx)
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value >> (b.value & 31), n.vt))  # constant folding
            return True
        if wrap_vt(a.value, n.vt) == 0 or wrap_vt(a.value, n.vt) == -1:
            ctx.replace(n, a)  # 0 >> x, -1 >> x
            return True
    if bc and b.value == 0:
        ctx.replace(n, a)  # x >> 0
        return True
    if non_negative(a, ctx):
        set_result(ctx, n, "ISD::SRL", [a, b])  # the sign bit is known zero
        return True
    if bc and ao == "ISD::SRA" and is_c(a.ops[1]) and _shift_of_shift(n, ctx, "ISD::SRA", a, b):
        return True
    # SimplifyDemandedBits (passed over where it cannot change anything: demanded_root)
    if demanded_root(n, ctx):
        return True
    if bc and ao in _LOGIC3 and a.uses == 1 and _shift_by_constant(n, ctx, "ISD::SRA", a, b):
        return True
    if bc and ao == "ISD::SHL":
        c = b.value
        if is_c(a.ops[1]) and a.ops[1].value == c and c in (16, 24) and n.vt == "i32" \
                and "ISD::SIGN_EXTEND_INREG" in ctx.legal:
            set_result(ctx, n, "ISD::SIGN_EXTEND_INREG", [a.ops[0], ctx.vtnode(f"i{32 - c}")])
            return True
    return False


def _shift_of_shift(n: SDNode, ctx: Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    """(shift (shift x, c1), c2) -> (shift x, c1 + c2), both shifts of one kind by
    constants (checked by the caller)."""
    total = (a.ops[1].value & 31) + (b.value & 31)
    if total < 32:
        set_result(ctx, n, opc, [a.ops[0], ctx.const(total, n.vt)])
    elif opc == "ISD::SRA":
        set_result(ctx, n, opc, [a.ops[0], ctx.const(31, n.vt)])
    else:
        ctx.replace(n, ctx.const(0, n.vt))
    return True

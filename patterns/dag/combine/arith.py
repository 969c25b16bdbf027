"""The arithmetic visits: DAGCombiner's visitADD / visitADDLike / visitADDLikeCommutative in their
order (``visit_ADD``, also run for an or without common bits), visitSUB (``visit_SUB``) and
visitMUL (``visit_MUL``, then the target's multiply combine)."""

from __future__ import annotations

from typing import Any, Final

from patterns.dag.combine.context import Ctx, is_c, is_neg, is_not, set_result
from patterns.support.intops import int_width
from patterns.dag.combine.demanded import demanded_root
from patterns.dag.combine.known import known_bits
from patterns.dag.combine.queries import add_like, no_common_bits
from patterns.dag.combine.reassoc import commuted, reassociate, reassociate_scalar
from patterns.dag.nodes import SDNode
from patterns.support.intops import wrap_vt


def visit_ADD(n: SDNode, ctx: Ctx, or_like: bool = False) -> bool:
    """DAGCombiner::visitADD with visitADDLike / visitADDLikeCommutative in their order,
    then the target's add combines (SITargetLowering::reassociateScalarOps). With
    ``or_like``, ``n`` is an add-like or and only visitADDLike runs (visitOR's last step;
    its SimplifyDemandedBits is left out: visitOR's own just found nothing)."""
    t: Any
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value + b.value, n.vt))  # constant folding
            return True
        set_result(ctx, n, "ISD::ADD", [b, a])  # the constant to the right
        return True
    if bc and b.value == 0:
        ctx.replace(n, a)  # x + 0
        return True
    vt = n.vt
    if (ao == "ISD::XOR" and is_not(a) and a.ops[0] is b) or (bo == "ISD::XOR" and is_not(b) and b.ops[0] is a):
        ctx.replace(n, ctx.const(-1, vt))  # x + ~x
        return True
    if bc:
        if ao == "ISD::SUB":
            a0, a1 = a.ops
            if a1.opcode == "ISD::Constant" and type(a1.value) is int:
                # ((A - c1) + c2) -> A + (c2 - c1)
                set_result(ctx, n, "ISD::ADD", [a0, ctx.const(b.value - a1.value, vt)])
                return True
            if a0.opcode == "ISD::Constant" and type(a0.value) is int:
                # ((c1 - A) + c2) -> (c1 + c2) - A
                set_result(ctx, n, "ISD::SUB", [ctx.const(b.value + a0.value, vt), a1])
                return True
        elif (ao == "ISD::OR" or ao == "ISD::XOR") and len(a.ops) == 2 and is_c(a.ops[1]) and add_like(a, ctx):
            # (add (or x, c0), c1) -> (add x, c0 + c1), the or add-like
            set_result(ctx, n, "ISD::ADD", [a.ops[0], ctx.const(a.ops[1].value + b.value, vt)])
            return True
    # reassociateOps
    if ao == "ISD::ADD" and reassociate(n, a, b, ctx, "ISD::ADD"):
        return True
    if bo == "ISD::ADD" and reassociate(n, b, a, ctx, "ISD::ADD"):
        return True
    # ReassociateAddOr: (add (or x, c), y) -> (add (add x, y), c), the or add-like and
    # used once (each operand order)
    if (ao == "ISD::OR" or ao == "ISD::XOR") and not bc and is_c(a.ops[1]) and a.uses == 1 and add_like(a, ctx):
        inner = ctx.new("ISD::ADD", vt, [b, a.ops[0]], like=n)
        set_result(ctx, n, "ISD::ADD", [inner, a.ops[1]])
        return True
    if (bo == "ISD::OR" or bo == "ISD::XOR") and is_c(b.ops[1]) and b.uses == 1 and add_like(b, ctx):
        inner = ctx.new("ISD::ADD", vt, [a, b.ops[0]], like=n)
        set_result(ctx, n, "ISD::ADD", [inner, b.ops[1]])
        return True
    if ao == "ISD::SUB":
        a0, a1 = a.ops
        if a0.opcode == "ISD::Constant" and type(a0.value) is int and a0.value == 0:
            set_result(ctx, n, "ISD::SUB", [b, a1])  # ((0 - A) + B) -> B - A
            return True
    if bo == "ISD::SUB":
        b0, b1 = b.ops
        if b0.opcode == "ISD::Constant" and type(b0.value) is int and b0.value == 0:
            set_result(ctx, n, "ISD::SUB", [a, b1])  # (A + (0 - B)) -> A - B
            return True
        if b1 is a:  # A + (B - A) -> B
            ctx.replace(n, b0)
            return True
    if ao == "ISD::SUB":
        a0, a1 = a.ops
        if a1 is b:  # (B - A) + A -> B
            ctx.replace(n, a0)
            return True
        if bo == "ISD::SUB":
            b0, b1 = b.ops
            if b1 is a0:  # (A - B) + (C - A) -> C - B
                set_result(ctx, n, "ISD::SUB", [b0, a1])
                return True
            if b0 is a1:  # (A - B) + (B - C) -> A - C
                set_result(ctx, n, "ISD::SUB", [a0, b1])
                return True
    if bo == "ISD::SUB":
        t = b.ops[1]
        if t.opcode == "ISD::ADD" and a in t.ops:
            # A + (B - (A + C)) -> B - C (and A + (B - (C + A)))
            set_result(ctx, n, "ISD::SUB", [b.ops[0], t.ops[1] if t.ops[0] is a else t.ops[0]])
            return True
    if bo == "ISD::ADD" or bo == "ISD::SUB":
        # A + ((B - A) +/- C) -> B +/- C (sd_match: the inner add commutative)
        b0, b1 = b.ops
        if b0.opcode == "ISD::SUB" and b0.ops[1] is a:
            set_result(ctx, n, bo, [b0.ops[0], b1])
            return True
        if bo == "ISD::ADD" and b1.opcode == "ISD::SUB" and b1.ops[1] is a:
            set_result(ctx, n, bo, [b1.ops[0], b0])
            return True
    if ao == "ISD::SUB" and bo == "ISD::SUB" and a.uses == 1 and b.uses == 1 \
            and (is_c(a.ops[0]) or is_c(b.ops[0])):
        # (A - B) + (C - D) -> (A + C) - (B + D) when A or C is a constant
        s1 = ctx.new("ISD::ADD", vt, [a.ops[0], b.ops[0]], like=n)
        s2 = ctx.new("ISD::ADD", vt, [a.ops[1], b.ops[1]], like=n)
        set_result(ctx, n, "ISD::SUB", [s1, s2])
        return True
    if ao == "ISD::UMAX" and bc and is_c(a.ops[1]) and wrap_vt(a.ops[1].value + b.value, vt) == 0 \
            and "ISD::USUBSAT" in ctx.legal:
        # (add (umax x, C), -C) -> (usubsat x, C) (the target has usubsat)
        set_result(ctx, n, "ISD::USUBSAT", [a.ops[0], a.ops[1]])
        return True
    # SimplifyDemandedBits (passed over where it cannot change anything: demanded_root)
    if not or_like and demanded_root(n, ctx):
        return True
    if bc:
        c = wrap_vt(b.value, vt)
        if c == 1:
            if is_not(a):  # (add (xor x, -1), 1) -> (sub 0, x)
                set_result(ctx, n, "ISD::SUB", [ctx.const(0, vt), a.ops[0]])
                return True
            if ao == "ISD::ADD":  # (add (add (xor a, -1), b), 1) -> (sub b, a)
                if is_not(a.ops[0]):
                    set_result(ctx, n, "ISD::SUB", [a.ops[1], a.ops[0].ops[0]])
                    return True
                if is_not(a.ops[1]):
                    set_result(ctx, n, "ISD::SUB", [a.ops[0], a.ops[1].ops[0]])
                    return True
        elif c == -1 and ao == "ISD::SUB" and a.uses == 1:
            # (x - y) + -1 -> add (xor y, -1), x
            nt = ctx.new("ISD::XOR", vt, [a.ops[1], ctx.const(-1, vt)], like=a)
            set_result(ctx, n, "ISD::ADD", [nt, a.ops[0]])
            return True
        if ao == "ISD::MUL" and a.uses == 1 and is_c(a.ops[1]) and a.ops[0].opcode == "ISD::ADD" \
                and is_c(a.ops[0].ops[1]):
            # add (mul (add A, CA), CM), CB -> add (mul A, CM), CM * CA + CB
            cm, ca = a.ops[1].value, a.ops[0].ops[1].value
            m = ctx.new("ISD::MUL", vt, [a.ops[0].ops[0], a.ops[1]], like=a)
            set_result(ctx, n, "ISD::ADD", [m, ctx.const(cm * ca + b.value, vt)])
            return True
    # visitADDLikeCommutative, both operand orders
    if ao in _ADDLIKE_COMM or bo in _ADDLIKE_COMM:
        for p_, q in ((a, b), (b, a)):
            if q.opcode == "ISD::SHL" and is_neg(q.ops[0]):
                # add x, (shl (0 - y), n) -> sub x, (shl y, n)
                sh = ctx.new("ISD::SHL", vt, [q.ops[0].ops[1], q.ops[1]], like=q)
                set_result(ctx, n, "ISD::SUB", [p_, sh])
                return True
            po = p_.opcode
            if po == "ISD::SUB" and p_.uses == 1:
                if is_c(p_.ops[1]):  # (x - C) + y -> (x + y) - C
                    t = ctx.new("ISD::ADD", vt, [p_.ops[0], q], like=n)
                    set_result(ctx, n, "ISD::SUB", [t, p_.ops[1]])
                    return True
                if is_c(p_.ops[0]):  # (C - x) + y -> (y - x) + C
                    t = ctx.new("ISD::SUB", vt, [q, p_.ops[1]], like=n)
                    set_result(ctx, n, "ISD::ADD", [t, p_.ops[0]])
                    return True
            elif po == "ISD::MUL" and p_.ops[0] is q and is_c(p_.ops[1]) and p_.uses == 1:
                # add (mul x, C), x -> mul x, C + 1
                set_result(ctx, n, "ISD::MUL", [q, ctx.const(p_.ops[1].value + 1, vt)])
                return True
    if or_like:
        return False  # (the end of visitADDLike)
    if no_common_bits(a, b, ctx):
        set_result(ctx, n, "ISD::OR", [a, b])  # no common bits: an or (visitADD)
        return True
    if a.divergent != b.divergent and (ao == "ISD::ADD" or bo == "ISD::ADD") and reassociate_scalar(n, ctx):
        return True
    return commuted(n, ctx, "ISD::ADD", a, b)


_ADDLIKE_COMM: Final = frozenset({"ISD::SHL", "ISD::SUB", "ISD::MUL"})


def visit_SUB(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::visitSUB in its order (sub x, C becomes add x, -C first)."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    ac = ao == "ISD::Constant" and type(a.value) is int
    if bo == "ISD::Constant" and type(b.value) is int:
        if ac:
            ctx.replace(n, ctx.const(a.value - b.value, n.vt))  # constant folding
            return True
        c = b.value
        if c == 0:
            ctx.replace(n, a)  # x - 0
            return True
        set_result(ctx, n, "ISD::ADD", [a, ctx.const(-c, n.vt)])  # sub x, C -> add x, -C
        return True
    if a is b:
        ctx.replace(n, ctx.const(0, n.vt))  # x - x
        return True
    vt = n.vt
    bits = int_width(vt)
    if ac:
        if a.value == 0 and (bo == "ISD::SRA" or bo == "ISD::SRL") and is_c(b.ops[1]) \
                and (b.ops[1].value & 0xFFFFFFFF) == bits - 1:
            # -(X >>u 31) -> X >>s 31 ; -(X >>s 31) -> X >>u 31
            set_result(ctx, n, "ISD::SRL" if bo == "ISD::SRA" else "ISD::SRA", [b.ops[0], b.ops[1]])
            return True
        if wrap_vt(a.value, vt) == -1:  # (sub -1, x) -> (xor x, -1)
            set_result(ctx, n, "ISD::XOR", [b, a])
            return True
    if bo == "ISD::SUB":
        b0, b1 = b.ops
        if b0.opcode == "ISD::Constant" and type(b0.value) is int and b0.value == 0:
            set_result(ctx, n, "ISD::ADD", [a, b1])  # A - (0 - B) -> A + B
            return True
        if b0 is a:  # A - (A - B) -> B
            ctx.replace(n, b1)
            return True
    if ao == "ISD::ADD" and b in a.ops:  # (A + B) - A -> B ; (A + B) - B -> A
        ctx.replace(n, a.ops[1] if a.ops[0] is b else a.ops[0])
        return True
    if bo == "ISD::ADD" and ac and is_c(b.ops[1]):
        # C2 - (A + C1) -> (C2 - C1) - A (no one-use condition)
        set_result(ctx, n, "ISD::SUB", [ctx.const(a.value - b.ops[1].value, vt), b.ops[0]])
        return True
    if ao == "ISD::ADD":
        # ((A + (B + C)) - B) -> A + C, then ((A + (B - C)) - B) -> A - C: sd_match with
        # m_Add commutative (each add's operands tried in order, then swapped), m_Sub not
        a0, a1 = a.ops
        for x, y in ((a0, a1), (a1, a0)):
            if y.opcode == "ISD::ADD":
                if y.ops[0] is b:
                    set_result(ctx, n, "ISD::ADD", [x, y.ops[1]])
                    return True
                if y.ops[1] is b:
                    set_result(ctx, n, "ISD::ADD", [x, y.ops[0]])
                    return True
        for x, y in ((a0, a1), (a1, a0)):
            if y.opcode == "ISD::SUB" and y.ops[0] is b:
                set_result(ctx, n, "ISD::SUB", [x, y.ops[1]])
                return True
    elif ao == "ISD::SUB" and a.ops[1].opcode == "ISD::SUB" and a.ops[1].ops[1] is b:
        # ((A - (B - C)) - C) -> A - B
        set_result(ctx, n, "ISD::SUB", [a.ops[0], a.ops[1].ops[0]])
        return True
    if bo == "ISD::SUB":
        if b.uses == 1:
            # (A - (B - C)) -> A + (C - B)
            inner = ctx.new("ISD::SUB", vt, [b.ops[1], b.ops[0]], like=b)
            set_result(ctx, n, "ISD::ADD", [a, inner])
            return True
    elif bo == "ISD::AND":
        if a in b.ops:
            # A - (A & B) -> A & ~B (the and used once, or B a constant)
            bb = b.ops[1] if b.ops[0] is a else b.ops[0]
            if b.uses == 1 or is_c(bb):
                inv = ctx.new("ISD::XOR", vt, [bb, ctx.const(-1, vt)], like=b)
                set_result(ctx, n, "ISD::AND", [a, inv])
                return True
    elif bo == "ISD::MUL":
        if b.uses == 1:
            for p_, q in ((b.ops[0], b.ops[1]), (b.ops[1], b.ops[0])):
                if is_neg(p_):  # A - ((0 - B) * C) -> A + (B * C)
                    m = ctx.new("ISD::MUL", vt, [p_.ops[1], q], like=b)
                    set_result(ctx, n, "ISD::ADD", [a, m])
                    return True
    if (ao == "ISD::UMAX" and a.uses == 1 and b in a.ops) or (bo == "ISD::UMIN" and b.uses == 1 and a in b.ops):
        # foldSubToUSubSat: umax(x, y) - y and y - umin(y, x) -> usubsat(x, y) (the
        # min/max used once; the target has usubsat)
        if "ISD::USUBSAT" in ctx.legal:
            if ao == "ISD::UMAX" and a.uses == 1 and b in a.ops:
                set_result(ctx, n, "ISD::USUBSAT", [a.ops[1] if a.ops[0] is b else a.ops[0], b])
            else:
                set_result(ctx, n, "ISD::USUBSAT", [a, b.ops[1] if b.ops[0] is a else b.ops[0]])
            return True
    if bo == "ISD::XOR":
        if is_not(b) and b.uses == 1:
            # sub y, (xor x, -1) -> add (add y, x), 1 (preferIncOfAddToSubOfNot)
            inner = ctx.new("ISD::ADD", vt, [a, b.ops[0]], like=n)
            set_result(ctx, n, "ISD::ADD", [inner, ctx.const(1, vt)])
            return True
    if ao == "ISD::ADD":
        if a.uses == 1 and is_c(a.ops[1]):
            # (x + C) - y -> (x - y) + C
            inner = ctx.new("ISD::SUB", vt, [a.ops[0], b], like=n)
            set_result(ctx, n, "ISD::ADD", [inner, a.ops[1]])
            return True
    if bo == "ISD::ADD":
        if is_c(b.ops[1]) and b.uses == 1:
            # y - (x + C) -> (y - x) - C, which the next visit makes (y - x) + -C
            inner = ctx.new("ISD::SUB", vt, [a, b.ops[0]], like=n)
            set_result(ctx, n, "ISD::ADD", [inner, ctx.const(-b.ops[1].value, vt)])
            return True
    if ao == "ISD::SUB":
        if a.uses == 1 and is_c(a.ops[0]):
            # (C - x) - y -> C - (x + y)
            inner = ctx.new("ISD::ADD", vt, [a.ops[1], b], like=n)
            set_result(ctx, n, "ISD::SUB", [a.ops[0], inner])
            return True
    if bo == "ISD::SRL":
        if not ctx.legal_ops and b.uses == 1 and is_c(b.ops[1]) and (b.ops[1].value & 0xFFFFFFFF) == bits - 1:
            # sub N0, (srl x, 31) -> add N0, (sra x, 31) (before legalization only)
            sra = ctx.new("ISD::SRA", vt, [b.ops[0], b.ops[1]], like=b)
            set_result(ctx, n, "ISD::ADD", [a, sra])
            return True
    elif bo == "ISD::SHL":
        if is_c(b.ops[1]) and (b.ops[1].value & 0xFFFFFFFF) == bits - 1:
            set_result(ctx, n, "ISD::ADD", [b, a])  # N0 - (x << 31) -> (x << 31) + N0
            return True
    if ac and bits:
        # no borrow possible: sub C0, X -> xor X, C0
        mask = (1 << bits) - 1
        c0 = a.value & mask
        ones = ~known_bits(b, ctx, 0).zero & mask
        if (c0 - ones) & mask == c0 ^ ones:
            set_result(ctx, n, "ISD::XOR", [b, a])
            return True
    # SimplifyDemandedBits (passed over where it cannot change anything: demanded_root)
    return demanded_root(n, ctx)


def visit_MUL(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::visitMUL, then the target's combine of a mul (PerformDAGCombine:
    ``TargetHooks.dag_combine``), then the commuted form."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value * b.value, n.vt))  # constant folding
            return True
        set_result(ctx, n, "ISD::MUL", [b, a])  # the constant to the right
        return True
    if bc:
        c = b.value
        if c == 0:
            ctx.replace(n, b)  # x * 0 (a CopyFromReg known zero reads the constant 0)
            return True
        if c == 1:
            ctx.replace(n, a)  # x * 1
            return True
        if c > 1 and (c & (c - 1)) == 0:  # mul x, 2^k -> shl x, k
            set_result(ctx, n, "ISD::SHL", [a, ctx.const(c.bit_length() - 1, n.vt)])
            return True
        if c == -1:  # mul x, -1 -> 0 - x
            set_result(ctx, n, "ISD::SUB", [ctx.const(0, n.vt), a])
            return True
        if c < -1 and ((-c) & (-c - 1)) == 0:  # mul x, -2^k -> 0 - (x << k)
            sh = ctx.new("ISD::SHL", n.vt, [a, ctx.const((-c).bit_length() - 1, n.vt)], like=n)
            set_result(ctx, n, "ISD::SUB", [ctx.const(0, n.vt), sh])
            return True
        # (a divergent mul by 2^k + 1 stays a mul here: llc selects it as v_lshl_add_u32
        # by a pattern, targets/amdgpu/vop3.py)
        if ao == "ISD::SHL":
            if is_c(a.ops[1]):
                # (mul (shl X, c1), c2) -> (mul X, c2 << c1) (no one-use condition)
                set_result(ctx, n, "ISD::MUL", [a.ops[0], ctx.const(c << (a.ops[1].value & 31), n.vt)])
                return True
        elif ao == "ISD::ADD" and is_c(a.ops[1]) and a.uses == 1:
            # (mul (add x, c1), c2) -> (add (mul x, c2), c1 * c2) when
            # isMulAddWithConstProfitable: the add used once (AMDGPU keeps the default
            # TargetLowering answer, true)
            m = ctx.new("ISD::MUL", n.vt, [a.ops[0], b], like=n)
            set_result(ctx, n, "ISD::ADD", [m, ctx.const(a.ops[1].value * c, n.vt)])
            return True
    elif ao == "ISD::SHL" or bo == "ISD::SHL":
        # (mul (shl x, C), y) -> (shl (mul x, y), C), the shl used once (either operand
        # order, the first operand tried first)
        for s_, y in ((a, b), (b, a)):
            if s_.opcode == "ISD::SHL" and is_c(s_.ops[1]) and s_.uses == 1:
                inner = ctx.new("ISD::MUL", n.vt, [s_.ops[0], y], like=n)
                set_result(ctx, n, "ISD::SHL", [inner, s_.ops[1]])
                return True
    # reassociateOps
    if ao == "ISD::MUL" and reassociate(n, a, b, ctx):
        return True
    if bo == "ISD::MUL" and reassociate(n, b, a, ctx):
        return True
    # SimplifyDemandedBits (passed over where it cannot change anything: demanded_root)
    if demanded_root(n, ctx):
        return True
    f = ctx.combines.get("ISD::MUL")
    if f is not None and f(n, ctx):
        return True
    return commuted(n, ctx, "ISD::MUL", a, b)

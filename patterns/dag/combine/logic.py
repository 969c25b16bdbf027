"""The logic visits: DAGCombiner's visitAND, visitOR (visitORCommutative; an or without common
bits gets visitADDLike's rules), visitXOR (De Morgan with a constant, not-chains), and
hoistLogicOpWithSameOpcodeHands (``hoist_hands``)."""

from __future__ import annotations

from typing import Any, Final

from patterns.dag.combine.arith import visit_ADD
from patterns.dag.combine.context import Ctx, is_c, is_not, is_not_of, set_result
from patterns.dag.combine.demanded import demanded_root
from patterns.dag.combine.queries import no_common_bits
from patterns.dag.combine.reassoc import commuted, reassociate, reassociate_scalar
from patterns.dag.nodes import SDNode
from patterns.support.intops import wrap_vt


def _hoist_hands(n: SDNode, ctx: Ctx, a: SDNode, b: SDNode) -> bool:
    """DAGCombiner::hoistLogicOpWithSameOpcodeHands: logic (op x, z), (op y, z) ->
    op (logic x, y), z for op a shift or an and, both hands used once."""
    if a.opcode != b.opcode or a.opcode not in _HANDS or len(a.ops) != 2 or a.ops[1] is not b.ops[1]:
        return False
    if not (a.uses == 1 and b.uses == 1):
        return False
    logic = ctx.new(n.opcode, n.vt, [a.ops[0], b.ops[0]], like=n)
    set_result(ctx, n, a.opcode, [logic, a.ops[1]])
    return True


_HANDS: Final = frozenset({"ISD::SHL", "ISD::SRL", "ISD::SRA", "ISD::AND"})


def visit_AND(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::visitAND, then the target's combine of an and (PerformDAGCombine:
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
            ctx.replace(n, ctx.const(a.value & b.value, n.vt))  # constant folding
            return True
        set_result(ctx, n, "ISD::AND", [b, a])  # the constant to the right
        return True
    if bc and b.value == -1:
        ctx.replace(n, a)  # x & -1
        return True
    if a is b:
        ctx.replace(n, a)  # x & x
        return True
    # (no absorption (and x, (or x, y)) -> x: visitAND has none, unlike visitORCommutative's
    # (or (and x, y), x) -> x; InstSimplify folds the shapes already in the IR, seed 960)
    if bc:
        if ao == "ISD::OR":
            if is_c(a.ops[1]) and (a.ops[1].value & b.value) == b.value:
                ctx.replace(n, b)  # (and (or x, C), D) -> D when C covers D
                return True
        elif ao == "ISD::SRA":
            if is_c(a.ops[1]) and a.uses == 1:
                # SimplifyDemandedBits: the mask demands none of the bits the sra copies
                # from the sign bit -> srl
                c = a.ops[1].value & 31
                if c and 32 - (b.value & 0xFFFFFFFF).bit_length() >= c:
                    ctx.sdb_root = n  # (SimplifyDemandedBits replaces the operand)
                    set_result(ctx, a, "ISD::SRL", a.ops)
                    return True
        elif ao == "ISD::SRL":
            if is_c(a.ops[1]) and b.value > 0 and (b.value & (b.value + 1)) == 0:
                shift, width = a.ops[1].value & 31, (b.value + 1).bit_length() - 1
                if shift + width >= 32:  # the mask keeps every bit the shift leaves
                    ctx.replace(n, a)
                    return True
                # (no bit-field extract node here: a target forms it at selection
                # time (AMDGPU: for both divergences, the SelectS_BFE CustomSelect
                # step); forming it early would hide the and from an or root's
                # v_and_or_b32)
    # reassociateOps
    if ao == "ISD::AND" and reassociate(n, a, b, ctx):
        return True
    if bo == "ISD::AND" and reassociate(n, b, a, ctx):
        return True
    if ao == bo and ao in _HANDS and _hoist_hands(n, ctx, a, b):
        return True
    if demanded_root(n, ctx):
        return True
    f = ctx.combines.get("ISD::AND")
    if f is not None and f(n, ctx):
        return True
    return commuted(n, ctx, "ISD::AND", a, b)


def visit_OR(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::visitOR (with visitORCommutative)."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value | b.value, n.vt))  # constant folding
            return True
        set_result(ctx, n, "ISD::OR", [b, a])  # the constant to the right
        return True
    if bc and b.value == 0:
        ctx.replace(n, a)  # x | 0
        return True
    if a is b:
        ctx.replace(n, a)  # x | x
        return True
    # absorption: (or x, (and x, y)) -> x
    if bo == "ISD::AND" and a in b.ops:
        ctx.replace(n, a)
        return True
    if ao == "ISD::AND" and b in a.ops:
        ctx.replace(n, b)
        return True
    # reassociateOps
    if ao == "ISD::OR" and reassociate(n, a, b, ctx):
        return True
    if bo == "ISD::OR" and reassociate(n, b, a, ctx):
        return True
    if ao in _OR_COMM or bo in _OR_COMM:
        for p_, q in ((a, b), (b, a)):  # visitORCommutative, both operand orders
            po = p_.opcode
            if po == "ISD::AND":
                x0, x1 = p_.ops
                if is_not(x1) and x1.ops[0] is q:  # (or (and X, ~Y), Y) -> (or X, Y)
                    set_result(ctx, n, "ISD::OR", [x0, q])
                    return True
                if is_not(x0) and x0.ops[0] is q:  # (or (and ~Y, X), Y) -> (or X, Y)
                    set_result(ctx, n, "ISD::OR", [x1, q])
                    return True
            elif po == "ISD::XOR":
                x, y = p_.ops
                if y is q or x is q:  # (or (xor X, Y), Y) -> (or X, Y)
                    set_result(ctx, n, "ISD::OR", [x if y is q else y, q])
                    return True
                if q.opcode in ("ISD::AND", "ISD::OR") and ((q.ops[0] is x and q.ops[1] is y)
                                                             or (q.ops[0] is y and q.ops[1] is x)):
                    set_result(ctx, n, "ISD::OR", [x, y])  # (or (xor X, Y), (X and/or Y)) -> (or X, Y)
                    return True
    if ao == bo and ao in _HANDS and _hoist_hands(n, ctx, a, b):
        return True
    if demanded_root(n, ctx):
        return True
    # an add-like or (isADDLike: no common bits) gets visitADDLike's combines
    if (ao in _ADDLIKE_OPS or bo in _ADDLIKE_OPS) and "ISD::ADD" in ctx.legal \
            and no_common_bits(a, b, ctx) and visit_ADD(n, ctx, True):
        return True
    return commuted(n, ctx, "ISD::OR", a, b)


_OR_COMM: Final = frozenset({"ISD::AND", "ISD::XOR"})
# the operand opcodes one of visitADDLike's rules needs (an add-like or without one is
# not tried)
_ADDLIKE_OPS: Final = frozenset({"ISD::ADD", "ISD::SUB", "ISD::MUL", "ISD::SHL", "ISD::OR", "ISD::XOR", "ISD::UMAX"})


def visit_XOR(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::visitXOR, then SITargetLowering's reassociateScalarOps."""
    x: Any
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value ^ b.value, n.vt))  # constant folding
            return True
        set_result(ctx, n, "ISD::XOR", [b, a])  # the constant to the right
        return True
    if bc and b.value == 0:
        ctx.replace(n, a)  # x ^ 0
        return True
    if a is b:
        ctx.replace(n, ctx.const(0, n.vt))  # x ^ x
        return True
    if not bc:
        if ao == "ISD::AND" or bo == "ISD::AND":
            # (x & ~y) ^ y -> x | y
            for p_, y in ((a, b), (b, a)):
                if p_.opcode == "ISD::AND":
                    for q, x in ((p_.ops[1], p_.ops[0]), (p_.ops[0], p_.ops[1])):
                        if is_not_of(q, y):
                            set_result(ctx, n, "ISD::OR", [x, y])
                            return True
    elif wrap_vt(b.value, n.vt) == -1:
        if (ao == "ISD::AND" or ao == "ISD::OR") and a.uses == 1 and (is_c(a.ops[1]) or is_c(a.ops[0])):
            # De Morgan when one side is a constant, the and/or used once: not (and x, C)
            # -> or (not x), ~C ; not (or x, C) -> and (not x), ~C (both halves go on the
            # worklist, the and/or's first operand's first)
            x, c = (a.ops[0], a.ops[1]) if is_c(a.ops[1]) else (a.ops[1], a.ops[0])
            notx = ctx.new("ISD::XOR", n.vt, [x, ctx.const(-1, n.vt)], like=a)
            notc = ctx.const(~c.value, n.vt)
            for h in ((notx, notc) if x is a.ops[0] else (notc, notx)):
                ctx.add(h)
            set_result(ctx, n, "ISD::OR" if ao == "ISD::AND" else "ISD::AND", [notx, notc])
            return True
        # not (neg x) -> add x, -1 ; not (add x, -1) -> neg x
        if ao == "ISD::SUB":
            if is_c(a.ops[0]) and a.ops[0].value == 0:
                set_result(ctx, n, "ISD::ADD", [a.ops[1], ctx.const(-1, n.vt)])
                return True
        elif ao == "ISD::ADD":
            if is_c(a.ops[1]) and wrap_vt(a.ops[1].value, n.vt) == -1:
                set_result(ctx, n, "ISD::SUB", [ctx.const(0, n.vt), a.ops[0]])
                return True
    if ao == "ISD::AND" and a.ops[1] is b and a.uses == 1:
        # (xor (and x, y), y) -> (and (not x), y) when the and has one use; DAGCombiner
        # tries this operand order only (the and first, y its second operand)
        notx = ctx.new("ISD::XOR", n.vt, [a.ops[0], ctx.const(-1, n.vt)], like=a)
        ctx.add(notx)  # (visitXOR puts the not on the worklist)
        set_result(ctx, n, "ISD::AND", [notx, b])
        return True
    # reassociateOps, hoistLogicOpWithSameOpcodeHands, reassociateScalarOps: an xor
    # operand makes the hands differ from _HANDS, and reassociateScalarOps needs one
    if ao == "ISD::XOR":
        if reassociate(n, a, b, ctx):
            return True
        if bo == "ISD::XOR" and reassociate(n, b, a, ctx):
            return True
        if a.divergent != b.divergent and reassociate_scalar(n, ctx):
            return True
    elif bo == "ISD::XOR":
        if reassociate(n, b, a, ctx):
            return True
        if a.divergent != b.divergent and reassociate_scalar(n, ctx):
            return True
    elif ao == bo and ao in _HANDS and _hoist_hands(n, ctx, a, b):
        return True
    if demanded_root(n, ctx):
        return True
    return commuted(n, ctx, "ISD::XOR", a, b)

"""Reassociation and commuted forms shared by the arithmetic and logic visits: DAGCombiner's
reassociateOps (``reassociate``), SITargetLowering's reassociateScalarOps
(``reassociate_scalar``), and the commuted form of a commutative node that exists already
(``commuted``, ``commuted_other``: getNodeIfExists)."""

from __future__ import annotations

from typing import Any, Final

from patterns.dag.combine.context import Ctx, FOLD, is_c, set_result
from patterns.dag.nodes import SDNode


_REASSOC: Final = frozenset({"ISD::ADD", "ISD::MUL", "ISD::AND", "ISD::OR", "ISD::XOR"})


# --- the visits ------------------------------------------------------------------------
#
# DAGCombiner::visit dispatches on the opcode; here each modeled binary opcode has one
# visit function (_VISITORS) holding, in their original order, the rules that can fire
# for it: the generic head every binary node gets (constant folding, the constant moved
# right, identities), the opcode's own folds (visitADD, visitSUB, ...), the
# SimplifyDemandedBits call at the place the visit makes it, visitShiftByConstant for
# shifts, the target's combines, and at last the commuted form found in the CSE map
# (DAGCombiner::combine). A rule whose opcode test cannot pass for the visited opcode is
# left out of that opcode's function, and each rule is tried only when its cheapest
# precondition (an operand's opcode, a constant) holds, so a visit that rewrites nothing
# costs a few comparisons. Each function returns whether a rule fired.


def commuted(n: SDNode, ctx: Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    """DAGCombiner::combine's last step for a commutative binary node: when ``opc b, a``
    exists already (getNodeIfExists), that node replaces this one. (For a binary op of
    FOLD; min/max nodes use commuted_other.)"""
    if a is not b and (a.opcode != "ISD::Constant" or b.opcode == "ISD::Constant"):
        e = ctx.cse.get((opc, b, a))
        if e is not None:
            ctx.commit(n, e)
            return True
    return False


def commuted_other(n: SDNode, ctx: Ctx) -> bool:
    """commuted for the commutative opcodes outside FOLD (smin/smax/umin/umax)."""
    ops = n.ops
    if len(ops) == 2:
        a, b = ops
        if a is not b and (a.opcode != "ISD::Constant" or b.opcode == "ISD::Constant"):
            e = ctx.cse.get(ctx.cse_key(n.opcode, n.vt, (b, a)))
            if e is not None:
                ctx.commit(n, e)
                return True
    return False


def reassociate(n: SDNode, n0: SDNode, n1: SDNode, ctx: Ctx, opc: str | None = None) -> bool:
    """DAGCombiner::reassociateOps for opcode ``opc`` (``n``'s own unless given: visitOR
    runs visitADDLike's reassociation of ADD operands on an add-like or)."""
    if opc is None:
        opc = n.opcode
    if n0.opcode != opc:
        return False
    n00, n01 = n0.ops
    if is_c(n01):
        if is_c(n1):
            folded = ctx.const(FOLD[opc](n01.value, n1.value), n.vt)
            set_result(ctx, n, opc, [n00, folded])
            return True
        if n0.uses == 1 and (n0.divergent or not n1.divergent):
            inner = ctx.new(opc, n.vt, [n00, n1], like=n0)
            set_result(ctx, n, opc, [inner, n01])
            return True
    if opc == "ISD::XOR":
        if n1 is n00:
            ctx.replace(n, n01)
            return True
        if n1 is n01:
            ctx.replace(n, n00)
            return True
    if opc in ("ISD::AND", "ISD::OR") and (n1 is n00 or n1 is n01):
        ctx.replace(n, n0)
        return True
    if n0.uses == 1 and (n0.divergent or not n1.divergent):
        # DAGCombiner::reassociateOpsCommutative: (op (op n00, n01), n1) -> (op e, n01)
        # when e = (op n00, n1) is already a node of the DAG (getNodeIfExists, operands
        # in that order), or (op e, n00) with e = (op n01, n1); not when the result
        # itself exists already (doesNodeExist, which would make the two loop)
        if n1 is not n01:
            e = ctx.existing(opc, n00, n1)
            if e is not None and ctx.existing(opc, e, n01) is None:
                set_result(ctx, n, opc, [e, n01])
                return True
        if n1 is not n00:
            e = ctx.existing(opc, n01, n1)
            if e is not None and ctx.existing(opc, e, n00) is None:
                set_result(ctx, n, opc, [e, n00])
                return True
    return False


def reassociate_scalar(n: SDNode, ctx: Ctx) -> bool:
    op0: Any
    op1: Any
    x: Any
    y: Any
    opc = n.opcode
    op0, op1 = n.ops
    if opc == "ISD::ADD" and is_c(op1):
        return False  # isBaseWithConstantOffset
    if op0.divergent == op1.divergent:
        return False
    if op0.divergent:
        op0, op1 = op1, op0
    if op1.opcode != opc or not op1.uses == 1:
        return False
    x, y = op1.ops
    if x.divergent == y.divergent:
        return False
    if x.divergent:
        x, y = y, x
    inner = ctx.new(opc, n.vt, [op0, x], like=op1)
    set_result(ctx, n, opc, [inner, y])
    return True

"""Poison: SelectionDAG::canCreateUndefOrPoison and isGuaranteedNotToBeUndefOrPoison for the
modeled nodes (``can_create_poison``, ``not_poison``), getFreeze (``get_freeze``) and
DAGCombiner::visitFREEZE (``visit_FREEZE``: a freeze moved below a one-use node that makes
no poison)."""

from __future__ import annotations

from typing import Any, Final

from patterns.dag.combine.context import Ctx, DEAD, SHIFTS
from patterns.support.intops import int_width
from patterns.dag.combine.known import copy_assert, shift_amount_range
from patterns.dag.nodes import SDNode


# SelectionDAG::canCreateUndefOrPoison (LLVM 19) with no poison-generating flags (the
# DAG here carries none): these opcodes never make poison or undef from defined
# operands; a shift does not when its amount is below the width; every other opcode
# (copies from other blocks, loads, abs, the bit counts, select, target nodes) may.
_NO_NEW_POISON: Final = frozenset({
    "ISD::ADD", "ISD::SUB", "ISD::MUL", "ISD::AND", "ISD::OR", "ISD::XOR", "ISD::SMIN", "ISD::SMAX",
    "ISD::UMIN", "ISD::UMAX", "ISD::BSWAP", "ISD::CTPOP", "ISD::BITREVERSE", "ISD::SIGN_EXTEND",
    "ISD::ZERO_EXTEND", "ISD::TRUNCATE", "ISD::SIGN_EXTEND_INREG", "ISD::BITCAST", "ISD::FREEZE",
    "ISD::SETCC"})
_GUARANTEED_LEAVES: Final = frozenset({"ISD::Constant", "ISD::VALUETYPE", "ISD::CONDCODE", "ISD::FREEZE",
                                       "ISD::CopyFromReg"})


def _asserted_copy(n: SDNode, ctx: Ctx) -> bool:
    """A CopyFromReg llc reads through an AssertZext or an AssertSext (``copy_assert``):
    those nodes are not among the ones known to make no poison, so the value counts as
    maybe poison."""
    lz, sb = copy_assert(n, ctx)
    return lz > 0 or sb > 1


def argument_load(n: SDNode, ctx: Ctx) -> bool:
    """An argument of a function whose calling convention the target lowers as loads
    (``TargetHooks.argument_load_ccs``: e.g. a kernel's arguments, read from the kernel
    argument segment), read in its entry block: llc's load may be poison, where this DAG
    has a CopyFromReg (a register copy, which is not)."""
    a = n.ir
    if a is None or type(a).__name__ != "Argument":
        return False
    fn = a.function
    return fn is not None and fn.cc in ctx.argument_load_ccs and bool(fn.blocks) and n.block is fn.blocks[0]


def _can_create_poison(n: SDNode, ctx: Ctx) -> bool:
    """SelectionDAG::canCreateUndefOrPoison for ``n`` (see ``_NO_NEW_POISON``)."""
    opc = n.opcode
    if opc in SHIFTS and len(n.ops) == 2:
        bits = int_width(n.vt)
        return not bits or shift_amount_range(n, bits, ctx, 1) is None
    return opc not in _NO_NEW_POISON


def _not_poison(n: SDNode, ctx: Ctx, depth: int = 0) -> bool:
    """SelectionDAG::isGuaranteedNotToBeUndefOrPoison: a freeze, a constant, or a node
    that makes no poison of operands that are none (searched to depth 6)."""
    opc = n.opcode
    if opc in _GUARANTEED_LEAVES:
        if opc == "ISD::CopyFromReg":
            return not argument_load(n, ctx) and not _asserted_copy(n, ctx)
        return opc != "ISD::Constant" or type(n.value) is int
    if depth >= 6 or _can_create_poison(n, ctx):
        return False
    for o in n.ops:
        if not _not_poison(o, ctx, depth + 1):
            return False
    return True


def get_freeze(ctx: Ctx, x: SDNode, like: SDNode) -> SDNode:
    """SelectionDAG::getFreeze: ``x`` itself when it cannot be poison (getNode asks at
    depth 1), else ``freeze x`` (CSE'd)."""
    if _not_poison(x, ctx, 1):
        return x
    return ctx.get("ISD::FREEZE", x.vt, [x], like=like)


def visit_FREEZE(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::visitFREEZE for the scalar case: ``freeze x`` -> ``x`` when ``x``
    cannot be poison; else, when ``x`` has one use, makes no poison itself and reads
    one operand that may be poison (any number for a setcc), the freeze moves onto that
    operand, and every other reader of the operand reads the frozen value too:
    ``freeze (op a, C)`` -> ``op (freeze a), C``."""
    k: Any
    x = n.ops[0]
    if _not_poison(x, ctx):
        ctx.replace(n, x)
        return True
    if x.uses != 1 or _can_create_poison(x, ctx) or x.opcode == "ISD::CopyFromReg":
        return False
    maybe: list = []
    for o in x.ops:
        if _not_poison(o, ctx, 1) or o in maybe:
            continue
        if maybe and x.opcode != "ISD::SETCC":
            return False
        maybe.append(o)
    for k, o in enumerate(list(x.ops)):
        if o not in maybe:
            continue
        o = n.ops[0].ops[k]  # (re-read: an earlier replacement may have changed it)
        if o.opcode == "ISD::UNDEF":
            continue
        f = get_freeze(ctx, o, o)
        if f is not o:
            ctx.rauw(o, f)  # (the new freeze reads ``o`` again, not itself)
            if f.ops[0] is f:  # (UpdateNodeOperands: back to ``o``, and so in the CSE map)
                cse = ctx.cse
                k = ctx.cse_key(f.opcode, f.vt, f.ops, f.cc)
                if cse.get(k) is f:
                    del cse[k]
                f.ops = [o]
                f.users.pop(f, None)
                f.uses -= 1
                o.users[f] = o.users.get(f, 0) + 1
                o.uses += 1
                cse[ctx.cse_key(f.opcode, f.vt, f.ops, f.cc)] = f
    if n.wlix == DEAD:
        return True
    x = n.ops[0]
    ctx.replace(n, ctx.get(x.opcode, x.vt, list(x.ops), like=x, cc=x.cc))
    return True

"""LICM's hoistArithmetics, LLVM 19's four reassociations in its order: hoistMinMax
(``hoist_min_max``), hoistGEP (``hoist_gep``), hoistAddSub (``hoist_add_sub``, with its
signed-overflow checks) and hoistMulAddAssociation (``hoist_mul_add``); each rewrites an
instruction that stays in the loop so that a loop-invariant part moves to the preheader.
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import Constant, IntType
from patterns.ir.function import Argument, Instruction
from patterns.llc.instsimplify_icmp import constant_range
from patterns.support.intops import signed_of_unsigned
from patterns.llc.instsimplify_query import const_value, int_bits
from patterns.ir.opcodes import BINOPS as ALL_BINOPS, INVERSE_PREDICATE as INVERSE, SIGNED_PREDICATES, SWAPPED_PREDICATE as SWAP
from patterns.llc.licm_state import LicmState
from patterns.llc.valuetracking import known_bits, num_sign_bits


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction
_INT_TYPE: Final = IntType


# the opcodes hoistArithmetics may rewrite: hoistMulAddAssociation, hoistAddSub, hoistGEP,
# hoistMinMax (an i1 and/or/select)
REASSOCIATED: Final = {"mul": 1, "icmp": 2, "getelementptr": 3, "and": 4, "or": 4, "select": 4}
_BINARY_OPERATORS: Final = frozenset(ALL_BINOPS)  # (Instruction::isBinaryOp)

# LICM's IntAssociationUpperLimit (-licm-max-num-int-reassociations): measured with opt-19,
# a sum of five products is rewritten, one of six is not
_INT_ASSOCIATION_LIMIT: Final = 5


# --- hoistArithmetics: LLVM 19 tries hoistMinMax, hoistGEP, hoistAddSub,
# hoistMulAddAssociation in turn; each applies to other opcodes -----------------
def hoist_min_max(st: LicmState, i, body, ph) -> bool:
    """hoistMinMax: ``(x < a) && (x < b)`` -> ``x < min(a, b)`` (and ``||`` with max;
    either compare's operands in either order, the same predicate after putting the
    variant side left; ``and``/``or`` of i1 or their select forms), the min/max
    intrinsic in the preheader, the new compare in place of ``i`` with its name."""
    t = i.type
    if type(t) is not _INT_TYPE or t.bits != 1:
        return False
    ops = i.operands
    if i.opcode == "select":
        c, tv, fv = ops
        if c.type is not t and int_bits(c) != 1:
            return False
        if const_value(tv) == 1 and type(tv) is _CONSTANT:
            inverse, c1, c2 = True, c, fv  # (m_LogicalOr first)
        elif const_value(fv) == 0 and type(fv) is _CONSTANT:
            inverse, c1, c2 = False, c, tv
        else:
            return False
    else:
        inverse = i.opcode == "or"
        c1, c2 = ops

    def inv(v):
        return type(v) is not _INSTRUCTION or v.block not in body

    def match(c):  # (its one use is asked last, below)
        if type(c) is not _INSTRUCTION or c.opcode != "icmp":
            return None
        lhs, rhs = c.operands
        p = c.predicate
        if type(lhs.type) is not _INT_TYPE or p in ("eq", "ne"):
            return None
        if inv(lhs):
            lhs, rhs, p = rhs, lhs, SWAP[p]
        if inv(lhs) or not inv(rhs):
            return None
        if inverse:
            p = INVERSE[p]
        return p, lhs, rhs

    m1 = match(c1)
    if m1 is None:
        return False
    m2 = match(c2)
    if m2 is None or m1[0] != m2[0] or m1[1] is not m2[1]:
        return False
    # (LLVM has deleted a dead ``i``; the preconditions are a conjunction, so the
    # use counts, which cost most, come last)
    if st.is_dead(i) or not st.one_use(c1) or not st.one_use(c2):
        return False
    p, lhs, rhs1 = m1
    rhs2 = m2[2]
    use_min = p in ("slt", "sle", "ult", "ule")
    signed = p in SIGNED_PREDICATES
    if i.opcode == "select":
        # (a new unconditional use of the second bound: frozen)
        base = rhs2.name if type(rhs2) in (Instruction, Argument) and rhs2.name \
            and not rhs2.name.isdigit() else ""
        rhs2 = st.new("freeze", base + ".fr", rhs2.type, [rhs2], ph)
    what = ("s" if signed else "u") + ("min" if use_min else "max")
    callee = f"llvm.{what}.{rhs1.type}"
    from patterns.ir.core import GlobalRef

    mm = st.new("call", "invariant." + what, rhs1.type, [rhs1, rhs2], ph, callee=callee,
                callee_value=GlobalRef(callee), arg_attrs=[(), ()])
    # (the compare takes the name of ``i``, which goes)
    cmp = st.new("icmp", "", t, [lhs, mm], i.block, i, name=i.name, predicate=INVERSE[p] if inverse else p)
    st.replace_all_uses(i, cmp)
    st.erase(i)
    st.erase(c1)
    st.erase(c2)
    return True


def hoist_gep(st: LicmState, i, body, ph) -> bool:
    """hoistGEP: ``gep (gep p, i1), i2`` with ``p`` and ``i2`` invariant and the inner
    GEP used once -> ``gep (gep p, i2), i1``, the invariant one in the preheader
    (``invariant.gep``), the other (``gep``) in place of ``i``; inbounds kept when
    both were and every index is known non-negative."""
    src = i.operands[0]
    if type(src) is not _INSTRUCTION or src.opcode != "getelementptr" or src.block not in body:
        return False
    Inst = Instruction

    def inv(v):
        return type(v) is not Inst or v.block not in body

    if not inv(src.operands[0]) or not all(inv(x) for x in i.operands[1:]):
        return False
    if all(inv(x) for x in src.operands[1:]):
        return False
    if st.is_dead(i) or not st.one_use(src):
        return False
    inb = "inbounds" in src.flags and "inbounds" in i.flags
    if inb:
        p = st.analyses()
        for x in src.operands[1:] + i.operands[1:]:
            if type(x.type) is not _INT_TYPE:
                inb = False
                break
            z, _o = known_bits(p, x)
            if not (z >> (x.type.bits - 1)) & 1:
                inb = False
                break
    flags = frozenset({"inbounds"}) if inb else frozenset()
    new_src = st.new("getelementptr", "invariant.gep", i.type, [src.operands[0]] + i.operands[1:], ph,
                     source_type=i.source_type, flags=flags)
    g = st.new("getelementptr", "gep", i.type, [new_src] + src.operands[1:], i.block, i,
               source_type=src.source_type, flags=flags)
    st.replace_all_uses(i, g)
    st.erase(i)
    st.erase(src)
    return True


def hoist_add_sub(st: LicmState, i, body, ph) -> bool:
    """hoistAddSub: a signed compare of a once-used ``add nsw`` / ``sub nsw`` of a
    variant and an invariant value against an invariant one moves the invariant part
    to the other side when that cannot overflow: ``x + a < b`` -> ``x < b - a``,
    ``x - a < b`` -> ``x < a + b``, ``a - x < b`` -> ``x > a - b`` (the new operation
    ``invariant.op``, nsw, in the preheader; the compare rewritten in place, the add
    or sub erased)."""
    p = i.predicate
    if p not in SIGNED_PREDICATES:
        return False
    lhs, rhs = i.operands
    Inst = Instruction

    def inv(v):
        return type(v) is not Inst or v.block not in body

    if inv(lhs):
        lhs, rhs, p = rhs, lhs, SWAP[p]
    if inv(lhs) or not inv(rhs):
        return False
    if lhs.opcode not in ("add", "sub") or "nsw" not in lhs.flags or type(lhs.type) is not _INT_TYPE:
        return False
    if st.is_dead(i) or not st.one_use(lhs):
        return False
    var, c1 = lhs.operands
    if lhs.opcode == "add":  # hoistAdd
        if inv(var):
            var, c1 = c1, var
        if inv(var) or not inv(c1) or not no_signed_overflow(st, "sub", rhs, c1):
            return False
        new = st.binop("sub", rhs, c1, "invariant.op", ph, ("nsw",))
    else:  # hoistSub
        subtracted = False
        if inv(var):
            var, c1 = c1, var
            subtracted = True
            p = SWAP[p]
        if inv(var) or not inv(c1):
            return False
        if subtracted:
            if not no_signed_overflow(st, "sub", c1, rhs):
                return False
            new = st.binop("sub", c1, rhs, "invariant.op", ph, ("nsw",))
        else:
            if not no_signed_overflow(st, "add", c1, rhs):
                return False
            new = st.binop("add", c1, rhs, "invariant.op", ph, ("nsw",))
    i.predicate = p
    st.set_operands(i, [var, new])
    st.erase(lhs)
    st.moved.append(i)
    return True


def no_signed_overflow(st: LicmState, opc: str, a, b) -> bool:
    """computeOverflowForSignedAdd/Sub (``a`` op ``b``) says NeverOverflows: both have
    two sign bits or more, or their signed ranges (known bits intersected with
    computeConstantRange) cannot overflow; for a sub also ``a - (a srem y)`` and
    ``a - (a -nsw y)`` with ``a`` a constant (isGuaranteedNotToBeUndef)."""
    if opc == "sub" and type(b) is _INSTRUCTION and len(b.operands) == 2 and b.operands[0] is a \
            and (b.opcode == "srem" or (b.opcode == "sub" and "nsw" in b.flags)):
        if type(a) is _CONSTANT and a.kind == "int":
            return True
    p = st.analyses()
    if num_sign_bits(p, a) > 1 and num_sign_bits(p, b) > 1:
        return True
    ra, rb = signed_range(st, a), signed_range(st, b)
    if ra is None or rb is None:
        return True  # (an empty range: MayNotOverflow)
    bits = int_bits(a)
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if opc == "add":
        return ra[0] + rb[0] >= lo and ra[1] + rb[1] <= hi
    return ra[0] - rb[1] >= lo and ra[1] - rb[0] <= hi


def signed_range(st, v):
    """computeConstantRangeIncludingKnownBits(v, ForSigned=true) as a signed interval
    (None when empty)."""
    p = st.analyses()
    bits = int_bits(v)
    m = (1 << bits) - 1
    sb = 1 << (bits - 1)
    z, o = known_bits(p, v)
    if (z | o) & sb:
        lo, hi = signed_of_unsigned(o, bits), signed_of_unsigned(~z & m, bits)
    else:
        lo, hi = signed_of_unsigned(o | sb, bits), signed_of_unsigned(~z & m & ~sb, bits)
    r = constant_range(p, v, True)
    if r is not None:
        lo, hi = max(lo, r[0]), min(hi, r[1])
    return (lo, hi) if lo <= hi else None


def hoist_mul_add(st: LicmState, i, body, ph) -> bool:
    """hoistMulAddAssociation (integers): ``i = V * C`` with ``C`` invariant, where
    ``V`` is a product ``x * a`` (``a`` invariant, either operand) or a sum of such
    products (adds whose two operands are binary operators), every node used once,
    at most five products: each product becomes ``x * (a * C)``, the invariant
    ``a * C`` (``factor.op.mul``) in the preheader, in the order a last-in first-out
    walk from ``V`` meets the products (second operand first), the rewritten product
    ``X.reass`` where ``X`` was with the operand in its place; the adds lose
    nuw/nsw; ``i``'s uses read ``V`` (or its rewrite)."""
    var, factor = i.operands
    Inst = Instruction
    # (one operand defined in the loop, the other not)
    if type(var) is not Inst or var.block not in body:
        var, factor = factor, var
        if type(var) is not Inst or var.block not in body:
            return False
    elif type(factor) is Inst and factor.block in body:
        return False
    if type(i.type) is not _INT_TYPE:
        return False

    def inv(v):
        return type(v) is not Inst or v.block not in body

    changes: list = []
    adds: list = []
    nodes: list = []
    binops = _BINARY_OPERATORS
    work = [var] if var.opcode in binops else []
    while work:
        bo = work.pop()
        nodes.append(bo)  # (each must be used once: asked last, below)
        if bo.opcode == "add":
            x, y = bo.operands
            if type(x) is Inst and x.opcode in binops and type(y) is Inst and y.opcode in binops:
                work.append(x)
                work.append(y)
                adds.append(bo)
                continue
        if bo.opcode != "mul" or inv(bo):
            return False
        x, y = bo.operands
        if inv(x):
            changes.append((bo, 0))
        elif inv(y):
            changes.append((bo, 1))
        else:
            return False
        if len(changes) > _INT_ASSOCIATION_LIMIT:
            return False
    if not changes or st.is_dead(i):
        return False
    for bo in nodes:
        if not st.one_use(bo):
            return False
    for a in adds:
        a.flags = a.flags - {"nuw", "nsw"}
        a._text = None
    for ins, k in changes:
        u = ins.operands[k]
        f = st.binop("mul", u, factor, "factor.op.mul", ph)
        ops = list(ins.operands)
        ops[k] = f
        base = ins.name if not ins.name.isdigit() else ""
        new = st.new("mul", base + ".reass", ins.type, ops, ins.block, ins)
        if var is ins:
            var = new
        st.replace_all_uses(ins, new)
        st.erase(ins)
    for a in adds[::-1]:  # (their divergence after the products', inner first)
        st.recheck.append(a)
    st.replace_all_uses(i, var)
    st.erase(i)
    return True

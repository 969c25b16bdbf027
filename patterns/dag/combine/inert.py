"""The exactness shortcuts of SimplifyDemandedBits: proofs that it cannot change anything below
a node (``sdb_inert``, ``quiet``), so the driver and ``patterns.dag.combine.demanded`` pass
over roots and operands demanded in full where it would do nothing (each gives the answer
of running it; ``SDB_SHORTCUTS`` turns them off for the tests)."""

from __future__ import annotations

from typing import Final

from patterns.dag.combine.context import Ctx, MAX_DEPTH, SDB_LOGIC
from patterns.support.intops import int_width
from patterns.dag.combine.known import known_bits, sign_bits
from patterns.dag.combine.known_ops import KB_BINOPS
from patterns.dag.nodes import SDNode
from patterns.support.intops import wrap_vt
from patterns.support.knownbits import Known


def _looked_into(v: SDNode, depth: int, ctx: Ctx) -> bool:
    """Whether ``sdb(v, every bit, depth)`` below a root may do more than answer v's known
    bits: v is used once and is an operation with rules (or every bit of it is known,
    which makes it a constant), and is not ``_quiet``. A value used more than once, a
    constant, and a leaf with an unknown bit are answered by their known bits."""
    if v.uses != 1 or v.opcode == "ISD::Constant" or depth >= MAX_DEPTH:
        return False
    if v.opcode in KB_BINOPS and len(v.ops) == 2:
        return not _quiet(v, ctx)
    if v.opcode == "ISD::SIGN_EXTEND_INREG":
        return True  # (_sdb_sext_in_reg demands a part of its operand)
    k = known_bits(v, ctx, depth)
    return not (k.zero | k.one) ^ ((1 << k.bits) - 1)


def _quiet(v: SDNode, ctx: Ctx) -> bool:
    """True only where ``sdb(v, every bit, depth)`` changes nothing at every depth, for a
    one-use binary node ``v``: v is an and/or/xor/add/sub/mul of two values of which no
    bit is known (at any depth then), a not or an add of a constant whose bits are not
    all known, or a shl/srl by a variable amount whose bits are not all known (no rule
    of sdb applies to those with every bit demanded, and every bit of their operands is
    demanded), and each operand sdb looks into is quiet too. Memoized while the DAG
    stays the same (``ctx.events``)."""
    if ctx.quiet_ev != ctx.events:
        ctx.quiet = {}
        ctx.quiet_ev = ctx.events
    memo = ctx.quiet
    r = memo.get(v)
    if r is None:
        memo[v] = False  # (a cycle cannot occur; a provisional answer all the same)
        r = memo[v] = _quiet_node(v, ctx)
    return r


def _quiet_node(v: SDNode, ctx: Ctx) -> bool:
    opc = v.opcode
    a, b = v.ops
    if b.opcode == "ISD::Constant":
        if not (opc == "ISD::ADD" or opc == "ISD::XOR" and type(b.value) is int and _is_all_ones(b.value, v.vt)):
            return False
    elif opc in ("ISD::SHL", "ISD::SRL"):
        return _not_all_known(v, ctx, 0)  # (nothing looked into: every bit demanded)
    elif opc == "ISD::SRA":
        return False
    elif not (_no_known(a, ctx, 0) and _no_known(b, ctx, 0)):
        # known operand bits: the rules of sdb that read them only apply with more bits
        # known, and known bits at a depth are a part of those at depth 0; an operand
        # demanded in part is a value used more than once (answered by its known bits)
        k0, k1 = known_bits(a, ctx, 0), known_bits(b, ctx, 0)
        m = (1 << k0.bits) - 1
        if opc == "ISD::XOR":
            if not m & ~k1.zero or not m & ~k0.zero or not m & ~(k0.zero | k1.zero):
                return False
        elif opc == "ISD::OR":
            if k1.one and a.uses == 1 or not m & ~(k0.one | k1.zero) or not m & ~(k1.one | k0.zero):
                return False
        elif opc == "ISD::AND":
            if k1.zero and a.uses == 1 or not m & ~(k0.zero | k1.one) or not m & ~(k1.zero | k0.one) \
                    or not m & ~(k1.zero | k0.zero):
                return False
        elif opc == "ISD::MUL":
            if k1.zero & 1 and a.uses == 1:
                return False
        elif opc != "ISD::ADD" and opc != "ISD::SUB":
            return False
    if _sub_looked_into(b, ctx):
        return False
    return not _sub_looked_into(a, ctx) and _not_all_known(v, ctx, 0)


def _sub_looked_into(x: SDNode, ctx: Ctx) -> bool:
    # (_looked_into at any depth: a leaf whose bits are not all known at depth 0 is not
    # all known deeper either)
    if x.uses != 1 or x.opcode == "ISD::Constant":
        return False
    if x.opcode in KB_BINOPS and len(x.ops) == 2:
        return not _quiet(x, ctx)
    if x.opcode == "ISD::SIGN_EXTEND_INREG":
        return True
    return not _not_all_known(x, ctx, 0)


def sdb_inert(n: SDNode, depth: int, ctx: Ctx) -> bool:
    """True only where ``sdb(n, every bit, depth)`` provably changes nothing (and so
    answers n's known bits): the premise of the shortcuts, checked, not assumed.

    SimplifyDemandedBits demanding every bit of a node still looks into its operands
    used once, and rewrites them before their own visits (a one-use ``xor v, C`` under a
    ``not`` becomes an ``or`` before its user's visit reassociates it): so an operand it
    looks into (``_looked_into``) is always followed. Otherwise: a not whose bits are not
    all known; a shift by a variable amount (no operand bit to drop; an sra only when
    its source is not all sign bits); a shift by a constant, or an add/sub/mul with a
    constant, of a value without known bits that is no operation with rules; an
    add/sub/mul of two values (every bit of both demanded; a mul's left operand is
    demanded below the right one's trailing zeros); an add, or a mul by an odd constant,
    whose bits are not all known; an and/or/xor of two values whose operands sdb
    answers by their known bits alone and whose rules cannot apply
    (``_sdb_logic_may_change``)."""
    opc = n.opcode
    if opc not in SDB_ROOTS:
        return False
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    bc = b.opcode == "ISD::Constant"
    d1 = depth + 1
    # (``_looked_into`` is False for a value used more than once: tested first, inline)
    if opc in SDB_LOGIC:
        if bc:
            if not (type(b.value) is int and _is_all_ones(b.value, n.vt)):
                return False
            # a not: only a constant (every bit known) or its operand can change
            if a.uses == 1 and _looked_into(a, d1, ctx):
                return False
            k = known_bits(n, ctx, depth)
            return bool((k.zero | k.one) ^ ((1 << k.bits) - 1))
        if a.uses == 1 and _looked_into(a, d1, ctx) or b.uses == 1 and _looked_into(b, d1, ctx):
            return False
        if _no_known(a, ctx, d1) and _no_known(b, ctx, d1):
            return True
        k = known_bits(n, ctx, depth)
        m = (1 << k.bits) - 1
        return bool((k.zero | k.one) ^ m) and k.bits != 1 and not _sdb_logic_may_change(n, a, b, m, ctx, d1)
    if not bc:
        if opc == "ISD::SRA":
            return sign_bits(a, ctx, d1) < int_width(n.vt) and _not_all_known(n, ctx, depth)
        if opc in ("ISD::SHL", "ISD::SRL"):
            return _not_all_known(n, ctx, depth)
        if a.uses == 1 and _looked_into(a, d1, ctx) or b.uses == 1 and _looked_into(b, d1, ctx):
            return False
        if opc == "ISD::MUL" and a.uses == 1 and a.opcode != "ISD::Constant" and known_bits(b, ctx, d1).zero & 1:
            return False  # (a's bits demanded below b's trailing zeros only)
        return _not_all_known(n, ctx, depth)
    if a.opcode not in KB_BINOPS and a.opcode != "ISD::SIGN_EXTEND_INREG" and _no_known(a, ctx, d1):
        # (an sra copying only sign bits of a is a)
        return opc != "ISD::SRA" or sign_bits(a, ctx, d1) < int_width(n.vt)
    if opc == "ISD::ADD" or opc == "ISD::MUL" and type(b.value) is int and b.value & 1:
        return not (a.uses == 1 and _looked_into(a, d1, ctx)) and _not_all_known(n, ctx, depth)
    return False


def _is_all_ones(v: int, vt: str) -> bool:
    """``wrap_vt(v, vt) == -1``."""
    bits = int_width(vt)
    if bits:
        m = (1 << bits) - 1
        return v & m == m
    return wrap_vt(v, vt) == -1


def _not_all_known(n: SDNode, ctx: Ctx, depth: int) -> bool:
    k = known_bits(n, ctx, depth)
    return bool((k.zero | k.one) ^ ((1 << k.bits) - 1))


def _sdb_logic_may_change(n: SDNode, a: SDNode, b: SDNode, m: int, ctx: Ctx, d1: int = 1) -> bool:
    """Whether ``sdb(n, m, d1 - 1, ctx)`` may change something, for an and/or/xor ``n`` of
    two operands that are no constants, every bit demanded and not every bit of ``n``
    known. False only where sdb's answer is plain: its operands are then answered by
    their known bits at depth 1 (every bit of ``b`` demanded; of ``a`` too, or ``a`` used
    more than once, each of which sdb passes over), no operand is bypassed (every bit
    demanded), no constant to shrink, and the rules left are the ones tested here."""
    k1 = known_bits(b, ctx, d1)
    k0 = known_bits(a, ctx, d1)
    opc = n.opcode
    if opc == "ISD::XOR":
        # (sdb: b known zero -> a; a known zero -> b; no bit possibly set on both -> or)
        return not m & ~(k0.zero | k1.zero)
    if opc == "ISD::OR":
        if k1.one and a.uses == 1:
            return True  # (a's bits not all demanded: sdb looks into a)
        return not m & ~(k0.one | k1.zero) or not m & ~(k1.one | k0.zero)
    if k1.zero and a.uses == 1:  # AND
        return True
    return not m & ~(k0.zero | k1.one) or not m & ~(k1.zero | k0.one) or not m & ~(k1.zero | k0.zero)


def _no_known(n: SDNode, ctx: Ctx, depth: int) -> bool:
    """``known_bits(n, ctx, depth)`` knows no bit (read from the memo when it can tell)."""
    k: Known  # (a memoized answer always has its Known: cut answers are not memoized)
    c = n.kbc
    if c is not None:
        f = c.get(-1)
        if f is not None:
            k = f[0]
            if not (k.zero | k.one):
                return True  # (nothing known without a limit: nothing at any depth)
            if f[1] + depth <= 6:
                return False
    k = known_bits(n, ctx, depth)
    return not (k.zero | k.one)
SDB_ROOTS: Final = SDB_LOGIC | {"ISD::SHL", "ISD::SRL", "ISD::SRA", "ISD::ADD", "ISD::SUB", "ISD::MUL"}

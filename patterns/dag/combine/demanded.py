"""TargetLowering::SimplifyDemandedBits and SimplifyMultipleUseDemandedBits for the modeled ops
(``sdb``; run from a visit's root by ``demanded_root``): constants shrunk, and/or/xor
operands that contribute no demanded bit dropped, xor -> or / not, sra -> srl, shift pairs
merged, add/sub/mul demanding only low bits, every demanded bit known -> a constant."""

from __future__ import annotations

from typing import Final

from patterns.dag.combine.context import Ctx, is_c, MAX_DEPTH, SDB_LOGIC, set_result
from patterns.support.intops import int_width
from patterns.dag.combine.inert import sdb_inert, SDB_ROOTS
from patterns.dag.combine.known import known_bits, sign_bits
from patterns.dag.combine.known_ops import KB_BINOPS, unknown
from patterns.dag.nodes import SDNode
from patterns.support.intops import clz, ctz
from patterns.support.knownbits import add_carry, Known, mul_known


def demanded_root(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner's SimplifyDemandedBits(SDValue(N, 0)) at the end of visitAND, visitOR,
    visitXOR, the shift visits and visitADD/SUB/MUL: every bit of ``n`` demanded.

    Passed over where it provably cannot change anything (``sdb_inert``: same answers,
    less work)."""
    opc = n.opcode
    if opc not in SDB_ROOTS:
        return False
    if SDB_SHORTCUTS[0] and sdb_inert(n, 0, ctx):
        return False
    k = known_bits(n, ctx, 0)
    bits = k.bits
    m = (1 << bits) - 1
    if (k.zero | k.one) ^ m:
        if bits == 1:
            return False
        # DAGCombiner::SimplifyDemandedBits: a replacement it makes puts ``n`` back on
        # the worklist first (ctx.commit)
        ctx.sdb_root = n
        r = sdb(n, m, 0, ctx)[0]
    else:
        ctx.sdb_root = n
        r = demanded_const(n, m, k, ctx)  # every bit known
    ctx.sdb_root = None
    return r


# the shortcuts of demanded_root and sdb (same answers; tests/test_combine_llc.py
# compares the selections with them turned off)
SDB_SHORTCUTS: Final = [True]


# (the known bits a simplification that changed the DAG answers: never read, since the
# caller returns at once; a Known rather than None keeps the answer's type exact)
_NOK: Final = Known(0, 0, 1)


def _combine_to(op: SDNode, new: SDNode, ctx: Ctx) -> tuple[bool, Known]:
    ctx.replace(op, new)
    return True, _NOK


def sdb(op: SDNode, demanded: int, depth: int, ctx: Ctx) -> tuple[bool, Known]:
    """TargetLowering::SimplifyDemandedBits for the modeled integer nodes: (changed,
    known bits of ``op`` for the demanded bits; ``_NOK`` when changed). A rewrite replaces ``op`` (used once
    below the root; the root's users all read the same value) by a simpler value."""
    opc = op.opcode
    if opc == "ISD::Constant":
        return False, known_bits(op, ctx, depth)
    vt = op.vt
    bits = int_width(vt)
    m = (1 << bits) - 1
    if depth >= MAX_DEPTH:
        return False, unknown(bits)
    if depth and (op.uses != 1 or demanded == m and SDB_SHORTCUTS[0] and sdb_inert(op, depth, ctx)):
        # (used more than once; or every bit demanded where nothing can change)
        return False, known_bits(op, ctx, depth)
    if opc == "ISD::SIGN_EXTEND_INREG" and demanded and len(op.ops) == 2:
        r = _sdb_sext_in_reg(op, demanded, depth, ctx, bits)
        if r is not None:
            return r
    if demanded == 0 or opc not in KB_BINOPS or len(op.ops) != 2:
        known = known_bits(op, ctx, depth)
        return demanded_const(op, demanded, known, ctx), known
    a, b = op.ops
    cb = b.value & m if b.opcode == "ISD::Constant" and type(b.value) is int else None
    if opc == "ISD::AND":
        if cb is not None:
            lk = known_bits(a, ctx, depth)
            if lk.zero & demanded == ~cb & m & demanded:
                return _combine_to(op, a, ctx)  # the and clears only known-zero bits
            if _shrink_const(op, ~lk.zero & demanded, ctx):
                return True, _NOK
        ch, k1 = sdb(b, demanded, depth + 1, ctx)
        if ch:
            return True, _NOK
        ch, k0 = sdb(a, ~k1.zero & demanded, depth + 1, ctx)
        if ch:
            return True, _NOK
        if demanded != m and _bypass_multi_use(op, demanded, depth, ctx):
            return True, _NOK
        if demanded & ~(k0.zero | k1.one) == 0:
            return _combine_to(op, a, ctx)
        if demanded & ~(k1.zero | k0.one) == 0:
            return _combine_to(op, b, ctx)
        if demanded & ~(k1.zero | k0.zero) == 0:
            return _combine_to(op, ctx.const(0, vt), ctx)
        if cb is not None and _shrink_const(op, ~k0.zero & demanded, ctx):
            return True, _NOK
        known = Known(k0.zero | k1.zero, k0.one & k1.one, bits)
    elif opc == "ISD::OR":
        ch, k1 = sdb(b, demanded, depth + 1, ctx)
        if ch:
            return True, _NOK
        ch, k0 = sdb(a, ~k1.one & demanded, depth + 1, ctx)
        if ch:
            return True, _NOK
        if demanded != m and _bypass_multi_use(op, demanded, depth, ctx):
            return True, _NOK
        if demanded & ~(k0.one | k1.zero) == 0:
            return _combine_to(op, a, ctx)
        if demanded & ~(k1.one | k0.zero) == 0:
            return _combine_to(op, b, ctx)
        if cb is not None and _shrink_const(op, demanded, ctx):
            return True, _NOK
        known = Known(k0.zero & k1.zero, k0.one | k1.one, bits)
    elif opc == "ISD::XOR":
        ch, k1 = sdb(b, demanded, depth + 1, ctx)
        if ch:
            return True, _NOK
        ch, k0 = sdb(a, demanded, depth + 1, ctx)
        if ch:
            return True, _NOK
        if demanded != m and _bypass_multi_use(op, demanded, depth, ctx):
            return True, _NOK
        if demanded & ~k1.zero == 0:
            return _combine_to(op, a, ctx)
        if demanded & ~k0.zero == 0:
            return _combine_to(op, b, ctx)
        if demanded & ~(k0.zero | k1.zero) == 0:
            # no demanded bit set on both sides: an inclusive or
            set_result(ctx, op, "ISD::OR", [a, b])
            return True, _NOK
        if cb is not None:
            if cb == k0.one:
                # (X | C1) ^ C2 -> (X | C1) & ~C2 when C2's bits are known set in X | C1
                set_result(ctx, op, "ISD::AND", [a, ctx.const(~cb & demanded, vt)])
                return True, _NOK
            if cb != m and demanded & ~cb == 0:
                # every demanded bit flipped: a not
                set_result(ctx, op, "ISD::XOR", [a, ctx.const(-1, vt)])
                return True, _NOK
            if a.opcode in ("ISD::SRL", "ISD::SHL") and a.uses == 1 and is_c(a.ops[1]) \
                    and (a.ops[1].value & m) < bits:
                s = a.ops[1].value & m
                ones = (m << s) & m if a.opcode == "ISD::SHL" else m >> s
                if cb & demanded == ones & demanded:
                    # xor (X << s), C -> (not X) << s when C flips exactly the demanded
                    # bits the shift can set (and the srl form)
                    nx = ctx.new("ISD::XOR", vt, [a.ops[0], ctx.const(-1, vt)], like=a)
                    set_result(ctx, op, a.opcode, [nx, a.ops[1]])
                    return True, _NOK
        if cb is not None and cb != m and _shrink_const(op, demanded, ctx):
            return True, _NOK
        known = Known((k0.zero & k1.zero) | (k0.one & k1.one), (k0.zero & k1.one) | (k0.one & k1.zero), bits)
    elif opc in ("ISD::SHL", "ISD::SRL", "ISD::SRA"):
        r = _sdb_shift(op, demanded, depth, ctx, a, b, bits)
        if r is not None:
            return r
        known = known_bits(op, ctx, depth)
    else:  # ADD, SUB, MUL: no demanded bit above the highest one the user demands
        if opc == "ISD::MUL" and demanded and not demanded & (demanded - 1) and is_c(b):
            # one demanded bit N of X * (C' << N), C' odd: it is bit N of X << N
            tz = (demanded & -demanded).bit_length() - 1
            cv = b.value & m
            if cv and (cv & -cv).bit_length() - 1 == tz:
                set_result(ctx, op, "ISD::SHL", [a, ctx.const(tz, vt)])
                return True, _NOK
        lz = clz(demanded, bits)
        lo = m >> lz
        ch, k1 = sdb(b, lo, depth + 1, ctx)
        if ch:
            return True, _NOK
        lo0 = lo
        if opc == "ISD::MUL":
            tz = k1.trail_zeros()
            lo0 = lo & (m >> tz) if tz < bits else 0
        ch, k0 = sdb(a, lo0, depth + 1, ctx)
        if ch:
            return True, _NOK
        if lo != m and _bypass_multi_use(op, lo, depth, ctx):
            return True, _NOK
        if opc == "ISD::SUB" and demanded == 1 and is_c(a) and (a.value & m) == 0:
            return _combine_to(op, b, ctx)  # neg x, only the low bit demanded
        high = m & ~(m >> lz) if lz else 0
        if cb is not None and cb != m and cb != 1 and (cb | high) == m:
            # a constant whose undemanded high bits are the only zeros becomes -1
            set_result(ctx, op, opc, [a, ctx.const(-1, vt)])
            return True, _NOK
        if opc == "ISD::MUL":
            known = mul_known(k0, k1)
        elif opc == "ISD::ADD":
            known = add_carry(k0, k1, True, False)
        else:
            known = add_carry(k0, Known(k1.one, k1.zero, bits), False, True)
    if not demanded & ~(known.zero | known.one) and demanded_const(op, demanded, known, ctx):
        return True, _NOK
    return False, known


def _sdb_sext_in_reg(op: SDNode, demanded: int, depth: int, ctx: Ctx, bits: int) -> tuple[bool, Known] | None:
    """SimplifyDemandedBits of ``sign_extend_inreg x, iE``: only the sign bit demanded ->
    ``shl x, bits - E`` (unless x is sign extended already); no bit above the low E
    demanded -> x; else x's low E bits and bit E-1 are demanded of x, and a known-zero
    bit E-1 makes it ``and x, (1 << E) - 1``. Returns sdb's answer, or None for a type
    operand without width."""
    x, t = op.ops
    ext = int_width(t.vt)
    if not ext or ext >= bits:
        return None
    vt = op.vt
    m = (1 << bits) - 1
    if demanded == 1 << (bits - 1) and ext < bits - sign_bits(x, ctx, depth + 1) + 1:
        set_result(ctx, op, "ISD::SHL", [x, ctx.const(bits - ext, vt)])
        return True, _NOK
    if demanded.bit_length() <= ext:
        return _combine_to(op, x, ctx)  # none of the extended bits demanded
    low = (1 << ext) - 1
    ch, k = sdb(x, (demanded & low) | 1 << (ext - 1), depth + 1, ctx)
    if ch:
        return True, _NOK
    if k.zero >> (ext - 1) & 1:
        set_result(ctx, op, "ISD::AND", [x, ctx.const(low, vt)])  # (getZeroExtendInReg)
        return True, _NOK
    if k.one >> (ext - 1) & 1:
        known = Known(k.zero & low, k.one | (m & ~low), bits)
    else:
        known = Known(k.zero & low, k.one & low, bits)
    if demanded_const(op, demanded, known, ctx):
        return True, _NOK
    return False, known


def demanded_const(op: SDNode, demanded: int, known: Known, ctx: Ctx) -> bool:
    """Every demanded bit known: the value is that constant."""
    if op.opcode == "ISD::Constant" or not demanded or demanded & ~(known.zero | known.one):
        return False
    ctx.replace(op, ctx.const(known.one, op.vt))
    return True


def _shrink_const(op: SDNode, demanded: int, ctx: Ctx) -> bool:
    """TargetLowering::ShrinkDemandedConstant: clear the constant's undemanded bits
    (and/or/xor; a not is left alone)."""
    if not demanded or op.opcode not in ("ISD::AND", "ISD::OR", "ISD::XOR"):
        return False
    b = op.ops[1]
    if not is_c(b):
        return False
    m = (1 << int_width(op.vt)) - 1
    c = b.value & m
    if op.opcode == "ISD::XOR" and demanded & ~c == 0:
        return False
    if c & ~demanded == 0:
        return False
    set_result(ctx, op, op.opcode, [op.ops[0], ctx.const(c & demanded, op.vt)])
    return True


def _sdb_shift(op: SDNode, demanded: int, depth: int, ctx: Ctx, a: SDNode, b: SDNode,
               bits: int) -> tuple[bool, Known] | None:
    m = (1 << bits) - 1
    opc = op.opcode
    vt = op.vt
    sa = b.value & m if is_c(b) and (b.value & m) < bits else None
    if opc == "ISD::SRA":
        hi = bits - ctz(demanded, bits) if demanded else 0
        if sign_bits(a, ctx, depth + 1) >= hi:
            return _combine_to(op, a, ctx)  # only bits that already copy the sign
        if demanded == 1:
            set_result(ctx, op, "ISD::SRL", [a, b])
            return True, _NOK
    if sa is None:
        if opc == "ISD::SHL":
            lz = clz(demanded, bits)
            if lz:
                ch, _k = sdb(a, m >> lz, depth + 1, ctx)
                if ch:
                    return True, _NOK
        return None
    if sa == 0:
        return _combine_to(op, a, ctx)
    if opc == "ISD::SHL":
        if a.opcode == "ISD::SRL" and not demanded & ((1 << sa) - 1) and is_c(a.ops[1]) \
                and (a.ops[1].value & m) < bits:
            # ((X >>u C1) << sa): the low bits are not demanded, one shift
            diff = sa - (a.ops[1].value & m)
            set_result(ctx, op, "ISD::SHL" if diff >= 0 else "ISD::SRL", [a.ops[0], ctx.const(abs(diff), vt)])
            return True, _NOK
        ch, k = sdb(a, demanded >> sa, depth + 1, ctx)
        if ch or _bypass_shift_source(op, demanded >> sa, depth, ctx):
            return True, _NOK
        return None
    if opc == "ISD::SRL":
        if a.opcode == "ISD::SHL" and not demanded & (m & ~(m >> sa)) and is_c(a.ops[1]) \
                and (a.ops[1].value & m) < bits:
            # ((X << C1) >>u sa): the high bits are not demanded, one shift
            diff = sa - (a.ops[1].value & m)
            set_result(ctx, op, "ISD::SRL" if diff >= 0 else "ISD::SHL", [a.ops[0], ctx.const(abs(diff), vt)])
            return True, _NOK
        ch, k = sdb(a, (demanded << sa) & m, depth + 1, ctx)
        if ch or _bypass_shift_source(op, (demanded << sa) & m, depth, ctx):
            return True, _NOK
        return None
    # SRA by a constant. (sra (shl x, c), c) -> sign_extend_inreg, at whatever depth the
    # walk reaches the pair with one use (an operand of an add or a logic op that asks
    # its bits), so before a visit of an outer sra could fold the two sras into one
    if a.opcode == "ISD::SHL" and is_c(a.ops[1]) and (a.ops[1].value & m) == sa:
        if "ISD::SIGN_EXTEND_INREG" in ctx.legal and bits - sa in (8, 16) and bits == 32:
            set_result(ctx, op, "ISD::SIGN_EXTEND_INREG", [a.ops[0], ctx.vtnode(f"i{bits - sa}")])
            return True, _NOK
        if sign_bits(a.ops[0], ctx, depth + 1) > sa:
            return _combine_to(op, a.ops[0], ctx)
    ind = (demanded << sa) & m
    if clz(demanded, bits) < sa:
        ind |= 1 << (bits - 1)
    ch, k = sdb(a, ind, depth + 1, ctx)
    if ch:
        return True, _NOK
    if (k.zero >> (bits - 1)) & 1 or clz(demanded, bits) >= sa:
        set_result(ctx, op, "ISD::SRL", [a, b])  # sign known zero or no sign copy demanded
        return True, _NOK
    if demanded and demanded & (demanded - 1) == 0:
        # one demanded bit, taken from the sign
        set_result(ctx, op, "ISD::SRL", [a, ctx.const(bits - 1 - (demanded.bit_length() - 1), vt)])
        return True, _NOK
    if _bypass_shift_source(op, ind, depth, ctx):
        return True, _NOK
    return None


def _bypass_shift_source(op: SDNode, demanded: int, depth: int, ctx: Ctx) -> bool:
    """The shift's "avoid multi-use ops" step: its source replaced by the simpler value
    SimplifyMultipleUseDemandedBits finds for the bits the shift reads."""
    m = (1 << int_width(op.vt)) - 1
    if demanded == m:
        return False
    v = multi_use_demanded(op.ops[0], demanded, depth + 1, ctx)
    if v is None:
        return False
    set_result(ctx, op, op.opcode, [v, op.ops[1]])
    return True


def _bypass_multi_use(op: SDNode, demanded: int, depth: int, ctx: Ctx) -> bool:
    """SimplifyDemandedBits' "attempt to avoid multi-use ops if we don't need anything
    from them" for a two-operand node: each operand replaced by the simpler value
    SimplifyMultipleUseDemandedBits finds for the demanded bits (the operand itself may
    have other users, which keep it)."""
    m = (1 << int_width(op.vt)) - 1
    if demanded == m:
        return False
    a, b = op.ops
    va = multi_use_demanded(a, demanded, depth + 1, ctx)
    vb = multi_use_demanded(b, demanded, depth + 1, ctx)
    if va is None and vb is None:
        return False
    set_result(ctx, op, op.opcode, [va or a, vb or b])
    return True


def multi_use_demanded(v: SDNode, demanded: int, depth: int, ctx: Ctx):
    """TargetLowering::SimplifyMultipleUseDemandedBits for the modeled nodes: a value
    equal to ``v`` on the ``demanded`` bits, without rewriting ``v`` (it may have other
    users), or None."""
    if not demanded or depth >= MAX_DEPTH or len(v.ops) != 2:
        return None
    opc = v.opcode
    a, b = v.ops
    if opc in SDB_LOGIC:
        ka, kb_ = known_bits(a, ctx, depth + 1), known_bits(b, ctx, depth + 1)
        if opc == "ISD::AND":
            if not demanded & ~(ka.zero | kb_.one):
                return a
            if not demanded & ~(kb_.zero | ka.one):
                return b
        elif opc == "ISD::OR":
            if not demanded & ~(ka.one | kb_.zero):
                return a
            if not demanded & ~(kb_.one | ka.zero):
                return b
        else:
            if not demanded & ~kb_.zero:
                return a
            if not demanded & ~ka.zero:
                return b
        return None
    if opc == "ISD::SHL" and is_c(b):
        bits = int_width(v.vt)
        sa = b.value & ((1 << bits) - 1)
        if sa < bits:
            nsb = sign_bits(a, ctx, depth + 1)
            if nsb > sa and nsb - sa >= bits - ctz(demanded, bits):
                return a  # only sign bits demanded: the shift's source
        return None
    if opc == "ISD::SIGN_EXTEND_INREG" and b.opcode == "ISD::VALUETYPE" and int_width(b.vt):
        if demanded.bit_length() <= int_width(b.vt):
            return a  # none of the extended bits demanded
    return None

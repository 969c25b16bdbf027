"""SelectionDAG::computeKnownBits and ComputeNumSignBits over the block's nodes (depth 6 like
LLVM's): known bits (``known_bits``), leading zeros (``known_lz``, also what a block exports:
``patterns.dag.liveout``), sign bits (``sign_bits``, ``live_sign_bits``), what a CopyFromReg's
value is asserted to be (``copy_assert``); a target's nodes through its hook
(``DAGTarget.known_lz``: TargetHooks.known_lz). Each is given the DAG's target
(``DAGTarget``: a combine run's Ctx, or the builder's). Memoized
per node while a run lasts (``SDNode.kbc``): known bits and leading zeros without a depth
limit, with the depth they need, other answers per depth; ``invalidate``
(``patterns.dag.combine.context``) drops the memos of a node whose operands changed."""

from __future__ import annotations

from typing import Any, Final

from patterns.dag.combine.context import DAGTarget, is_c, MAX_DEPTH, SDB_LOGIC, SHIFTS
from patterns.support.intops import int_width
from patterns.dag.combine.known_ops import kb_binop, KB_BINOPS, KB_INTRINSIC, kb_intrinsic, KB_MINMAX, kb_shift_masks, lz_known, sext_in_reg_known, sign_bits_step, UNK32, unknown
from patterns.dag.nodes import SDNode
from patterns.support.intops import wrap_vt
from patterns.support.intops import clz
from patterns.support.knownbits import add_carry_masks, const_known, Known, mul_masks


def copy_assert(n: SDNode, ctx: DAGTarget) -> tuple[int, int]:
    """What RegsForValue::getCopyFromRegs asserts of a CopyFromReg's value: the leading
    zeros recorded for it (an AssertZext when any), else its recorded sign bits (an
    AssertSext when more than 1) (``patterns.dag.liveout``, counted when first asked)."""
    lz = n.klz
    if type(lz) is not int:
        lz = n.klz = known_lz(lz, ctx)
    if lz:
        return lz, 1
    sb = n.ksb
    if type(sb) is not int:
        sb = n.ksb = live_sign_bits(sb, ctx)
    return 0, sb


def known_lz(n: SDNode, ctx: DAGTarget, depth: int = 0) -> int:
    """Known leading zero bits of a 32-bit value (the part of SelectionDAG's
    computeKnownBits the modeled ops need; recursion depth 6 like LLVM's: nothing is
    known below depth 6). Memoized like ``known_bits`` in ``kbc``: under key -2 the count
    without a depth limit and the levels it needs (``_lz_full``; with none known there,
    none is known at any depth, as each rule only gains zeros from its operands'),
    else per depth (keys 16 + depth)."""
    if depth > 6:
        return 0
    c = n.kbc
    f = c.get(-2) if c is not None else None
    if f is None:
        f = _lz_full(n, ctx, _FULL_ROOM)
    k = f[0]
    if k is not None and (f[1] + depth <= 7 or not k):
        return k
    c = n.kbc
    if c is None:
        c = n.kbc = {}
    k = c.get(16 + depth)
    if k is None:
        ops = _lz_operands(n)
        k = _lz_leaf(n, ctx) if ops is None else _lz_rule(n, [known_lz(o, ctx, depth + 1) for o in ops])
        c[16 + depth] = k
    return k


def _lz_full(n: SDNode, ctx: DAGTarget, room: int) -> tuple[int | None, int]:
    """(known leading zeros without a depth limit, the levels they need, up to 8);
    (None, 99) when cut short by ``room`` (not memoized). (_lz_operands and _lz_rule,
    with the common opcodes inline.)"""
    o: SDNode
    ops: list[SDNode] | None
    f: tuple[int | None, int] | None
    fa: tuple[int | None, int]
    fb: tuple[int | None, int]
    xa: int | None
    xb: int | None
    x: int
    y: int
    c = n.kbc
    if c is not None:
        f = c.get(-2)
        if f is not None:
            return f
    if room <= 0:
        return _CUT
    opc = n.opcode
    if opc in _LZ_BINOPS:
        ops = n.ops
        o = ops[0]
        fa = _lz_full(o, ctx, room - 1)
        xa = fa[0]
        if xa is None:
            return _CUT
        o = ops[1]
        fb = _lz_full(o, ctx, room - 1)
        xb = fb[0]
        if xb is None:
            return _CUT
        need = fa[1] if fa[1] > fb[1] else fb[1]
        x = xa  # (declared int: compared natively)
        y = xb
        # (_lz_rule)
        if opc == "ISD::AND" or opc == "ISD::UMIN":
            v = x if x > y else y
        elif opc == "ISD::ADD":
            v = (x if x < y else y) - 1
            if v < 0:
                v = 0
        elif opc == "ISD::MUL":
            v = x + y - 32
            if v < 0:
                v = 0
        else:  # OR, XOR, UMAX, SMAX, SMIN
            v = x if x < y else y
        f = (v, need + 1 if need < 7 else 8)
    elif opc in SHIFTS:
        ops = n.ops
        o = ops[0]
        fa = _lz_full(o, ctx, room - 1)
        xa = fa[0]
        if xa is None:
            return _CUT
        x = xa
        # (_lz_rule)
        b = ops[1]
        if b.opcode != "ISD::Constant" or not isinstance(b.value, int):
            v = x if opc != "ISD::SHL" else 0
        else:
            sh = b.value & 31
            if opc == "ISD::SHL":
                v = x - sh if x > sh else 0
            elif opc == "ISD::SRA" and x == 0:
                v = 0
            else:
                v = x + sh if x + sh < 32 else 32
        need = fa[1]
        f = (v, need + 1 if need < 7 else 8)
    elif opc == "ISD::CopyFromReg":
        k = n.klz  # (_lz_leaf)
        if type(k) is not int:
            k = n.klz = known_lz(k, ctx)
        f = (k, 1)
    elif opc == "ISD::Constant" and type(n.value) is int:
        f = (32 - (n.value & 0xFFFFFFFF).bit_length(), 1)  # (_lz_leaf)
    else:
        ops = _lz_operands(n)
        if ops is None:
            f = (_lz_leaf(n, ctx), 1)
        else:
            vals = []
            need = 0
            for o in ops:
                fo = _lz_full(o, ctx, room - 1)
                if fo[0] is None:
                    return _CUT
                vals.append(fo[0])
                if fo[1] > need:
                    need = fo[1]
            f = (_lz_rule(n, vals), need + 1 if need < 7 else 8)
    if c is None:
        n.kbc = {-2: f}
    else:
        c[-2] = f
    return f


# (min/max are not here: their leading zeros come from KnownBits::umin/umax/smin/smax
# of the operands' known bits, _lz_leaf; e.g. smax of a non-negative value is non-negative
# whatever the other operand)
_LZ_BINOPS: Final = frozenset({"ISD::AND", "ISD::OR", "ISD::XOR", "ISD::ADD", "ISD::MUL"})


def _lz_operands(n: SDNode) -> list | None:
    """The operands whose leading zeros ``_lz_rule`` combines, or None for a node counted
    on its own (``_lz_leaf``)."""
    opc = n.opcode
    if opc in _LZ_BINOPS:
        return n.ops[:2]
    if opc in ("ISD::SRL", "ISD::SRA", "ISD::SHL"):
        return n.ops[:1]
    if opc == "ISD::SELECT":
        return n.ops[1:3]
    return None


def _lz_leaf(n: SDNode, ctx: DAGTarget) -> int:
    opc = n.opcode
    if opc == "ISD::Constant":
        if not isinstance(n.value, int):
            return 0
        return 32 - (n.value & 0xFFFFFFFF).bit_length()
    if opc == "ISD::CopyFromReg":
        # recorded where the value was computed (patterns.dag.liveout): the exporting
        # node of that finished block until first asked, counted from depth 0 there
        k = n.klz
        if type(k) is not int:
            k = n.klz = known_lz(k, ctx)
        return k
    if opc in KB_INTRINSIC or opc == "ISD::SIGN_EXTEND_INREG":
        # (the counts, bitreverse, abs, min/max, sign_extend_inreg: from the operands'
        # known bits, kb_intrinsic / sext_in_reg_known)
        return known_bits(n, ctx).lead_zeros()
    if opc == "ISD::AssertZext":
        return 32 - int(n.ops[1].vt[1:])
    f = ctx.known_lz.get(opc)  # (a target's node, or a target intrinsic's INTRINSIC_WO_CHAIN)
    return 0 if f is None else f(n)


def _lz_rule(n: SDNode, vals: list) -> int:
    """The leading zeros of ``n`` from its operands' (``_lz_operands``)."""
    opc = n.opcode
    if opc == "ISD::SELECT":
        return min(vals[0], vals[1])
    x = vals[0]
    if opc in ("ISD::SRL", "ISD::SRA", "ISD::SHL"):
        b = n.ops[1]
        if not is_c(b):
            return x if opc != "ISD::SHL" else 0
        c = b.value & 31
        if opc == "ISD::SHL":
            return x - c if x > c else 0
        if opc == "ISD::SRA" and x == 0:
            return 0
        return min(32, x + c)
    y = vals[1]
    if opc in ("ISD::AND", "ISD::UMIN"):
        return max(x, y)
    if opc in ("ISD::OR", "ISD::XOR", "ISD::UMAX", "ISD::SMAX", "ISD::SMIN"):
        return min(x, y)
    if opc == "ISD::ADD":
        return max(0, min(x, y) - 1)
    if opc == "ISD::MUL":
        return max(0, x + y - 32)
    return 0


def known_bits(n: SDNode, ctx: DAGTarget, depth: int = 0) -> Known:
    """SelectionDAG::computeKnownBits for the modeled nodes, at recursion depth ``depth``
    (constants are known at any depth, other nodes not at depth 6 and beyond).

    Memoized in ``kbc`` while a run lasts, exactly: under key -1 the answer without a
    depth limit and the depth it needs (``_kb_full``). That answer is the one at every
    depth with room for its need; when it knows no bit, no depth knows one (each
    transfer function only gains bits from known operand bits). Other answers, cut
    short by the limit, are memoized under their depth. ``_invalidate`` drops the memos
    when the node or a node below it changes."""
    k: Known | None
    g: tuple[Known | None, int]
    need: int
    g = _kb_full(n, ctx, _FULL_ROOM)  # (memoized there; a typed tuple, read natively)
    k, need = g
    if k is not None and (need + depth <= 6 or not (k.zero | k.one)):
        return k
    if depth >= 6:
        return unknown(int_width(n.vt) or 1)
    c = n.kbc
    if c is None:
        c = n.kbc = {}
    k = c.get(depth)
    if k is None:
        k = c[depth] = _kb_node(n, ctx, depth, int_width(n.vt))
    return k


# how deep _kb_full follows operands (a longer chain is answered depth by depth)
_FULL_ROOM: Final = 100


def _kb_full(n: SDNode, ctx: DAGTarget, room: int) -> tuple[Known | None, int]:
    """(known bits without a depth limit, the depth they need): 0 for a constant or a
    value without width, 1 for a node known without looking at operands, one more than
    its operands' for the others (counted up to 7). Looks at most ``room`` levels down;
    a node cut short by that gets (None, 99), not memoized. (The answers of constants
    and of leaves are shared tuples: neither they nor their Known are ever changed.)"""
    ka: Known
    kb: Known
    ka0: Known | None
    kb0: Known | None
    kx: Known | None
    need: int
    na: int
    nb: int
    z: int
    o: int
    f: tuple[Known | None, int] | None
    fa: tuple[Known | None, int]
    fb: tuple[Known | None, int]
    c = n.kbc
    if c is not None:
        f = c.get(-1)
        if f is not None:
            return f
    vt = n.vt
    bits = int_width(vt)
    opc = n.opcode
    if opc == "ISD::Constant" and type(n.value) is int and bits:
        u = n.value & ((1 << bits) - 1)
        f = _CONST_FULL.get((u, bits))
        if f is None:
            f = _CONST_FULL[(u, bits)] = (const_known(u, bits), 0)
    elif not bits:
        f = _NO_WIDTH_FULL
    elif room <= 0:
        return _CUT
    elif opc == "ISD::CopyFromReg":
        # (kb_leaf: the known leading zeros, _lz_leaf's count)
        lz = n.klz
        if type(lz) is not int:
            lz = n.klz = known_lz(lz, ctx)
        f = _LEAF_FULL.get((lz, bits))
        if f is None:
            f = _LEAF_FULL[(lz, bits)] = (lz_known(lz, bits) if lz else unknown(bits), 1)
    else:
        ops = n.ops
        if opc in KB_BINOPS and len(ops) == 2:
            x = ops[0]
            fa = _kb_full(x, ctx, room - 1)
            x = ops[1]
            fb = _kb_full(x, ctx, room - 1)
            ka0, na = fa  # (unpacked: the items of a typed tuple are read natively)
            kb0, nb = fb
            if ka0 is None or kb0 is None:
                return _CUT
            ka = ka0  # (declared Known: their fields are read natively)
            kb = kb0
            need = na if na > nb else nb
            need = need + 1 if need < 6 else 7
            if not (ka.zero | ka.one | kb.zero | kb.one):
                # (no binary op knows a bit of unknown operands)
                f = _UNK_FULL[need] if bits == 32 else (unknown(bits), need)
            else:
                # (kb_binop on masks; the arithmetic at the first operand's width, as
                # knownbits' add_carry, mul_known and shift_known compute it)
                if opc == "ISD::XOR":
                    z, o = (ka.zero & kb.zero) | (ka.one & kb.one), (ka.zero & kb.one) | (ka.one & kb.zero)
                elif opc == "ISD::AND":
                    z, o = ka.zero | kb.zero, ka.one & kb.one
                elif opc == "ISD::OR":
                    z, o = ka.zero & kb.zero, ka.one | kb.one
                else:
                    bits = ka.bits
                    if opc == "ISD::ADD":
                        z, o = add_carry_masks(ka.zero, ka.one, kb.zero, kb.one, (1 << bits) - 1, True, False)
                    elif opc == "ISD::SUB":
                        z, o = add_carry_masks(ka.zero, ka.one, kb.one, kb.zero, (1 << bits) - 1, False, True)
                    elif opc == "ISD::MUL":
                        z, o = mul_masks(ka.zero, ka.one, kb.zero, kb.one, bits, kb.bits)
                    else:
                        z, o = kb_shift_masks(opc, bits, ka, kb)
                if z | o:
                    f = (Known(z, o, bits), need)
                else:  # (nothing known: the shared answer)
                    f = _UNK_FULL[need] if bits == 32 else (unknown(bits), need)
        elif opc == "ISD::SELECT" and len(ops) == 3:
            fa = _kb_full(ops[1], ctx, room - 1)
            fb = _kb_full(ops[2], ctx, room - 1)
            if fa[0] is None or fb[0] is None:
                return _CUT
            need = fa[1] if fa[1] > fb[1] else fb[1]
            f = (fa[0].intersect(fb[0]), need + 1 if need < 6 else 7)
        elif opc == "ISD::SIGN_EXTEND_INREG" and len(ops) == 2 and int_width(ops[1].vt):
            fa = _kb_full(ops[0], ctx, room - 1)
            if fa[0] is None:
                return _CUT
            need = fa[1]
            f = (sext_in_reg_known(fa[0], int_width(ops[1].vt)), need + 1 if need < 6 else 7)
        elif opc == "ISD::ABS":
            # (its known bits also take the operand's sign bits at the next depth,
            # which have no answer without a depth limit: answered depth by depth)
            return _CUT
        elif opc in KB_INTRINSIC and ops:
            fa = _kb_full(ops[0], ctx, room - 1)
            if fa[0] is None:
                return _CUT
            need = fa[1]
            kx = None
            if opc in KB_MINMAX:
                fb = _kb_full(ops[1], ctx, room - 1)
                if fb[0] is None:
                    return _CUT
                if fb[1] > need:
                    need = fb[1]
                kx = fb[0]
            f = (kb_intrinsic(opc, bits, fa[0], kx), need + 1 if need < 6 else 7)
        else:
            f = (kb_leaf(n, opc, bits, ctx), 1)
    if c is None:
        n.kbc = {-1: f}
    else:
        c[-1] = f
    return f


_CONST_FULL: Final[dict] = {}  # (value, bits) -> the _kb_full answer of that constant
_LEAF_FULL: Final[dict] = {}   # (leading zeros, bits) -> the _kb_full answer of such a CopyFromReg


_CUT: Final = (None, 99)
_UNK_FULL: Final = [(UNK32, need) for need in range(8)]  # (_kb_full answers)
_NO_WIDTH_FULL: Final = (Known(0, 0, 1), 0)


def _kb_node(n: SDNode, ctx: DAGTarget, depth: int, bits: int) -> Known:
    """The known bits of ``n`` from its operands' at ``depth + 1``."""
    opc = n.opcode
    ops = n.ops
    if opc in KB_BINOPS and len(ops) == 2:
        return kb_binop(opc, bits, known_bits(ops[0], ctx, depth + 1), known_bits(ops[1], ctx, depth + 1))
    if opc == "ISD::SELECT" and len(ops) == 3:
        return known_bits(ops[1], ctx, depth + 1).intersect(known_bits(ops[2], ctx, depth + 1))
    if opc == "ISD::SIGN_EXTEND_INREG" and len(ops) == 2 and int_width(ops[1].vt):
        return sext_in_reg_known(known_bits(ops[0], ctx, depth + 1), int_width(ops[1].vt))
    if opc in KB_INTRINSIC and ops:
        k = kb_intrinsic(opc, bits, known_bits(ops[0], ctx, depth + 1),
                          known_bits(ops[1], ctx, depth + 1) if opc in KB_MINMAX else None)
        if opc == "ISD::ABS":
            # the absolute value of a value with s sign bits has s - 1 leading zeros
            # (SelectionDAG::computeKnownBits, ISD::ABS, in LLVM 19)
            s = sign_bits(ops[0], ctx, depth + 1)
            if s > 1:
                hz = ((1 << bits) - 1) & ~((1 << (bits - s + 1)) - 1)
                if hz & ~k.zero:
                    k = Known(k.zero | hz, k.one & ~hz, bits)
        return k
    return kb_leaf(n, opc, bits, ctx)


def kb_leaf(n: SDNode, opc: str, bits: int, ctx: DAGTarget) -> Known:
    """The known bits of a node that are not computed from its operands' (at any depth
    below the limit)."""
    if opc == "ISD::CopyFromReg":
        lz = known_lz(n, ctx)
        return lz_known(lz, bits) if lz else (UNK32 if bits == 32 else unknown(bits))
    if opc in ctx.known_lz:
        return lz_known(known_lz(n, ctx), bits)
    return UNK32 if bits == 32 else unknown(bits)


def sign_bits(n: SDNode, ctx: DAGTarget, depth: int = 0) -> int:
    """SelectionDAG::ComputeNumSignBits for the modeled nodes; memoized like ``known_bits``
    (keys 32 + depth)."""
    c = n.kbc
    if c is not None:
        k = c.get(32 + depth)
        if k is not None:
            return k
    k = _sign_bits_node(n, ctx, depth)
    c = n.kbc
    if c is None:
        c = n.kbc = {}
    c[32 + depth] = k
    return k


def live_sign_bits(n: SDNode, ctx: DAGTarget) -> int:
    """The sign bits llc records for a value its block exports (SelectionDAGISel::
    ComputeLiveOutVRegInfo: ComputeNumSignBits of the copied node, depth 0, in its
    finished block); ``n`` is that node."""
    return sign_bits(n, ctx, 0)


def _sign_bits_node(n: SDNode, ctx: DAGTarget, depth: int) -> int:
    """SelectionDAG::ComputeNumSignBits (LLVM 19) of one node: a constant's own count at
    any depth, 1 at depth 6 and beyond; the cases of the modeled opcodes, which either
    answer directly (SRA, SIGN_EXTEND_INREG, ADD, SUB, SELECT, min/max, MUL with sign bits
    on both sides; their early ``1``s skip the known bits) or give a first answer the
    known bits of the node may better (AND/OR/XOR, SHL past its sign bits, the rest)."""
    a: Any
    hi: Any
    bits = int_width(n.vt)
    if not bits:
        return 1
    opc = n.opcode
    if opc == "ISD::Constant" and type(n.value) is int:
        u = n.value & ((1 << bits) - 1)
        return clz(u ^ ((1 << bits) - 1) if u >> (bits - 1) else u, bits)
    if depth >= MAX_DEPTH:
        return 1
    ops = n.ops
    d1 = depth + 1
    first = 1
    if opc == "ISD::CopyFromReg":
        # a value read from another block's register: through an AssertZext of its
        # recorded leading zeros (VTBits - width), else an AssertSext of its recorded
        # sign bits (VTBits - width + 1); with neither, nothing is known
        lz, s = copy_assert(n, ctx)
        return lz if lz else max(s, 1)
    if opc == "ISD::SRA":
        t = sign_bits(ops[0], ctx, d1)
        r = shift_amount_range(n, bits, ctx, d1)
        if r is not None:
            t = min(t + r[0], bits)
        return t
    if opc == "ISD::SHL":
        r = shift_amount_range(n, bits, ctx, d1)
        if r is not None:
            lo, hi = r
            a = ops[0]
            if a.opcode in _EXT_OPS and a.ops:
                diff = bits - (int_width(a.ops[0].vt) or bits)
                if diff <= lo:
                    t = diff + sign_bits(a.ops[0], ctx, d1)
                    if hi < t:
                        return t - hi
            t = sign_bits(a, ctx, d1)
            if hi < t:
                return t - hi
    elif opc in SDB_LOGIC:
        t = sign_bits(ops[0], ctx, d1)
        if t != 1:
            t2 = sign_bits(ops[1], ctx, d1)
            first = t if t < t2 else t2
    elif opc == "ISD::ADD":
        t = sign_bits(ops[0], ctx, d1)
        if t == 1:
            return 1
        b = ops[1]
        if b.opcode == "ISD::Constant" and type(b.value) is int and wrap_vt(b.value, n.vt) == -1:
            s = sign_bits_step(known_bits(ops[0], ctx, d1), bits, t)  # (x - 1)
            if s:
                return s
        t2 = sign_bits(b, ctx, d1)
        if t2 == 1:
            return 1
        return (t if t < t2 else t2) - 1
    elif opc == "ISD::SUB":
        t2 = sign_bits(ops[1], ctx, d1)
        if t2 == 1:
            return 1
        a = ops[0]
        if a.opcode == "ISD::Constant" and type(a.value) is int and wrap_vt(a.value, n.vt) == 0:
            s = sign_bits_step(known_bits(ops[1], ctx, d1), bits, t2)  # (0 - x)
            if s:
                return s
        t = sign_bits(a, ctx, d1)
        if t == 1:
            return 1
        return (t if t < t2 else t2) - 1
    elif opc == "ISD::MUL":
        s0 = sign_bits(ops[0], ctx, d1)
        if s0 != 1:
            s1 = sign_bits(ops[1], ctx, d1)
            if s1 != 1:
                valid = (bits - s0 + 1) + (bits - s1 + 1)
                return 1 if valid > bits else bits - valid + 1
    elif opc == "ISD::SIGN_EXTEND_INREG" and len(ops) == 2 and ops[1].opcode == "ISD::VALUETYPE" \
            and int_width(ops[1].vt):
        t = bits - int_width(ops[1].vt) + 1
        t2 = sign_bits(ops[0], ctx, d1)
        return t if t > t2 else t2
    elif opc == "ISD::SELECT" and len(ops) == 3:
        t = sign_bits(ops[1], ctx, d1)
        if t == 1:
            return 1
        t2 = sign_bits(ops[2], ctx, d1)
        return t if t < t2 else t2
    elif opc in KB_MINMAX and len(ops) == 2:
        if opc == "ISD::SMIN" or opc == "ISD::SMAX":
            # a clamp smax(smin(x, hi), lo) / smin(smax(x, lo), hi) with lo <= hi: the
            # fewer sign bits of the two bounds
            a, lo = ops
            if is_c(lo) and a.opcode == ("ISD::SMIN" if opc == "ISD::SMAX" else "ISD::SMAX") \
                    and len(a.ops) == 2 and is_c(a.ops[1]):
                hi = a.ops[1]
                if opc == "ISD::SMIN":
                    lo, hi = hi, lo
                lv, hv = wrap_vt(lo.value, n.vt), wrap_vt(hi.value, n.vt)
                if lv <= hv:
                    ls, hs = sign_bits(lo, ctx, d1), sign_bits(hi, ctx, d1)
                    return ls if ls < hs else hs
        t = sign_bits(ops[0], ctx, d1)
        if t == 1:
            return 1
        t2 = sign_bits(ops[1], ctx, d1)
        return t if t < t2 else t2
    elif opc == "ISD::AssertZext" and len(ops) == 2 and int_width(ops[1].vt):
        return bits - int_width(ops[1].vt)
    # the known bits of the node itself, at this depth (KnownBits::countMinSignBits)
    k = known_bits(n, ctx, depth)
    z = k.zero
    mask = z if z >> (bits - 1) & 1 else (k.one if k.one >> (bits - 1) & 1 else 0)
    return max(first, clz(~mask & ((1 << bits) - 1), bits)) if mask else first


_EXT_OPS: Final = frozenset({"ISD::ZERO_EXTEND", "ISD::SIGN_EXTEND", "ISD::ANY_EXTEND"})


def shift_amount_range(n: SDNode, bits: int, ctx: DAGTarget, depth: int):
    """SelectionDAG::getValidShiftAmountRange of shift ``n`` (LLVM 19): (min, max) of its
    amount, from a constant (None when not below the width) or from the amount's known
    bits at ``depth`` (None when its largest possible value is not below the width)."""
    amt = n.ops[1]
    if amt.opcode == "ISD::Constant" and type(amt.value) is int:
        aw = int_width(amt.vt) or bits
        v = amt.value & ((1 << aw) - 1)
        return (v, v) if v < bits else None
    k = known_bits(amt, ctx, depth)
    hi = ~k.zero & ((1 << k.bits) - 1)
    return (k.one, hi) if hi < bits else None

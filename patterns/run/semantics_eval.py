"""Executing instruction semantics (``tdgen.model.semantics``) on one wave, vectorised over lanes.

``compile_semantics(sem)`` turns a ``Semantics`` record into a function ``run(ctx)`` that
evaluates every effect on the state before the instruction and returns the writes
``[(dst, values, uniform, lane_mask_write, undefined)]`` and the stores ``[(space, addr, values,
bits)]``; the caller (``patterns.run.machine``) commits them, then asks ``run.branch(ctx)``
(None when the semantics has no ``Branch``) where control goes. Values are numpy ``uint64``
arrays of one entry per lane, reduced to their width; ``uniform`` says the value is one
for the wave (a scalar operand, an immediate, a uniform cross-lane result).

``ctx`` gives: ``wave`` (32 | 64), ``exec`` (bool per lane), ``local`` (each lane's
work-item id), ``bpermute_wave64``
(``"full"`` | ``"half"``), ``operand(name) -> (values, uniform, file)``, ``implicit(reg)``,
``load(space, addr, bits, active) -> values``, and ``illegal(message)`` (raises). A write
whose value is a load as it is sets ``ctx.partial_load`` while the load runs: a context
may then answer a read of partly uninitialised memory with the initialised bytes and put
``(undefined 32-bit parts as a bit mask, what was read)`` in ``ctx.load_undef``, which
becomes the write's ``undefined`` (None otherwise).

The cross-lane primitives are the wave model's (``patterns.wave.execute``): the lane a DS
permute address names (``permute_lane``), ds_permute's highest-lane-wins rule, the swizzle
source lanes, the DPP controls (decoded from LLVM's DppCtrl encoding); an inactive source
lane reads 0.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from patterns.run.ops import float_binop, from_float
from patterns.wave.execute import Dpp, permute_lane, swizzle_source_lanes
from tdgen.model.semantics import FIXED_WIDTHS, Apply, Branch, Implicit, Imm, Operand, Semantics, Store, Write

__all__ = ["compile_semantics", "mask_of", "to_signed", "dpp_control"]

U64 = np.uint64


def mask_of(bits: int) -> np.uint64:
    return U64((1 << bits) - 1) if bits < 64 else U64(0xFFFFFFFFFFFFFFFF)


def to_signed(x: np.ndarray, bits: int) -> np.ndarray:
    """The unsigned ``bits``-bit values ``x`` as signed int64."""
    if bits >= 64:
        return x.view(np.int64)
    s = np.int64(1 << (bits - 1))
    return (x.astype(np.int64) ^ s) - s


def _from_signed(x: np.ndarray, bits: int) -> np.ndarray:
    return x.astype(np.int64).view(U64) & mask_of(bits)


def _bits_loop(x: np.ndarray, bits: int, fn) -> np.ndarray:
    out = np.zeros_like(x)
    for k in range(bits):
        out = fn(out, (x >> U64(k)) & U64(1), k)
    return out


def _clz(x: np.ndarray, bits: int) -> np.ndarray:
    # leading zeros within `bits` bits; `bits` when x == 0
    n = np.full(x.shape, bits, dtype=np.int64)
    for k in range(bits):
        hit = ((x >> U64(k)) & U64(1)) == 1
        n = np.where(hit, bits - 1 - k, n)
    return n


def _ctz(x: np.ndarray, bits: int) -> np.ndarray:
    n = np.full(x.shape, bits, dtype=np.int64)
    for k in range(bits - 1, -1, -1):
        hit = ((x >> U64(k)) & U64(1)) == 1
        n = np.where(hit, k, n)
    return n


def dpp_control(ctrl: int, row_mask: int, bank_mask: int, bound_ctrl: int) -> Dpp:
    """The wave model's ``Dpp`` of LLVM's DppCtrl encoding (``V_MOV_B32_dpp``'s operand)."""
    if 0 <= ctrl <= 0xFF:
        return Dpp("quad_perm", tuple((ctrl >> (2 * k)) & 3 for k in range(4)), row_mask, bank_mask, bool(bound_ctrl))
    table = {0x130: ("wave_shl", (1,)), 0x134: ("wave_rol", (1,)), 0x138: ("wave_shr", (1,)),
             0x13C: ("wave_ror", (1,)), 0x140: ("row_mirror", ()), 0x141: ("row_half_mirror", ()),
             0x142: ("row_bcast", (15,)), 0x143: ("row_bcast", (31,))}
    for base, name in ((0x100, "row_shl"), (0x110, "row_shr"), (0x120, "row_ror")):
        if base + 1 <= ctrl <= base + 15:
            return Dpp(name, (ctrl - base,), row_mask, bank_mask, bool(bound_ctrl))
    if ctrl in table:
        name, arg = table[ctrl]
        return Dpp(name, arg, row_mask, bank_mask, bool(bound_ctrl))
    raise ValueError(f"DPP control 0x{ctrl:x}")


class _Compiler:
    """Compiles expressions to closures ``f(ctx) -> (values, uniform)``; widths are
    resolved from the operand widths given (``widths``: operand name -> bits)."""

    def __init__(self, widths: dict[str, int]):
        self.widths = widths

    def width(self, e: Any, ctxw: int | None = None) -> int:
        if isinstance(e, Operand):
            return self.widths[e.name]
        if isinstance(e, Implicit):
            return 1 if e.reg == "SCC" else 64
        if isinstance(e, Imm):
            return e.bits or ctxw or 32
        op = e.op
        if op in ("eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge"):
            return 1
        if op in ("zext", "sext", "trunc", "load"):
            return e.attr("bits")
        if op in FIXED_WIDTHS:
            return FIXED_WIDTHS[op]
        if op == "select":
            return self.arg_width(e.args[1:], ctxw)
        if op in ("bpermute", "permute", "dpp"):
            return self.width(e.args[1], ctxw)
        if op in ("shl", "lshr", "ashr", "bfe_u", "bfe_i", "readlane", "readfirstlane", "swizzle"):
            return self.width(e.args[0], ctxw)
        return self.arg_width(e.args, ctxw)

    def arg_width(self, args, ctxw: int | None) -> int:
        for a in args:
            if not (isinstance(a, Imm) and a.bits is None):
                return self.width(a, ctxw)
        return ctxw or 32

    def expr(self, e: Any, ctxw: int | None = None) -> Callable:
        if isinstance(e, Operand):
            name, w = e.name, self.widths[e.name]
            m = mask_of(w)

            def rd(ctx):
                v, u, _f = ctx.operand(name)
                return v & m, u
            return rd
        if isinstance(e, Implicit):
            reg = e.reg
            return lambda ctx: ctx.implicit(reg)
        if isinstance(e, Imm):
            w = e.bits or ctxw or 32
            c = U64(e.value & ((1 << w) - 1))
            return lambda ctx: (np.full(ctx.wave, c, dtype=U64), True)
        return self.apply(e, ctxw)

    def apply(self, e: Apply, ctxw: int | None) -> Callable:
        op = e.op
        w = self.width(e, ctxw)
        m = mask_of(w)
        if op in ("eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge"):
            aw = self.arg_width(e.args, None)
        elif op == "select":
            aw = w
        else:
            aw = self.arg_width(e.args, ctxw)
        kids = [self.expr(a, aw) for a in e.args]
        if op == "select":
            kids[0] = self.expr(e.args[0], 1)
        if op in ("zext", "sext", "trunc"):
            inner_w = self.width(e.args[0], None)
            kids = [self.expr(e.args[0], inner_w)]
        return _OP_BUILDERS[op](e, kids, w, m, self.arg_width(e.args, ctxw) if e.args else w)


def _binary(fn):
    def build(e, kids, w, m, aw):
        a, b = kids

        def run(ctx):
            x, ux = a(ctx)
            y, uy = b(ctx)
            return fn(x, y, w) & m, ux and uy
        return run
    return build


def _unary(fn):
    def build(e, kids, w, m, aw):
        (a,) = kids

        def run(ctx):
            x, ux = a(ctx)
            return fn(x, w, e) & m, ux
        return run
    return build


def _cmp(fn, signed: bool):
    def build(e, kids, w, m, aw):
        a, b = kids

        def run(ctx):
            x, ux = a(ctx)
            y, uy = b(ctx)
            if signed:
                x, y = to_signed(x, aw), to_signed(y, aw)
            return fn(x, y).astype(U64), ux and uy
        return run
    return build


def _select(e, kids, w, m, aw):
    c, a, b = kids

    def run(ctx):
        cv, uc = c(ctx)
        x, ux = a(ctx)
        y, uy = b(ctx)
        return np.where(cv != 0, x, y) & m, uc and ux and uy
    return run


def _signed2(fn):
    return lambda x, y, w: _from_signed(fn(to_signed(x, w), to_signed(y, w)), w)


def _bfe(signed: bool):
    def build(e, kids, w, m, aw):
        a, o, n = kids

        def run(ctx):
            x, ux = a(ctx)
            off, uo = o(ctx)
            width, un = n(ctx)
            off = np.minimum(off, U64(w - 1)).astype(U64)
            if signed:
                t = _from_signed(to_signed(x, w) >> off.astype(np.int64), w)
            else:
                t = x >> off
            wd = np.minimum(width, U64(w)).astype(np.int64)
            full = wd >= w
            fmask = np.where(full, m, (U64(1) << np.minimum(wd, 63).astype(U64)) - U64(1))
            f = t & fmask
            if signed:
                sign = np.where((wd > 0) & ~full, (f >> np.maximum(wd - 1, 0).astype(U64)) & U64(1), U64(0))
                f = np.where(sign == 1, (f | ~fmask) & m, f)
            return f & m, ux and uo and un
        return run
    return build


def _ext(e, kids, w, m, aw):
    (a,) = kids
    op = e.op

    def run(ctx):
        x, ux = a(ctx)
        if op == "sext":
            return _from_signed(to_signed(x, aw), w), ux
        return x & m, ux
    return run


def _sext_from(e, kids, w, m, aw):
    (a,) = kids
    bits = e.attr("bits")

    def run(ctx):
        x, ux = a(ctx)
        return _from_signed(to_signed(x & mask_of(bits), bits), w), ux
    return run


def _load(e, kids, w, m, aw):
    (a,) = kids
    space = e.attr("space")

    def run(ctx):
        addr, ua = a(ctx)
        return ctx.load(space, addr, w, ctx.exec) & m, False
    return run


def _uniform_of(ctx, v: np.ndarray, uni: bool, what: str) -> int:
    if not uni:
        ctx.illegal(f"{what} is a lane-varying value (a scalar operand is needed)")
    return int(v[0])


def _readlane(e, kids, w, m, aw):
    a, ln = kids

    def run(ctx):
        x, _u = a(ctx)
        lv, ul = ln(ctx)
        lane = _uniform_of(ctx, lv, ul, "readlane's lane select") & (ctx.wave - 1)
        return np.full(ctx.wave, x[lane], dtype=U64), True
    return run


def _readfirstlane(e, kids, w, m, aw):
    (a,) = kids

    def run(ctx):
        x, _u = a(ctx)
        ex = ctx.exec
        lane = int(np.argmax(ex)) if ex.any() else 0
        return np.full(ctx.wave, x[lane], dtype=U64), True
    return run


def _bpermute(e, kids, w, m, aw):
    a, d = kids
    reach = e.attr("wave64")

    def run(ctx):
        addr, _ = a(ctx)
        x, _ = d(ctx)
        src = permute_lane((addr & U64(0xFFFFFFFF)).astype(np.int64), ctx.wave, reach or ctx.bpermute_wave64)
        return np.where(ctx.exec[src], x[src], U64(0)), False
    return run


def _permute(e, kids, w, m, aw):
    a, d = kids

    def run(ctx):
        addr, _ = a(ctx)
        x, _ = d(ctx)
        tgt = permute_lane((addr & U64(0xFFFFFFFF)).astype(np.int64), ctx.wave, ctx.bpermute_wave64)
        writer = np.full(ctx.wave, -1, dtype=np.int64)
        lanes = np.arange(ctx.wave, dtype=np.int64)
        act = ctx.exec
        np.maximum.at(writer, tgt[act], lanes[act])  # the highest writing lane wins
        return np.where(writer >= 0, x[np.maximum(writer, 0)], U64(0)), False
    return run


def _swizzle(e, kids, w, m, aw):
    d, o = kids

    def run(ctx):
        x, _ = d(ctx)
        ov, uo = o(ctx)
        src = swizzle_source_lanes(_uniform_of(ctx, ov, uo, "the swizzle offset"), ctx.wave)
        return np.where(ctx.exec[src], x[src], U64(0)), False
    return run


def _dpp(e, kids, w, m, aw):
    old_f, d, c, rm, bm, bc = kids

    def run(ctx):
        old, _ = old_f(ctx)
        x, _ = d(ctx)
        ctl = [_uniform_of(ctx, *f(ctx), "a DPP control") for f in (c, rm, bm, bc)]
        dpp = dpp_control(*ctl)
        src, valid = dpp.source_lanes(ctx.wave)
        lane = np.arange(ctx.wave)
        enabled = (((dpp.row_mask >> (lane >> 4)) & 1) == 1) & (((dpp.bank_mask >> ((lane >> 2) & 3)) & 1) == 1)
        ok = valid & ctx.exec[src]
        vals = x[src]
        if dpp.bound_ctrl:
            new = np.where(ok, vals, U64(0))
            write = enabled
        else:
            new = vals
            write = enabled & ok
        return np.where(write, new, old), False
    return run


def _ballot(e, kids, w, m, aw):
    (c,) = kids

    def run(ctx):
        cv, _ = c(ctx)
        bits = (cv != 0) & ctx.exec
        word = 0
        for k in np.flatnonzero(bits):
            word |= 1 << int(k)
        return np.full(ctx.wave, U64(word), dtype=U64), True
    return run


def _mbcnt(hi: bool):
    def build(e, kids, w, m, aw):
        mk, b = kids

        def run(ctx):
            mv, _ = mk(ctx)
            base, _ = b(ctx)
            lane = np.arange(ctx.wave, dtype=np.int64) - (32 if hi else 0)
            n = np.clip(lane, 0, 32).astype(U64)
            below = np.where(n >= 32, U64(0xFFFFFFFF), (U64(1) << n) - U64(1))
            cnt = np.bitwise_count((mv & U64(0xFFFFFFFF)) & below).astype(U64)
            return (cnt + base) & m, False
        return run
    return build


def _lane_id(e, kids, w, m, aw):
    return lambda ctx: (np.arange(ctx.wave, dtype=U64), False)


def _workitem_id(e, kids, w, m, aw):
    return lambda ctx: (np.asarray(ctx.local, dtype=np.int64).astype(U64), False)


def _wave_size(e, kids, w, m, aw):
    return lambda ctx: (np.full(ctx.wave, U64(ctx.wave), dtype=U64), True)


def _bitreverse(x, w, e):
    return _bits_loop(x, w, lambda out, bit, k: out | (bit << U64(w - 1 - k)))


def _ffbh_u(x, w, e):
    n = _clz(x, w)
    return np.where(n == w, mask_of(w), n.astype(U64))


def _ffbl(x, w, e):
    n = _ctz(x, w)
    return np.where(n == w, mask_of(w), n.astype(U64))


def _ffbh_i(x, w, e):
    neg = (x >> U64(w - 1)) & U64(1)
    return _ffbh_u(np.where(neg == 1, ~x & mask_of(w), x), w, e)


def _mulhi(signed: bool):
    def f(x, y, w):
        if w > 32:
            raise ValueError("mulhi of more than 32 bits is not modeled")
        if signed:
            p = to_signed(x, w) * to_signed(y, w)
            return (p >> np.int64(w)).view(U64)
        return (x * y) >> U64(w)
    return f


def _float2(op: str):
    def f(x, y, w):
        if w != 32:
            raise ValueError(f"{op} of {w} bits is not modeled")
        a = (x & U64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)
        b = (y & U64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)
        return from_float(float_binop(op, a, b), "float").astype(U64)
    return f


_OP_BUILDERS: dict[str, Callable] = {
    "fadd": _binary(_float2("fadd")),
    "fsub": _binary(_float2("fsub")),
    "fmul": _binary(_float2("fmul")),
    "add": _binary(lambda x, y, w: x + y),
    "sub": _binary(lambda x, y, w: x - y),
    "mul": _binary(lambda x, y, w: x * y),
    "and": _binary(lambda x, y, w: x & y),
    "or": _binary(lambda x, y, w: x | y),
    "xor": _binary(lambda x, y, w: x ^ y),
    "umin": _binary(lambda x, y, w: np.minimum(x, y)),
    "umax": _binary(lambda x, y, w: np.maximum(x, y)),
    "smin": _binary(_signed2(np.minimum)),
    "smax": _binary(_signed2(np.maximum)),
    "mulhi_u": _binary(_mulhi(False)),
    "mulhi_i": _binary(_mulhi(True)),
    "shl": _binary(lambda x, y, w: x << (y % U64(w))),
    "lshr": _binary(lambda x, y, w: x >> (y % U64(w))),
    "ashr": _binary(lambda x, y, w: _from_signed(to_signed(x, w) >> (y % U64(w)).astype(np.int64), w)),
    "not": _unary(lambda x, w, e: ~x),
    "neg": _unary(lambda x, w, e: U64(0) - x),
    "abs": _unary(lambda x, w, e: _from_signed(np.abs(to_signed(x, w)), w)),
    "ctpop": _unary(lambda x, w, e: np.bitwise_count(x).astype(U64)),
    "bitreverse": _unary(_bitreverse),
    "ffbh_u": _unary(_ffbh_u),
    "ffbl": _unary(_ffbl),
    "ffbh_i": _unary(_ffbh_i),
    "sext_from": _sext_from,
    "eq": _cmp(np.equal, False), "ne": _cmp(np.not_equal, False),
    "ult": _cmp(np.less, False), "ule": _cmp(np.less_equal, False),
    "ugt": _cmp(np.greater, False), "uge": _cmp(np.greater_equal, False),
    "slt": _cmp(np.less, True), "sle": _cmp(np.less_equal, True),
    "sgt": _cmp(np.greater, True), "sge": _cmp(np.greater_equal, True),
    "select": _select,
    "bfe_u": _bfe(False),
    "bfe_i": _bfe(True),
    "zext": _ext, "sext": _ext, "trunc": _ext,
    "load": _load,
    "readlane": _readlane,
    "readfirstlane": _readfirstlane,
    "bpermute": _bpermute,
    "permute": _permute,
    "swizzle": _swizzle,
    "dpp": _dpp,
    "ballot": _ballot,
    "mbcnt_lo": _mbcnt(False),
    "mbcnt_hi": _mbcnt(True),
    "lane_id": _lane_id,
    "workitem_id": _workitem_id,
    "wave_size": _wave_size,
}


def compile_semantics(sem: Semantics, widths: dict[str, int]) -> Callable:
    """``run(ctx) -> (writes, stores)`` for ``sem`` (see the module docstring);
    ``widths``: each operand's width in bits."""
    c = _Compiler(widths)
    writes: list[tuple[Any, Callable, int, bool]] = []
    stores: list[tuple[str, Callable, Callable, int]] = []
    branches: list[tuple[str | None, Callable | None]] = []
    for eff in sem.effects:
        if isinstance(eff, Branch):
            branches.append((eff.target.name if eff.target is not None else None,
                             c.expr(eff.cond, 1) if eff.cond is not None else None))
            continue
        if isinstance(eff, Write):
            dw = widths[eff.dst.name] if isinstance(eff.dst, Operand) else (1 if eff.dst.reg == "SCC" else 64)
            vw = c.width(eff.value, dw)
            direct = isinstance(eff.value, Apply) and eff.value.op == "load"
            writes.append((eff.dst, c.expr(eff.value, dw), vw, direct))
        elif isinstance(eff, Store):
            stores.append((eff.space, c.expr(eff.addr, 64), c.expr(eff.value, eff.bits), eff.bits))

    def run(ctx):
        out_w = []
        for dst, f, vw, direct in writes:
            if direct:  # a load written as it is: uninitialised parts become undefined parts
                ctx.partial_load = True
                ctx.load_undef = None
                try:
                    v, u = f(ctx)
                finally:
                    ctx.partial_load = False
                out_w.append((dst, v, u, vw, ctx.load_undef))
            else:
                v, u = f(ctx)
                out_w.append((dst, v, u, vw, None))
        out_s = []
        for space, fa, fv, bits in stores:
            a, _ = fa(ctx)
            v, _ = fv(ctx)
            out_s.append((space, a, v & mask_of(bits), bits))
        return out_w, out_s

    def branch(ctx):
        """The branch taken after the writes: ("end", None) | ("to", operand name) | None."""
        for target, fc in branches:
            if fc is not None:
                v, _u = fc(ctx)
                if int(v[0]) == 0:
                    continue
            return ("end", None) if target is None else ("to", target)
        return None

    run.branch = branch if branches else None  # type: ignore[attr-defined]
    return run

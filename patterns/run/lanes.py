"""Lane primitives of the reference interpreter: work-item ids and sizes, and the cross-lane
operations, evaluated over the lanes that execute them together (the active mask of the
wave's stack entry, see patterns/run/simt.py).

The lane semantics are the wave model's (patterns/wave/execute.py: ``permute_lane``,
``swizzle_source_lanes``, ``Dpp.source_lanes``; patterns/wave/shuffle.py:
``nvvm_shfl``), with one difference of meaning: where the hardware reads 0 from an
inactive lane, the IR value of an inactive lane is not defined, so the result is poison
there (undefined behaviour once it reaches a store or a branch). Likewise a DS permute
slot no active lane wrote, a readlane of an inactive lane or of a lane index that varies
across the active lanes, and ``shfl.sync`` results CUDA leaves undefined. A target's
intrinsic table (its hooks' ``run_intrinsics``) is written with these functions; each
factory returns a handler ``h(wave, inst, args, mask)``.
"""

from __future__ import annotations

import numpy as np

from patterns.run.ub import NotModeled, Undefined
from patterns.wave.execute import Dpp, permute_lane, swizzle_source_lanes
from patterns.wave.shuffle import nvvm_shfl

U64 = np.uint64


def _const(w, v: int):
    return np.full(w.W, U64(v), dtype=U64), np.zeros(w.W, dtype=bool)


# ------------------------------------------------------------------ ids and sizes

def local_id(dim: int):
    def h(w, inst, args, m):
        if dim:
            return _const(w, 0)
        return w.local.astype(U64), np.zeros(w.W, dtype=bool)
    return h


def group_id(dim: int):
    return lambda w, inst, args, m: _const(w, w.group if dim == 0 else 0)


def group_size(dim: int):
    return lambda w, inst, args, m: _const(w, w.prog.launch.group_size if dim == 0 else 1)


def group_count(dim: int):
    return lambda w, inst, args, m: _const(w, w.prog.launch.groups if dim == 0 else 1)


def global_id(dim: int):
    def h(w, inst, args, m):
        if dim:
            return _const(w, 0)
        return (w.group * w.prog.launch.group_size + w.local).astype(U64), np.zeros(w.W, dtype=bool)
    return h


def global_size(dim: int):
    return lambda w, inst, args, m: _const(w, w.prog.launch.items if dim == 0 else 1)


def dim_arg(factory):
    """An OpenCL query ``f(uint dim)``: the factory's handler for the (uniform) dimension."""
    def h(w, inst, args, m):
        (d, pd), = args
        dims = np.unique(d[m])
        if len(dims) != 1 or pd[m].any():
            raise NotModeled(inst.span, f"{inst.callee} of a dimension that varies or is poison")
        k = int(dims[0])
        r = factory(k if k < 3 else 0)(w, inst, [], m)
        return r if k < 3 else ((np.zeros(w.W, dtype=U64) if factory in (local_id, group_id, global_id)
                                 else np.ones(w.W, dtype=U64)), r[1])
    return h


def lane_id(w, inst, args, m):
    return w.lane.astype(U64), np.zeros(w.W, dtype=bool)


def wave_size(w, inst, args, m):
    return _const(w, w.W)


def segment(which: str):
    """A pointer to the launch's ``kernarg``, ``implicit`` or ``dispatch`` segment."""
    return lambda w, inst, args, m: _const(w, getattr(w.prog.seg, which))


# ------------------------------------------------------------------ cross-lane

def _first(m) -> int:
    return int(np.flatnonzero(m)[0])


def read_first_lane(w, inst, args, m):
    """The value of the lowest active lane, in every lane."""
    (v, p), = args
    f = _first(m)
    return np.full(w.W, v[f], dtype=U64), np.full(w.W, p[f], dtype=bool)


def read_lane(w, inst, args, m):
    """The value of lane ``args[1]`` (uniform over the active lanes), in every lane;
    poison when that lane is inactive or out of the wave."""
    (v, p), (ix, pix) = args
    vals = np.unique(ix[m])
    if pix[m].any():
        return np.zeros(w.W, dtype=U64), np.ones(w.W, dtype=bool)
    if len(vals) != 1:
        raise Undefined("inactive-lane", "readlane with a lane index that varies across the active lanes",
                        lane=_first(m))
    k = int(vals[0])
    if k >= w.W or not m[k]:
        return np.zeros(w.W, dtype=U64), np.ones(w.W, dtype=bool)
    return np.full(w.W, v[k], dtype=U64), np.full(w.W, p[k], dtype=bool)


def bpermute(wave64: str = "full"):
    """Backward permute: lane i gets ``data`` of the lane its byte address names."""
    def h(w, inst, args, m):
        (addr, pa), (data, pd) = args
        src = permute_lane(addr.astype(np.int64), w.W, wave64)
        return data[src], pa | pd[src] | ~m[src]
    return h


def permute(wave64: str = "full"):
    """Forward permute: each active lane writes ``data`` to the slot its address names (the
    highest lane wins), then each lane reads its own slot (poison if none wrote it)."""
    def h(w, inst, args, m):
        (addr, pa), (data, pd) = args
        tgt = permute_lane(addr.astype(np.int64), w.W, wave64)
        writer = np.full(w.W, -1, dtype=np.int64)
        act = np.flatnonzero(m)
        np.maximum.at(writer, tgt[act], act)
        src = np.maximum(writer, 0)
        pz = (writer < 0) | pd[src] | pa[src]
        return data[src], pz
    return h


def swizzle(w, inst, args, m):
    (data, pd), (off, po) = args
    offs = np.unique(off)
    if len(offs) != 1 or po.any():
        raise NotModeled(inst.span, "a swizzle offset that is not an immediate")
    try:
        src = swizzle_source_lanes(int(offs[0]), w.W)
    except ValueError as e:
        raise NotModeled(inst.span, f"swizzle offset 0x{int(offs[0]):x}: {e}") from None
    return data[src], pd[src] | ~m[src]


DPP_CTRL = {0x130: ("wave_shl", (1,)), 0x134: ("wave_rol", (1,)), 0x138: ("wave_shr", (1,)),
            0x13C: ("wave_ror", (1,)), 0x140: ("row_mirror", ()), 0x141: ("row_half_mirror", ()),
            0x142: ("row_bcast", (15,)), 0x143: ("row_bcast", (31,))}


def decode_dpp(ctrl: int, row_mask: int, bank_mask: int, bound_ctrl: bool) -> Dpp:
    """The wave model's ``Dpp`` of a ``dpp_ctrl`` immediate (GCN3/Vega encoding);
    ValueError for a value it does not name."""
    if 0 <= ctrl <= 0xFF:
        return Dpp("quad_perm", tuple((ctrl >> (2 * k)) & 3 for k in range(4)), row_mask, bank_mask, bound_ctrl)
    for base, name in ((0x100, "row_shl"), (0x110, "row_shr"), (0x120, "row_ror")):
        if base + 1 <= ctrl <= base + 15:
            return Dpp(name, (ctrl - base,), row_mask, bank_mask, bound_ctrl)
    if ctrl in DPP_CTRL:
        name, arg = DPP_CTRL[ctrl]
        return Dpp(name, arg, row_mask, bank_mask, bound_ctrl)
    raise ValueError(f"dpp_ctrl 0x{ctrl:x}")


def dpp(update: bool):
    """``update.dpp(old, src, ctrl, row_mask, bank_mask, bound_ctrl)`` (``mov.dpp``: no
    ``old``, which is then undefined): each active lane enabled by the row and bank masks
    takes ``src`` of its source lane when that lane is valid and active, else 0 with
    bound_ctrl, else keeps ``old``; a disabled lane keeps ``old``."""
    def h(w, inst, args, m):
        if update:
            old, src = args[0], args[1]
            imms = args[2:]
        else:
            src = args[0]
            old = (np.zeros(w.W, dtype=U64), np.ones(w.W, dtype=bool))
            imms = args[1:]
        vals = []
        for v, p in imms:
            u = np.unique(v)
            if len(u) != 1 or p.any():
                raise NotModeled(inst.span, "a DPP control that is not an immediate")
            vals.append(int(u[0]))
        try:
            d = decode_dpp(vals[0], vals[1], vals[2], bool(vals[3]))
            sl, valid = d.source_lanes(w.W)
        except ValueError as e:
            raise NotModeled(inst.span, str(e)) from None
        lane = w.lane
        enabled = (((d.row_mask >> (lane >> 4)) & 1) == 1) & (((d.bank_mask >> ((lane >> 2) & 3)) & 1) == 1)
        ok = valid & m[sl]
        take = enabled & ok
        zero = enabled & ~ok & d.bound_ctrl
        bits = np.where(take, src[0][sl], np.where(zero, U64(0), old[0]))
        pz = np.where(take, src[1][sl], np.where(zero, False, old[1]))
        return bits, pz
    return h


def ballot(w, inst, args, m):
    """The mask of active lanes whose condition is true, in every lane."""
    (c, p), = args
    if p[m].any():
        return np.zeros(w.W, dtype=U64), np.ones(w.W, dtype=bool)
    bits = inst.type.bits
    on = np.flatnonzero(m & (c != 0))
    v = 0
    for k in on:
        v |= 1 << int(k)
    return np.full(w.W, U64(v & ((1 << bits) - 1)), dtype=U64), np.zeros(w.W, dtype=bool)


def mbcnt(hi: bool):
    """``mbcnt.lo/hi(mask, base)``: ``base`` plus the set bits of the 32-bit ``mask`` below
    this lane (lo: bits [31:0] of the lanes below; hi: bits [63:32])."""
    def h(w, inst, args, m):
        (mask, pm), (base, pb) = args
        below = np.clip(w.lane - (32 if hi else 0), 0, 32)
        cnt = np.zeros(w.W, dtype=U64)
        for k in range(32):
            cnt += ((mask >> U64(k)) & U64(1)) * (below > k).astype(U64)
        return (cnt + base) & U64(0xFFFFFFFF), pm | pb
    return h


def nvvm_shuffle(mode: str, *, pred: bool):
    """``llvm.nvvm.shfl.sync.<mode>.{i32,f32}[p](membermask, a, b, c)`` by the PTX
    reference (patterns/wave/shuffle.py); a lane CUDA leaves undefined is poison, an
    active lane outside ``membermask`` is undefined behaviour. The membermask is 32 bits
    (NVVM's warps have 32 lanes); in a 64-lane wave, lane i is a member when bit
    ``i mod 32`` is set -- this model's choice, which makes the usual full mask (-1)
    name every lane."""
    def h(w, inst, args, m):
        (mm, pmm), (a, pa), (b, pb), (c, pc) = args
        member = ((mm >> U64(w.lane % 32)) & U64(1)) == 1  # a 32-bit mask: see the docstring
        if (m & ~member).any():
            raise Undefined("inactive-lane", "shfl.sync by a lane that is not in its membermask",
                            lane=_first(m & ~member))
        r = nvvm_shfl(mode, a[None, :], b[None, :].astype(np.int64), c[None, :].astype(np.int64),
                      member[None, :], m[None, :], w.W)
        src = r.src_lane[0]
        vpz = ~r.defined[0] | pa[src] | pb | pc | pmm
        val = (r.value[0].astype(U64) & U64(0xFFFFFFFF), vpz)
        if not pred:
            return val
        return val, (r.pred[0].astype(U64), ~r.pred_defined[0] | pb | pc | pmm)
    return h

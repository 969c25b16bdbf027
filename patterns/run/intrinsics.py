"""The intrinsics the reference interpreter knows without a target: LLVM's generic ones, the
NVVM forms (thread ids, ``barrier0``/``barrier.sync``, ``shfl.sync.*``) and the OpenCL
built-in calls of SPIR-style modules (``_Z7barrierj``, ``_Z12get_local_idj``, the OpenCL
1.1 ``atomic_*`` functions, ...).

A handler is ``h(wave, inst, args, mask) -> value | None`` (values as in
patterns/run/ops.py; ``wave`` a ``patterns.run.simt.Wave``); ``BARRIER`` marks a
work-group barrier. ``lookup(name)`` finds a handler by the full name, else by the name
with its type suffixes dropped (``llvm.smax.i32`` -> ``llvm.smax.*``). A target's own
intrinsics come from its hooks (``run_intrinsics``: the same kind of table, written
with the lane primitives of patterns/run/lanes.py).

Choices where LLVM leaves the result open: ``llvm.ctlz``/``cttz`` with ``is_zero_poison``
give poison for 0 (as LangRef says), ``llvm.abs`` with ``is_int_min_poison`` poison for
INT_MIN; ``llvm.minnum``/``maxnum`` return the other operand when one is a quiet NaN and
``+0`` as the larger of ``+0``/``-0`` (IEEE-754 2008 leaves the zero open: this is the
choice), ``llvm.minimum``/``maximum`` order ``-0 < +0`` and return NaN for NaN (LangRef).
``llvm.fmuladd`` is fused (LangRef allows either; exact inputs make both equal).
"""

from __future__ import annotations

import re

import numpy as np

from patterns.run import lanes as ln
from patterns.run import ops
from patterns.run.ub import NotModeled, Undefined

U64 = np.uint64
BARRIER = object()


def _none(w, inst, args, m):
    return None


def _int_t(inst):
    t = inst.type.scalar
    if getattr(t, "bits", 65) > 64:
        raise NotModeled(inst.span, f"{inst.callee} on {inst.type}")
    return t.bits


def _minmax(kind):
    def h(w, inst, args, m):
        (a, pa), (b, pb) = args
        bits = _int_t(inst)
        if kind[0] == "s":
            x, y = ops.sext(a, bits), ops.sext(b, bits)
        else:
            x, y = a, b
        r = np.where((x >= y) if kind.endswith("max") else (x <= y), a, b)
        return r, pa | pb
    return h


def _abs(w, inst, args, m):
    (a, pa), (flag, _) = args
    bits = _int_t(inst)
    s = ops.sext(a, bits)
    r = ops.wrap(np.where(s < 0, -s, s), bits)
    pz = pa | ((flag != 0) & (a == U64(1 << (bits - 1))))
    return r, pz


def _ctpop(w, inst, args, m):
    (a, pa), = args
    v = a.copy()
    c = np.zeros(a.shape, dtype=U64)
    for _ in range(_int_t(inst)):
        c += v & U64(1)
        v >>= U64(1)
    return c, pa


def _count_zeros(lead):
    def h(w, inst, args, m):
        (a, pa), (flag, _) = args
        bits = _int_t(inst)
        out = np.full(a.shape, U64(bits), dtype=U64)
        for pos in (range(bits) if lead else range(bits - 1, -1, -1)):
            hit = ((a >> U64(pos)) & U64(1)) == 1  # the last hit wins: the highest (lowest) set bit
            out = np.where(hit, U64(bits - 1 - pos if lead else pos), out)
        return out, pa | ((flag != 0) & (a == 0))
    return h


def _bitreverse(w, inst, args, m):
    (a, pa), = args
    bits = _int_t(inst)
    r = np.zeros(a.shape, dtype=U64)
    for k in range(bits):
        r |= ((a >> U64(k)) & U64(1)) << U64(bits - 1 - k)
    return r, pa


def _bswap(w, inst, args, m):
    (a, pa), = args
    bits = _int_t(inst)
    r = np.zeros(a.shape, dtype=U64)
    for k in range(bits // 8):
        r |= ((a >> U64(8 * k)) & U64(0xFF)) << U64(bits - 8 - 8 * k)
    return r, pa


def _funnel(left):
    def h(w, inst, args, m):
        (a, pa), (b, pb), (s, ps) = args
        bits = _int_t(inst)
        mk = ops.mask_of(bits)
        sh = s % U64(bits)
        with np.errstate(all="ignore"):
            if left:
                r = np.where(sh == 0, a, ((a << sh) | (b >> (U64(bits) - sh))) & mk)
            else:
                r = np.where(sh == 0, b, ((b >> sh) | (a << (U64(bits) - sh))) & mk)
        return r, pa | pb | ps
    return h


def _overflow(kind):
    def h(w, inst, args, m):
        (a, pa), (b, pb) = args
        bits = inst.type.elems[0].bits
        op = kind[1:]
        flag = "nsw" if kind[0] == "s" else "nuw"
        r, _ = ops.int_binop(op, a, b, bits, frozenset())
        _, over = ops.int_binop(op, a, b, bits, frozenset({flag}))
        pz = pa | pb
        return ((r, pz), (over.astype(U64), pz))
    return h


def _saturating(kind):
    def h(w, inst, args, m):
        (a, pa), (b, pb) = args
        bits = _int_t(inst)
        op = kind[1:]
        r, _ = ops.int_binop(op, a, b, bits, frozenset())
        if kind[0] == "u":
            _, over = ops.int_binop(op, a, b, bits, frozenset({"nuw"}))
            sat = ops.mask_of(bits) if op == "add" else U64(0)
            return np.where(over, sat, r), pa | pb
        _, over = ops.int_binop(op, a, b, bits, frozenset({"nsw"}))
        neg = ops.sext(a, bits) < 0
        smax, smin = U64((1 << (bits - 1)) - 1), U64(1 << (bits - 1))
        return np.where(over, np.where(neg, smin, smax), r), pa | pb
    return h


def _float_t(inst):
    t = inst.type.scalar
    if t.name not in ops.FLOAT_DTYPES:
        raise NotModeled(inst.span, f"{inst.callee} on {inst.type}")
    return t.name


def _funary(fn, sign_only=False):
    def h(w, inst, args, m):
        (a, pa), = args
        name = _float_t(inst)
        if sign_only:
            return fn(a, ops.FLOAT_WIDTH[name]), pa
        x = ops.as_float(a, name)
        with np.errstate(all="ignore"):
            r = fn(x)
        return ops.from_float(r.astype(x.dtype), name), pa
    return h


def _fminmax(kind):
    def h(w, inst, args, m):
        (a, pa), (b, pb) = args
        name = _float_t(inst)
        x, y = ops.as_float(a, name), ops.as_float(b, name)
        big = kind.startswith("max")
        with np.errstate(invalid="ignore"):
            pick_x = (x > y) if big else (x < y)
        eq = x == y
        zeros = eq & (x == 0)
        # zeros: +0 is the larger
        xneg = np.signbit(x)
        pick_x = np.where(zeros, (~xneg) if big else xneg, pick_x | (eq & ~zeros))
        r = np.where(pick_x, x, y)
        if kind.endswith("num"):
            r = np.where(np.isnan(x), y, np.where(np.isnan(y), x, r))
        else:
            r = np.where(np.isnan(x) | np.isnan(y), np.array(np.nan, dtype=x.dtype), r)
        return ops.from_float(r.astype(x.dtype), name), pa | pb
    return h


def _fma(w, inst, args, m):
    (a, pa), (b, pb), (c, pc) = args
    name = _float_t(inst)
    x, y, z = (ops.as_float(v, name) for v in (a, b, c))
    return ops.from_float(ops.fma_exact(x, y, z, name), name), pa | pb | pc


def _copysign(w, inst, args, m):
    (a, pa), (b, pb) = args
    bits = ops.FLOAT_WIDTH[_float_t(inst)]
    sign = U64(1 << (bits - 1))
    return (a & ~sign) | (b & sign), pa | pb


def _assume(w, inst, args, m):
    (c, pc), = args
    bad = m & ((c == 0) | pc)
    if bad.any():
        raise Undefined("assume", "llvm.assume of a false or poison condition", lane=int(np.flatnonzero(bad)[0]))
    return None


def _expect(w, inst, args, m):
    return args[0]


def _roundeven(x):
    return np.rint(x)


def _round_away(x):
    t = np.trunc(x)
    frac = np.abs(x - t)  # exact
    return np.where(frac >= 0.5, t + np.copysign(np.ones_like(x), x), t)


GENERIC = {
    "llvm.smax.*": _minmax("smax"), "llvm.smin.*": _minmax("smin"),
    "llvm.umax.*": _minmax("umax"), "llvm.umin.*": _minmax("umin"),
    "llvm.abs.*": _abs, "llvm.ctpop.*": _ctpop, "llvm.ctlz.*": _count_zeros(True),
    "llvm.cttz.*": _count_zeros(False), "llvm.bitreverse.*": _bitreverse, "llvm.bswap.*": _bswap,
    "llvm.fshl.*": _funnel(True), "llvm.fshr.*": _funnel(False),
    "llvm.sadd.with.overflow.*": _overflow("sadd"), "llvm.uadd.with.overflow.*": _overflow("uadd"),
    "llvm.ssub.with.overflow.*": _overflow("ssub"), "llvm.usub.with.overflow.*": _overflow("usub"),
    "llvm.smul.with.overflow.*": _overflow("smul"), "llvm.umul.with.overflow.*": _overflow("umul"),
    "llvm.sadd.sat.*": _saturating("sadd"), "llvm.uadd.sat.*": _saturating("uadd"),
    "llvm.ssub.sat.*": _saturating("ssub"), "llvm.usub.sat.*": _saturating("usub"),
    "llvm.fabs.*": _funary(lambda a, bits: a & ~U64(1 << (bits - 1)), sign_only=True),
    "llvm.copysign.*": _copysign,
    "llvm.sqrt.*": _funary(np.sqrt), "llvm.floor.*": _funary(np.floor), "llvm.ceil.*": _funary(np.ceil),
    "llvm.trunc.*": _funary(np.trunc), "llvm.rint.*": _funary(np.rint), "llvm.nearbyint.*": _funary(np.rint),
    "llvm.roundeven.*": _funary(_roundeven), "llvm.round.*": _funary(_round_away),
    "llvm.canonicalize.*": _funary(lambda x: x),
    "llvm.minnum.*": _fminmax("minnum"), "llvm.maxnum.*": _fminmax("maxnum"),
    "llvm.minimum.*": _fminmax("minimum"), "llvm.maximum.*": _fminmax("maximum"),
    "llvm.fma.*": _fma, "llvm.fmuladd.*": _fma,
    "llvm.assume": _assume, "llvm.expect.*": _expect,
    "llvm.lifetime.start.*": _none, "llvm.lifetime.end.*": _none, "llvm.dbg.*": _none,
    "llvm.experimental.noalias.scope.decl": _none, "llvm.sideeffect": _none,
    # NVVM
    "llvm.nvvm.read.ptx.sreg.tid.x": ln.local_id(0), "llvm.nvvm.read.ptx.sreg.tid.y": ln.local_id(1),
    "llvm.nvvm.read.ptx.sreg.tid.z": ln.local_id(2),
    "llvm.nvvm.read.ptx.sreg.ntid.x": ln.group_size(0), "llvm.nvvm.read.ptx.sreg.ntid.y": ln.group_size(1),
    "llvm.nvvm.read.ptx.sreg.ntid.z": ln.group_size(2),
    "llvm.nvvm.read.ptx.sreg.ctaid.x": ln.group_id(0), "llvm.nvvm.read.ptx.sreg.ctaid.y": ln.group_id(1),
    "llvm.nvvm.read.ptx.sreg.ctaid.z": ln.group_id(2),
    "llvm.nvvm.read.ptx.sreg.nctaid.x": ln.group_count(0), "llvm.nvvm.read.ptx.sreg.nctaid.y": ln.group_count(1),
    "llvm.nvvm.read.ptx.sreg.nctaid.z": ln.group_count(2),
    "llvm.nvvm.read.ptx.sreg.laneid": ln.lane_id, "llvm.nvvm.read.ptx.sreg.warpsize": ln.wave_size,
    "llvm.nvvm.barrier0": BARRIER, "llvm.nvvm.barrier.sync": BARRIER, "llvm.nvvm.bar.sync": BARRIER,
    "llvm.nvvm.bar.warp.sync": _none,
    # OpenCL built-ins (SPIR-style modules call them by their mangled names)
    "_Z7barrierj": BARRIER, "_Z18work_group_barrierj": BARRIER,
    "_Z12get_local_idj": ln.dim_arg(ln.local_id), "_Z12get_group_idj": ln.dim_arg(ln.group_id),
    "_Z14get_local_sizej": ln.dim_arg(ln.group_size), "_Z14get_num_groupsj": ln.dim_arg(ln.group_count),
    "_Z13get_global_idj": ln.dim_arg(ln.global_id), "_Z15get_global_sizej": ln.dim_arg(ln.global_size),
}
for _mode in ("idx", "up", "down", "bfly"):
    GENERIC[f"llvm.nvvm.shfl.sync.{_mode}.i32"] = ln.nvvm_shuffle(_mode, pred=False)
    GENERIC[f"llvm.nvvm.shfl.sync.{_mode}.f32"] = ln.nvvm_shuffle(_mode, pred=False)
    GENERIC[f"llvm.nvvm.shfl.sync.{_mode}.i32p"] = ln.nvvm_shuffle(_mode, pred=True)
    GENERIC[f"llvm.nvvm.shfl.sync.{_mode}.f32p"] = ln.nvvm_shuffle(_mode, pred=True)


def lookup(name: str, table=None):
    """The handler of intrinsic ``name`` in ``table`` (default: ``GENERIC``), by full
    name, else by each shorter dotted prefix followed by ``.*``."""
    table = GENERIC if table is None else table
    h = table.get(name)
    if h is not None:
        return h
    parts = name.split(".")
    for k in range(len(parts) - 1, 1, -1):
        h = table.get(".".join(parts[:k]) + ".*")
        if h is not None:
            return h
    if table is GENERIC:
        mt = _CL_ATOMIC.fullmatch(name)
        if mt:
            from patterns.run.atomics import opencl_atomic

            return opencl_atomic(mt.group(1), mt.group(3) == "i")
    return None


# OpenCL C 1.1 atomics as clang mangles them: atomic_add(volatile __local int *, int) is
# _Z10atomic_addPU3AS3Vii
_CL_ATOMIC = re.compile(r"_Z[0-9]+atomic_(add|sub|inc|dec|min|max|and|or|xor|xchg)PU3AS([0-9])V([ij])\3?")

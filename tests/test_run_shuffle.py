"""Cross-lane operations in the reference interpreter, lane by lane: ``llvm.nvvm.shfl.sync.*``
kernels against the CUDA reference (patterns/wave/shuffle.py ``cuda_shfl``), and the
amdgcn cross-lane intrinsics (ds.bpermute as HIP's ``__shfl`` uses it, readfirstlane and
ballot in divergent code, mbcnt's lane id, mov.dpp row shifts) against formulas written
here from the ISA's and CUDA's definitions."""

from __future__ import annotations

import numpy as np
import pytest

from patterns.run.api import run_ir
from patterns.run.launch import ArgValue, Buffer, Launch
from patterns.wave import shuffle as cuda

DECL = "declare i32 @llvm.amdgcn.workitem.id.x()\n"


def _launch(values: np.ndarray, ops: np.ndarray, n: int, wave: int) -> Launch:
    a, b = values.astype("<u4").tobytes(), ops.astype("<u4").tobytes()
    bufs = (Buffer("v", len(a), "i32", a), Buffer("b", len(b), "i32", b), Buffer("out", 4 * (64 + n), "i32", bytes(4 * (64 + n))))
    return Launch("k", n, wave, 1, tuple(ArgValue("buffer", buffer=x.name) for x in bufs), bufs)


def _shfl_kernel(mode: str, c: int, member: int, guard: int | None, pred: bool) -> str:
    call = (f"  %r = call {{i32, i1}} @llvm.nvvm.shfl.sync.{mode}.i32p(i32 {member}, i32 %x, i32 %y, i32 {c})\n"
            "  %rv = extractvalue {i32, i1} %r, 0\n  %rp = extractvalue {i32, i1} %r, 1\n"
            "  %rz = zext i1 %rp to i32\n" if pred else
            f"  %rv = call i32 @llvm.nvvm.shfl.sync.{mode}.i32(i32 {member}, i32 %x, i32 %y, i32 {c})\n")
    store_p = ("  %o2 = add i32 %t, " + "%n\n  %q2 = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %o2\n"
               "  store i32 %rz, ptr addrspace(1) %q2\n") if pred else ""
    head = ("define amdgpu_kernel void @k(ptr addrspace(1) %v, ptr addrspace(1) %b, ptr addrspace(1) %out) {\n"
            "entry:\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  %n = add i32 0, 64\n")
    if guard is not None:
        head += f"  %g = icmp ult i32 %t, {guard}\n  br i1 %g, label %s, label %e\ns:\n"
    else:
        head += "  br label %s\ns:\n"
    body = ("  %pv = getelementptr inbounds i32, ptr addrspace(1) %v, i32 %t\n  %x = load i32, ptr addrspace(1) %pv\n"
            "  %pb = getelementptr inbounds i32, ptr addrspace(1) %b, i32 %t\n  %y = load i32, ptr addrspace(1) %pb\n"
            + call + "  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t\n"
            "  store i32 %rv, ptr addrspace(1) %q\n" + store_p + "  br label %e\ne:\n  ret void\n}\n")
    decl = (f"declare {{i32, i1}} @llvm.nvvm.shfl.sync.{mode}.i32p(i32, i32, i32, i32)\n" if pred else
            f"declare i32 @llvm.nvvm.shfl.sync.{mode}.i32(i32, i32, i32, i32)\n")
    return DECL + decl + head + body


@pytest.mark.parametrize("wave", (32, 64))
@pytest.mark.parametrize("mode", cuda.MODES)
def test_nvvm_shfl_matches_cuda_reference_every_lane(mode, wave):
    rng = np.random.default_rng(wave + len(mode))
    full = (1 << wave) - 1 if wave == 32 else -1
    for width in cuda.widths(wave):
        values = rng.integers(0, 2**32, wave, dtype=np.uint64)
        ops = rng.integers(0, 2 * wave, wave, dtype=np.uint64)
        c = cuda.clang_c(mode, width, wave)
        res = run_ir(_shfl_kernel(mode, c, full, None, pred=True), _launch(values, ops, wave, wave), target="amdgpu")
        ref = cuda.cuda_shfl(mode, values[None, :], ops[None, :].astype(np.int64), width,
                             np.ones((1, wave), bool), np.ones((1, wave), bool), wave)
        assert res.undefined is None, (mode, width, res.undefined)
        got = {(s.offset // 4): s.value for s in res.stores}
        for lane in range(wave):
            assert ref.defined[0, lane]
            assert got[lane] == int(ref.value[0, lane]) & 0xFFFFFFFF, (mode, width, lane)
            assert got[64 + lane] == int(ref.pred[0, lane]), (mode, width, lane)


@pytest.mark.parametrize("mode", ("idx", "down", "bfly"))
def test_nvvm_shfl_partial_warp_reports_the_first_undefined_lane(mode):
    """In ``if (t < 20)`` with membermask = the 20 lanes, the lanes whose source lane is
    outside get CUDA's undefined value: storing it is undefined behaviour at the first
    such lane (the run stops there), and every lane before it stores CUDA's value."""
    wave, guard = 32, 20
    values = np.arange(100, 100 + wave, dtype=np.uint64)
    ops = np.full(wave, 5, dtype=np.uint64)
    c = cuda.clang_c(mode, 32, wave)
    res = run_ir(_shfl_kernel(mode, c, (1 << guard) - 1, guard, pred=False), _launch(values, ops, wave, wave),
                 target="amdgpu")
    active = (np.arange(wave) < guard)[None, :]
    ref = cuda.cuda_shfl(mode, values[None, :], 5, 32, active, active, wave)
    undefined = [k for k in range(guard) if not ref.defined[0, k]]
    if mode == "idx":
        assert undefined == []  # lane 5 is active: everyone reads it
        assert res.undefined is None
        assert [s.value for s in res.stores] == [105] * guard
    else:
        assert undefined, mode
        assert res.undefined is not None and res.undefined.kind == "poison"
        assert res.undefined.lane == undefined[0]


def test_nvvm_shfl_membermask_must_hold_the_active_lanes():
    wave = 32
    values = np.arange(wave, dtype=np.uint64)
    res = run_ir(_shfl_kernel("idx", 0x1F, 0xFFFF, None, pred=False), _launch(values, values, wave, wave),
                 target="amdgpu")
    assert res.undefined.kind == "inactive-lane" and res.undefined.lane == 16


def _hip_index(mode: str, lane: int, b: int, width: int) -> int:
    """HIP's __shfl* source lane (amd_warp_functions.h), written out per lane."""
    if mode == "idx":
        return (b & (width - 1)) + (lane & ~(width - 1))
    if mode == "up":
        j = lane - b
        return lane if j < (lane & ~(width - 1)) else j
    if mode == "down":
        return lane if (lane & (width - 1)) + b >= width else lane + b
    j = lane ^ b
    return lane if j >= ((lane + width) & ~(width - 1)) else j


@pytest.mark.parametrize("wave", (32, 64))
@pytest.mark.parametrize("mode", cuda.MODES)
def test_ds_bpermute_shuffle_matches_hip(mode, wave):
    width = 16
    k = {"idx": 5, "up": 3, "down": 3, "bfly": 6}[mode]
    index = {"idx": f"  %lo = and i32 %t, {~(width - 1)}\n  %j = add i32 %lo, {k & (width - 1)}\n",
             "up": f"  %lo = and i32 %t, {~(width - 1)}\n  %j0 = sub i32 %t, {k}\n"
                   "  %c = icmp slt i32 %j0, %lo\n  %j = select i1 %c, i32 %t, i32 %j0\n",
             "down": f"  %lm = and i32 %t, {width - 1}\n  %s = add i32 %lm, {k}\n  %j0 = add i32 %t, {k}\n"
                     f"  %c = icmp sge i32 %s, {width}\n  %j = select i1 %c, i32 %t, i32 %j0\n",
             "bfly": f"  %j0 = xor i32 %t, {k}\n  %e = add i32 %t, {width}\n  %lim = and i32 %e, {~(width - 1)}\n"
                     "  %c = icmp sge i32 %j0, %lim\n  %j = select i1 %c, i32 %t, i32 %j0\n"}[mode]
    text = (DECL + "declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)\n"
            "define amdgpu_kernel void @k(ptr addrspace(1) %v, ptr addrspace(1) %b, ptr addrspace(1) %out) {\n"
            "entry:\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
            "  %pv = getelementptr inbounds i32, ptr addrspace(1) %v, i32 %t\n  %x = load i32, ptr addrspace(1) %pv\n"
            + index + "  %a = shl i32 %j, 2\n  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %x)\n"
            "  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t\n  store i32 %r, ptr addrspace(1) %q\n"
            "  ret void\n}\n")
    values = np.random.default_rng(1).integers(0, 2**32, wave, dtype=np.uint64)
    res = run_ir(text, _launch(values, values, wave, wave), target="amdgpu")
    assert res.undefined is None
    got = [s.value for s in res.stores]
    assert got == [int(values[_hip_index(mode, lane, k, width)]) for lane in range(wave)]
    ref = cuda.hip_shfl(mode, values[None, :], k, width, np.ones((1, wave), bool), wave)
    assert got == [int(v) for v in ref.value[0]]


@pytest.mark.parametrize("wave", (32, 64))
def test_readfirstlane_ballot_mbcnt_in_divergent_code(wave):
    text = (DECL + "declare i32 @llvm.amdgcn.readfirstlane.i32(i32)\ndeclare i64 @llvm.amdgcn.ballot.i64(i1)\n"
            "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)\ndeclare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)\n"
            "define amdgpu_kernel void @k(ptr addrspace(1) %v, ptr addrspace(1) %b, ptr addrspace(1) %out) {\n"
            "entry:\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
            "  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)\n  %id = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)\n"
            "  %odd = and i32 %t, 1\n  %c = icmp eq i32 %odd, 1\n  br i1 %c, label %a, label %j\n"
            "a:\n  %f = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %t)\n"
            "  %big = icmp ugt i32 %t, 9\n  %bal = call i64 @llvm.amdgcn.ballot.i64(i1 %big)\n"
            "  %bl = trunc i64 %bal to i32\n  %s = add i32 %f, %bl\n  br label %j\n"
            "j:\n  %r = phi i32 [ %s, %a ], [ %id, %entry ]\n"
            "  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t\n  store i32 %r, ptr addrspace(1) %q\n"
            "  ret void\n}\n")
    vals = np.zeros(wave, dtype=np.uint64)
    res = run_ir(text, _launch(vals, vals, wave, wave), target="amdgpu")
    assert res.undefined is None
    ballot = sum(1 << k for k in range(wave) if k % 2 == 1 and k > 9) & 0xFFFFFFFF
    want = [(1 + ballot) & 0xFFFFFFFF if lane % 2 else lane for lane in range(wave)]
    assert [s.value for s in res.stores] == want


def test_mov_dpp_row_shr_with_bound_ctrl():
    wave = 64
    text = (DECL + "declare i32 @llvm.amdgcn.mov.dpp.i32(i32, i32, i32, i32, i1)\n"
            "define amdgpu_kernel void @k(ptr addrspace(1) %v, ptr addrspace(1) %b, ptr addrspace(1) %out) {\n"
            "entry:\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = add i32 %t, 1000\n"
            "  %r = call i32 @llvm.amdgcn.mov.dpp.i32(i32 %x, i32 273, i32 15, i32 15, i1 true)\n"
            "  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t\n  store i32 %r, ptr addrspace(1) %q\n"
            "  ret void\n}\n")
    vals = np.zeros(wave, dtype=np.uint64)
    res = run_ir(text, _launch(vals, vals, wave, wave), target="amdgpu")
    # row_shr:1 (0x111): lane i reads lane i-1 within its row of 16; the row's first lane has
    # no source and bound_ctrl writes 0
    want = [0 if lane % 16 == 0 else 1000 + lane - 1 for lane in range(wave)]
    assert [s.value for s in res.stores] == want

"""Generic intrinsics, atomics, private and flat memory, vectors and switches in the
reference interpreter, per lane against Python's own computation of the same thing."""

from __future__ import annotations

import numpy as np
import pytest

from patterns.run.api import run_ir
from patterns.run.launch import ArgValue, Buffer, Launch

DECL = "declare i32 @llvm.amdgcn.workitem.id.x()\n"


def _launch(x: np.ndarray, y: np.ndarray, out_bytes: int, n: int = 64) -> Launch:
    a, b = x.astype("<u4").tobytes(), y.astype("<u4").tobytes()
    bufs = (Buffer("x", len(a), "i32", a), Buffer("y", len(b), "i32", b),
            Buffer("out", out_bytes, "i32", bytes(out_bytes)))
    return Launch("k", n, 64, 1, tuple(ArgValue("buffer", buffer=v.name) for v in bufs), bufs)


def _kernel(body: str, decls: str = "") -> str:
    return (DECL + decls + "define amdgpu_kernel void @k(ptr addrspace(1) %xs, ptr addrspace(1) %ys, "
            "ptr addrspace(1) %out) {\nentry:\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
            "  %px = getelementptr inbounds i32, ptr addrspace(1) %xs, i32 %t\n  %x = load i32, ptr addrspace(1) %px\n"
            "  %py = getelementptr inbounds i32, ptr addrspace(1) %ys, i32 %t\n  %y = load i32, ptr addrspace(1) %py\n"
            + body + "\n  %po = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t\n"
            "  store i32 %r, ptr addrspace(1) %po\n  ret void\n}\n")


def _s(v):
    return v - (1 << 32) if v >> 31 else v


M = 0xFFFFFFFF
CASES = {
    "smax": ("  %r = call i32 @llvm.smax.i32(i32 %x, i32 %y)", lambda x, y: x if _s(x) >= _s(y) else y),
    "umin": ("  %r = call i32 @llvm.umin.i32(i32 %x, i32 %y)", lambda x, y: min(x, y)),
    "ctpop": ("  %r = call i32 @llvm.ctpop.i32(i32 %x)", lambda x, y: bin(x).count("1")),
    "ctlz": ("  %r = call i32 @llvm.ctlz.i32(i32 %x, i1 false)", lambda x, y: 32 - x.bit_length()),
    "cttz": ("  %r = call i32 @llvm.cttz.i32(i32 %x, i1 false)",
             lambda x, y: (x & -x).bit_length() - 1 if x else 32),
    "bitreverse": ("  %r = call i32 @llvm.bitreverse.i32(i32 %x)", lambda x, y: int(f"{x:032b}"[::-1], 2)),
    "bswap": ("  %r = call i32 @llvm.bswap.i32(i32 %x)", lambda x, y: int.from_bytes(x.to_bytes(4, "little"), "big")),
    "fshl": ("  %r = call i32 @llvm.fshl.i32(i32 %x, i32 %y, i32 %t)",
             None),
    "abs": ("  %r = call i32 @llvm.abs.i32(i32 %x, i1 false)", lambda x, y: abs(_s(x)) & M),
    "umulo": ("  %m = call {i32, i1} @llvm.umul.with.overflow.i32(i32 %x, i32 %y)\n"
              "  %lo = extractvalue {i32, i1} %m, 0\n  %o = extractvalue {i32, i1} %m, 1\n"
              "  %oz = zext i1 %o to i32\n  %sh = shl i32 %oz, 31\n  %hi = lshr i32 %lo, 1\n  %r = or i32 %sh, %hi",
              lambda x, y: ((1 << 31) if x * y > M else 0) | ((x * y) & M) >> 1),
    "usubsat": ("  %r = call i32 @llvm.usub.sat.i32(i32 %x, i32 %y)", lambda x, y: max(x - y, 0)),
    "saddsat": ("  %r = call i32 @llvm.sadd.sat.i32(i32 %x, i32 %y)",
                lambda x, y: max(min(_s(x) + _s(y), 2**31 - 1), -2**31) & M),
}
DECLS = ("declare i32 @llvm.smax.i32(i32, i32)\ndeclare i32 @llvm.umin.i32(i32, i32)\n"
         "declare i32 @llvm.ctpop.i32(i32)\ndeclare i32 @llvm.ctlz.i32(i32, i1)\ndeclare i32 @llvm.cttz.i32(i32, i1)\n"
         "declare i32 @llvm.bitreverse.i32(i32)\ndeclare i32 @llvm.bswap.i32(i32)\n"
         "declare i32 @llvm.fshl.i32(i32, i32, i32)\ndeclare i32 @llvm.abs.i32(i32, i1)\n"
         "declare {i32, i1} @llvm.umul.with.overflow.i32(i32, i32)\ndeclare i32 @llvm.usub.sat.i32(i32, i32)\n"
         "declare i32 @llvm.sadd.sat.i32(i32, i32)\n")


@pytest.mark.parametrize("name", sorted(CASES))
def test_intrinsic_per_lane(name):
    rng = np.random.default_rng(len(name))
    x = rng.integers(0, 2**32, 64, dtype=np.uint64) >> rng.integers(0, 32, 64).astype(np.uint64)
    y = rng.integers(0, 2**32, 64, dtype=np.uint64) >> rng.integers(0, 32, 64).astype(np.uint64)
    x[:4] = [0, 1, M, 0x80000000]
    body, f = CASES[name]
    res = run_ir(_kernel(body, DECLS), _launch(x, y, 256), target="amdgpu")
    assert res.undefined is None
    got = [s.value for s in res.stores]
    for t in range(64):
        a, b = int(x[t]), int(y[t])
        if name == "fshl":
            s = t % 32
            want = ((a << s) | (b >> (32 - s))) & M if s else a
        else:
            want = f(a, b)
        assert got[t] == want, (name, t, a, b)


def test_atomics_global_and_lds_in_lane_order():
    """atomicrmw add on one global word by 64 lanes returns 0, x0, x0+x1, ... (lane order);
    cmpxchg on LDS succeeds for exactly one lane, the first."""
    body = """  %g = getelementptr inbounds i32, ptr addrspace(1) %ys, i32 63
  %old = atomicrmw add ptr addrspace(1) %g, i32 %x seq_cst
  %l = getelementptr inbounds [1 x i32], ptr addrspace(3) @w, i32 0, i32 0
  %c0 = icmp eq i32 %t, 0
  br i1 %c0, label %init, label %go
init:
  store i32 7, ptr addrspace(3) %l
  br label %go
go:
  call void @llvm.amdgcn.s.barrier()
  %cx = cmpxchg ptr addrspace(3) %l, i32 7, i32 %t seq_cst seq_cst
  %ok = extractvalue {i32, i1} %cx, 1
  %okz = zext i1 %ok to i32
  %sh = shl i32 %okz, 31
  %r = or i32 %old, %sh"""
    text = "@w = internal addrspace(3) global [1 x i32] undef, align 4\ndeclare void @llvm.amdgcn.s.barrier()\n" + \
        _kernel(body)
    x = np.arange(1, 65, dtype=np.uint64)
    y = np.zeros(64, dtype=np.uint64)
    res = run_ir(text, _launch(x, y, 256), target="amdgpu")
    assert res.undefined is None, res.undefined
    out = [s.value for s in res.stores if s.space == "global" and s.buffer == "out"]
    prefix = [0] + list(np.cumsum(x[:63]))
    assert out == [int(prefix[t]) | ((1 << 31) if t == 0 else 0) for t in range(64)]
    ys = [s.value for s in res.stores if s.buffer == "y"]
    assert ys == [int(v) for v in np.cumsum(x)]  # every lane's add, recorded as a store
    lds = [(s.local, s.value) for s in res.stores if s.space == "lds"]
    assert lds == [(0, 7), (0, 0)]  # the init, then lane 0's successful exchange


def test_private_memory_and_flat_pointers():
    body = """  %a = alloca [4 x i32], align 4, addrspace(5)
  %k = and i32 %x, 3
  %e = getelementptr inbounds [4 x i32], ptr addrspace(5) %a, i32 0, i32 %k
  store i32 %y, ptr addrspace(5) %e
  %f = addrspacecast ptr addrspace(5) %e to ptr
  %v = load i32, ptr %f
  %l = getelementptr inbounds [64 x i32], ptr addrspace(3) @s, i32 0, i32 %t
  %lf = addrspacecast ptr addrspace(3) %l to ptr
  store i32 %v, ptr %lf
  %w = load i32, ptr addrspace(3) %l
  %r = add i32 %w, %k"""
    text = "@s = internal addrspace(3) global [64 x i32] undef, align 4\n" + _kernel(body)
    x = np.arange(64, dtype=np.uint64) * 5
    y = np.arange(64, dtype=np.uint64) + 1000
    res = run_ir(text, _launch(x, y, 256), target="amdgpu")
    assert res.undefined is None
    assert [s.value for s in res.stores if s.space == "global"] == [1000 + t + (5 * t) % 4 for t in range(64)]
    assert [s.value for s in res.stores if s.space == "lds"] == [1000 + t for t in range(64)]
    assert not [s for s in res.stores if s.space == "private"]


def test_switch_and_vectors():
    body = """  %k = and i32 %x, 3
  switch i32 %k, label %d [ i32 0, label %c0
                            i32 2, label %c2 ]
c0:
  br label %j
c2:
  %m2 = mul i32 %y, 2
  br label %j
d:
  %m3 = mul i32 %y, 3
  br label %j
j:
  %s = phi i32 [ %y, %c0 ], [ %m2, %c2 ], [ %m3, %d ]
  %v0 = insertelement <2 x i32> poison, i32 %s, i32 0
  %v1 = insertelement <2 x i32> %v0, i32 %k, i32 1
  %v2 = add <2 x i32> %v1, <i32 10, i32 20>
  %sw = shufflevector <2 x i32> %v2, <2 x i32> poison, <2 x i32> <i32 1, i32 0>
  %e0 = extractelement <2 x i32> %sw, i32 0
  %e1 = extractelement <2 x i32> %sw, i32 1
  %r = sub i32 %e1, %e0"""
    x = np.arange(64, dtype=np.uint64) * 7
    y = np.arange(64, dtype=np.uint64) + 3
    res = run_ir(_kernel(body), _launch(x, y, 256), target="amdgpu")
    assert res.undefined is None

    def want(t):
        k, yy = (7 * t) & 3, t + 3
        s = yy if k == 0 else (2 * yy if k == 2 else 3 * yy)
        return ((s + 10) - (k + 20)) & M
    assert [s.value for s in res.stores] == [want(t) for t in range(64)]

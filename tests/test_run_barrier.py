"""Barrier regions across the waves of a work-group: a tree reduction and a Hillis-Steele
scan through LDS with a barrier inside a uniform loop, written in IR as clang emits them,
several waves per group and several groups, checked against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from patterns.run.api import run_ir
from patterns.run.launch import ArgValue, Buffer, Launch

REDUCE = """@buf = internal addrspace(3) global [128 x i32] undef, align 4
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.s.barrier()
define amdgpu_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %g = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = mul i32 %g, 128
  %i = add i32 %base, %t
  %pi = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %i
  %x = load i32, ptr addrspace(1) %pi
  %slot = getelementptr inbounds [128 x i32], ptr addrspace(3) @buf, i32 0, i32 %t
  store i32 %x, ptr addrspace(3) %slot
  call void @llvm.amdgcn.s.barrier()
  br label %loop
loop:
  %s = phi i32 [ 64, %entry ], [ %s2, %next ]
  %c = icmp ult i32 %t, %s
  br i1 %c, label %add, label %next
add:
  %o = add i32 %t, %s
  %po = getelementptr inbounds [128 x i32], ptr addrspace(3) @buf, i32 0, i32 %o
  %a = load i32, ptr addrspace(3) %po
  %b = load i32, ptr addrspace(3) %slot
  %sum = add i32 %a, %b
  store i32 %sum, ptr addrspace(3) %slot
  br label %next
next:
  call void @llvm.amdgcn.s.barrier()
  %s2 = lshr i32 %s, 1
  %more = icmp ne i32 %s2, 0
  br i1 %more, label %loop, label %done
done:
  %z = icmp eq i32 %t, 0
  br i1 %z, label %w, label %end
w:
  %r = load i32, ptr addrspace(3) %slot
  %pg = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %g
  store i32 %r, ptr addrspace(1) %pg
  br label %end
end:
  ret void
}
"""


def _launch(x: np.ndarray, out_words: int, group: int, groups: int, wave: int) -> Launch:
    a = x.astype("<u4").tobytes()
    bufs = (Buffer("in", len(a), "i32", a), Buffer("out", 4 * out_words, "i32", bytes(4 * out_words)))
    return Launch("k", group, wave, groups, tuple(ArgValue("buffer", buffer=b.name) for b in bufs), bufs)


@pytest.mark.parametrize("wave", (32, 64))
def test_tree_reduction_across_waves(wave):
    x = np.random.default_rng(wave).integers(0, 2**32, 3 * 128, dtype=np.uint64)
    res = run_ir(REDUCE, _launch(x, 3, 128, 3, wave), target="amdgpu")
    assert res.undefined is None
    glob = [(s.group, s.offset, s.value) for s in res.stores if s.space == "global"]
    want = [int(x[128 * g:128 * (g + 1)].sum()) & 0xFFFFFFFF for g in range(3)]
    assert glob == [(g, 4 * g, want[g]) for g in range(3)]


def test_missing_barrier_in_the_loop_is_a_race():
    text = REDUCE.replace("next:\n  call void @llvm.amdgcn.s.barrier()\n", "next:\n")
    x = np.arange(128, dtype=np.uint64)
    res = run_ir(text, _launch(x, 1, 128, 1, 32), target="amdgpu")
    assert res.undefined is not None and res.undefined.kind == "race"


SCAN = """@b = internal addrspace(3) global [2 x [96 x i32]] undef, align 4
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
define amdgpu_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %pi = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %t
  %x = load i32, ptr addrspace(1) %pi
  %s0 = getelementptr inbounds [2 x [96 x i32]], ptr addrspace(3) @b, i32 0, i32 0, i32 %t
  store i32 %x, ptr addrspace(3) %s0
  call void @llvm.amdgcn.s.barrier()
  br label %loop
loop:
  %off = phi i32 [ 1, %entry ], [ %off2, %loop.end ]
  %src = phi i32 [ 0, %entry ], [ %dst, %loop.end ]
  %dst = sub i32 1, %src
  %ps = getelementptr inbounds [2 x [96 x i32]], ptr addrspace(3) @b, i32 0, i32 %src, i32 %t
  %v = load i32, ptr addrspace(3) %ps
  %ge = icmp uge i32 %t, %off
  br i1 %ge, label %acc, label %put
acc:
  %j = sub i32 %t, %off
  %pj = getelementptr inbounds [2 x [96 x i32]], ptr addrspace(3) @b, i32 0, i32 %src, i32 %j
  %w = load i32, ptr addrspace(3) %pj
  %vw = add i32 %v, %w
  br label %put
put:
  %nv = phi i32 [ %vw, %acc ], [ %v, %loop ]
  %pd = getelementptr inbounds [2 x [96 x i32]], ptr addrspace(3) @b, i32 0, i32 %dst, i32 %t
  store i32 %nv, ptr addrspace(3) %pd
  br label %loop.end
loop.end:
  call void @llvm.amdgcn.s.barrier()
  %off2 = shl i32 %off, 1
  %c = icmp ult i32 %off2, 96
  br i1 %c, label %loop, label %done
done:
  %pf = getelementptr inbounds [2 x [96 x i32]], ptr addrspace(3) @b, i32 0, i32 %dst, i32 %t
  %r = load i32, ptr addrspace(3) %pf
  %po = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t
  store i32 %r, ptr addrspace(1) %po
  ret void
}
"""


@pytest.mark.parametrize("wave", (32, 64))
def test_scan_with_double_buffer_and_a_partial_wave(wave):
    """96 work-items: in wave64 the second wave has 32 lanes that never exist."""
    x = np.random.default_rng(5).integers(0, 1000, 96, dtype=np.uint64)
    res = run_ir(SCAN, _launch(x, 96, 96, 1, wave), target="amdgpu")
    assert res.undefined is None
    glob = [s.value for s in res.stores if s.space == "global"]
    assert glob == [int(v) for v in np.cumsum(x)]

"""Undefined behaviour the reference interpreter reports (never guesses): each case is a small
kernel whose undefined behaviour is known, checked for its kind, work-item, lane and
instruction; and the defined twin of each, which runs to its stores."""

from __future__ import annotations

import pytest

from patterns.run.api import run_ir
from patterns.run.launch import ArgValue, Buffer, Launch

HEAD = "declare i32 @llvm.amdgcn.workitem.id.x()\ndeclare void @llvm.amdgcn.s.barrier()\n"


def _run(body: str, *, n: int = 64, wave: int = 64, lds: str = "", args: str = "ptr addrspace(1) %out",
         extra_args=(), size: int = 256):
    text = (lds + HEAD + f"define amdgpu_kernel void @k({args}) {{\nentry:\n"
            "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n" + body + "\n}\n")
    bufs = (Buffer("out", size, "i32", bytes(size)),)
    launch = Launch("k", n, wave, 1, (ArgValue("buffer", buffer="out"),) + tuple(extra_args), bufs)
    return run_ir(text, launch, target="amdgpu")


def test_out_of_bounds_store_names_the_lane():
    body = """  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t
  store i32 %t, ptr addrspace(1) %p
  ret void"""
    ok = _run(body, size=256)  # 64 lanes x 4 bytes: in bounds
    assert ok.undefined is None and len(ok.stores) == 64
    bad = _run(body, size=200)  # lane 50 is the first past the end
    assert bad.undefined.kind == "out-of-bounds"
    assert bad.undefined.lane == 50 and bad.undefined.item == (0, 50)
    assert "store i32 %t" in bad.undefined.inst
    assert bad.stores == ()  # the faulting store wrote nothing


def test_out_of_bounds_load_and_negative_offset():
    body = """  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i32 -1
  %v = load i32, ptr addrspace(1) %p
  ret void"""
    r = _run(body)
    assert r.undefined.kind == "out-of-bounds" and r.undefined.lane == 0


def test_uninitialised_lds_read_is_poison_at_the_store():
    lds = "@s = internal addrspace(3) global [64 x i32] undef, align 4\n"
    body = """  %q = getelementptr inbounds [64 x i32], ptr addrspace(3) @s, i32 0, i32 %t
  %c = icmp ult i32 %t, 32
  br i1 %c, label %w, label %j
w:
  store i32 %t, ptr addrspace(3) %q
  br label %j
j:
  call void @llvm.amdgcn.s.barrier()
  %v = load i32, ptr addrspace(3) %q
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t
  store i32 %v, ptr addrspace(1) %p
  ret void"""
    r = _run(body, lds=lds)
    assert r.undefined.kind == "poison" and r.undefined.lane == 32  # lanes 32.. read bytes never written
    assert "store i32 %v" in r.undefined.inst
    glob = [s for s in r.stores if s.space == "global"]
    assert glob == []  # the store faults as a whole


def test_poison_branch_and_shift_out_of_range():
    body = """  %s = shl i32 1, %t
  %c = icmp eq i32 %s, 0
  br i1 %c, label %a, label %b
a:
  ret void
b:
  ret void"""
    r = _run(body, n=64, wave=64)  # lanes 32..63 shift by >= 32: poison
    assert r.undefined.kind == "poison" and r.undefined.lane == 32
    assert "br i1 %c" in r.undefined.inst
    assert _run(body, n=32, wave=32).undefined is None


def test_division_by_zero_is_immediate():
    body = """  %d = udiv i32 100, %t
  ret void"""
    r = _run(body)
    assert r.undefined.kind == "division" and r.undefined.lane == 0


def test_lds_race_between_barriers():
    lds = "@s = internal addrspace(3) global [64 x i32] undef, align 4\n"
    race = """  %q = getelementptr inbounds [64 x i32], ptr addrspace(3) @s, i32 0, i32 %t
  store i32 %t, ptr addrspace(3) %q
  %t1 = xor i32 %t, 1
  %q1 = getelementptr inbounds [64 x i32], ptr addrspace(3) @s, i32 0, i32 %t1
  {sync}
  %v = load i32, ptr addrspace(3) %q1
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t
  store i32 %v, ptr addrspace(1) %p
  ret void"""
    r = _run(race.format(sync=""), lds=lds)
    assert r.undefined.kind == "race"
    assert r.undefined.lane == 0 and "load i32" in r.undefined.inst
    ok = _run(race.format(sync="call void @llvm.amdgcn.s.barrier()"), lds=lds)
    assert ok.undefined is None
    glob = [s.value for s in ok.stores if s.space == "global"]
    assert glob == [t ^ 1 for t in range(64)]


def test_race_across_waves_and_write_write():
    lds = "@s = internal addrspace(3) global [4 x i32] undef, align 4\n"
    body = """  %k = and i32 %t, 3
  %q = getelementptr inbounds [4 x i32], ptr addrspace(3) @s, i32 0, i32 %k
  store i32 %t, ptr addrspace(3) %q
  ret void"""
    r = _run(body, lds=lds, n=64, wave=32)
    assert r.undefined.kind == "race" and r.undefined.lane == 4  # lane 4 writes lane 0's word


def test_barrier_in_divergent_control_flow():
    body = """  %c = icmp ult i32 %t, 16
  br i1 %c, label %a, label %b
a:
  call void @llvm.amdgcn.s.barrier()
  br label %b
b:
  ret void"""
    r = _run(body)
    assert r.undefined.kind == "barrier" and "divergent" in r.undefined.detail


def test_barrier_some_waves_skip():
    body = """  %c = icmp ult i32 %t, 32
  br i1 %c, label %a, label %b
a:
  call void @llvm.amdgcn.s.barrier()
  br label %b
b:
  ret void"""
    r = _run(body, n=64, wave=32)  # wave 0 reaches the barrier, wave 1 returns
    assert r.undefined.kind == "barrier" and "never reach" in r.undefined.detail


def test_inactive_source_lane_of_bpermute_is_poison():
    body = """  %c = icmp ult i32 %t, 16
  br i1 %c, label %a, label %b
a:
  %addr = shl i32 %t, 3
  %v = call i32 @llvm.amdgcn.ds.bpermute(i32 %addr, i32 %t)
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t
  store i32 %v, ptr addrspace(1) %p
  br label %b
b:
  ret void
}
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
define void @unused() {
  ret void"""
    r = _run(body)
    # lane k reads lane 2k: lanes 0..7 read active lanes, lane 8 reads lane 16 (inactive)
    assert r.undefined.kind == "poison" and r.undefined.lane == 8


def test_store_to_kernarg_segment_is_readonly():
    body = """  %k = call ptr addrspace(4) @llvm.amdgcn.kernarg.segment.ptr()
  store i32 1, ptr addrspace(4) %k
  ret void
}
declare ptr addrspace(4) @llvm.amdgcn.kernarg.segment.ptr()
define void @unused() {
  ret void"""
    r = _run(body)
    assert r.undefined.kind == "readonly"


def test_unreachable_and_false_assume():
    r = _run("  unreachable")
    assert r.undefined.kind == "unreachable"
    body = """  %c = icmp ult i32 %t, 60
  call void @llvm.assume(i1 %c)
  ret void
}
declare void @llvm.assume(i1)
define void @unused() {
  ret void"""
    r = _run(body)
    assert r.undefined.kind == "assume" and r.undefined.lane == 60


def test_implicit_args_read_by_clang_kernels():
    """clang's kernels read the work-group size at implicitarg+12 (u16); other fields of
    the block are uninitialised and read as poison."""
    body = """  %ia = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %g = getelementptr inbounds i8, ptr addrspace(4) %ia, i64 {off}
  %sz = load i16, ptr addrspace(4) %g
  %z = zext i16 %sz to i32
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t
  store i32 %z, ptr addrspace(1) %p
  ret void
}}
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
define void @unused() {{
  ret void"""
    r = _run(body.format(off=12), n=48, wave=64)
    assert r.undefined is None and {s.value for s in r.stores} == {48}
    r = _run(body.format(off=100))
    assert r.undefined.kind == "poison"


@pytest.mark.parametrize("wave", (32, 64))
def test_dispatch_packet_workgroup_size(wave):
    body = """  %d = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %g = getelementptr inbounds i8, ptr addrspace(4) %d, i64 4
  %sz = load i16, ptr addrspace(4) %g
  %gs = getelementptr inbounds i8, ptr addrspace(4) %d, i64 12
  %grid = load i32, ptr addrspace(4) %gs
  %z = zext i16 %sz to i32
  %s = add i32 %z, %grid
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t
  store i32 %s, ptr addrspace(1) %p
  ret void
}
declare ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
define void @unused() {
  ret void"""
    r = _run(body, n=40, wave=wave)
    assert r.undefined is None and {s.value for s in r.stores} == {80}

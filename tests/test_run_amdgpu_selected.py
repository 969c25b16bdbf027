"""check-run with the strict engines on amdgpu kernels: tdgen's selection (the select hooks'
moves, compares, kernel-argument loads, global stores, SI_* pseudos and branches) and
llc-19's, both run with the one semantics table, against the IR reference."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from llvm_tools import require

ROOT = Path(__file__).resolve().parent.parent
_DECL = "declare i32 @llvm.amdgcn.workitem.id.x()\n"

ALU_1 = """define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %s = add i32 %a, %id
  %t = xor i32 %s, %b
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  store i32 %t, ptr addrspace(1) %p
  ret void
}
"""
ALU_2 = """define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %m = mul i32 %id, %a
  %s = shl i32 %m, 3
  %o = or i32 %s, %a
  %u = sub i32 %o, %id
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  store i32 %u, ptr addrspace(1) %p
  ret void
}
"""
IF_1 = """define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  %c = icmp ult i32 %id, %a
  br i1 %c, label %then, label %end
then:
  %v = add i32 %id, %a
  store i32 %v, ptr addrspace(1) %p
  br label %end
end:
  ret void
}
"""
IF_2 = """define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  %lo = and i32 %id, 7
  %c = icmp eq i32 %lo, 3
  br i1 %c, label %then, label %end
then:
  %v = xor i32 %id, %a
  store i32 %v, ptr addrspace(1) %p
  br label %end
end:
  ret void
}
"""
LOOP_1 = """define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi i32 [ %id, %entry ], [ %acc1, %loop ]
  %acc1 = add i32 %acc, %i
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  store i32 %acc1, ptr addrspace(1) %p
  ret void
}
"""
LOOP_2 = """define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n, i32 %a) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi i32 [ %a, %entry ], [ %acc1, %loop ]
  %x = xor i32 %acc, %id
  %acc1 = add i32 %x, %i
  %i1 = add i32 %i, 1
  %c = icmp ne i32 %i1, 5
  br i1 %c, label %loop, label %exit
exit:
  store i32 %acc1, ptr addrspace(1) %p
  ret void
}
"""
ADDR_64 = """define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %a) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %i = xor i32 %id, %a
  %q = getelementptr i32, ptr addrspace(1) %in, i32 %i
  %x = load i32, ptr addrspace(1) %q
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %i
  store i32 %x, ptr addrspace(1) %p
  ret void
}
"""
# a uniform i16 zero-extending load: llc's S_LOAD_DWORD + S_AND_B32 0xffff (the selection
# used to keep the whole dword: the next halfword's bits in the value)
ZEXTLOAD_16 = """define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(4) %in, i32 %a) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %h = load i16, ptr addrspace(4) %in, align 4
  %z = zext i16 %h to i32
  %v = add i32 %z, %id
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  store i32 %v, ptr addrspace(1) %p
  ret void
}
"""
# f32 VALU arithmetic (fp32.py) on loaded floats and a uniform float argument
F32 = """define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in, float %s) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr float, ptr addrspace(1) %in, i32 %id
  %x = load float, ptr addrspace(1) %q
  %a = fmul float %x, %s
  %b = fadd float %a, %x
  %c = fsub float %b, %s
  %p = getelementptr float, ptr addrspace(1) %out, i32 %id
  store float %c, ptr addrspace(1) %p
  ret void
}
"""
KERNELS = {"addr-64": ADDR_64, "zextload-16": ZEXTLOAD_16, "f32": F32, "alu-1": ALU_1, "alu-2": ALU_2, "if-1": IF_1, "if-2": IF_2, "loop-1": LOOP_1, "loop-2": LOOP_2}


def _check_run(path, target, *extra):
    cmd = [sys.executable, "-m", "tdgen", "check-run", str(path), "--target", str(target), "--wave", "64",
           "--trials", "2", "--format", "json", *extra]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_strict_engines_agree(name, tmp_path):
    require("llc-19")
    k = tmp_path / f"{name}.ll"
    k.write_text(KERNELS[name] + _DECL)
    r = _check_run(k, "amdgpu", "--engines", "selected,llc")
    assert r.returncode == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert rep["counterexample"] is None
    assert rep["engines"] == ["reference", "selected", "llc"] and rep["stores_compared"] > 0
    assert r.stderr == ""


def test_broken_compare_semantics_is_caught(tmp_path):
    # V_CMP_LT_U32_e64 made "<=": the if-then's lanes with id == %a store too; the one
    # definition (mir_semantics.py) is what both tdgen's selection and llc's code run
    require("llc-19")
    k = tmp_path / "if.ll"
    k.write_text(IF_1 + _DECL)
    broken = tmp_path / "amdgpu_broken"
    shutil.copytree(ROOT / "targets" / "amdgpu", broken)
    ms = broken / "mir_semantics.py"
    old = '("U32", {"EQ": S.eq, "NE": S.ne, "GT": S.ugt, "GE": S.uge, "LT": S.ult, "LE": S.ule})'
    text = ms.read_text()
    assert text.count(old) == 1
    ms.write_text(text.replace(old, old.replace('"LT": S.ult', '"LT": S.ule')))
    bad = _check_run(k, broken, "--engines", "selected")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    c = json.loads(bad.stdout)["counterexample"]
    assert c["expected"]["engine"] == "reference" and c["found"]["engine"] == "selected"
    assert c["expected"]["store"] == "no store here"


STORE_IN_LOOP = """define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n, i32 %a) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  %m = and i32 %n, 7
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %v = xor i32 %a, %id
  store i32 %v, ptr addrspace(1) %p
  %i1 = add i32 %i, 1
  %c = icmp ule i32 %i1, %m
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
"""


def test_a_store_a_compiler_may_drop_is_not_compared(tmp_path):
    # the loop stores one invariant value to one place each iteration: llc's LICM keeps one
    # store after the loop, so only each work-item's last store to a place is compared
    require("llc-19")
    k = tmp_path / "store_in_loop.ll"
    k.write_text(STORE_IN_LOOP + _DECL)
    r = _check_run(k, "amdgpu", "--engines", "llc")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["counterexample"] is None


def test_final_stores_compare_what_each_work_item_left():
    from patterns.run.result import Result, Store, first_difference

    def res(*vals):
        return Result("e", "k", tuple(Store("global", "out", 0, 0, 0, "i32", v) for v in vals))

    assert first_difference(res(1, 2, 3), res(3)) is None  # (overwritten stores dropped)
    assert first_difference(res(1, 2), res(1)) is not None  # (the last value differs)
    other = Result("e", "k", (Store("global", "out", 4, 0, 0, "i32", 3),))
    assert first_difference(res(3), other) is not None  # (another place)

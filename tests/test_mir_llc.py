"""``tdgen isel --format mir`` is MIR that LLVM 19 reads and verifies for amdgpu.

Each kernel below selects completely on the amdgpu target (kernel arguments from the
kernarg segment, uniform branches on SCC, divergent if-then and loop exits as SI_IF /
SI_IF_BREAK / SI_LOOP / SI_END_CF, constants, SALU/VALU ALU, global loads and stores,
the workitem id); its MIR goes through ``llc-19 -x mir -run-pass=none
-verify-machineinstrs -mtriple=amdgcn -mcpu=gfx900``, which parses it (LLVM's opcode,
register-class and operand names, the implicit operands the MIR parser requires) and
runs the machine verifier (operand classes, SSA defs, successors, the constant bus).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from llvm_tools import require

ROOT = Path(__file__).resolve().parent.parent

KERNELS = {
    "uniform_branch": """
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %x = add i32 %a, %b
  %c = icmp eq i32 %x, 7
  br i1 %c, label %t, label %e
t:
  store i32 %x, ptr addrspace(1) %out
  br label %e
e:
  ret void
}
""",
    "divergent_alu": """
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @d(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %x = xor i32 %tid, %a
  %y = mul i32 %x, %b
  %s = shl i32 %a, 3
  %z = or i32 %y, %s
  %w = sub i32 %z, %b
  store i32 %w, ptr addrspace(1) %out
  ret void
}
""",
    "select_and_offset": """
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @s(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp ult i32 %tid, %a
  %v = select i1 %c, i32 %tid, i32 %b
  %u = icmp sgt i32 %a, %b
  %m = select i1 %u, i32 %a, i32 %b
  %r = add i32 %v, %m
  %p = getelementptr i32, ptr addrspace(1) %out, i32 2
  store i32 %r, ptr addrspace(1) %p
  ret void
}
""",
    "divergent_if": """
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @t(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %gep = getelementptr i32, ptr addrspace(1) %in, i32 %id
  %v = load i32, ptr addrspace(1) %gep
  %c = icmp slt i32 %id, %n
  br i1 %c, label %then, label %exit
then:
  %a = add i32 %v, %n
  %g2 = getelementptr i32, ptr addrspace(1) %out, i32 %id
  store i32 %a, ptr addrspace(1) %g2
  br label %exit
exit:
  ret void
}
""",
    "moved_to_valu": """
define amdgpu_kernel void @fix(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %c) {
  %s = call i32 @llvm.amdgcn.mul.u24.i32(i32 %a, i32 %b)
  %t = add i32 %s, %c
  %u = xor i32 %t, %a
  store i32 %u, ptr addrspace(1) %out
  ret void
}
declare i32 @llvm.amdgcn.mul.u24.i32(i32, i32)
""",
    "divergent_loop": """
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @l(ptr addrspace(1) %out, i32 %a) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ %tid, %entry ], [ %acc.next, %loop ]
  %acc.next = xor i32 %acc, %i
  %i.next = add i32 %i, 1
  %lc = icmp ult i32 %i.next, %tid
  br i1 %lc, label %loop, label %exit
exit:
  store i32 %acc.next, ptr addrspace(1) %out
  ret void
}
""",
    # a divergent index that may be negative: the 64-bit address arithmetic (V_ASHRREV_I32,
    # V_LSHLREV_B64, V_ADD_CO_U32 / V_ADDC_U32 with its carry def) and GLOBAL_STORE_DWORD
    "zextload_16": """define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(4) %in) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %h = load i16, ptr addrspace(4) %in, align 4
  %z = zext i16 %h to i32
  %v = add i32 %z, %id
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  store i32 %v, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
""",
    "address_64": """define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %i = xor i32 %id, %a
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %i
  store i32 %id, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
""",
}


def _isel(path: Path, fmt: str = "mir"):
    return subprocess.run([sys.executable, "-m", "tdgen", "isel", str(path), "--target", "amdgpu", "--format", fmt],
                          capture_output=True, text=True, cwd=ROOT)


PASS = sorted((ROOT / "tests" / "golden" / "isel" / "pass").glob("*.ll"))


@pytest.mark.parametrize("name", sorted(KERNELS) + [p.name for p in PASS])
def test_mir_is_parsed_and_verified_by_llc(tmp_path, name):
    """(the kernels above and the golden inputs that select, tests/golden/isel/pass)"""
    llc = require("llc-19")
    src = tmp_path / f"{name}.ll"
    src.write_text(KERNELS[name] if name in KERNELS else (ROOT / "tests" / "golden" / "isel" / "pass" / name).read_text())
    r = _isel(src)
    assert r.returncode == 0, r.stderr
    mir = tmp_path / f"{name}.mir"
    mir.write_text(r.stdout)
    assert r.stdout.startswith("---\nname:") and "tracksRegLiveness: true" in r.stdout and r.stdout.endswith("...\n")
    v = subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-x", "mir", "-run-pass=none",
                        "-verify-machineinstrs", str(mir), "-o", "-"], capture_output=True, text=True)
    assert v.returncode == 0, v.stderr[-3000:]
    # llc read every instruction we wrote (the printed function has the same opcodes)
    ours = [ln.split("= ")[-1].split()[0] for ln in r.stdout.split("body:", 1)[1].splitlines()
            if ln.startswith("    ") and not ln.strip().startswith(("successors:", "liveins:"))]
    theirs = [ln.split("= ")[-1].split()[0] for ln in v.stdout.split("body:", 1)[1].splitlines()
              if ln.startswith("    ") and not ln.strip().startswith(("successors:", "liveins:"))]
    assert [o for o in ours if o] == [o for o in theirs if o]


def test_a_function_that_cannot_be_selected_is_reported_and_the_others_printed(tmp_path):
    """Selection goes on per function: the kernel with a divergent loop of two exits (not
    modelled: the break masks of StructurizeCFG's Flow blocks) is reported (exit 2), the
    one beside it is printed."""
    src = tmp_path / "two.ll"
    src.write_text(KERNELS["uniform_branch"] + """
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @div(ptr addrspace(1) %out, i32 %a) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i2, %l ]
  %c1 = icmp eq i32 %i, %tid
  br i1 %c1, label %e, label %l
l:
  %i2 = add i32 %i, %a
  %c2 = icmp ult i32 %i2, 100
  br i1 %c2, label %h, label %e
e:
  store i32 %i, ptr addrspace(1) %out
  ret void
}
""")
    r = _isel(src)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "name:            k\n" in r.stdout and "name:            div" not in r.stdout
    assert "a divergent loop exit on a condition that is not a compare in the latch" in r.stderr
    assert "(not modelled)" in r.stderr
    assert r.stderr.endswith("tdgen isel: 1 of 2 functions cannot be selected: @div\n")

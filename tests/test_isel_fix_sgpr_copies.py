"""SIFixSGPRCopies (targets/amdgpu/fix_sgpr_copies.py) against llc-19 before and after it runs.

A uniform 24-bit multiply has only a VALU form (V_MAD_U32_U24 once the add is folded in):
its uniform user, selected S_XOR_B32, reads a VGPR. llc-19 at ``-stop-after=amdgpu-isel``
shows the SALU instruction (the selector's choice); at ``-stop-after=finalize-isel``
SIFixSGPRCopies has moved it to the VALU (V_XOR_B32_e64). Ours matches both, and ``tdgen
explain`` reports the move for the value.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from llvm_tools import require

ROOT = Path(__file__).resolve().parent.parent

KERNEL = """
define amdgpu_kernel void @fix(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %c) {
  %s = call i32 @llvm.amdgcn.mul.u24.i32(i32 %a, i32 %b)
  %t = add i32 %s, %c
  %u = xor i32 %t, %a
  %w = shl i32 %u, %b
  store i32 %w, ptr addrspace(1) %out
  ret void
}
declare i32 @llvm.amdgcn.mul.u24.i32(i32, i32)
"""


def test_moved_to_valu_as_llc_does_after_the_selector():
    from testkit.llc import compare_with_llc
    from tdgen.spec import load_target

    llc = require("llc-19")
    target = load_target("amdgpu")
    for stop, want in (("amdgpu-isel", {"S_XOR_B32", "S_LSHL_B32"}), ("finalize-isel", {"V_XOR_B32_e64",
                                                                                        "V_LSHLREV_B32_e64"})):
        (a,) = compare_with_llc(KERNEL, target, llc, stop_after=stop)
        assert a.selected and a.equal, (stop, a.diff())
        assert want <= {op for op, _n in a.llc}, (stop, a.llc)


def test_explain_reports_the_move(tmp_path):
    src = tmp_path / "fix.ll"
    src.write_text(KERNEL)
    r = subprocess.run([sys.executable, "-m", "tdgen", "explain", str(src), "--target", "amdgpu", "--value", "%w"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert ("after selection: SIFixSGPRCopies: S_LSHL_B32 (%w) reads the VGPR" in r.stdout
            and "moved to the VALU as V_LSHLREV_B32_e64" in r.stdout), r.stdout


def test_a_scalar_reg_sequence_of_a_vgpr_part_becomes_a_vgpr_tuple(tmp_path):
    # v_mad_u64_u32's addend widened from a VGPR (%tid) in SReg_64 as the pattern builds it:
    # SIFixSGPRCopies makes the tuple a VReg_64 (llc's finalize-isel MIR has
    # %77:vreg_64 = REG_SEQUENCE ...); the machine model runs it on every lane
    import json
    import subprocess
    import sys

    from llvm_tools import require

    require("llc-19")
    k = tmp_path / "mad.ll"
    k.write_text("""define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %m = mul i32 %a, 3
  %v = add i32 %m, %tid
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %v, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
""")
    root = Path(__file__).resolve().parent.parent
    mir = subprocess.run([sys.executable, "-m", "tdgen", "isel", str(k), "--target", "amdgpu", "--format", "mir"],
                         cwd=root, capture_output=True, text=True)
    assert mir.returncode == 0, mir.stderr
    seq = next(ln.split("=")[0].strip() for ln in mir.stdout.splitlines() if "= REG_SEQUENCE" in ln)
    assert f"- {{ id: {seq[1:]}, class: vreg_64 }}" in mir.stdout, mir.stdout
    r = subprocess.run([sys.executable, "-m", "tdgen", "check-run", str(k), "--target", "amdgpu", "--wave", "64",
                        "--trials", "2", "--format", "json", "--engines", "selected,llc"],
                       cwd=root, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["counterexample"] is None

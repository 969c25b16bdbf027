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

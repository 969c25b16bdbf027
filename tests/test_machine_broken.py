"""Deliberately broken copies of the targets, each caught by ``tdgen check-run`` (exit 1 with
a counterexample) on a small kernel, while the real target agrees with the reference on
the same kernel (exit 0).

All run with the strict ``selected`` engine (amdgpu's select hooks emit the moves,
kernel-argument loads and global stores, each with its semantics). An SALU pattern
without its uniform predicate is no miscompile by itself any more: SIFixSGPRCopies
(targets/amdgpu/fix_sgpr_copies.py, LLVM's moveToVALU) moves an SALU instruction that
reads a VGPR to its VALU form (``test_salu_without_uniform_predicate_is_moved_to_valu``);
the broken S_LSHL_B32 case also breaks that move's operand swap (the VALU shift takes
its amount in src0), and is caught.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from patterns.ir.reader import parse_module
from patterns.run.launch import from_json
from patterns.run.machine_check import first_disagreement
from tdgen.target_cache import load_target

ROOT = Path(__file__).resolve().parent.parent

DECL = "declare i32 @llvm.amdgcn.workitem.id.x()\n"


def amd_kernel(body: str, result: str) -> str:
    return ("define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a) {\nentry:\n"
            "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n" + body +
            "  %g = getelementptr i32, ptr addrspace(1) %out, i32 %tid\n"
            f"  store i32 {result}, ptr addrspace(1) %g\n  ret void\n}}\n" + DECL)


ADD = amd_kernel("  %s = add i32 %tid, %a\n", "%s")
SHL = amd_kernel("  %m = and i32 %a, 15\n  %s = shl i32 %tid, %m\n", "%s")
SUB = amd_kernel("  %s = sub i32 %tid, %a\n", "%s")
BPERM = amd_kernel("  %x = xor i32 %tid, 1\n  %ad = shl i32 %x, 2\n  %v = mul i32 %tid, %a\n"
                   "  %s = call i32 @llvm.amdgcn.ds.bpermute(i32 %ad, i32 %v)\n", "%s") + \
    "declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)\n"
DSLIKE = """\
define ptx_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %b, i32 %c) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %x = load i32, ptr addrspace(1) %in
  %v = add i32 %tid, %x
  %r = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %v, i32 %b, i32 %c)
  store i32 %r, ptr addrspace(1) %out
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)
"""

CASES = {
    "s_lshl_b32_moved_to_valu_with_unswapped_operands": (
        "amdgpu", "alu.py", SHL, "selected",
        [("(UniformBinFrag<shl> i32:$src0, i32:$src1)", "(shl i32:$src0, i32:$src1)"),
         ('"S_LSHL_B32": ("V_LSHLREV_B32_e64", (1, 0), ()),', '"S_LSHL_B32": ("V_LSHLREV_B32_e64", (0, 1), ()),',
          "fix_sgpr_copies.py")],
        "V_LSHLREV_B32_e64"),
    "sub_operands_swapped": (
        "amdgpu", "alu.py", SUB, "selected",
        [('"(V_SUB_U32_e64 $src0, $src1, 0)"', '"(V_SUB_U32_e64 $src1, $src0, 0)"')],
        "V_SUB_U32_e64"),
    "bpermute_lowering_off_by_one_lane": (
        "amdgpu", "ds.py", BPERM, "selected",
        [('"(DS_BPERMUTE_B32 $addr, $data0, 0)"', '"(DS_BPERMUTE_B32 $addr, $data0, 4)"')],
        "DS_BPERMUTE_B32"),
    "dslike_shuffle_semantics_read_the_wrong_lane": (
        "dslike", "spec.py", DSLIKE, "selected",
        [('semantics=_shfl_semantics("down")),', 'semantics=_shfl_semantics("down", 1)),')],
        "DS_SHFL_DOWN_B32"),
}


def _check_run(path: Path, target: str, engine: str, wave: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdgen", "check-run", str(path), "--target", target,
                           "--engines", engine, "--wave", str(wave), "--workgroup", str(wave), "--trials", "3",
                           "--format", "json"], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("case", sorted(CASES))
def test_broken_target_is_caught(case, tmp_path):
    tname, fname, kernel, engine, edits, needle = CASES[case]
    wave = 32 if tname == "dslike" else 64
    k = tmp_path / "k.ll"
    k.write_text(kernel)
    good = _check_run(k, tname, engine, wave)
    assert good.returncode == 0, good.stdout + good.stderr
    assert json.loads(good.stdout)["counterexample"] is None
    broken = tmp_path / f"{tname}_broken"
    shutil.copytree(ROOT / "targets" / tname, broken)
    for old, new, *other in edits:
        f = broken / (other[0] if other else fname)
        text = f.read_text()
        assert text.count(old) == 1, old
        f.write_text(text.replace(old, new))
    bad = _check_run(k, str(broken), engine, wave)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    rep = json.loads(bad.stdout)
    c = rep["counterexample"]
    assert c is not None and c["kernel"] == "k"
    found = c["found"]
    assert c["expected"]["engine"] == "reference" and c["found"]["engine"] == engine
    assert any(f"--engine {engine}" in cmd for cmd in c["commands"])
    if "illegal-state" in found["store"]:
        assert needle in found["store"], c
        return
    # a value differs: the machine instruction where the lanes first disagree
    module = parse_module(kernel, str(k))
    launch = from_json(c["inputs_json"])
    where = first_disagreement(module, launch, load_target(str(broken)), c["group"], c["item"],
                               generic="ir" if engine == "selected-ir" else None)
    assert where is not None and needle in where["instr"], where
    assert where["expected"] != where["found"]


def test_salu_without_uniform_predicate_is_moved_to_valu(tmp_path):
    # S_ADD_I32 matching a divergent add (no UniformBinFrag, and the complexity to win):
    # SIFixSGPRCopies moves it to V_ADD_U32_e64, so the selection still agrees
    k = tmp_path / "k.ll"
    k.write_text(ADD)
    broken = tmp_path / "amdgpu_broken"
    shutil.copytree(ROOT / "targets" / "amdgpu", broken)
    alu = broken / "alu.py"
    old = ('pattern="(set i32:$sdst, (UniformBinFrag<add> i32:$src0, i32:$src1))",\n                '
           'lets={"isCommutable": 1}')
    text = alu.read_text()
    assert text.count(old) == 1
    alu.write_text(text.replace(old, 'pattern="(set i32:$sdst, (add i32:$src0, i32:$src1))",\n                '
                                     'lets={"isCommutable": 1, "AddedComplexity": 1}'))
    r = _check_run(k, str(broken), "selected", 64)
    assert r.returncode == 0, r.stdout + r.stderr
    mir = subprocess.run([sys.executable, "-m", "tdgen", "isel", str(k), "--target", str(broken)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert mir.returncode == 0, mir.stderr
    assert "V_ADD_U32_e64" in mir.stdout and "S_ADD_I32" not in mir.stdout.split("body:", 1)[1]

"""Deliberately broken copies of the targets, each caught by ``tdgen check-run`` (exit 1 with
a counterexample) on a small kernel, while the real target agrees with the reference on
the same kernel (exit 0).

The amdgpu subset has no memory instructions yet (no pattern for loads, stores, GEPs), so
its kernels run with ``--engines selected-ir``: the selection's generic instructions by
their IR meaning (patterns/run/machine_generic.py), every target instruction by its
semantics. dslike selects these kernels completely and runs with the strict ``selected``.

S_ADD_I32 without its uniform predicate alone is not a miscompile in this matcher (the
VALU add's DivergentBinFrag pattern has the higher complexity and wins for a divergent
add); the broken copy also gives it AddedComplexity = 1, as the SALU shifts have, so it
wins. S_LSHL_B32 has that complexity already: dropping its predicate alone is caught.
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
    "s_add_i32_without_uniform_predicate": (
        "amdgpu", "alu.py", ADD, "selected-ir",
        [('pattern="(set i32:$sdst, (UniformBinFrag<add> i32:$src0, i32:$src1))",\n                lets={"isCommutable": 1}',
          'pattern="(set i32:$sdst, (add i32:$src0, i32:$src1))",\n                lets={"isCommutable": 1, "AddedComplexity": 1}')],
        "illegal-state: vector register"),
    "s_lshl_b32_without_uniform_predicate": (
        "amdgpu", "alu.py", SHL, "selected-ir",
        [("(UniformBinFrag<shl> i32:$src0, i32:$src1)", "(shl i32:$src0, i32:$src1)")],
        "read by scalar instruction S_LSHL_B32"),
    "sub_operands_swapped": (
        "amdgpu", "alu.py", SUB, "selected-ir",
        [('"(V_SUB_U32_e64 $src0, $src1, 0)"', '"(V_SUB_U32_e64 $src1, $src0, 0)"')],
        "V_SUB_U32_e64"),
    "bpermute_lowering_off_by_one_lane": (
        "amdgpu", "ds.py", BPERM, "selected-ir",
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
    src = broken / fname
    text = src.read_text()
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    src.write_text(text)
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

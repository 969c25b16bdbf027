"""``tdgen diff``: a one-operand swap shows exactly its record, field and the values whose selection changed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from llvm_tools import require

ROOT = Path(__file__).resolve().parent.parent
SWAPPED = '"(V_SUB_U32_e64 $src1, $src0, 0)"'


def _cli(*args: str, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdgen", *args], cwd=cwd, capture_output=True, text=True)


def _swapped_copy(tmp_path: Path) -> Path:
    spec = tmp_path / "amdgpu"
    shutil.copytree(ROOT / "targets" / "amdgpu", spec, ignore=shutil.ignore_patterns("__pycache__"))
    alu = spec / "alu.py"
    text = alu.read_text()
    assert text.count('"(V_SUB_U32_e64 $src0, $src1, 0)"') == 1
    alu.write_text(text.replace('"(V_SUB_U32_e64 $src0, $src1, 0)"', SWAPPED))
    return spec


def test_operand_swap_lists_the_record_the_field_and_the_values(tmp_path):
    require("llvm-tblgen-19")
    r = _cli("diff", "amdgpu", str(_swapped_copy(tmp_path)))
    assert r.returncode == 1, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:3] == [
        "records: 1 changed, 0 added, 0 removed",
        "~ Pat (DivergentBinFrag<sub> i32:$src0, i32:$src1)  (AMDGPUInstructions.td)",
        "    ResultInstrs: [(V_SUB_U32_e64 ?:$src0, ?:$src1, 0)] -> [(V_SUB_U32_e64 ?:$src1, ?:$src0, 0)]",
    ]
    assert "risks:" not in lines
    sel = lines.index(next(ln for ln in lines if ln.startswith("selection: ")))
    assert sel == 3
    changed = [ln for ln in lines[sel + 1:] if ln.startswith("  @")]
    assert len(changed) == int(lines[sel].split()[1])
    # only divergent subtractions change, and each one's operands are swapped
    assert all(ln.split()[0].startswith("@divergent_") for ln in changed), changed
    body = lines[sel + 1:]
    for i in range(0, len(body), 3):
        old, new = body[i + 1].strip(), body[i + 2].strip()[3:]
        assert old.startswith("V_SUB_U32_e64") or "; V_" in old
        assert old != new
    assert "@divergent_S_SUB_I32:%r  [built-in:S_SUB_I32]" in r.stdout
    # registers are named by the IR value defining them (the kernel's arguments %src0, %src1)
    assert "V_SUB_U32_e64 %src0#1, %src1#1, 0 (VGPR_32)\n   -> V_SUB_U32_e64 %src1#1, %src0#1, 0 (VGPR_32)" in r.stdout
    # and a register of no IR value by its defining opcode and position, never a shared "%-"
    assert "%-#" not in r.stdout


def test_unchanged_spec_prints_nothing(tmp_path):
    require("llvm-tblgen-19")
    copy = tmp_path / "amdgpu"
    shutil.copytree(ROOT / "targets" / "amdgpu", copy, ignore=shutil.ignore_patterns("__pycache__"))
    r = _cli("diff", "amdgpu", str(copy))
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = _cli("diff", "--rev", "HEAD", "dslike")
    assert (r.returncode, r.stdout) == (0, ""), r.stderr
    r = _cli("diff", "out/amdgpu", "out/amdgpu")
    assert (r.returncode, r.stdout) == (0, ""), r.stderr


def test_lost_uniform_predicate_is_a_risk(tmp_path):
    require("llvm-tblgen-19")
    spec = tmp_path / "amdgpu"
    shutil.copytree(ROOT / "targets" / "amdgpu", spec, ignore=shutil.ignore_patterns("__pycache__"))
    alu = spec / "alu.py"
    text = alu.read_text()
    assert text.count("UniformBinFrag<sub>") == 1
    alu.write_text(text.replace("UniformBinFrag<sub>", "sub"))
    r = _cli("diff", "amdgpu", str(spec), "--no-selection")
    assert r.returncode == 1
    assert "! S_SUB_I32: lost its uniform predicate" in r.stdout
    assert "writes S_SUB_I32 into scalar class SReg_32 but its root has no uniform predicate" in r.stdout


def test_bad_sides_exit_2(tmp_path):
    r = _cli("diff", "amdgpu")
    assert r.returncode == 2 and "expected two sides, OLD and NEW" in r.stderr
    r = _cli("diff", "amdgpu", str(tmp_path))
    assert r.returncode == 2 and "argument SIDE: expected a target name" in r.stderr


def test_generate_check_diff_prints_stale_records(tmp_path):
    require("llvm-tblgen-19")
    out = tmp_path / "out"
    shutil.copytree(ROOT / "out" / "amdgpu", out / "amdgpu")
    ins = out / "amdgpu" / "AMDGPUInstructions.td"
    ins.write_text(ins.read_text().replace("(V_SUB_U32_e64 $src0, $src1, 0)", "(V_SUB_U32_e64 $src1, $src0, 0)", 1))
    r = _cli("generate", "amdgpu", "--out", str(out), "--check", "--diff")
    assert r.returncode == 1
    assert "amdgpu: records: 1 changed, 0 added, 0 removed" in r.stdout
    assert "ResultInstrs: [(V_SUB_U32_e64 ?:$src1, ?:$src0, 0)] -> [(V_SUB_U32_e64 ?:$src0, ?:$src1, 0)]" in r.stdout


def test_changed_priority_between_overlapping_patterns_is_a_risk(tmp_path):
    require("llvm-tblgen-19")
    spec = tmp_path / "amdgpu"
    shutil.copytree(ROOT / "targets" / "amdgpu", spec, ignore=shutil.ignore_patterns("__pycache__"))
    alu = spec / "alu.py"
    text = alu.read_text()
    plain_and = 'pattern="(set i32:$vdst, (and i32:$src0, i32:$src1))", lets={"isCommutable": 1}),'
    assert text.count(plain_and) == 1
    alu.write_text(text.replace(plain_and, plain_and.replace('"isCommutable": 1}', '"isCommutable": 1, '
                                                                                    '"AddedComplexity": 5}')))
    k = tmp_path / "and.ll"
    # (a global store: a flat one, address space 0, the amdgpu spec does not select)
    k.write_text("define amdgpu_kernel void @uniform_S_AND_B32(ptr addrspace(1) %out, i32 %src0, i32 %src1) {\n"
                 "  %r = and i32 %src0, %src1\n  store i32 %r, ptr addrspace(1) %out\n  ret void\n}\n")
    r = _cli("diff", "amdgpu", str(spec), "--no-builtin", "--kernels", str(k))
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines[:3] == ["records: 1 changed, 0 added, 0 removed", "~ V_AND_B32_e64  (AMDGPUInstructions.td)",
                         "    AddedComplexity: 0 -> 5"]
    assert ("! priority changed (ISD::AND): (and i32:$src0, i32:$src1) -> (V_AND_B32_e64 VGPR_32:$src0, "
            "VGPR_32:$src1) (complexity 3 -> 8) is now tried before (UniformBinFrag<and> i32:$src0, i32:$src1) -> "
            "(S_AND_B32 SReg_32:$src0, SReg_32:$src1) (complexity 4 -> 4)") in lines
    # and the uniform and now selects the VALU instruction; its two SGPR operands (the
    # kernel arguments, read from the s_load's sub0/sub1) exceed the one-SGPR constant bus
    # of the default subtarget, so the second is copied to a VGPR first
    assert f"  @uniform_S_AND_B32:%r  [{k}]\n      S_AND_B32 %src0#2, %src1#1 (SReg_32)\n" \
           "   -> COPY %src1#1 (VGPR_32); V_AND_B32_e64 %src0#2, %r#1 (VGPR_32)" in r.stdout


def test_user_kernels_join_the_corpus_and_output_is_deterministic(tmp_path):
    import os

    require("llvm-tblgen-19")
    k = tmp_path / "mine.ll"
    k.write_text("declare i32 @llvm.amdgcn.workitem.id.x()\n"
                 "define amdgpu_kernel void @mine(ptr addrspace(1) %out, i32 %a) {\n"
                 "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %d = sub i32 %tid, %a\n"
                 "  %u = sub i32 %a, 5\n  %r = xor i32 %d, %u\n"
                 "  store i32 %r, ptr addrspace(1) %out\n  ret void\n}\n")
    spec = _swapped_copy(tmp_path)
    outs = set()
    for seed in ("0", "1"):
        r = subprocess.run([sys.executable, "-m", "tdgen", "diff", "amdgpu", str(spec), "--kernels", str(k),
                            "--no-builtin"],
                           cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert r.returncode == 1, r.stderr
        outs.add(r.stdout)
    assert len(outs) == 1
    (out,) = outs
    assert f"  @mine:%d  [{k}]\n" in out  # the divergent sub changed
    assert f"@mine:%u  [{k}]" not in out and f"@mine:%r  [{k}]" not in out  # the rest did not
    assert "built-in:" not in out and "selection: 1 difference(s)" in out

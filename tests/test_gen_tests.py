"""``tdgen gen-tests amdgpu``: every generated test passes under llc-19 + FileCheck-19, as lit would run it."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from llvm_tools import require

ROOT = Path(__file__).resolve().parent.parent


def _run_file(path: Path, llc: str, filecheck: str) -> subprocess.CompletedProcess:
    run = next(ln for ln in path.read_text().splitlines() if ln.startswith("; RUN: "))[len("; RUN: "):]
    cmd = run.replace("%s", shlex.quote(str(path))).replace("llc ", f"{llc} ", 1).replace("FileCheck ", f"{filecheck} ")
    return subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True)


def test_generated_suite_passes_under_llc(tmp_path):
    llc, fc = require("llc-19"), require("FileCheck-19")
    out = tmp_path / "suite"
    r = subprocess.run([sys.executable, "-m", "tdgen", "gen-tests", "amdgpu", "--out", str(out), "--mcpu", "gfx900"],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    files = sorted(out.glob("*.ll"))
    checked = [f for f in files if "; CHECK: " in f.read_text()]
    assert r.stdout.startswith(f"wrote {len(files)} file(s) to {out}: {len(checked)} pattern(s) with CHECK lines")
    assert len(checked) >= 90
    failed = []
    for f in checked:
        res = _run_file(f, llc, fc)
        if res.returncode != 0:
            failed.append(f"{f.name}: {res.stderr[:300]}")
    assert not failed, "\n".join(failed)
    # every file without CHECK lines says why
    for f in set(files) - set(checked):
        assert "; NOTE: not " in f.read_text(), f.name
    # the CHECK lines do check: the uniform kernel of S_ADD_I32 is not a V_ADD
    s_add = (out / "S_ADD_I32.ll").read_text()
    assert "; CHECK: {{= S_ADD_I32( |$)}}" in s_add and "; CHECK: {{= V_ADD_U32_e64( |$)}}" in s_add
    wrong = tmp_path / "wrong.ll"
    wrong.write_text(s_add.replace("{{= S_ADD_I32( |$)}}", "{{= V_ADD_U32_e64( |$)}}", 1))
    assert _run_file(wrong, llc, fc).returncode != 0


def test_verify_llc_keeps_only_checks_llc_meets(tmp_path):
    """A spec whose uniform ``and`` selects the VALU form (V_AND given AddedComplexity 5)
    disagrees with llc-19 there: --verify-llc writes that file without CHECK lines."""
    import shutil

    llc, fc = require("llc-19"), require("FileCheck-19")
    spec = tmp_path / "amdgpu"
    shutil.copytree(ROOT / "targets" / "amdgpu", spec, ignore=shutil.ignore_patterns("__pycache__"))
    alu = spec / "alu.py"
    plain_and = 'pattern="(set i32:$vdst, (and i32:$src0, i32:$src1))", lets={"isCommutable": 1}),'
    alu.write_text(alu.read_text().replace(plain_and, plain_and.replace('1}', '1, "AddedComplexity": 5}')))
    out = tmp_path / "suite"
    r = subprocess.run([sys.executable, "-m", "tdgen", "gen-tests", str(spec), "--out", str(out), "--mcpu", "gfx900",
                        "--verify-llc", llc, "--filecheck", fc, "--only", "V_AND_B32_e64", "S_ADD_I32"],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["S_ADD_I32.ll", "V_AND_B32_e64.ll"]
    v_and = (out / "V_AND_B32_e64.ll").read_text()
    note = f"; NOTE: uniform function not checked: {llc} does not select as the spec does (V_AND_B32_e64): "
    assert note in v_and
    assert "; CHECK-LABEL: name: uniform_V_AND_B32_e64{{$}}\n; CHECK-LABEL: name: divergent_" in v_and
    assert "; CHECK-LABEL: name: divergent_V_AND_B32_e64{{$}}\n; CHECK: {{= V_AND_B32_e64( |$)}}" in v_and
    assert "; CHECK: {{= S_ADD_I32( |$)}}" in (out / "S_ADD_I32.ll").read_text()  # the others keep theirs
    assert _run_file(out / "V_AND_B32_e64.ll", llc, fc).returncode == 0

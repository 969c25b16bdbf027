"""A regular install: a wheel built from the checkout, a fresh venv, and an example project outside the repository.

The project has its own spec file (a copy of dslike, renamed) and its own pytest file
using the plugin (the ``tdgen_target`` fixture from the ``pytest11`` entry point, the
``tdgen.testing`` assertions). Its right assertions pass; its deliberately wrong ones
fail with the explain trace in the message. ``tdgen generate SPEC --out DIR`` works from
the project's folder with the installed command. The venv sees the system's packages
(jinja2, lark, pytest ...) but tdgen itself comes from the wheel.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

TESTS = '''
import pytest
from tdgen.testing import assert_divergent, assert_selects, assert_uniform

IR = """
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %u = add i32 %a, %b
  %d = add i32 %tid, %u
  store i32 %d, ptr addrspace(1) %out
  ret void
}
"""


def test_right(tdgen_target):
    assert tdgen_target.name == "mygpu"
    assert_selects(IR, "@k:%u", "S_ADD_I32", target=tdgen_target)
    assert_selects(IR, "@k:%d", "V_ADD_U32_e64", target=tdgen_target)
    assert_uniform(IR, "@k:%u", target=tdgen_target)
    assert_divergent(IR, "@k:%d", target=tdgen_target)


@pytest.mark.parametrize("tdgen_target", ["amdgpu"], indirect=True)
def test_bundled(tdgen_target):
    assert_selects(IR, "@k:%u", "S_ADD_I32", target=tdgen_target)


def test_wrong_select(tdgen_target):
    assert_selects(IR, "@k:%d", "S_ADD_I32", target=tdgen_target)


def test_wrong_uniform(tdgen_target):
    assert_uniform(IR, "@k:%d", target=tdgen_target)
'''


def _venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def test_wheel_in_a_fresh_venv_runs_an_example_project(tmp_path):
    # the checkout's tracked files, so the build writes nothing into the repository
    src = tmp_path / "src"
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for rel in files:
        if rel.startswith(("tests/", "out/", "bench/", "testkit/")) or not (ROOT / rel).is_file():
            continue
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    wheels = tmp_path / "wheels"
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(src)],
                       capture_output=True, text=True)
    if r.returncode != 0 and "setuptools" in r.stderr + r.stdout and os.environ.get("CI", "") != "true":
        pytest.skip(f"cannot build a wheel here: {r.stderr[-300:]}")
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = wheels.glob("tdgen-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = _venv_python(venv)
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]

    project = tmp_path / "project"
    (project / "mygpu").mkdir(parents=True)
    shutil.copytree(ROOT / "targets" / "amdgpu", project / "mygpu", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    s = project / "mygpu" / "spec.py"
    text = s.read_text()
    assert text.count('"amdgpu",') >= 1
    s.write_text(text.replace('"amdgpu",', '"mygpu",', 1))
    (project / "test_mygpu.py").write_text(TESTS)
    (project / "pytest.ini").write_text("[pytest]\ntdgen_target = mygpu\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # (a cache of its own: nothing from the checkout's runs)

    where = subprocess.run([str(py), "-c", "import tdgen, tdgen.paths as p; print(tdgen.__file__); print(p.TARGETS)"],
                           cwd=project, capture_output=True, text=True, env=env)
    assert where.returncode == 0, where.stderr
    tdgen_file, targets = where.stdout.split()
    assert tdgen_file.startswith(str(venv)), tdgen_file
    assert Path(targets, "amdgpu", "spec.py").is_file()

    r = subprocess.run([str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_mygpu.py"], cwd=project,
                       capture_output=True, text=True, env=env)
    out = r.stdout
    assert r.returncode == 1, out[-3000:] + r.stderr[-2000:]
    assert "2 failed, 2 passed" in out, out[-3000:]
    assert "FAILED test_mygpu.py::test_wrong_select" in out and "FAILED test_mygpu.py::test_wrong_uniform" in out
    # the failure messages are the explain trace
    assert "@k:%d: expected S_ADD_I32, selected opcode V_ADD_U32_e64" in out
    assert "divergent because: t2 <- %tid (source of divergence)" in out
    assert "UniformBinFrag<add> predicate failed: t6 is divergent, via t2 <- %tid" in out
    assert "@k:%d: expected uniform, found divergent:" in out

    # the installed command generates a spec kept outside any checkout
    tdgen_cmd = venv / "bin" / "tdgen"
    r = subprocess.run([str(tdgen_cmd), "generate", "mygpu/spec.py", "--out", "gen"], cwd=project,
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    # (13: s3-legal's lowering tables added AMDGPUISelLoweringActions.inc)
    assert r.stdout.startswith("wrote 13 file(s) for mygpu to gen")
    assert (project / "gen" / "mygpu" / "AMDGPU.td").is_file()
    assert (project / "gen" / "mygpu" / "AMDGPUISelLoweringActions.inc").is_file()
    r = subprocess.run([str(tdgen_cmd), "generate", "--out", "all"], cwd=project, capture_output=True, text=True,
                       env=env)
    assert r.returncode == 0 and "for amdgpu, dslike" in r.stdout, r.stdout + r.stderr

"""Shared g++ runs for the emitter tests.

Parsing LLVM's headers costs g++ several seconds per translation unit, so every
generated C++ file of every target (the shipped ones and tests/edge_targets.py) is
checked in one batch per test session, on all cores, and test_cpp.py /
test_generate_edge.py read their results from it. Nothing is weakened by sharing:
each shipped .cpp is still its own translation unit (so each is proven
self-contained, header included first), with -Wall -Wextra -Werror.

The intrinsic enum header the C++ includes is made by llvm-tblgen-19
(-gen-intrinsic-enums) from the generated Intrinsics<NS>.td, never committed.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

from edge_targets import EDGE_TARGETS
from llvm_tools import LLVM_INCLUDE, require, require_llvm_headers
from tdgen import emit, emit_td
from tdgen.spec import list_targets, load_target

SHIPPED = tuple(sorted(list_targets()))
LLVM_LIB = Path("/usr/lib/llvm-19/lib")
# -Wmissing-declarations: every function the generated C++ defines is declared in its
# generated header (usable from the rest of a backend).
WARNINGS = ("-Wall", "-Wextra", "-Werror", "-Wmissing-declarations")


def gxx() -> str:
    path = shutil.which("g++")
    if path is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but g++ not found")
        pytest.skip("g++ not found (apt-get install -y g++)")
    return path


def build_driver(driver: Path, include_dir: Path) -> Path:
    """Compile and link a test driver (which includes generated C++) against
    libLLVM-19; returns the executable."""
    gxx_path = gxx()
    if not (LLVM_LIB / "libLLVM-19.so").exists():
        msg = f"{LLVM_LIB}/libLLVM-19.so not found (apt-get install -y llvm-19-dev)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {msg}")
        pytest.skip(msg)
    exe = driver.with_suffix("")
    r = subprocess.run(
        [gxx_path, "-std=c++17", "-O0", *WARNINGS, "-isystem", str(LLVM_INCLUDE),
         "-I", str(include_dir), str(driver), "-o", str(exe),
         f"-L{LLVM_LIB}", "-lLLVM-19", f"-Wl,-rpath,{LLVM_LIB}"],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    return exe


def write_target(folder: Path, name: str, target) -> Path:
    """Generated files of ``target`` under folder/name, plus the tblgen enum header."""
    tblgen = require("llvm-tblgen-19")
    require_llvm_headers()
    for rel, text in emit.emit_target(name, target).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    lay = emit_td.layout(target)
    d = folder / name
    if target.intrinsics:  # without intrinsics tblgen makes no header for the prefix
        r = subprocess.run(
            [tblgen, "-I", str(LLVM_INCLUDE), "-gen-intrinsic-enums",
             f"-intrinsic-prefix={lay.intrinsic_prefix}", str(d / lay.intrinsics_td),
             "-o", str(d / lay.enum_header)],
            capture_output=True, text=True, timeout=120,
        )
        assert r.returncode == 0, r.stderr
    return d


def syntax_check(source: Path, include_dirs: list[Path]) -> list[str]:
    """The g++ command that checks one translation unit."""
    inc = [f"-I{d}" for d in include_dirs]
    return [gxx(), "-std=c++17", "-fsyntax-only", *WARNINGS, "-isystem", str(LLVM_INCLUDE),
            *inc, "-x", "c++", str(source)]


@dataclass(frozen=True)
class Result:
    source: Path
    returncode: int
    stderr: str


@dataclass(frozen=True)
class Batch:
    dirs: dict  # target name -> folder of its generated files
    results: dict  # (target name, file name) -> Result


def unity_source(folder: Path, targets: dict) -> Path:
    """The C++ files of several targets in one translation unit, each target's header
    first (they define distinct names): one compiler run for all edge targets."""
    lines = []
    for name, target in sorted(targets.items()):
        lay = emit_td.layout(target)
        lines += [f'#include "{name}/{src}"' for src in (
            lay.isel_header, lay.isel_source, lay.rewrite_source, lay.divergence_source)]
    unity = folder / "edge_unity.cpp"
    unity.write_text("\n".join(lines) + "\n")
    return unity


@lru_cache(maxsize=None)
def generated() -> dict[str, Path]:
    """Target name -> folder with its generated files and tblgen enum header, for the
    shipped targets and the edge targets (written once per session)."""
    root = Path(tempfile.mkdtemp(prefix="tdgen-cpp-"))
    atexit.register(shutil.rmtree, root, True)
    targets = {name: load_target(name) for name in SHIPPED}
    targets.update({name: build() for name, build in EDGE_TARGETS.items()})
    return {name: write_target(root, name, t) for name, t in sorted(targets.items())}


@lru_cache(maxsize=None)
def batch() -> Batch:
    """Compile every shipped .cpp on its own and all edge targets as one unity file."""
    dirs = generated()
    jobs: dict[tuple[str, str], tuple[Path, list[Path]]] = {}
    for name in SHIPPED:
        for src in sorted(dirs[name].glob("*.cpp")):
            jobs[(name, src.name)] = (src, [dirs[name]])
    edge = {name: build() for name, build in EDGE_TARGETS.items()}
    unity = unity_source(dirs[SHIPPED[0]].parent, edge)
    jobs[("edge", unity.name)] = (unity, [dirs[n] for n in sorted(edge)])

    def run(job: tuple[Path, list[Path]]) -> Result:
        src, inc = job
        r = subprocess.run(syntax_check(src, inc), capture_output=True, text=True, timeout=600)
        return Result(src, r.returncode, r.stderr)

    keys = sorted(jobs)
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = dict(zip(keys, pool.map(run, (jobs[k] for k in keys))))
    return Batch(dirs, results)

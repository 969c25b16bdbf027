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
WARNINGS = ("-Wall", "-Wextra", "-Werror")


def gxx() -> str:
    path = shutil.which("g++")
    if path is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but g++ not found")
        pytest.skip("g++ not found (apt-get install -y g++)")
    return path


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


def syntax_check(source: Path) -> list[str]:
    """The g++ command that checks one translation unit."""
    return [gxx(), "-std=c++17", "-fsyntax-only", *WARNINGS, "-isystem", str(LLVM_INCLUDE),
            "-I", str(source.parent), "-x", "c++", str(source)]


@dataclass(frozen=True)
class Result:
    source: Path
    returncode: int
    stderr: str


@dataclass(frozen=True)
class Batch:
    dirs: dict  # target name -> folder of its generated files
    results: dict  # (target name, file name) -> Result


def unity_source(d: Path, target) -> Path:
    """All C++ files of a target in one translation unit, header first (they define
    distinct names): one compiler run for an edge target instead of four."""
    lay = emit_td.layout(target)
    unity = d / "unity.cpp"
    unity.write_text("".join(
        f'#include "{src}"\n'
        for src in (lay.isel_header, lay.isel_source, lay.rewrite_source, lay.divergence_source)
    ))
    return unity


@lru_cache(maxsize=None)
def batch() -> Batch:
    """Compile every shipped .cpp on its own and each edge target as one unity file."""
    root = Path(tempfile.mkdtemp(prefix="tdgen-cpp-"))
    atexit.register(shutil.rmtree, root, True)
    dirs: dict[str, Path] = {}
    jobs: dict[tuple[str, str], Path] = {}
    for name in SHIPPED:
        d = dirs[name] = write_target(root, name, load_target(name))
        for src in sorted(d.glob("*.cpp")):
            jobs[(name, src.name)] = src
    for name, build in sorted(EDGE_TARGETS.items()):
        target = build()
        d = dirs[name] = write_target(root, name, target)
        jobs[(name, "unity.cpp")] = unity_source(d, target)

    def run(src: Path) -> Result:
        r = subprocess.run(syntax_check(src), capture_output=True, text=True, timeout=600)
        return Result(src, r.returncode, r.stderr)

    keys = sorted(jobs)
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = dict(zip(keys, pool.map(run, (jobs[k] for k in keys))))
    return Batch(dirs, results)

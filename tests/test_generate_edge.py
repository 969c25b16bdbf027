"""Emitter paths the shipped targets do not reach (tests/edge_targets.py): a target with
no target nodes, lowerings, rewrites or glob rules, and one whose rewrites need overload
types and constant operands. Both must still give .td that llvm-tblgen-19 accepts and
C++ that g++ accepts."""

from __future__ import annotations

import subprocess

import pytest

from cpp_tools import batch, generated
from edge_targets import EDGE_TARGETS
from llvm_tools import LLVM_INCLUDE, require
from tdgen import emit_td


def _run(cmd: list[str]) -> None:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stderr == "", f"{' '.join(cmd)}\n{r.stderr}"


@pytest.mark.parametrize("name", sorted(EDGE_TARGETS))
def test_td_accepted(name):
    """-gen-intrinsic-enums ran when the files were written (cpp_tools.write_target)."""
    target = EDGE_TARGETS[name]()
    d = generated()[name]
    exe = require("llvm-tblgen-19")
    lay = emit_td.layout(target)
    inc = ["-I", str(LLVM_INCLUDE), "-I", str(d)]
    assert (d / lay.enum_header).exists() == bool(target.intrinsics)
    _run([exe, *inc, "-gen-intrinsic-impl", str(d / lay.intrinsics_td), "-o", "/dev/null"])
    for backend in ("-gen-dag-isel", "-gen-instr-info", "-gen-register-info"):
        _run([exe, *inc, backend, str(d / lay.main_td), "-o", "/dev/null"])


def test_cpp_compiles():
    """All C++ files of all edge targets in one translation unit, each header first."""
    r = batch().results[("edge", "edge_unity.cpp")]
    assert r.returncode == 0, r.stderr

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


def test_register_tuples_have_their_sub_registers():
    """-gen-register-info (the oracle) sees each pair register built from its two
    halves at sub0/sub1, with 32-bit sub-register indices at offsets 0 and 32."""
    target = EDGE_TARGETS["ovl"]()
    d = generated()["ovl"]
    exe = require("llvm-tblgen-19")
    lay = emit_td.layout(target)
    inc = ["-I", str(LLVM_INCLUDE), "-I", str(d)]
    r = subprocess.run([exe, *inc, "-print-records", str(d / lay.main_td)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    for name, halves in (("V0_V1", "[V0, V1]"), ("V2_V3", "[V2, V3]")):
        block = r.stdout.split(f"\ndef {name} {{", 1)[1].split("\n}", 1)[0]
        assert f"list<Register> SubRegs = {halves};" in block
        assert "list<SubRegIndex> SubRegIndices = [sub0, sub1];" in block
    for index, offset in (("sub0", 0), ("sub1", 32)):
        block = r.stdout.split(f"\ndef {index} {{", 1)[1].split("\n}", 1)[0]
        assert "int Size = 32;" in block and f"int Offset = {offset};" in block
    r = subprocess.run([exe, *inc, "-gen-register-info", str(d / lay.main_td)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "VReg_64RegClassID" in r.stdout and "sub1" in r.stdout

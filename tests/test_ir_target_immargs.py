"""A target's intrinsic tables in the IR reader: calls of AMDGPU intrinsics pass literals for
the parameters LLVM's tables mark ``ImmArg`` (targets/amdgpu/intrinsic_immargs.py, handed
over as ``TargetHooks.intrinsic_immargs``), whatever the declaration in the file says, in
every command that reads IR with a target and in the Python API; opt-19 is the oracle.
Golden cases: tests/golden/ir/fail_target/<target>/*.ll (see its README.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from llvm_tools import require
from tdgen.errors import TdgenError

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "ir" / "fail_target"
GOLDEN_FILES = sorted(GOLDEN.glob("*/*.ll"))
P = "amdgcn"  # (LLVM's name prefix of AMDGPU's intrinsics)


def tdgen(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "tdgen", *args], capture_output=True, text=True, cwd=ROOT, env=env)


def opt_rejects(text: str, tmp_path: Path) -> str:
    """opt-19's verifier message for ``text`` (the test fails if opt accepts it)."""
    f = tmp_path / "in.ll"
    f.write_text(text)
    r = subprocess.run([require("opt-19"), "-passes=verify", "-disable-output", str(f)], capture_output=True, text=True)
    assert r.returncode != 0, f"opt-19 accepts:\n{text}"
    return r.stderr


def opt_accepts(text: str, tmp_path: Path) -> None:
    f = tmp_path / "in.ll"
    f.write_text(text)
    r = subprocess.run([require("opt-19"), "-passes=verify", "-disable-output", str(f)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# (intrinsic, its declaration without immarg, the call's arguments with {} at the immarg position, position)
CASES = [
    (f"llvm.{P}.update.dpp.i32", "i32 (i32, i32, i32, i32, i32, i1)",
     ["i32 0", "i32 %x", "i32 {}", "i32 15", "i32 15", "i1 false"], 2),
    (f"llvm.{P}.update.dpp.i32", "i32 (i32, i32, i32, i32, i32, i1)",
     ["i32 0", "i32 %x", "i32 1", "i32 15", "i32 15", "i1 {}"], 5),
    (f"llvm.{P}.mov.dpp.i32", "i32 (i32, i32, i32, i32, i1)", ["i32 %x", "i32 1", "i32 {}", "i32 15", "i1 false"], 2),
    (f"llvm.{P}.mov.dpp.i32", "i32 (i32, i32, i32, i32, i1)", ["i32 %x", "i32 {}", "i32 15", "i32 15", "i1 false"], 1),
    (f"llvm.{P}.ds.swizzle", "i32 (i32, i32)", ["i32 %x", "i32 {}"], 1),
]


def kernel(name: str, sig: str, args: list[str], value: str) -> str:
    ret, params = sig.split(" ", 1)
    call = ", ".join(a.format(value) for a in args)
    reg = {"%r": "\n  %r = add i32 %x, 1", "%b": "\n  %b = icmp eq i32 %x, 0"}.get(value, "")
    return (f"define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %x) {{{reg}\n"
            f"  %v = call {ret} @{name}({call})\n"
            f"  store i32 %v, ptr addrspace(1) %out\n  ret void\n}}\n\n"
            f"declare {ret} @{name}{params}\n")


def _bad(args: list[str], pos: int) -> list[str]:
    return ["poison", "%b" if args[pos].startswith("i1") else "%r"]


def _amdgpu_table() -> str:
    from targets.amdgpu.intrinsic_immargs import TABLE

    return TABLE


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0].split('.', 2)[2]}-{c[3] + 1}" for c in CASES])
def test_non_literal_immarg_is_refused_as_opt_refuses_it(case, tmp_path):
    from patterns.ir import parse_module

    name, sig, args, pos = case
    for value in _bad(args, pos):
        text = kernel(name, sig, args, value)
        with pytest.raises(TdgenError) as ei:
            parse_module(text, "k.ll", _amdgpu_table())
        assert ei.value.format() == (f"k.ll:{3 if value.startswith('%') else 2}:3: expected an integer or "
                                     f"floating-point literal as argument {pos + 1} of @{name} (immarg), found {value}")
        parse_module(text, "k.ll")  # (without the target's table the declaration is all there is)
        assert "immarg operand has non-immediate parameter" in opt_rejects(text, tmp_path)
    # a literal there: both accept
    ok = kernel(name, sig, args, "true" if args[pos].startswith("i1") else "7")
    parse_module(ok, "k.ll", _amdgpu_table())
    opt_accepts(ok, tmp_path)


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=[f"{p.parent.name}-{p.stem}" for p in GOLDEN_FILES])
def test_golden_target_failures(path):
    rel = path.relative_to(ROOT)
    r = tdgen("divergence", str(rel), "--target", path.parent.name)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert r.stderr == path.with_suffix(".err").read_text()


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=[f"{p.parent.name}-{p.stem}" for p in GOLDEN_FILES])
def test_golden_target_failures_rejected_by_opt(path):
    r = subprocess.run([require("opt-19"), "-passes=verify", "-disable-output", str(path)], capture_output=True,
                       text=True)
    assert r.returncode != 0, f"opt-19 accepts {path.name}"
    assert "immarg operand has non-immediate parameter" in r.stderr


# (declaration, call, whether opt-19 accepts): the tables decide for the intrinsics LLVM
# knows, the declaration for any other name
KNOWN = [
    # not overloaded: a type suffix makes another name, whose declaration counts
    (f"declare void @llvm.{P}.s.sleep.i32(i32)", f"call void @llvm.{P}.s.sleep.i32(i32 %x)", True),
    (f"declare void @llvm.{P}.s.sleep(i32)", f"call void @llvm.{P}.s.sleep(i32 %x)", False),
    (f"declare void @llvm.{P}.s.sleep.i32(i32 immarg)", f"call void @llvm.{P}.s.sleep.i32(i32 %x)", False),
    # known without immarg parameters: the declared immarg is dropped
    (f"declare i32 @llvm.{P}.readlane.i32(i32, i32 immarg)", f"%r = call i32 @llvm.{P}.readlane.i32(i32 %x, i32 %x)",
     True),
    (f"declare i32 @llvm.{P}.readlane(i32, i32 immarg)", f"%r = call i32 @llvm.{P}.readlane(i32 %x, i32 %x)", True),
    # not an intrinsic of the tables: the declaration counts
    (f"declare i32 @llvm.{P}.no.such(i32 immarg)", f"%r = call i32 @llvm.{P}.no.such(i32 %x)", False),
    (f"declare i32 @llvm.{P}.no.such(i32)", f"%r = call i32 @llvm.{P}.no.such(i32 %x)", True),
]


@pytest.mark.parametrize("case", KNOWN, ids=[f"{i}-{c[1].split('@')[1].split('(')[0]}" for i, c in enumerate(KNOWN)])
def test_known_intrinsics_take_the_tables_attributes(case, tmp_path):
    from patterns.ir import parse_module

    decl, call, accepted = case
    text = f"define void @f(i32 %x) {{\n  {call}\n  ret void\n}}\n\n{decl}\n"
    if accepted:
        parse_module(text, "k.ll", _amdgpu_table())
        opt_accepts(text, tmp_path)
    else:
        with pytest.raises(TdgenError):
            parse_module(text, "k.ll", _amdgpu_table())
        assert "immarg operand has non-immediate parameter" in opt_rejects(text, tmp_path)


def test_golden_target_files_need_the_table():
    from patterns.ir import parse_module

    assert len(GOLDEN_FILES) >= 3
    for p in GOLDEN_FILES:
        parse_module(p.read_text(), str(p))  # accepted without the target's table


@pytest.mark.parametrize("command", [["isel"], ["explain", "--value", "%v"], ["run"], ["check-run", "--trials", "1"],
                                     ["divergence", "-S"]])
def test_every_command_reading_ir_with_a_target_refuses_it(command):
    path = GOLDEN / "amdgpu" / "update_dpp_poison.ll"
    rel = path.relative_to(ROOT)
    r = tdgen(command[0], str(rel), "--target", "amdgpu", *command[1:])
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr == path.with_suffix(".err").read_text()


def test_the_python_api_refuses_it():
    from tdgen import api

    path = GOLDEN / "amdgpu" / "update_dpp_poison.ll"
    want = path.with_suffix(".err").read_text().strip().split(": ", 1)[1]
    for call in (lambda: api.analyze(path, "amdgpu"), lambda: api.select(path, "amdgpu"),
                 lambda: api.explain(path, "amdgpu", "%v"), lambda: api.run(path, "amdgpu"),
                 lambda: api.check_run(path, "amdgpu", trials=1), lambda: api.analyze(path.read_text(), "amdgpu")):
        with pytest.raises(TdgenError) as ei:
            call()
        assert ei.value.format().endswith(want)


def test_a_change_of_the_table_gives_new_cached_facts(tmp_path):
    """The target cache's key covers the table file (every *.py of the target folder)."""
    from tdgen.target_cache import fingerprint

    folder = tmp_path / "amdgpu"
    shutil.copytree(ROOT / "targets" / "amdgpu", folder, ignore=shutil.ignore_patterns("__pycache__"))
    before = fingerprint(folder, derived=True)
    f = folder / "intrinsic_immargs.py"
    text = f.read_text()
    assert f"{P}.ds.swizzle:1;" in text
    f.write_text(text.replace(f"{P}.ds.swizzle:1;", f"{P}.ds.swizzle:0,1;"))
    assert fingerprint(folder, derived=True) != before


def test_cached_facts_and_views_carry_the_table():
    from tdgen.commands.common import load_isel_target
    from tdgen.commands.divergence import load_target_facts

    from patterns.ir.intrinsic_immargs import immarg_positions, target_immargs

    facts = load_target_facts("amdgpu")
    assert facts.intrinsic_immargs == _amdgpu_table()
    assert target_immargs(load_isel_target("amdgpu")) == _amdgpu_table()
    assert immarg_positions(f"llvm.{P}.update.dpp.i32", facts.intrinsic_immargs) == (2, 3, 4, 5)

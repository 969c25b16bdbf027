"""SSA rules and LLVM's type limits: invalid IR that opt-19 rejects is an error here too
(exit 2, one message per violation, path:line:col), and deep nesting that opt-19 accepts
is accepted."""

from __future__ import annotations

import subprocess
import sys

import pytest

from llvm_tools import require

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent

BAD = {
    "use_not_dominated": (
        "define void @f(i1 %c, i32 %x) {\nentry:\n  %a = add i32 %z, 1\n  br label %next\n"
        "next:\n  %z = add i32 %x, 2\n  ret void\n}\n",
        "bad.ll:3:3: expected a value whose definition dominates its use, found %z, "
        "defined in %next which does not dominate %entry",
    ),
    "self_reference": (
        "define void @f(i32 %x) {\nentry:\n  %y = add i32 %x, %y\n  ret void\n}\n",
        "bad.ll:3:3: expected a value defined before its use, found %y used before its definition",
    ),
    "phi_from_non_predecessor": (
        "define void @f() {\nentry:\n  %y = phi i32 [ 0, %entry ]\n  ret void\n}\n",
        "bad.ll:3:3: expected a predecessor of %entry as incoming block, found %entry",
    ),
    "phi_value_not_available": (
        "define void @f(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\na:\n  %v = add i32 1, 2\n"
        "  br label %j\nb:\n  br label %j\nj:\n  %p = phi i32 [ %v, %a ], [ %v, %b ]\n  ret void\n}\n",
        "bad.ll:10:3: expected a value available at the end of %b, found %v, defined in %a "
        "which does not dominate it",
    ),
    "int_width_zero": (
        "define i0 @f() {\n  ret i0 0\n}\n",
        "bad.ll:1:8: expected an integer width from 1 to 8388608 bits, found 'i0'",
    ),
    "int_width_too_large": (
        "define i8388609 @f() {\n  ret i8388609 0\n}\n",
        "bad.ll:1:8: expected an integer width from 1 to 8388608 bits, found 'i8388609'",
    ),
    "vector_length_zero": (
        "define <0 x i32> @f() {\n  ret <0 x i32> zeroinitializer\n}\n",
        "bad.ll:1:9: expected a vector length from 1 to 4294967295, found '0'",
    ),
}


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdgen", *argv], capture_output=True, text=True, cwd=ROOT)


@pytest.mark.parametrize("name", sorted(BAD))
@pytest.mark.parametrize("cmd", ["divergence", "isel"])
def test_invalid_ir_is_rejected_like_opt(name, cmd, tmp_path):
    text, message = BAD[name]
    f = tmp_path / "bad.ll"
    f.write_text(text)
    args = [cmd, str(f)] + (["--target", "amdgpu"] if cmd == "isel" else [])
    r = _run(*args)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == str(tmp_path / message)
    opt = require("opt-19")
    o = subprocess.run([opt, "-disable-output", str(f)], capture_output=True, text=True)
    assert o.returncode != 0, f"opt-19 accepts {name}: the case is not invalid IR"


def test_all_violations_of_a_file_are_reported_together(tmp_path):
    f = tmp_path / "bad.ll"
    f.write_text("define void @f(i32 %x) {\nentry:\n  %y = add i32 %x, %y\n  %w = add i32 %w, 1\n  ret void\n}\n")
    r = _run("divergence", str(f))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"{f}:3:3: expected a value defined before its use, found %y used before its definition",
        f"{f}:4:3: expected a value defined before its use, found %w used before its definition",
    ]


def _nested_gep(depth: int) -> str:
    expr = "ptr @g"
    for _ in range(depth):
        expr = f"ptr getelementptr (i8, {expr}, i64 1)"
    return f"@g = global i8 0\ndefine ptr @f() {{\n  ret {expr}\n}}\n"


def _nested_struct(depth: int) -> str:
    ty = "i32"
    for _ in range(depth):
        ty = "{ " + ty + " }"
    return f"define void @f(ptr %p) {{\n  %v = load {ty}, ptr %p\n  ret void\n}}\n"


@pytest.mark.parametrize("make", [_nested_gep, _nested_struct], ids=["constant_expr", "struct_type"])
def test_nesting_opt_accepts_is_accepted(make, tmp_path):
    f = tmp_path / "deep.ll"
    f.write_text(make(400))
    opt = require("opt-19")
    assert subprocess.run([opt, "-disable-output", str(f)], capture_output=True).returncode == 0
    for args in (["divergence", str(f)], ["isel", str(f), "--target", "amdgpu"]):
        r = _run(*args)
        if make is _nested_struct and args[0] == "isel":  # aggregates: refused by the selection, by name
            assert r.returncode == 2 and r.stderr.rstrip().endswith("(not modeled)"), r.stderr[-2000:]
            continue
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]


def _swap_operands(text: str, rng, tries: int):
    """Variants of ``text`` with one instruction operand renamed to another value of the
    same type from anywhere in the function (so some uses are no longer dominated)."""
    import re

    from patterns.ir import parse_module
    from patterns.ir.function import Instruction

    mod = parse_module(text, "g.ll")
    lines = text.split("\n")
    for _ in range(tries):
        fn = rng.choice([f for f in mod.functions if f.blocks])
        insts = [i for b in fn.blocks for i in b.instructions]
        user = rng.choice(insts)
        ops = [v for v in user.operands if v.__class__ is Instruction]
        if not ops:
            continue
        old = rng.choice(ops)
        new = rng.choice([i for i in insts if i.type == old.type and i.name is not None])
        ln = user.span.line - 1
        line = re.sub(r"%" + re.escape(old.name) + r"(?=[,\s\]]|$)", "%" + new.name, lines[ln], count=1)
        yield "\n".join(lines[:ln] + [line] + lines[ln + 1:])


def test_reader_dominance_agrees_with_opt():
    """Operand swaps in generated kernels (irreducible cycles, unreachable blocks, phis):
    the reader (with the verifier) rejects a variant exactly when opt-19 does."""
    import random
    import subprocess

    from patterns.ir import parse_module
    from testkit.divergence_gen import generate_cfg_module
    from testkit.irgen import generate_kernel
    from tdgen.errors import TdgenError

    opt = require("opt-19")
    rng = random.Random(7)
    outcomes = {True: 0, False: 0}
    bases = [generate_kernel(seed, 60) for seed in range(6)]
    bases += [generate_cfg_module([seed], 4 + seed % 10) for seed in range(6)]
    for base in bases:
        for text in _swap_operands(base, rng, 8):
            try:
                parse_module(text, "g.ll")
                ours = True
            except TdgenError:
                ours = False
            r = subprocess.run([opt, "-passes=verify", "-disable-output", "-"], input=text, capture_output=True,
                               text=True)
            assert ours == (r.returncode == 0), (text, r.stderr[:300])
            outcomes[ours] += 1
    # both verdicts occur often enough for the comparison to mean something
    assert outcomes[True] >= 10 and outcomes[False] >= 10, outcomes

"""Fuzzing of pattern strings and command-line arguments (hypothesis and seeded mutations).

- Pattern strings (``tdgen.dag_parse.parse_pattern``, the reader of every pattern in a
  spec), alone and inside a spec's instruction (``check_target``): any text either
  parses or raises one TdgenError whose every line reads ``path:line:col: ...``; no
  other exception; bounded time, also for deeply nested and 10 MB inputs.
- Command lines (``tdgen.cli.main`` in-process): random argument lists over every
  command (names, paths that are folders, devices, missing, too long or full of odd
  characters; numbers; option spellings) exit 0, 1 or 2, never with a traceback; exit 2
  comes with a message on stderr; ``generate --out DIR`` writes nothing when it fails.

(The IR and MIR readers are fuzzed by their own engineers' tests.) CI runs ``CI_COUNT``
inputs of each; ``TDGEN_FUZZ_COUNT=N`` runs N.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from llvm_tools import require
from testkit.hangguard import no_hang
from tdgen import cli
from tdgen.commands import generate as generate_command
from tdgen.dag_parse import parse_pattern
from tdgen.errors import Span, TdgenError
from tdgen.spec import load_target

ROOT = Path(__file__).resolve().parent.parent
COUNT = int(os.environ.get("TDGEN_FUZZ_COUNT", "0") or 0)
CI_COUNT = 300
N = COUNT or CI_COUNT
SEED = os.environ.get("TDGEN_FUZZ_SEED", "24")
_LOCATED = re.compile(r"^[^:\n]+:\d+:\d+: .+$")


def _patterns() -> list[str]:
    out = []
    for name in ("amdgpu", "dslike"):
        t = load_target(name)
        for p in t.selection_patterns():
            out.append(p.src.render())
        out += [f.fragment for f in t.frags]
    return sorted(set(out))


def _check_pattern(text: str, limit: float = 60.0) -> None:
    """``text`` parses or raises one located TdgenError, returning within ``limit``
    seconds (a generous timeout: it proves no hang, it does not time the parser)."""
    with no_hang(limit, f"parse_pattern on {len(text)} characters"):
        try:
            parse_pattern(text, Span("<pattern>", 1, 1), record="R", field="pattern")
        except TdgenError as e:
            for line in e.format().splitlines():
                assert _LOCATED.match(line), line


def test_seeded_pattern_mutations_never_crash():
    rng = random.Random(f"{SEED}-patterns")
    base = _patterns()
    alphabet = "()$:,<> \n\t0123456789-abcxyz_i32[]{}\"'\x00é"
    for _ in range(N):
        chars = list(rng.choice(base))
        for _ in range(rng.randint(1, 4)):
            k = rng.randrange(len(chars) + 1)
            r = rng.random()
            if r < 0.4 and chars:
                del chars[min(k, len(chars) - 1)]
            elif r < 0.8:
                chars.insert(k, rng.choice(alphabet))
            else:
                chars[k:k] = list(rng.choice(base))
        _check_pattern("".join(chars))


@settings(max_examples=N, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=120))
@example("01")  # (found by this test: a leading zero made int(text, 0) raise)
def test_any_pattern_text_parses_or_is_located(text):
    _check_pattern(text)


INT_TEXTS = ["010", "-007", "0x1f", "00", "0", "-0x10", "0xFFFFFFFFFFFFFFFF", "18446744073709551615",
             "18446744073709551616", "0x1FFFFFFFFFFFFFFFF", "-9223372036854775808", "-9223372036854775809",
             "9223372036854775808", "0x8000000000000000"]


@pytest.mark.parametrize("text", INT_TEXTS)
def test_integers_read_like_tablegen(text, tmp_path):
    """An integer in a pattern has the value llvm-tblgen-19 gives the same text, or is
    rejected (with its position) when llvm-tblgen-19 rejects it."""
    td = tmp_path / "int.td"
    td.write_text(f"def A {{\n  int x = {text};\n}}\n")
    r = subprocess.run([require("llvm-tblgen-19"), str(td)], capture_output=True, text=True, timeout=60)
    theirs = re.search(r"int x = (-?\d+);", r.stdout) if r.returncode == 0 else None
    try:
        node = parse_pattern(f"(add {text})", Span("<pattern>", 1, 1))
    except TdgenError as e:
        assert theirs is None, (text, e.format())
        assert _LOCATED.match(e.format()), e.format()
        return
    assert theirs is not None, (text, r.stderr)
    assert node.args[0].value == int(theirs.group(1))


def test_deep_and_huge_patterns_are_bounded():
    _check_pattern("(" * 100_000 + "add i32:$a, i32:$b" + ")" * 100_000)
    _check_pattern("(add " * 20_000 + "i32:$a" + ")" * 20_000)
    _check_pattern("(add i32:$a, " + "#" * (10 * 1024 * 1024) + ")")
    # a long valid one: 100 KB in CI, 10 MB in the long run (about two minutes)
    size = 10 * 1024 * 1024 if COUNT else 100 * 1024
    _check_pattern("(add i32:$a, " + "i32:$b, " * (size // 8) + "i32:$c)", limit=900)


# ------------------------------------------------------------------ command lines

COMMANDS = ["list", "generate", "divergence", "isel", "explain", "lint", "shuffle", "verify-shuffles"]
WORDS = ["amdgpu", "dslike", "--target", "--out", "--check", "--format", "json", "llvm", "mir", "--value", "%x",
         "--why", "--wave", "32", "64", "16", "--width", "--operand", "--exec", "--values", "idx", "up", "bfly",
         "-1", "0x", "0xffffffff", "--lowered", "--plain", "--", "-", "", " ", "a" * 300, "x\x01y", "é",
         "/dev/null", "/", ".", "..", "tests", "no/such/file.ll", "--bogus", "-h"]


def _paths(tmp: Path) -> list[str]:
    ll = sorted((ROOT / "tests" / "golden" / "ir" / "pass").glob("*.ll"))[:2]
    return [str(p) for p in ll] + [str(tmp), str(tmp / "missing.ll"), str(tmp / ("b" * 260))]


def _run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """``tdgen argv`` in-process with ``stdin`` as its standard input (``-`` reads it)."""
    out, err = io.StringIO(), io.StringIO()
    real_stdin, sys.stdin = sys.stdin, io.StringIO(stdin)
    with contextlib.ExitStack() as stack:
        stack.callback(setattr, sys, "stdin", real_stdin)
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        try:
            rc = cli.main(argv)
        except SystemExit as e:  # argparse's own usage errors
            rc = e.code if isinstance(e.code, int) else 2
    return rc, out.getvalue(), err.getvalue()


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_random_command_lines_never_crash(tmp_path, monkeypatch):
    monkeypatch.setenv("TDGEN_NO_CACHE", "1")
    # relative words ("llvm", "tests") and a generate without --out write below tmp_path,
    # never into the checkout
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setattr(generate_command, "OUT", tmp_path / "default-out")
    rng = random.Random(f"{SEED}-cli")
    paths = _paths(tmp_path)
    out_dir = tmp_path / "out"
    stdins = ["", "x\x00", "define i32 @f(i32 %x) {\n  ret i32 %x\n}\n"] + [Path(p).read_text() for p in paths[:2]]
    runs = COUNT or 30  # (each run may load targets: fewer in CI than the pure-parser fuzzers)
    for _ in range(runs):
        cmd = rng.choice(COMMANDS)
        argv = [cmd] + [rng.choice(WORDS + paths) for _ in range(rng.randint(0, 5))]
        if cmd == "generate" and rng.random() < 0.7:
            argv = ["generate", "--out", str(out_dir)] + argv[1:]
        if "-h" in argv or "verify-shuffles" in argv and "--wave" not in argv:
            continue  # (help text; the full enumeration takes seconds)
        before = _tree(out_dir) if out_dir.exists() else {}
        stdin = rng.choice(stdins)
        rc, out, err = _run(argv, stdin)
        assert rc in (0, 1, 2), (argv, rc, err)
        assert "Traceback" not in err, (argv, err)
        if rc == 2:
            assert err.strip(), argv
        if argv[0] == "generate" and rc == 2 and out_dir.exists():
            assert _tree(out_dir) == before, argv
        assert not list(tmp_path.rglob(".tdgen-tmp-*")), argv


@pytest.mark.parametrize("argv", [
    ["divergence", "a" * 300 + ".ll"], ["isel", "a" * 300 + ".ll", "--target", "amdgpu"], ["lint", "a" * 300],
    ["list", "a" * 300], ["shuffle", "idx", "--operand", "1", "--target", "a" * 300, "--format", "json"],
    ["generate", "--out", "/tmp/" + "a" * 300], ["generate", "--out", "/tmp/tdgen-unused", "/tmp/" + "b" * 260],
    ["divergence", "/dev/null"], ["isel", "/dev/null", "--target", "amdgpu"],
    ["explain", "a" * 300 + ".ll", "--target", "amdgpu", "--value", "%x"],
])
def test_names_the_system_cannot_take_are_one_clear_error(argv):
    rc, out, err = _run(argv)
    assert rc == 2 and out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "found" in err and ("path component of" in err or "character device" in err)


@pytest.mark.parametrize("argv", [
    ["shuffle", "idx", "--operand", "x" * (10 * 1024 * 1024), "--target", "amdgpu"],
    ["list", "/".join(["d"] * 100_000)],
    ["divergence", "(" * 100_000 + ".ll"],
    ["isel", "-", "--target", "amdgpu", "--value", "%" + "x" * (10 * 1024 * 1024)],
    ["generate", "--out", "/tmp/" + "/".join(["d"] * 1000), "x" * (10 * 1024 * 1024)],
])
def test_huge_and_deep_arguments_are_one_error(argv, tmp_path, monkeypatch):
    """A 10 MB argument or a path 100,000 components deep: one short error on stderr
    (exit 2; the value shown by its ends and length), nothing on stdout, within a
    generous timeout."""
    monkeypatch.chdir(tmp_path)
    with no_hang(120, f"tdgen {argv[0]}"):
        rc, out, err = _run(argv, stdin="define void @f() {\n  ret void\n}\n")
    assert rc == 2 and out == "", (rc, out[:200])
    assert err.strip() and "Traceback" not in err
    assert len(err.splitlines()) == 1 and len(err) < 1000, err[:300]

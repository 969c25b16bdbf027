"""The command line: did-you-mean, stdin everywhere, -t, and a start-up that imports only what it needs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

KERNEL = """define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %u = add i32 %a, %b
  store i32 %u, ptr addrspace(1) %out
  ret void
}
"""


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdgen", *args], cwd=ROOT, input=stdin, capture_output=True,
                          text=True)


def test_mistyped_command_and_option_get_did_you_mean():
    r = _cli("isle", "k.ll")
    assert r.returncode == 2 and "invalid choice: 'isle'" in r.stderr and "did you mean 'isel'?" in r.stderr
    r = _cli("isel", "k.ll", "--tagret", "amdgpu")
    assert r.returncode == 2
    assert r.stderr == ("tdgen isel: error: unrecognized option '--tagret'; did you mean '--target'? "
                        "(see 'tdgen isel --help')\n")
    r = _cli("coverage", "amdgpu", "k.ll", "--fromat", "json")
    assert r.returncode == 2 and "did you mean '--format'?" in r.stderr
    assert _cli("isel", "-", "--tar", "amdgpu", stdin=KERNEL).returncode == 0  # a unique prefix is fine


@pytest.mark.parametrize("argv", [
    ["isel", "-", "-t", "amdgpu"],
    ["explain", "-", "-t", "amdgpu", "--value", "%u"],
    ["divergence", "-", "-t", "amdgpu"],
    ["coverage", "amdgpu", "-"],
])
def test_dash_reads_stdin(argv, tmp_path):
    f = tmp_path / "k.ll"
    f.write_text(KERNEL)
    piped = _cli(*argv, stdin=KERNEL)
    named = _cli(*[str(f) if a == "-" else a for a in argv])
    assert piped.returncode == 0 == named.returncode, piped.stderr
    assert piped.stdout.replace("<stdin>", "F") == named.stdout.replace(str(f), "F")


def test_target_required_or_default_stated_in_help():
    for cmd in ("isel", "explain", "lint", "coverage", "gen-tests"):
        r = _cli(cmd, "--help")
        words = r.stdout.replace(",", " ").split()
        assert r.returncode == 0 and "-t" in words and "--target" in words, cmd
    for cmd in ("divergence", "shuffle"):
        r = _cli(cmd, "--help")
        assert "(default amdgpu)" in " ".join(r.stdout.split()), cmd
    r = _cli("lint")
    assert r.returncode == 2 and "expected a target name or spec path (positional or -t)" in r.stderr


@pytest.mark.parametrize("argv", [["--help"], ["isel", "--help"], ["diff", "--help"], ["isel", "--bad"]])
def test_help_and_argument_errors_import_no_engine(argv):
    """What makes ``--help`` fast: neither the engine nor the spec model nor other commands."""
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "tdgen", *argv], cwd=ROOT, capture_output=True,
                       text=True)
    mods = {ln.split("|")[-1].strip() for ln in r.stderr.splitlines() if ln.startswith("import time:")}
    heavy = sorted(m for m in mods if m.startswith(("patterns", "tdgen.model", "tdgen.spec", "jinja2", "rich",
                                                      "numpy", "lark")))
    assert heavy == []
    commands = sorted(m for m in mods if m.startswith("tdgen.commands."))
    assert commands == ([] if argv == ["--help"] else [f"tdgen.commands.{argv[0]}"]) or \
        set(commands) <= {f"tdgen.commands.{argv[0]}", "tdgen.commands.common"}


def test_version():
    r = _cli("--version")
    assert r.returncode == 0 and r.stdout.startswith("tdgen ")


def test_readme_commands_run_as_written(tmp_path):
    """The commands of README's "Review diff, coverage, generated tests" section."""
    import re

    from llvm_tools import require

    require("llvm-tblgen-19")
    text = (ROOT / "README.md").read_text()
    section = text.split("## Review diff, coverage, generated tests", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    script = block.replace("/tmp/amdgpu-tests", str(tmp_path / "amdgpu-tests")).replace("python3 ", f"{sys.executable} ")
    r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    # (coverage reads every file gen-tests wrote: the count follows the spec's patterns)
    wrote = re.search(r"wrote (\d+) file\(s\) to ", r.stdout)
    assert wrote and int(wrote.group(1)) > 100, r.stdout[-2000:]
    assert f"pattern(s) fired on {wrote.group(1)} file(s)" in r.stdout
    api = re.search(r"## Python API.*?```sh\n(.*?)```", text, re.S).group(1).replace("python3 ", f"{sys.executable} ")
    r = subprocess.run(["bash", "-e", "-c", api], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.startswith("S_ADD_I32 SReg_32 scalar targets/amdgpu/alu.py:")
    assert "source     %tid" in r.stdout and "MATCHED" in r.stdout


@pytest.mark.parametrize("schema,argv", [
    ("isel", ["isel", "-", "-t", "amdgpu", "--format", "json"]),
    ("divergence", ["divergence", "-", "-t", "amdgpu", "--format", "json"]),
    ("coverage", ["coverage", "amdgpu", "-", "--format", "json"]),
    ("shuffle", ["shuffle", "idx", "--operand", "3", "--width", "8", "--wave", "32", "--lowered", "--format", "json"]),
    ("verify-shuffles", ["verify-shuffles", "--wave", "32", "--format", "json"]),
])
def test_json_output_matches_its_schema(schema, argv):
    import json

    jsonschema = pytest.importorskip("jsonschema")
    r = _cli(*argv, stdin=KERNEL)
    assert r.returncode == 0, r.stderr
    doc = json.loads((ROOT / "schemas" / f"{schema}.schema.json").read_text())
    jsonschema.validate(json.loads(r.stdout), doc)
    bad = json.loads(r.stdout)
    first = {"divergence": "functions", "coverage": "fired", "shuffle": "result", "verify-shuffles": "runs"}
    bad = {"unexpected": bad} if isinstance(bad, list) else {**bad, first[schema]: 1}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, doc)

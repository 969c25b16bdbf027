"""``tdgen divergence``: JSON output and reason chains, --why, bad arguments (exit 2,
one clear message, no traceback), and byte-identical output across PYTHONHASHSEED."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

KERNEL = """\
define amdgpu_kernel void @k(i32 %a, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp slt i32 %tid, 8
  br i1 %c, label %then, label %join
then:
  %t = add i32 %a, 1
  br label %join
join:
  %p = phi i32 [ %t, %then ], [ 0, %entry ]
  %q = add i32 %p, %a
  %u = add i32 %a, 2
  store i32 %q, ptr addrspace(1) %out
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


def run(*args: str) -> tuple[int, str, str]:
    from tdgen.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(args))
        except SystemExit as e:  # argparse usage errors
            rc = int(e.code or 0)
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture()
def kernel(tmp_path):
    p = tmp_path / "k.ll"
    p.write_text(KERNEL)
    return str(p)


def test_json_lists_every_value_with_reasons(kernel):
    rc, out, err = run("divergence", kernel, "--format", "json")
    assert rc == 0, err
    data = json.loads(out)
    (fn,) = data["functions"]
    vals = {v["value"]: v for v in fn["values"] if v["value"]}
    assert {"%a", "%out", "%tid", "%c", "%t", "%p", "%q", "%u"} <= set(vals)
    assert [v["divergent"] for v in (vals["%tid"], vals["%c"], vals["%p"], vals["%q"])] == [True] * 4
    assert [v["divergent"] for v in (vals["%a"], vals["%t"], vals["%u"])] == [False] * 3
    assert vals["%q"]["why"] == ["%tid", "%c", "terminator of block entry", "%p", "%q"]
    assert vals["%q"]["cause"] == {"kind": "data", "value": "%q", "from": "%p", "detail": "uses divergent %p"}
    assert vals["%p"]["cause"]["kind"] == "sync" and vals["%p"]["cause"]["from"] == "terminator of block entry"
    assert vals["%tid"]["cause"]["kind"] == "source" and vals["%tid"]["cause"]["from"] is None
    # following `from` links gives the chain
    by_label = {v["value"]: v for v in fn["values"]}
    link, chain = "%q", []
    while link is not None:
        chain.append(link)
        link = by_label[link]["cause"]["from"]
    assert chain[::-1] == vals["%q"]["why"]
    assert fn["divergent_terminator_blocks"] == ["entry"]
    # the JSON verdicts are the llvm-format marks
    rc, text, _ = run("divergence", kernel)
    for v in fn["values"]:
        if v["kind"] == "instruction":
            line = next(ln for ln in text.splitlines() if ln.endswith("   " + v["text"]))
            assert line.startswith("  DIVERGENT:") == v["divergent"], line


def test_why_prints_the_chain(kernel):
    rc, out, err = run("divergence", kernel, "--why", "%q")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == "@k:%q is divergent:"
    assert [ln.split()[1] for ln in lines[1:]] == ["source", "data", "terminator", "sync", "data"]
    assert "%tid" in lines[1] and "join block join" in lines[4]
    rc, out, _ = run("divergence", kernel, "--why", "@k:%u")
    assert (rc, out) == (0, "@k:%u is uniform\n")


@pytest.mark.parametrize(
    "args,message",
    [
        (["missing.ll"], "missing.ll: field 'FILE': expected a readable LLVM IR file, found no file 'missing.ll'"),
        (["{d}"], "{d}: field 'FILE': expected a readable LLVM IR file, found a directory '{d}'"),
        (["{k}", "--why", "q"],
         "tdgen divergence: field '--why': expected a value like %name or @function:%name, found 'q'"),
        (["{k}", "--why", ""], "tdgen divergence: field '--why': expected a value like %name or @function:%name, found ''"),
        (["{k}", "--why", "%q", "--format", "json"],
         "tdgen divergence: field '--why': expected --why alone (it prints its own text report), found --why with --format"),
        (["{k}", "--why", "%q", "-S"],
         "tdgen divergence: field '--why': expected --why alone (it prints its own text report), found --why with -S"),
        (["{k}", "--why", "%nope"], "field '--why': expected a value defined in any defined function, found '%nope'"),
        (["{k}", "--target", "nosuch"], "nosuch"),
    ],
)
def test_bad_arguments_exit_2(kernel, tmp_path, args, message):
    d = str(tmp_path)
    rc, out, err = run("divergence", *[a.replace("{k}", kernel).replace("{d}", d) for a in args])
    assert rc == 2
    assert message.replace("{d}", d) in err
    assert "Traceback" not in err and out == ""


def test_bad_ir_exit_2(tmp_path):
    p = tmp_path / "bad.ll"
    p.write_text("define amdgpu_kernel void @k() {\nentry:\n  %x = frobnicate i32 1\n  ret void\n}\n")
    rc, out, err = run("divergence", str(p))
    assert rc == 2 and out == ""
    assert err.startswith(f"{p}:3:")
    assert "Traceback" not in err


def test_output_is_deterministic_across_hash_seeds(tmp_path):
    from testkit.divergence_gen import generate_cfg_module

    p = tmp_path / "gen.ll"
    p.write_text(generate_cfg_module(list(range(30)), 14))
    outs = []
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        for fmt in ("llvm", "json"):
            r = subprocess.run([sys.executable, "-m", "tdgen", "divergence", str(p), "--format", fmt],
                               cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
            assert r.returncode == 0, r.stderr
            outs.append(r.stdout)
    assert outs[0] == outs[2] and outs[1] == outs[3]
    assert "DIVERGENT" in outs[0]

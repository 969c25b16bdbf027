"""LLVM's own uniformity tests, run through FileCheck-19 on ``tdgen divergence`` output.

Every corpus file whose MANIFEST status under LLVM 19 is PASS (uniformity/ and the
older copies in older/uniformity/) is run exactly as its RUN lines say, with our command
in place of ``opt-19``; plus the three files LLVM 19 itself fails because of its
join-propagation early stop (issue 137277), which we must pass.
"""

from __future__ import annotations

import contextlib
import io
import shlex
import subprocess

import pytest

from llvm_tools import CORPUS, manifest, require, require_corpus
ISSUE_137277 = ("uniformity/phi_div_branch.ll", "uniformity/phi_div_loop.ll", "uniformity/unstructured-branch.ll")


def _rows():
    if not (CORPUS / "MANIFEST.tsv").exists():
        return [pytest.param(None, id="corpus-absent")]
    out = []
    for row in manifest():
        rel = row["relative_path"]
        if not (rel.startswith("uniformity/") or rel.startswith("older/uniformity/")):
            continue
        if row["status_llvm19"] == "PASS" or rel in ISSUE_137277:
            out.append(pytest.param(row, id=rel))
    return out


def _our_args(opt_part: str, file: str) -> tuple[list[str], bool]:
    """The opt-19 invocation as ``tdgen divergence`` arguments, keeping the file (also
    when given on stdin) and -S; and whether stderr is merged into the checked stream."""
    words = shlex.split(opt_part)
    assert words[0] == "opt-19", opt_part
    args = ["divergence"]
    merged = False
    i = 1
    while i < len(words):
        w = words[i]
        if w in ("-mtriple", "-mcpu", "-march"):
            i += 2
            continue
        if w.startswith(("-mtriple=", "-mcpu=", "-march=", "-passes=", "-disable-output")):
            i += 1
            continue
        if w == "FILE":
            args.append(file)
        elif w == "<":
            pass  # `< FILE`: the file follows
        elif w == "-S":
            args.append("-S")
        elif w == "2>&1":
            merged = True
        else:
            raise AssertionError(f"unexpected opt argument {w!r} in {opt_part!r}")
        i += 1
    return args, merged


def _run_tdgen(args: list[str], merged: bool) -> tuple[int, str]:
    from tdgen.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(args)
    # The analysis text goes to one stream, IR (with -S) to the other: order within
    # each stream is kept, which is all FileCheck sees of opt's output too.
    return rc, out.getvalue() + err.getvalue() if merged else out.getvalue()


@pytest.mark.parametrize("row", _rows())
def test_llvm_uniformity_checks(row):
    require_corpus()
    filecheck = require("FileCheck-19")
    assert row is not None
    path = str(CORPUS / row["relative_path"])
    runs = [r.strip() for r in row["run_command_used"].split(" ; ")]
    assert runs, row
    for run in runs:
        opt_part, fc_part = run.split(" | ", 1)
        fc_words = shlex.split(fc_part)
        assert fc_words[0] == "FileCheck-19"
        fc = " ".join([shlex.quote(filecheck)] + [shlex.quote(path) if w == "FILE" else shlex.quote(w) for w in fc_words[1:]])
        args, merged = _our_args(opt_part, path)
        rc, text = _run_tdgen(args, merged)
        assert rc == 0, f"tdgen {' '.join(args)} exited {rc}"
        r = subprocess.run(["bash", "-c", fc], input=text, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, f"tdgen {' '.join(args)} | {fc}\n{r.stdout}\n{r.stderr}"

"""Generated output is byte-identical across runs and PYTHONHASHSEED values, and holds
nothing machine-specific (no absolute paths, no timestamps)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tdgen.paths import ROOT


def _generate(out: Path, seed: str) -> dict[str, bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=seed)
    r = subprocess.run(
        [sys.executable, "-m", "tdgen", "generate", "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_two_runs_with_different_hash_seeds_are_identical(tmp_path):
    a = _generate(tmp_path / "a", "0")
    b = _generate(tmp_path / "b", "4242")
    assert a, "nothing generated"
    assert sorted(a) == sorted(b)
    differing = [k for k in a if a[k] != b[k]]
    assert differing == []


def test_output_has_no_machine_specific_text(tmp_path):
    files = _generate(tmp_path / "o", "1")
    root = str(ROOT)
    stamp = re.compile(rb"\b(19|20)\d\d-\d\d-\d\d\b|\b\d\d:\d\d:\d\d\b")
    for rel, data in files.items():
        assert root.encode() not in data, f"{rel} contains the absolute checkout path"
        assert str(tmp_path).encode() not in data, f"{rel} contains the output path"
        assert not stamp.search(data), f"{rel} contains a date or time"
        assert data.endswith(b"\n") and not data.endswith(b"\n\n"), f"{rel}: one final newline"
        assert b"\r" not in data and b"\t" not in data, f"{rel}: tabs or CRs"
        assert all(not ln.endswith(b" ") for ln in data.split(b"\n")), f"{rel}: trailing spaces"

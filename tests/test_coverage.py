"""``tdgen coverage``: every pattern of the target is reported, as fired (with a count) or never fired."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

KERNEL = """define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %u = add i32 %a, %b
  %v = add i32 %u, %b
  store i32 %v, ptr addrspace(1) %out
  ret void
}
"""


def test_every_amdgpu_pattern_is_reported(tmp_path):
    from patterns.select.matcher import build_table

    import tdgen

    f = tmp_path / "k.ll"
    f.write_text(KERNEL)
    r = subprocess.run([sys.executable, "-m", "tdgen", "coverage", "amdgpu", str(f), "--format", "json"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    t = tdgen.load_target("amdgpu")
    records = {p.record for p in build_table(t).patterns} | {cs.name for cs in t.custom_selects}
    reported = [row["pattern"] for row in data["fired"] + data["never_fired"]]
    assert sorted(reported) == sorted(records)
    assert [(row["pattern"], row["count"]) for row in data["fired"]] == [("S_ADD_I32", 2)]
    text = subprocess.run([sys.executable, "-m", "tdgen", "coverage", "-t", "amdgpu", "-"], cwd=ROOT, input=KERNEL,
                          capture_output=True, text=True).stdout
    assert text.startswith(f"amdgpu: 1 of {len(records)} pattern(s) fired on 1 file(s)\nfired:\n       2  S_ADD_I32  ")
    assert f"never fired ({len(records) - 1}):" in text


def test_bad_file_is_exit_2(tmp_path):
    f = tmp_path / "bad.ll"
    f.write_text("define void @f() {\n  %x = frob\n}\n")
    r = subprocess.run([sys.executable, "-m", "tdgen", "coverage", "amdgpu", str(f), str(tmp_path / "none.ll")],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    assert f"{f}:2:" in r.stderr and "none.ll" in r.stderr

"""Progress bars: shown on a terminal (stderr a tty), nothing when piped; stdout is the same either way."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

KERNEL = "define amdgpu_kernel void @k(ptr addrspace(1) %o, i32 %a) {\n  %u = add i32 %a, %a\n" \
         "  store i32 %u, ptr addrspace(1) %o\n  ret void\n}\n"


def _run(argv, tty: bool):
    env = {k: v for k, v in os.environ.items() if k != "TDGEN_NO_PROGRESS"}
    if not tty:
        r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, env=env)
        return r.returncode, r.stdout, r.stderr
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=slave, text=True, env=env)
    os.close(slave)
    out, _ = p.communicate()
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    return p.returncode, out, err.decode(errors="replace")


def test_coverage_progress_only_on_a_terminal(tmp_path):
    files = []
    for i in range(3):
        f = tmp_path / f"k{i}.ll"
        f.write_text(KERNEL)
        files.append(str(f))
    argv = [sys.executable, "-m", "tdgen", "coverage", "amdgpu", *files]
    rc_t, out_t, err_t = _run(argv, tty=True)
    rc_p, out_p, err_p = _run(argv, tty=False)
    assert rc_t == rc_p == 0
    assert out_t == out_p
    assert err_p == ""
    assert "coverage" in err_t and "3/3" in err_t

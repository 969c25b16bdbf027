"""Instructions executed by ``tdgen isel`` (callgrind): a speed measure a loaded machine does not disturb.

Run: ``python3 bench/isel_instructions.py [--ops 10000] [--seed 7] [CHECKOUT ...]``. For
each checkout (default: this one) runs ``python -m tdgen isel K.ll --target amdgpu`` on
the same generated kernel (testkit.iselgen) under ``valgrind --tool=callgrind`` and
prints the instructions it executed, its output's digest (the same for every checkout
whose selection is the same) and the ratio to the first checkout. Wall times on a shared
machine moved by 2x within an evening; instruction counts repeat to the last digit
(``PYTHONHASHSEED=0``, byte code compiled first, target cache warmed by an untimed run),
so two versions of a hot module can be compared in one run of a few minutes. Each
checkout runs in the mode its own sources give (``python3 -m patterns.native.build
--status`` in it): build it first to compare compiled modules. Needs valgrind; exits 2
with a message when it is missing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def count(checkout: Path, kernel: Path, out_dir: Path) -> tuple[int, str, str]:
    """(instructions, output digest, mode) of ``tdgen isel`` on ``kernel`` in ``checkout``."""
    import compileall

    for sub in ("tdgen", "patterns", "targets"):
        compileall.compile_dir(str(checkout / sub), quiet=1)
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(checkout))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, "-m", "tdgen", "isel", str(kernel), "--target", "amdgpu"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env, cwd=checkout)  # (warms the target cache)
    mode = subprocess.run([sys.executable, "-m", "patterns.native.build", "--status"], env=env, cwd=checkout,
                          capture_output=True, text=True).stdout.strip()
    cg = out_dir / f"callgrind.{len(list(out_dir.iterdir()))}"
    r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}", "--collect-jumps=no", *cmd],
                       env=env, cwd=checkout, capture_output=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr.decode(errors="replace")[-2000:])
        raise SystemExit(1)
    m = re.search(rb"Collected : (\d+)", r.stderr)
    return int(m.group(1)), hashlib.md5(r.stdout).hexdigest()[:12], mode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkouts", nargs="*", type=Path, help="project folders to compare (default: this one)")
    ap.add_argument("--ops", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.stderr.write("bench/isel_instructions.py: expected valgrind on PATH, found none\n")
        return 2
    sys.path.insert(0, str(ROOT))
    from testkit.iselgen import generate_isel_kernel

    checkouts = [c.resolve() for c in args.checkouts] or [ROOT]
    for c in checkouts:
        if not (c / "tdgen").is_dir():
            sys.stderr.write(f"bench/isel_instructions.py: expected a tdgen checkout, found {c}\n")
            return 2
    with tempfile.TemporaryDirectory(prefix="tdgen-bench-insn-") as tmp:
        kernel = Path(tmp) / "kernel.ll"
        kernel.write_text(generate_isel_kernel(args.seed, args.ops))
        out = Path(tmp) / "cg"
        out.mkdir()
        first = None
        for c in checkouts:
            n, digest, mode = count(c, kernel, out)
            first = first or n
            print(f"{n:>15,d} instructions  {n / first:6.3f}x  output {digest}  {c}  [{mode}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Parse-only speed of the IR front end against opt-19, in the same run.

Generates kernels with patterns/irgen.py (5k and 50k instructions, branches and loops)
and times, best of N runs each:
  - opt-19 -passes=verify -disable-output FILE        (process wall time: parse + verify)
  - tdgen parse, fast path, in-process                (patterns.ir.parse_module)
  - tdgen parse, fast path, as a fresh process        (python startup + imports included)
  - tdgen parse, lark-only path, in-process           (the .lark grammar for every line)
and prints the ratios to opt-19 plus the 5k -> 50k scaling of each.

Usage: python bench/parse_ir.py [--runs N] [--sizes 5000,50000] [--no-lark]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from patterns.ir import parse_module  # noqa: E402
from patterns.irgen import generate_kernel  # noqa: E402


def best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="5000,50000")
    ap.add_argument("--no-lark", action="store_true", help="skip the (slow) lark-only timing")
    args = ap.parse_args()
    opt = shutil.which("opt-19")
    if opt is None:
        print("opt-19 not found (apt-get install -y llvm-19)", file=sys.stderr)
        return 2
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            text = generate_kernel(7, n)
            path = Path(tmp) / f"k{n}.ll"
            path.write_text(text)
            t_opt = best(lambda: subprocess.run([opt, "-passes=verify", "-disable-output", str(path)],
                                                check=True), args.runs)
            parse_module(text, str(path))  # warm the grammar cache
            t_fast = best(lambda: parse_module(text, str(path)), args.runs)
            code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from patterns.ir import parse_file; " \
                   f"parse_file({str(path)!r})"
            t_proc = best(lambda: subprocess.run([sys.executable, "-c", code], check=True), args.runs)
            t_lark = None
            if not args.no_lark:
                t_lark = best(lambda: parse_module(text, str(path), fast=False), 1)
            rows[n] = (t_opt, t_fast, t_proc, t_lark)
            lark = f"{t_lark:7.3f}s ({t_lark / t_opt:5.1f}x)" if t_lark is not None else "   skipped"
            print(f"{n:>6} instrs: opt-19 verify {t_opt:6.3f}s | fast in-process {t_fast:6.3f}s "
                  f"({t_fast / t_opt:4.1f}x) | fast process {t_proc:6.3f}s ({t_proc / t_opt:4.1f}x) | "
                  f"lark in-process {lark}")
    if len(sizes) >= 2:
        a, b = sizes[0], sizes[-1]
        k = b / a
        ra, rb = rows[a], rows[b]
        print(f"scaling {a} -> {b} (x{k:g} instructions): opt-19 x{rb[0] / ra[0]:.1f}, "
              f"fast x{rb[1] / ra[1]:.1f}, fast process x{rb[2] / ra[2]:.1f}"
              + (f", lark x{rb[3] / ra[3]:.1f}" if ra[3] and rb[3] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

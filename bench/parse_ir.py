"""Speed of the IR front end (and of ``tdgen divergence``) against opt-19, in the same run.

Generates kernels with testkit/irgen.py (default 5k and 50k instructions, branches and
loops) and times, best of N runs each, wall time and CPU time (user+sys of the process;
on a loaded machine CPU time is the steadier of the two):

  opt verify        opt-19 -passes=verify -disable-output FILE                (parse + verify)
  opt uniformity    opt-19 -mtriple=amdgcn -passes='print<uniformity>' -disable-output FILE
  direct            parse_module in-process: the direct builder (patterns/ir/reader_direct.py)
  records           in-process, the previous fast path: ir_fast line records + reader_exact.Resolver
  lark              in-process, the .lark grammar for every line (only with --lark; slow)
  parse process     a fresh python process: imports + parse_file
  divergence        a fresh process: python -m tdgen divergence FILE (parse + analysis + print),
                    the issue's goal: <= 1.0x 'opt uniformity', linear from 5k to 50k

and prints ratios to opt-19 and the 5k -> 50k scaling of each. The environment may set
PYTHONDONTWRITEBYTECODE=1, which makes every fresh process compile the sources again;
--pyc runs the fresh processes with byte-code caching on, into a temporary
PYTHONPYCACHEPREFIX filled by one warm-up run of each command (what an installed package
has).

Usage: python bench/parse_ir.py [--runs N] [--sizes 5000,50000] [--lark] [--pyc] [--no-records]
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from patterns.ir import reader_exact as ir_exact
from patterns.ir import reader_lines as ir_fast  # noqa: E402
from patterns.ir import parse_module  # noqa: E402
from testkit.irgen import generate_kernel  # noqa: E402


def best_call(fn, runs: int) -> tuple[float, float]:
    """(best wall time, best CPU time of this process) of an in-process call."""
    walls, cpus = [], []
    for _ in range(runs):
        c0 = time.process_time()
        t0 = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return min(walls), min(cpus)


def best_proc(cmd, runs: int, env=None) -> tuple[float, float]:
    """(best wall time, best user+sys CPU time) of a command, output discarded."""
    walls, cpus = [], []
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        walls.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return min(walls), min(cpus)


def records_path(text: str, path: str):
    """The previous fast path: line records (ir_fast) resolved by reader_exact.Resolver."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return ir_exact.Resolver(path).run(ir_fast.parse_raw(text, path))
    finally:
        if enabled:
            gc.enable()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="5000,50000")
    ap.add_argument("--lark", action="store_true", help="also time the (slow) lark-only path")
    ap.add_argument("--no-records", action="store_true", help="skip the previous fast path")
    ap.add_argument("--pyc", action="store_true",
                    help="fresh processes use byte-compiled sources (a temporary PYTHONPYCACHEPREFIX)")
    args = ap.parse_args()
    opt = shutil.which("opt-19")
    if opt is None:
        print("opt-19 not found (apt-get install -y llvm-19)", file=sys.stderr)
        return 2
    sizes = [int(s) for s in args.sizes.split(",")]
    rows: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        if args.pyc:
            # byte-code caching on, into a private cache: the first (warm-up) run of each
            # command writes the .pyc of every module it imports, stdlib included
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pyc")
        print(f"python {sys.version.split()[0]}, PYTHONDONTWRITEBYTECODE="
              f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}, fresh processes "
              f"{'with' if args.pyc else 'without'} a byte-code cache, best of {args.runs}")
        for n in sizes:
            text = generate_kernel(7, n)
            path = Path(tmp) / f"k{n}.ll"
            path.write_text(text)
            r: dict = {}
            r["opt verify"] = best_proc([opt, "-passes=verify", "-disable-output", str(path)], args.runs)
            r["opt uniformity"] = best_proc([opt, "-mtriple=amdgcn", "-passes=print<uniformity>",
                                             "-disable-output", str(path)], args.runs)
            parse_module(text, str(path))  # warm caches (regexes, types)
            r["direct"] = best_call(lambda: parse_module(text, str(path)), args.runs)
            if not args.no_records:
                r["records"] = best_call(lambda: records_path(text, str(path)), 1)
            if args.lark:
                r["lark"] = best_call(lambda: parse_module(text, str(path), fast=False), 1)
            code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from patterns.ir import parse_file; "
                    f"parse_file({str(path)!r})")
            parse_cmd = [sys.executable, "-c", code]
            div_cmd = [sys.executable, "-m", "tdgen", "divergence", str(path)]
            div_env = dict(env, PYTHONPATH=str(ROOT))
            if args.pyc:
                best_proc(parse_cmd, 1, env)
                best_proc(div_cmd, 1, div_env)
            r["parse process"] = best_proc(parse_cmd, args.runs, env)
            r["divergence"] = best_proc(div_cmd, args.runs, div_env)
            rows[n] = r
            print(f"{n} instructions ({text.count(chr(10))} lines):")
            for k, (wall, cpu) in r.items():
                refname = "opt uniformity" if k == "divergence" else "opt verify"
                ref = r[refname]
                print(f"  {k:15s} wall {wall:7.3f}s = {wall / ref[0]:5.2f}x   cpu {cpu:7.3f}s = "
                      f"{cpu / ref[1]:5.2f}x {refname}")
    if len(sizes) >= 2:
        a, b = sizes[0], sizes[-1]
        for i, what in ((0, "wall"), (1, "cpu")):
            print(f"scaling {a} -> {b} (x{b / a:g} instructions), {what}: " + ", ".join(
                f"{k} x{rows[b][k][i] / rows[a][k][i]:.1f}" for k in rows[a]))
        for i, what in ((0, "wall"), (1, "cpu")):
            d, o = rows[b]["divergence"][i], rows[b]["opt uniformity"][i]
            print(f"goal at {b} ({what}): tdgen divergence {d:.3f}s vs opt uniformity {o:.3f}s: "
                  f"{'met' if d <= o else 'NOT met'} ({d / o:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

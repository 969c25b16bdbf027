#!/usr/bin/env python3
"""Speed of ``tdgen divergence`` against ``opt-19 -passes=print<uniformity>``.

Generates kernels with branches and loops (testkit/irgen.py) of 5,000 and 50,000
operations, runs both tools on each in the same run (separate processes, wall time,
best of --repeat runs, parse and printing included) and prints the ratio, plus the
5k -> 50k scaling of each tool and a breakdown of ours (target load / parse / analysis
/ print, CPU seconds, user + system, best of --repeat). Each breakdown run is a fresh
process doing what ``tdgen divergence`` does once, so first-touch costs (page faults,
cold caches) count as they do in the command; the wall times of a loaded machine are
noisy, so read the ratio column from runs on a quiet one (the load average is printed).

``tdgen s`` runs tdgen as installed: Python bytecode cached (``.pyc``, written by the
untimed warm-up run even when PYTHONDONTWRITEBYTECODE is set in the calling shell) and
the target cache warm (tdgen/target_cache.py; the same folder holds the IR direct
builder's compiled regular expressions, patterns/ir/reader_direct.py). ``cold s``: neither
(every module and expression compiled from source, the spec executed and checked), for
reference. ``python s``: the bare
interpreter start-up (``python -c pass``), a floor no Python tool can go below.

    python bench/divergence.py [--sizes 5000 50000] [--repeat 3]
    python bench/divergence.py --diff 500   # also: differential check on 500+500 kernels
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def wall(cmd: list[str], repeat: int, env: dict | None = None) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        dt = time.perf_counter() - t0
        if r.returncode != 0:
            raise SystemExit(f"failed: {' '.join(cmd)}")
        best = min(best, dt)
    return best


_STAGES = r"""
import os, resource, sys
sys.path.insert(0, sys.argv[2])
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
from patterns.uniformity.analysis import analyze
from patterns.uniformity.printer import format_llvm
from patterns.ir import parse_module
from patterns.ir.datalayout import use_target_layout
from tdgen.commands.divergence import load_target_facts
path = sys.argv[1]
t0 = cpu()
target = load_target_facts("amdgpu")
text = open(path).read()
t1 = cpu()
module = use_target_layout(parse_module(text, path), target.data_layout)
t2 = cpu()
info = analyze(module, target)
t3 = cpu()
format_llvm(info)
t4 = cpu()
steps = sum(f.stats["worklist_pops"] + f.stats["propagation_steps"] for f in info.functions)
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, steps)
sys.stdout.flush()
os._exit(0)
"""


def breakdown(path: str, repeat: int, env: dict | None = None) -> dict[str, float]:
    """CPU seconds (user + system, best of ``repeat`` fresh processes) of each stage."""
    best: dict[str, float] = {}
    for _ in range(repeat):
        r = subprocess.run([sys.executable, "-c", _STAGES, path, str(ROOT)], cwd=ROOT, env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"breakdown failed: {r.stderr}")
        *times, steps = r.stdout.split()
        for k, v in zip(("target", "parse", "analyze", "print"), map(float, times)):
            best[k] = min(best.get(k, v), v)  # target: through the (warm) on-disk cache
        best["steps"] = float(steps)
    best["total"] = best["parse"] + best["analyze"] + best["print"]
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[5000, 50000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--diff", type=int, default=0, help="also run the differential test on N kernels of each kind")
    args = ap.parse_args()
    opt = shutil.which("opt-19")
    if opt is None:
        print("opt-19 not found (apt-get install llvm-19)", file=sys.stderr)
        return 2
    from testkit.irgen import generate_kernel

    rows = []
    warm_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        cold_env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPYCACHEPREFIX=os.path.join(tmp, "no-pyc"),
                        TDGEN_NO_CACHE="1")
        t_py = wall([sys.executable, "-c", "pass"], args.repeat * 2, warm_env)
        for n in args.sizes:
            path = os.path.join(tmp, f"k{n}.ll")
            text = generate_kernel(args.seed, n)
            Path(path).write_text(text)
            n_inst = sum(1 for ln in text.splitlines() if ln.startswith("  "))
            t_opt = wall([opt, "-mtriple=amdgcn", "-passes=print<uniformity>", "-disable-output", path], args.repeat)
            ours = [sys.executable, "-m", "tdgen", "divergence", path]
            wall(ours, 1, warm_env)  # warm-up: writes .pyc files and the target cache
            t_ours = wall(ours, args.repeat, warm_env)
            t_cold = wall(ours, max(1, args.repeat // 2), cold_env)
            parts = breakdown(path, args.repeat, warm_env)
            rows.append((n, n_inst, t_opt, t_ours, parts, t_cold))
    print(f"python -c pass: {t_py:.3f} s   load average {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cpus")
    print(f"{'ops':>7} {'insts':>7} {'opt-19 s':>9} {'tdgen s':>9} {'ratio':>7} {'cold s':>7}   in-process CPU s, best of --repeat")
    for n, n_inst, t_opt, t_ours, parts, t_cold in rows:
        bd = " ".join(f"{k}={v:.3f}" for k, v in parts.items() if k not in ("steps", "total"))
        bd += f" work={int(parts['steps'])}"
        print(f"{n:>7} {n_inst:>7} {t_opt:>9.3f} {t_ours:>9.3f} {t_ours / t_opt:>6.2f}x {t_cold:>7.3f}   {bd}")
    if len(rows) >= 2:
        (n0, i0, o0, t0, p0, _c0), (n1, i1, o1, t1, p1, _c1) = rows[0], rows[-1]
        size = i1 / i0
        print(f"scaling {n0} -> {n1} ops (x{size:.1f} instructions): opt-19 x{o1 / o0:.2f}, "
              f"tdgen x{t1 / t0:.2f} (wall), tdgen in-process CPU x{p1['total'] / p0['total']:.2f} "
              f"(parse x{p1['parse'] / p0['parse']:.2f}, analysis x{p1['analyze'] / p0['analyze']:.2f}, "
              f"print x{p1['print'] / max(p0['print'], 1e-9):.2f}), "
              f"analysis work (worklist pops + propagation steps) x{p1['steps'] / p0['steps']:.2f}")
    if args.diff:
        env = dict(os.environ, TDGEN_DIFF_COUNT=str(args.diff))
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/test_divergence_differential.py"], cwd=ROOT, env=env)
        return r.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: `tdgen isel` against llc-19 -stop-after=finalize-isel, scaling, and a 10x pattern set.

Run: ``python bench/isel.py [--ops 50000] [--repeat 3]``. Prints

1. wall time of ``python -m tdgen isel K.ll --target amdgpu`` and of
   ``llc-19 -mtriple=amdgcn -mcpu=gfx900 -stop-after=finalize-isel K.ll`` on the same
   generated kernel (patterns.iselgen, ``--ops`` operations) and their ratio (goal <= 0.5);
2. in-process time per IR operation of each stage (parse, uniformity, DAG+combine+select)
   at 1/10, 1/4, 1/2 and 1x the size (linear scaling = flat per-op cost);
3. selection time per DAG node with the normal matcher table and with the pattern set
   multiplied 10x (copies rooted at opcodes no node has): the root-opcode switch keeps
   the per-node cost unchanged.
Best of ``--repeat`` runs for each number.
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


def best(fn, repeat: int) -> float:
    """Best wall time of ``repeat`` runs, with the cyclic GC off during each (as
    ``tdgen isel`` runs selection)."""
    import gc

    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        finally:
            gc.enable()
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=50000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    from patterns.divergence import analyze
    from patterns.ir import parse_module
    from patterns.isel import select_function
    from patterns.iselgen import generate_isel_kernel
    from patterns.matcher import build_table
    from tdgen.spec import load_target

    llc = shutil.which("llc-19")
    target = load_target("amdgpu")
    tmp = Path(tempfile.mkdtemp(prefix="tdgen-bench-isel-"))
    text = generate_isel_kernel(args.seed, args.ops)
    kfile = tmp / "kernel.ll"
    kfile.write_text(text)
    n_lines = sum(1 for ln in text.splitlines() if ln.startswith("  "))
    print(f"kernel: {n_lines} instructions, {text.count(':' + chr(10))} blocks ({kfile})")

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    ours = best(lambda: subprocess.run([sys.executable, "-m", "tdgen", "isel", str(kfile), "--target", "amdgpu"],
                                       check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT), args.repeat)
    print(f"tdgen isel (whole command):            {ours:8.3f} s")
    if llc:
        theirs = best(lambda: subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-stop-after=finalize-isel",
                                              str(kfile), "-o", os.devnull], check=True), args.repeat)
        print(f"llc-19 -stop-after=finalize-isel:      {theirs:8.3f} s")
        print(f"ratio tdgen/llc: {ours / theirs:.2f}x (goal <= 0.50x)")
    else:
        print("llc-19 not found: ratio not measured")

    print("\nscaling (in-process, microseconds per IR instruction):")
    print(f"{'ops':>8} {'parse':>8} {'uniform':>8} {'isel':>8} {'total':>8}")
    table = build_table(target)
    for frac in (10, 4, 2, 1):
        n = args.ops // frac
        t = generate_isel_kernel(args.seed, n)
        count = sum(1 for ln in t.splitlines() if ln.startswith("  "))
        holder = {}

        def parse():
            holder["m"] = parse_module(t, "k.ll")

        tp = best(parse, args.repeat)
        fn = next(f for f in holder["m"].functions if not f.is_declaration)

        def ua():
            holder["ua"] = analyze(fn, target)

        tu = best(ua, args.repeat)
        ts = best(lambda: select_function(fn, target, holder["ua"], table), args.repeat)
        us = 1e6 / count
        print(f"{count:8d} {tp * us:8.2f} {tu * us:8.2f} {ts * us:8.2f} {(tp + tu + ts) * us:8.2f}")

    print("\npattern set multiplied 10x (selection only, microseconds per DAG node):")
    m = parse_module(text, "k.ll")
    fn = next(f for f in m.functions if not f.is_declaration)
    u = analyze(fn, target)
    for mult in (1, 10):
        tb = build_table(target, multiply=mult)
        res = {}

        def sel():
            res["sf"], res["fd"] = select_function(fn, target, u, tb)

        tsel = best(sel, args.repeat)
        nodes = sum(len(d.nodes) for d in res["fd"].dags)
        print(f"  {len(tb.patterns):5d} patterns, {len(tb.by_opcode):3d} root opcodes: "
              f"{tsel * 1e6 / nodes:6.2f} us/node ({nodes} nodes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

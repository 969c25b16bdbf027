"""Benchmark: `tdgen isel` against llc-19 -stop-after=finalize-isel, scaling, and a 10x pattern set.

Run: ``python bench/isel.py [--ops 50000] [--repeat 3]``. Prints

1. wall time of ``python -m tdgen isel K.ll --target amdgpu`` and of
   ``llc-19 -mtriple=amdgcn -mcpu=gfx900 -stop-after=finalize-isel K.ll`` on the same
   generated kernel (testkit.iselgen, ``--ops`` operations) and their ratio (goal <= 0.5);
2. in-process time per IR operation of each stage (parse; isel: the IR passes with the
   uniformity analyses they make, DAG, combine, select)
   at 1/10, 1/4, 1/2 and 1x the size (linear scaling = flat per-op cost);
3. the in-process time of each stage of the command on the full kernel;
4. selection time per DAG node (DAG building not timed) with the normal matcher table and
   with the pattern set multiplied 10x, once as copies rooted at opcodes no node has (the
   root-opcode switch keeps the per-node cost unchanged) and once as copies at the same
   root opcodes that fail on their second check (10x the patterns per opcode list).
Best of ``--repeat`` runs for each number. In-process numbers are CPU time of this process
(``time.process_time``, cyclic GC off), which other processes on a loaded machine do not
inflate; the whole-command numbers are wall time, so the 1-minute load average is printed
next to them (on a shared machine, compare ratios taken at low load). Selection rewrites
the parsed function in place (the IR passes of ``patterns.llc``), so every timed run
of a stage from the DAG build on starts from a fresh parse (parsed and analysed untimed).

With a compiled build of the hot modules for the current sources (``python3 -m
patterns.native.build``, patterns/native/__init__.py) every number is of the compiled modules, and
the whole command is timed a second time as plain Python (``TDGEN_PURE=1``), with its
own ratio; the mode is printed next to the first time.

The whole-command timing is the installed case: the project is byte-compiled first
(``compileall``) and the child runs with ``PYTHONDONTWRITEBYTECODE`` removed, so it loads
``.pyc`` files as an installed package would (this environment sets the variable, which
otherwise makes every fresh process recompile every module); the on-disk target cache
(tdgen.target_cache) is warmed by one untimed run. ``--cold`` times instead a run with
no byte code and ``TDGEN_NO_CACHE=1``.
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


def best(fn, repeat: int, clock=time.perf_counter) -> float:
    """Best time of ``repeat`` runs by ``clock`` (wall by default), with the cyclic GC off
    during each (as ``tdgen isel`` runs selection)."""
    import gc

    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            t0 = clock()
            fn()
            times.append(clock() - t0)
        finally:
            gc.enable()
    return min(times)


def cpu(fn, repeat: int) -> float:
    """Best CPU time of this process over ``repeat`` runs (GC off during each)."""
    return best(fn, repeat, time.process_time)


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def fresh(text: str, target):
    """A newly parsed kernel function of ``text`` (untimed) and None for its uniformity
    analysis: as in ``tdgen isel``, the IR passes of the DAG stage make the analysis
    where they read it and for the IR they leave (patterns.llc.pipeline.run_ir_passes)."""
    from patterns.ir import parse_module

    fn = next(f for f in parse_module(text, "k.ll").functions if not f.is_declaration)
    return fn, None


def per_fresh(text: str, target, run, repeat: int) -> float:
    """Best CPU time of ``run(fn, ua)`` over ``repeat`` fresh parses of ``text`` (GC off)."""
    import gc

    times = []
    for _ in range(repeat):
        fn, ua = fresh(text, target)
        gc.collect()
        gc.disable()
        try:
            t0 = time.process_time()
            run(fn, ua)
            times.append(time.process_time() - t0)
        finally:
            gc.enable()
    return min(times)


def run_isel(cmd, env) -> None:
    """One ``tdgen isel`` run; exit 2 is accepted when it is "cannot select" (the kernel's
    if-then-else regions are not modelled by the amdgpu target: every node is still
    selected as far as it goes, and the failures are reported), any other failure raises."""
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    if r.returncode not in (0, 2) or (r.returncode == 2 and "cannot be selected" not in r.stderr):
        raise SystemExit(f"tdgen isel failed ({r.returncode}): {r.stderr[-2000:]}")


def select_only(text: str, target, table, repeat: int) -> tuple[float, int]:
    """Best-of-``repeat`` time of selecting every block of the kernel (fresh DAGs each
    run, as selection consumes their use counts; DAG building is not timed) and the
    node count."""
    import gc

    from patterns.select.machine import FnSelector
    from patterns.pipeline import build_function_dags
    from tdgen.errors import Diagnostics

    times, nodes = [], 0
    for _ in range(repeat):
        fn, ua = fresh(text, target)
        fd = build_function_dags(fn, target, ua)
        nodes = sum(len(d.nodes) for d in fd.dags)
        sel = FnSelector(target, table, fd)
        diags = Diagnostics()
        gc.collect()
        gc.disable()
        try:
            t0 = time.process_time()
            for dag in fd.dags:
                sel.select_dag(dag, diags)
            times.append(time.process_time() - t0)
        finally:
            gc.enable()
    return min(times), nodes


def stage_split(text: str, target, repeat: int) -> dict[str, float]:
    """Best-of-``repeat`` CPU time of each stage of ``tdgen isel`` on ``text``; the DAG
    stage also split into its parts: the IR passes of ``patterns.llc`` (when
    present), the function-wide prepasses (EarlyCSE, dead code, Sink, value
    classification), building the block DAGs and combining them."""
    import gc

    from patterns.dag.combine.driver import run as combine_block
    from patterns.ir.cfg import reverse_post_order
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from patterns.pipeline import select_function
    from patterns.select.matcher import build_table
    from patterns.select.mir import print_function
    from patterns.dag.builder import DAGBuilder
    from patterns.ir.dominators import shared_dominators
    from patterns.pipeline import build_function_dags
    from tdgen.target_cache import load_target as cached_target

    from patterns.llc.pipeline import run_ir_passes

    out: dict[str, float] = {}
    out["load target (cache hit)"] = cpu(lambda: cached_target("amdgpu"), repeat)
    out["parse IR"] = cpu(lambda: parse_module(text, "k.ll"), repeat)
    fn, _ua = fresh(text, target)
    table = build_table(target)
    out["DAG build + combine"] = per_fresh(text, target, lambda f, u: build_function_dags(f, target, u), repeat)
    # the same stage in parts, on one fresh parse per run (the blocks built in the order
    # build_function_dags uses, all before any is combined: combining then sees no
    # folded values of other blocks, so the parts are close to, not exactly, the stage)
    parts: dict[str, list[float]] = {}

    def lap(key, t0):
        t1 = time.process_time()
        parts.setdefault(key, []).append(t1 - t0)
        return t1

    for _ in range(repeat):
        fn, ua = fresh(text, target)
        gc.collect()
        gc.disable()
        try:
            t0 = time.process_time()
            with shared_dominators(fn):  # (as build_function_dags: one dominator tree, built here)
                ua = run_ir_passes(fn, ua, target)  # (with the uniformity analyses it makes)
                t0 = lap("  IR passes (irpasses)", t0)
                b = DAGBuilder(fn, target, ua)
                t0 = lap("  IR prepasses", t0)
            build = b.block_builder()
            dags = [build(blk) for blk in reverse_post_order(fn)]
            t0 = lap("  block DAGs", t0)
            for d in dags:
                combine_block(d, target)
            lap("  combines", t0)
        finally:
            gc.enable()
    for k, v in parts.items():
        out[k] = min(v)
        if k == "  IR passes (irpasses)":
            # (they run it once or twice: after EarlyCSE for mul24, and at the end)
            fn, _ua = fresh(text, target)
            out["    of which one uniformity analysis"] = cpu(lambda: analyze(fn, target), repeat)
    out["select (matcher + emit)"] = select_only(text, target, table, repeat)[0]
    fn, ua = fresh(text, target)
    from tdgen.errors import Diagnostics

    sf, _ = select_function(fn, target, ua, table, Diagnostics())
    out["print MIR"] = cpu(lambda: print_function(sf), repeat)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=50000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--cold", action="store_true", help="time the command without .pyc files and target cache")
    ap.add_argument("--no-scaling", action="store_true", help="skip the per-size scaling table")
    args = ap.parse_args()

    from patterns.ir import parse_module
    from patterns.pipeline import select_function
    from testkit.iselgen import generate_isel_kernel
    from patterns.select.matcher import build_table
    from tdgen.errors import Diagnostics
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
    if args.cold:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "no-pyc")  # an empty folder: no .pyc is found
        env["TDGEN_NO_CACHE"] = "1"
        case = "cold: no .pyc, no target cache"
    else:
        import compileall

        for sub in ("tdgen", "patterns", "targets"):
            compileall.compile_dir(str(ROOT / sub), quiet=1)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        case = "installed-like: .pyc present, target cache warm"
    cmd = [sys.executable, "-m", "tdgen", "isel", str(kfile), "--target", "amdgpu"]
    if not args.cold:
        run_isel(cmd, env)
    from patterns import native

    mode = native.status()  # (this process's mode is the children's: same sources, same environment)
    ours = best(lambda: run_isel(cmd, env), args.repeat)
    print(f"load average before: {load_average()}")
    print(f"tdgen isel (whole command, {case}): {ours:8.3f} s  [{mode}]")
    if native.compiled():
        pure_env = dict(env, TDGEN_PURE="1")
        run_isel(cmd, pure_env)
        plain = best(lambda: run_isel(cmd, pure_env), args.repeat)
        print(f"tdgen isel, the same as plain Python (TDGEN_PURE=1):          {plain:8.3f} s")
    if llc:
        theirs = best(lambda: subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-stop-after=finalize-isel",
                                              str(kfile), "-o", os.devnull], check=True), args.repeat)
        print(f"llc-19 -stop-after=finalize-isel:      {theirs:8.3f} s")
        print(f"ratio tdgen/llc: {ours / theirs:.2f}x (goal <= 0.50x; wall times, load average now {load_average()})")
        if native.compiled():
            print(f"ratio plain Python tdgen/llc: {plain / theirs:.2f}x")
    else:
        print("llc-19 not found: ratio not measured")

    print(f"\nstage split (in-process CPU time, same kernel, seconds; {mode}):")
    split = stage_split(text, target, args.repeat)
    total = sum(v for k, v in split.items() if not k.startswith(" "))
    for k, v in split.items():
        print(f"  {k:<28} {v:7.3f}  {100 * v / total:5.1f}%")
    print(f"  {'total':<28} {total:7.3f}")
    if not args.no_scaling:
        print("\nscaling (in-process CPU time, microseconds per IR instruction):")
        print(f"{'ops':>8} {'parse':>8} {'isel':>8} {'total':>8}")
        table = build_table(target)
        for frac in (10, 4, 2, 1):
            n = args.ops // frac
            t = generate_isel_kernel(args.seed, n)
            count = sum(1 for ln in t.splitlines() if ln.startswith("  "))
            tp = cpu(lambda: parse_module(t, "k.ll"), args.repeat)
            ts = per_fresh(t, target, lambda f, u: select_function(f, target, u, table, Diagnostics()), args.repeat)
            us = 1e6 / count
            print(f"{count:8d} {tp * us:8.2f} {ts * us:8.2f} {(tp + ts) * us:8.2f}")

    print("\npattern set multiplied 10x (selection only, microseconds per DAG node):")
    for mult, same_root, what in ((1, False, "normal table"),
                                  (10, False, "10x, copies at new root opcodes"),
                                  (10, True, "10x, copies at the same root opcodes")):
        tb = build_table(target, multiply=mult, same_root=same_root)
        tsel, nodes = select_only(text, target, tb, args.repeat)
        per = max(len(v) for v in tb.by_opcode.values())
        print(f"  {what:<38} {len(tb.patterns):5d} patterns, {len(tb.by_opcode):3d} root opcodes, "
              f"<= {per:3d} per opcode: {tsel * 1e6 / nodes:6.2f} us/node ({nodes} nodes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

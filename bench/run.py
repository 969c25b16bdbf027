#!/usr/bin/env python3
"""Speed of the execution stage: ``check-run`` of a 1,000-operation kernel, 64 lanes, 10 trials.

The kernel is testkit/cfggen.py's (seed 1, 1,000 instructions: diamonds, switches, nested
loops with uniform and divergent trip counts, stores in branches). Prints, best of
``--repeat``:

- ``reference``: the reference interpreter alone on the 10 launches (seeds 0..9), in
  process (parse and target load not counted);
- ``check-run``: ``patterns.run.api.check_run`` with every registered engine that applies,
  in process, when an engine besides the reference is registered;
- ``tdgen check-run``: the command as a process (wall time, start-up included), when an
  engine besides the reference is registered.

The issue's budget: ``check-run`` <= 2 s.

    python bench/run.py [--ops 1000] [--trials 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from patterns.ir import parse_module  # noqa: E402
from patterns.run import engines  # noqa: E402
from patterns.run.api import check_run, load_module, load_target  # noqa: E402
from patterns.run.launch import from_seed  # noqa: E402
from patterns.run.reference import run_reference  # noqa: E402
from testkit.cfggen import generate_cfg_kernel  # noqa: E402


def best(fn, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=1000)
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    text = generate_cfg_kernel(1, args.ops)
    target = load_target("amdgpu")
    tmp = tempfile.TemporaryDirectory()  # (the llc engine reads the kernel from its file)
    kpath = Path(tmp.name) / "k.ll"
    kpath.write_text(text)
    module = load_module(parse_module(text, str(kpath)), target)
    fn = module.function("kernel")
    n_ops = sum(len(b.instructions) for b in fn.blocks)
    launches = [from_seed(fn, s, group_size=64, wave=64) for s in range(args.trials)]

    def reference():
        for launch in launches:
            r = run_reference(module, launch, target)
            assert r.undefined is None

    print(f"kernel: {n_ops} instructions, 64 lanes (one wave64), {args.trials} trials; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"reference        {best(reference, args.repeat):7.3f} s")
    others = [n for n in engines.names() if n not in ("reference", "selected-ir")]
    if not others:
        print("check-run        (no machine engine registered: patterns/run/machine.py registers "
              "'selected' and 'llc')")
        return 0
    from tdgen.errors import TdgenError

    for name in list(others):  # (an engine that refuses the kernel is named, and left out)
        try:
            check_run(module, target=target, wave=64, workgroup=64, trials=1, engine_names=[name])
        except TdgenError as e:
            print(f"                 {name} refuses the kernel: {e.format().splitlines()[0][:150]}")
            others.remove(name)
    report = []
    t = best(lambda: report.append(check_run(module, target=target, wave=64, workgroup=64, trials=args.trials,
                                             engine_names=others)), args.repeat)
    print(f"check-run        {t:7.3f} s   (engines: reference, {', '.join(others)})")
    print(f"                 verdict: {_verdict(report[-1])}")
    cmd = [sys.executable, "-m", "tdgen", "check-run", str(kpath), "--target", "amdgpu", "--wave", "64",
           "--workgroup", "64", "--trials", str(args.trials)]
    t = best(lambda: subprocess.run(cmd, cwd=ROOT, capture_output=True, check=False), args.repeat)
    print(f"tdgen check-run  {t:7.3f} s   (process, start-up included)")
    tmp.cleanup()
    return 0


def _verdict(rep) -> str:
    """One line of what the check compared (which engines ran, which refused the kernel)."""
    d = rep.as_json() if hasattr(rep, "as_json") else getattr(rep, "__dict__", {})
    keys = ("engines", "stores_compared", "refused", "not_modeled", "skipped")
    return ", ".join(f"{k}={d[k]!r}"[:160] for k in keys if k in d) or repr(rep)[:200]


if __name__ == "__main__":
    sys.exit(main())

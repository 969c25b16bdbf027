"""Start-up time of ``tdgen --help`` and of argument errors (goal: <= 0.15 s each).

    python3 bench/cli_startup.py [--runs 10]

Runs each command line ``--runs`` times in a fresh interpreter (``python3 -m tdgen``
from the checkout, as the tests do) and prints the best and the median wall time, next
to the same for ``python3 -c pass`` (the interpreter's own start-up, site imports
included, which tdgen cannot shorten).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = (
    ("python3 -c pass", [sys.executable, "-c", "pass"]),
    ("tdgen --help", [sys.executable, "-m", "tdgen", "--help"]),
    ("tdgen isel --help", [sys.executable, "-m", "tdgen", "isel", "--help"]),
    ("tdgen generate --help", [sys.executable, "-m", "tdgen", "generate", "--help"]),
    ("tdgen isel k.ll --tagret x (error)", [sys.executable, "-m", "tdgen", "isel", "k.ll", "--tagret", "x"]),
    ("tdgen isle (error)", [sys.executable, "-m", "tdgen", "isle"]),
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    for label, cmd in CASES:
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append(time.perf_counter() - t0)
        print(f"{label:40s} best {min(times):.3f} s  median {statistics.median(times):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Time ``verify-shuffles`` (the full enumeration) for wave32 and wave64 against the 2 s goal.

No LLVM tool performs this proof, so the main numbers are absolute times against the goal.
For context, the same run also times ``llc-19 -mcpu=gfx900`` compiling one kernel per
lowered shuffle (mode x width, written with llvm.amdgcn.mbcnt / ds.bpermute) and prints
the ratio. Usage: ``python bench/shuffles.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from patterns.wave import shuffle as ref  # noqa: E402
from patterns.wave import proof  # noqa: E402
from patterns.wave.assembler import clear_caches  # noqa: E402
from testkit import shuffle_ir  # noqa: E402

GOAL_S = 2.0


def time_verify(wave: int, scope: str, repeat: int) -> tuple[float, proof.VerifyReport]:
    times = []
    rep = None
    for _ in range(repeat):
        clear_caches()  # include assembling every sequence in each run
        t0 = time.perf_counter()
        rep = proof.verify(wave, bpermute_wave64=scope)
        times.append(time.perf_counter() - t0)
    assert rep is not None
    return statistics.median(times), rep


def kernels_ll(wave: int) -> str:
    """One kernel per (mode, width): lane id, PTX index arithmetic, ds.bpermute."""
    out = [shuffle_ir.IR_DECLS]
    for mode in ref.MODES:
        for w in ref.widths(wave):
            out += [
                f"define amdgpu_kernel void @shfl_{mode}_{w}(ptr addrspace(1) %out, i32 %b) {{",
                *shuffle_ir.lane_id_ir(wave),
                "  %slot = getelementptr i32, ptr addrspace(1) %out, i32 %lane",
                "  %var = load i32, ptr addrspace(1) %slot",
                *shuffle_ir.ptx_index_ir(mode, w, wave),
                "  %addr = shl i32 %jj, 2",
                "  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %addr, i32 %var)",
                "  store i32 %r, ptr addrspace(1) %slot",
                "  ret void",
                "}",
                "",
            ]
    return "\n".join(out)


def time_llc(wave: int, repeat: int) -> float | None:
    llc = shutil.which("llc-19")
    if llc is None:
        return None
    attr = "+wavefrontsize64" if wave == 64 else "+wavefrontsize32"
    cpu = "gfx900" if wave == 64 else "gfx1030"
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "k.ll"
        src.write_text(kernels_ll(wave))
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            subprocess.run([llc, "-mtriple=amdgcn", f"-mcpu={cpu}", f"-mattr={attr}", str(src), "-o", "/dev/null"],
                           check=True)
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    ok = True
    print(f"goal: full enumeration under {GOAL_S:.1f} s per wave size (median of {args.repeat})")
    for wave, scope in ((32, "full"), (64, "full"), (64, "half")):
        t, rep = time_verify(wave, scope, args.repeat)
        cases = sum(x.cases for x in rep.by_bits.values())
        lanes = sum(x.value_checked + x.pred_checked for x in rep.by_bits.values())
        bad = sum(x.failures for x in rep.by_bits.values())
        llc_t = time_llc(wave, args.repeat)
        ctx = (f"; llc-19 compiling the {4 * len(rep.widths)} lowered kernels: {llc_t:.3f} s "
               f"(verify/llc = {t / llc_t:.2f}x)") if llc_t else "; llc-19 not found"
        verdict = "meets" if t < GOAL_S else "MISSES"
        print(f"wave{wave} bpermute={scope}: {cases} cases (32- and 64-bit), {lanes} lane results compared, "
              f"{bad} mismatches in {t:.3f} s -> {verdict} the {GOAL_S:.1f} s goal ({t / GOAL_S:.2f} of it){ctx}")
        ok &= t < GOAL_S and bad == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

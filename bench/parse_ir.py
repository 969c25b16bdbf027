"""Speed of the IR reader (and of ``tdgen divergence``) against opt-19, in the same run, per form.

Generates kernels with testkit/irgen.py (default 5k and 50k instructions, branches and
loops), writes each in several forms (``--forms``: plain; volatile loads and stores;
metadata on every instruction; clang-style numbered values and blocks; attributes
everywhere: ``noundef`` parameters, ``#0`` and ``range`` on calls) and times, best of N
runs each, wall time and CPU time (user+sys of the process; on a loaded machine CPU time
is the steadier of the two):

  opt verify        opt-19 -passes=verify -disable-output FILE                (parse + verify)
  opt uniformity    opt-19 -mtriple=amdgcn -passes='print<uniformity>' -disable-output FILE
  parse             parse_module in-process (patterns/ir/reader.py)
  parse process     a fresh python process: imports + parse_file
  divergence        a fresh process: python -m tdgen divergence FILE (parse + analysis + print),
                    the issue's goal: <= 1.0x 'opt uniformity', linear from 5k to 50k

and prints ratios to opt-19, the 5k -> 50k scaling of each, and each form's time
against the plain form's (the goal: no form more than 1.3x the plain one). The
environment may set PYTHONDONTWRITEBYTECODE=1, which makes every fresh process compile
the sources again; --pyc runs the fresh processes with byte-code caching on, into a
temporary PYTHONPYCACHEPREFIX filled by one warm-up run of each command (what an
installed package has).

Usage: python bench/parse_ir.py [--runs N] [--sizes 5000,50000] [--forms plain,volatile,...] [--pyc]
"""

from __future__ import annotations

import argparse
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

import re  # noqa: E402

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


def volatile_form(text: str) -> str:
    return text.replace("  store i32", "  store volatile i32").replace(" = load i32,", " = load volatile i32,")


def metadata_form(text: str) -> str:
    """Every instruction line with a metadata attachment."""
    out = [ln + ", !annotation !0" if ln.startswith("  ") and not ln.startswith("  ]") else ln
           for ln in text.split("\n")]
    return "\n".join(out) + '\n!0 = !{!"tdgen.bench"}\n'


def attributes_form(text: str) -> str:
    """noundef parameters, ``noundef range(...)`` results and ``#0`` on calls."""
    head, _, body = text.partition("\n")
    text = re.sub(r"(ptr addrspace\(\d+\)|i32) %", r"\1 noundef %", head) + "\n" + body
    text = re.sub(r"= call i32 @llvm\.amdgcn\.(workitem\.id\.[xyz])\(\)",
                  r"= call noundef range(i32 0, 1024) i32 @llvm.amdgcn.\1() #0", text)
    return text + "\nattributes #0 = { nounwind }\n"


_DEF = re.compile(r"^  %([-a-zA-Z$._0-9]+) = ")
_LABEL = re.compile(r"^([-a-zA-Z$._0-9]+):")


def numbered_form(text: str) -> str:
    """Every value and block of the kernel function numbered as clang numbers them."""
    lines = text.split("\n")
    start = next(i for i, ln in enumerate(lines) if ln.startswith("define"))
    end = lines.index("}", start)
    names: dict = {}
    for a in re.findall(r"%([-a-zA-Z$._0-9]+)[,)]", lines[start]):
        names[a] = str(len(names))
    for ln in lines[start + 1:end]:
        m = _LABEL.match(ln) or _DEF.match(ln)
        if m:
            names[m.group(1)] = str(len(names))
    sub = re.compile(r"%([-a-zA-Z$._0-9]+)")
    out = lines[:start]
    for ln in lines[start:end + 1]:
        m = _LABEL.match(ln)
        if m:
            ln = names[m.group(1)] + ":" + ln[m.end():]
        out.append(sub.sub(lambda x: "%" + names.get(x.group(1), x.group(1)), ln))
    return "\n".join(out + lines[end + 1:])


FORMS = {"plain": lambda t: t, "volatile": volatile_form, "metadata": metadata_form, "numbered": numbered_form,
         "attributes": attributes_form}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="5000,50000")
    ap.add_argument("--forms", default=",".join(FORMS), help="the forms to time (default: all)")
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
        forms = args.forms.split(",")
        for n, form in [(n, f) for f in forms for n in sizes]:
            text = FORMS[form](generate_kernel(7, n))
            path = Path(tmp) / f"k{n}-{form}.ll"
            path.write_text(text)
            r: dict = {}
            r["opt verify"] = best_proc([opt, "-passes=verify", "-disable-output", str(path)], args.runs)
            r["opt uniformity"] = best_proc([opt, "-mtriple=amdgcn", "-passes=print<uniformity>",
                                             "-disable-output", str(path)], args.runs)
            parse_module(text, str(path))  # warm caches (types)
            r["parse"] = best_call(lambda: parse_module(text, str(path)), args.runs)
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
            rows[(n, form)] = r
            print(f"{n} instructions, {form} ({text.count(chr(10))} lines):")
            for k, (wall, cpu) in r.items():
                refname = "opt uniformity" if k == "divergence" else "opt verify"
                ref = r[refname]
                print(f"  {k:15s} wall {wall:7.3f}s = {wall / ref[0]:5.2f}x   cpu {cpu:7.3f}s = "
                      f"{cpu / ref[1]:5.2f}x {refname}")
    for form in forms:
        if len(sizes) >= 2:
            a, b = (sizes[0], form), (sizes[-1], form)
            for i, what in ((0, "wall"), (1, "cpu")):
                print(f"{form}: scaling {a[0]} -> {b[0]} (x{b[0] / a[0]:g} instructions), {what}: " + ", ".join(
                    f"{k} x{rows[b][k][i] / rows[a][k][i]:.1f}" for k in rows[a]))
        big = (sizes[-1], form)
        for i, what in ((0, "wall"), (1, "cpu")):
            d, o = rows[big]["divergence"][i], rows[big]["opt uniformity"][i]
            vs = f", {d / rows[(sizes[-1], 'plain')]['divergence'][i]:.2f}x the plain form" \
                if (sizes[-1], "plain") in rows else ""
            print(f"{form} goal at {sizes[-1]} ({what}): tdgen divergence {d:.3f}s vs opt uniformity {o:.3f}s: "
                  f"{'met' if d <= o else 'NOT met'} ({d / o:.2f}x){vs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Speed of ``tdgen divergence`` on every textual form of the same kernels, against
``opt-19 -passes=print<uniformity>`` in the same run (issue 20's speed goals).

Forms, each made from the plain generated kernel (testkit/irgen.py) of about N
operations, so they compute the same thing:

  plain      the generator's text
  volatile   every store is ``store volatile`` (as in LLVM's own tests)
  metadata   a metadata attachment on every instruction (``, !tdgen.tag !0``)
  numbered   clang-style numbered values and labels (``opt-19 -passes=strip -S``)
  attributes parameter, return and call-site attributes, ``#N`` groups, attribute
             groups on every declaration, and the flags of every instruction that takes
             one (``nuw nsw``, ``exact``, ``disjoint``)
  clang      our OpenCL C corpus (tests/kernels/opencl) compiled by clang-19 at -O0..-O3
             and concatenated into one module (names, ``#N`` groups and ``!N`` nodes of
             each copy renumbered) until it has about N instructions

For each size (default 5,000 and 50,000) and form it prints the wall time of both tools
(fresh processes, best of --repeat, tdgen warmed once: .pyc files and its target
cache), the ratio tdgen / opt-19, the ratio of the form's tdgen time to the plain
form's, ``opt-19 -passes=verify`` (parse and verify only) and tdgen's ratio to it --
opt-19's ``print<uniformity>`` is quadratic on numbered values and on metadata
(measured: 5k -> 50k costs it far more than 10x there), so that column is the linear
reference for those forms -- and per form the growth from the smallest to the largest size against the
growth of its instruction count; then the ratio on a 20-operation kernel. A form tdgen
rejects prints its first error line instead of times. Goals (issue 20): ratio <= 1.0 at
50k in every form, growth <= 1.1x the size growth, every form <= 1.3x plain, 20 ops <= 3x.

    python bench/reader_forms.py [--sizes 5000 50000] [--repeat 3] [--forms plain volatile ...]
    python bench/reader_forms.py --quick     # sizes 1000 5000, one run each
    python bench/reader_forms.py --opt-timeout 60   # opt-19's quadratic forms capped
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FORMS = ("plain", "volatile", "metadata", "numbered", "attributes", "clang")


def wall(cmd: list[str], repeat: int, env: dict | None = None, timeout: float | None = None
         ) -> tuple[float, int, str]:
    """(best wall time, exit code, first stderr line of a failing run); a run longer than
    ``timeout`` stops the measurement: (timeout, 0, "timeout")."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        try:
            r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return float(timeout or 0), 0, "timeout"
        dt = time.perf_counter() - t0
        if r.returncode != 0:
            return dt, r.returncode, (r.stderr.strip().splitlines() or [""])[0]
        best = min(best, dt)
    return best, 0, ""


# ------------------------------------------------------------------------ the forms


def volatile(text: str) -> str:
    return re.sub(r"(?m)^(  )store ", r"\1store volatile ", text)


def metadata(text: str) -> str:
    out = []
    for ln in text.split("\n"):
        if ln.startswith("  ") and not ln.lstrip().startswith(";"):
            ln += ", !tdgen.tag !0"
        out.append(ln)
    return "\n".join(out) + "\n!0 = !{}\n"


def numbered(text: str, opt: str) -> str:
    r = subprocess.run([opt, "-passes=strip", "-S", "-"], input=text, capture_output=True, text=True, check=True)
    return r.stdout


_FLAGS = {"add": "nuw nsw", "sub": "nuw nsw", "mul": "nuw nsw", "shl": "nuw nsw", "lshr": "exact",
          "ashr": "exact", "or": "disjoint"}


def attributes(text: str) -> str:
    """Attributes in every position a kernel has one (see the module docstring)."""
    def params(m: re.Match) -> str:
        ps = []
        for p in m.group(2).split(", "):
            ty, name = p.rsplit(" ", 1)
            extra = " noundef align 4 dereferenceable(64)" if ty.startswith("ptr") else " noundef"
            ps.append(f"{ty}{extra} {name}")
        return f"{m.group(1)}({', '.join(ps)}) local_unnamed_addr #0 {{"

    text = re.sub(r"(?m)^(define [^(]*)\((.*)\) \{$", params, text)

    def call(m: re.Match) -> str:
        return f"{m.group(1)}tail call noundef range(i32 0, 1024) {m.group(2)}({m.group(3)}) #2"

    text = re.sub(r"(?m)^(  %[\w.]+ = )call (i32 @llvm\.amdgcn\.work\w+\.id\.[xyz])\(([^)]*)\)$", call, text)

    def flags(m: re.Match) -> str:
        return f"{m.group(1)}{m.group(2)} {_FLAGS[m.group(2)]} "

    text = re.sub(r"(?m)^(  %[\w.]+ = )(add|sub|mul|shl|lshr|ashr|or) (?!nuw|nsw|exact|disjoint)", flags, text)
    text = re.sub(r"(?m)^declare (i32 @[\w.]+\(\))$", r"declare noundef \1 #1", text)
    return text + (
        'attributes #0 = { convergent mustprogress norecurse nounwind "amdgpu-flat-work-group-size"="1,256" '
        '"uniform-work-group-size"="true" }\n'
        "attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }\n"
        "attributes #2 = { nounwind }\n")


def clang_concat(n_insts: int) -> str | None:
    """Copies of the OpenCL corpus's IR (all four -O levels) renumbered into one module
    of about ``n_insts`` instructions; None without clang-19."""
    from testkit.clang import clang_path, compile_cl, corpus_kernels

    if clang_path() is None:
        return None
    modules = [compile_cl(k, o) for k in corpus_kernels() for o in ("O0", "O1", "O2", "O3")]
    head: list[str] = []
    seen: set[str] = set()
    body: list[str] = []
    attrs: list[str] = []
    meta: list[str] = []
    count = 0
    copy = 0
    attr_base = meta_base = 0
    while count < n_insts:
        for text in modules:
            copy += 1
            defined = set(re.findall(r"(?m)^define [^@]*@([\w.$]+)\(", text))
            defined |= set(re.findall(r"(?m)^@([\w.$]+) = ", text))
            names = re.compile(r"@(" + "|".join(re.escape(d) for d in sorted(defined, key=len, reverse=True))
                               + r")(?![\w.$])") if defined else None
            n_attr = max([int(x) for x in re.findall(r"(?m)^attributes #(\d+)", text)] + [-1]) + 1
            n_meta = max([int(x) for x in re.findall(r"(?m)^!(\d+) = ", text)] + [-1]) + 1

            def fix(ln: str) -> str:
                if names is not None:
                    ln = names.sub(lambda m: f"@{m.group(1)}.c{copy}", ln)
                ln = re.sub(r"#(\d+)\b", lambda m: f"#{int(m.group(1)) + attr_base}", ln)
                return re.sub(r"!(\d+)\b", lambda m: f"!{int(m.group(1)) + meta_base}", ln)

            for ln in text.split("\n"):
                if ln.startswith(("; ModuleID", "source_filename")) or not ln.strip():
                    continue
                if ln.startswith("target "):
                    if ln not in seen:
                        seen.add(ln)
                        head.append(ln)
                elif re.match(r"![A-Za-z_.$][\w.$-]* = ", ln):
                    continue  # named metadata (module flags, versions): one module's worth is not needed
                elif ln.startswith("attributes #"):
                    attrs.append(fix(ln))
                elif re.match(r"!\d+ = ", ln):
                    meta.append(fix(ln))
                elif ln.startswith("declare ") or re.match(r"%[\w.]+ = type ", ln):
                    ln = fix(ln)
                    m = re.search(r"@([\w.$]+)\(", ln) if ln.startswith("declare ") else None
                    key = "declare @" + m.group(1) if m else ln
                    if key not in seen:
                        seen.add(key)
                        body.append(ln)
                else:
                    if ln.startswith("  ") and not ln.lstrip().startswith(";"):
                        count += 1
                    body.append(fix(ln))
            attr_base += n_attr
            meta_base += n_meta
            if count >= n_insts:
                break
    return "\n".join(head + body + attrs + meta) + "\n"


def make_form(form: str, n: int, seed: int, opt: str) -> str | None:
    from testkit.irgen import generate_kernel

    if form == "clang":
        plain_insts = sum(1 for ln in generate_kernel(seed, n).split("\n") if ln.startswith("  "))
        return clang_concat(plain_insts)
    text = generate_kernel(seed, n)
    if form == "plain":
        return text
    if form == "volatile":
        return volatile(text)
    if form == "metadata":
        return metadata(text)
    if form == "numbered":
        return numbered(text, opt)
    return attributes(text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[5000, 50000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--forms", nargs="+", choices=FORMS, default=list(FORMS))
    ap.add_argument("--quick", action="store_true", help="sizes 1000 5000, one run each")
    ap.add_argument("--opt-timeout", type=float, default=None,
                    help="stop timing opt-19's print<uniformity> after this many seconds (it is quadratic on "
                         "numbered values and metadata); such rows print '>T' and a ratio bound '<R'")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.repeat = [1000, 5000], 1
    opt = shutil.which("opt-19")
    if opt is None:
        print("opt-19 not found (apt-get install llvm-19)", file=sys.stderr)
        return 2
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    results: dict[tuple[str, int], tuple] = {}
    timed_out: set = set()  # (form, n) where opt-19's print<uniformity> hit --opt-timeout
    with tempfile.TemporaryDirectory() as tmp:
        def measure(form: str, n: int, text: str) -> tuple:
            path = os.path.join(tmp, f"{form}{n}.ll")
            Path(path).write_text(text)
            insts = sum(1 for ln in text.split("\n") if ln.startswith("  ") and not ln.lstrip().startswith(";"))
            t_opt, rc, err = wall([opt, "-mtriple=amdgcn", "-passes=print<uniformity>", "-disable-output", path],
                                  args.repeat, timeout=args.opt_timeout)
            timed_out.add((form, n)) if err == "timeout" else None
            if rc != 0:
                return insts, t_opt, None, f"opt-19 rejects: {err}", 0.0
            t_verify, _, _ = wall([opt, "-passes=verify", "-disable-output", path], args.repeat)
            ours = [sys.executable, "-m", "tdgen", "divergence", path]
            wall(ours, 1, env)  # warm-up: .pyc files, target cache
            t_ours, rc, err = wall(ours, args.repeat, env)
            return insts, t_opt, (t_ours if rc == 0 else None), err, t_verify

        for n in args.sizes:
            for form in args.forms:
                text = make_form(form, n, args.seed, opt)
                if text is None:
                    results[(form, n)] = (0, 0.0, None, "clang-19 not found", 0.0)
                    continue
                results[(form, n)] = measure(form, n, text)
                print(f"  measured {form} {n}", file=sys.stderr, flush=True)
        from testkit.irgen import generate_kernel

        small = measure("small", 20, generate_kernel(args.seed, 20))
    print(f"load average {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cpus, best of {args.repeat}")
    print(f"{'form':11} {'ops':>6} {'insts':>7} {'opt-19 s':>9} {'tdgen s':>9} {'ratio':>7} {'/plain':>7}"
          f" {'verify s':>9} {'/verify':>8}")
    for n in args.sizes:
        plain = results.get(("plain", n))
        for form in args.forms:
            insts, t_opt, t_ours, err, t_verify = results[(form, n)]
            if t_ours is None:
                print(f"{form:11} {n:>6} {insts:>7} {t_opt:>9.3f} {'-':>9} {'-':>7} {'-':>7} {t_verify:>9.3f}"
                      f" {'-':>8}   rejected: {err[:150]}")
                continue
            rel = f"{t_ours / plain[2]:>6.2f}x" if plain and plain[2] else f"{'-':>7}"
            if (form, n) in timed_out:
                o, ratio = f">{t_opt:.0f}", f"<{t_ours / t_opt:.2f}x"
            else:
                o, ratio = f"{t_opt:.3f}", f"{t_ours / t_opt:.2f}x"
            print(f"{form:11} {n:>6} {insts:>7} {o:>9} {t_ours:>9.3f} {ratio:>7} {rel}"
                  f" {t_verify:>9.3f} {t_ours / t_verify:>7.2f}x")
    if len(args.sizes) >= 2:
        a, b = args.sizes[0], args.sizes[-1]
        print(f"linearity {a} -> {b} ops (tdgen time growth / instruction growth; goal <= 1.1):")
        for form in args.forms:
            ra, rb = results[(form, a)], results[(form, b)]
            if ra[2] is None or rb[2] is None or not ra[0]:
                print(f"  {form:11} -")
                continue
            size, grow = rb[0] / ra[0], rb[2] / ra[2]
            og = f"x{rb[1] / ra[1]:.2f}" if (form, b) not in timed_out else f"> x{rb[1] / ra[1]:.0f}"
            print(f"  {form:11} instructions x{size:.1f}, tdgen x{grow:.2f}, opt-19 {og}, "
                  f"opt-19 verify x{rb[4] / ra[4]:.2f}: {grow / size:.2f}")
    insts, t_opt, t_ours, err, _ = small
    if t_ours is None:
        print(f"20-op kernel: rejected: {err}")
    else:
        print(f"20-op kernel ({insts} insts): opt-19 {t_opt:.3f} s, tdgen {t_ours:.3f} s, ratio {t_ours / t_opt:.2f}x "
              "(goal <= 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Triage of isel disagreements with llc-19 on generated kernels (bench/, not a test).

``python bench/isel_triage.py [--count N] [--constants] [--jobs J] [--show K]`` runs the
same differential as tests/test_isel_llc.py (testkit.iselgen kernels, modeled opcode
multisets from testkit.llc.compare_with_llc) and prints the agreement rate, then every
disagreeing kernel's multiset difference and a tally of the opcodes that differ (which
side has them extra), so the largest causes can be attacked first.

``--without FN`` replaces the combine step ``FN`` of patterns.dag.combine by a no-op for the run
(to measure a proposed removal before the combine's owner makes it).

``--pass-cause`` runs ``llc-19 -print-after-all`` on every disagreeing kernel and names
the IR passes that changed its 32-bit ALU ops (a loop pass prints only its loop: LICM's
change shows at the next whole-function dump, ``verify``, LSR's at ``mergeicmps``), and
selects llc's IR as its last EarlyCSE left it (after LICM and LSR, kernel arguments not
lowered yet) with our pipeline: agreement there means the difference comes from an IR
pass up to that point that we do not model (LSR above all), disagreement that it is in
our DAG combines or selection (or in what those passes produced).

``--ir-cause`` also runs ``llc-19 -stop-before=amdgpu-isel`` on every disagreeing kernel
and counts the kernels whose 32-bit ALU instructions llc's IR passes changed (EarlyCSE /
InstSimplify folds, CodeGenPrepare, LICM ...: a different per-opcode count of add, sub,
mul, and, or, xor, shl, lshr, ashr before selection) apart from those where the IR
reaching the DAG has the same ops (a DAG combine, known-bits fold or selection
difference). Kernel-argument lowering and control-flow intrinsics are not counted.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--n-ops", type=int, default=30)
    ap.add_argument("--constants", action="store_true")
    ap.add_argument("--intrinsics", action="store_true",
                    help="kernels mixing in the bit-counting, min/max, abs and bit-field operations "
                         "(testkit.iselgen, intrinsics=True)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=40)
    ap.add_argument("--ir-cause", action="store_true")
    ap.add_argument("--pass-cause", action="store_true")
    ap.add_argument("--without", action="append", default=[], metavar="FN",
                    help="measure a proposed combine removal: replace FN of patterns.dag.combine (a step "
                         "returning whether it changed the DAG, e.g. reassociate_scalar) by a no-op "
                         "in every module of the package that reads it")
    ap.add_argument("--opcode-overlap", type=int, metavar="OPS", default=0,
                    help="instead: one kernel of OPS operations (bench/isel.py's, seed --seed) and the "
                         "share of llc's modeled opcodes we select too (multiset overlap)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    if args.opcode_overlap:
        return opcode_overlap(args.seed, args.opcode_overlap)
    if args.without:
        import importlib
        import pkgutil

        import patterns.dag.combine

        mods = [importlib.import_module(f"patterns.dag.combine.{m.name}")
                for m in pkgutil.iter_modules(patterns.dag.combine.__path__)]
        for name in args.without:
            holders = [m for m in mods if callable(getattr(m, name, None))]
            if not holders:
                ap.error(f"--without: expected a function of patterns.dag.combine, found {name!r}")
            for m in holders:
                setattr(m, name, lambda *_a, **_k: False)

    import shutil
    from testkit.iselgen import generate_isel_kernel
    from testkit.llc import compare_with_llc
    from tdgen.spec import load_target

    llc = shutil.which("llc-19") or "llc-19"
    target = load_target("amdgpu")

    def kernel(seed):
        return generate_isel_kernel(seed, args.n_ops, name=f"k{seed}", constants=args.constants,
                                    intrinsics=args.intrinsics)

    def one(seed):
        text = kernel(seed)
        return seed, compare_with_llc(text, target, llc, path=f"k{seed}.ll")

    seeds = range(args.start, args.start + args.count)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(one, seeds))
    ours_extra: Counter = Counter()
    llc_extra: Counter = Counter()
    sigs: Counter = Counter()
    bad = []
    for seed, res in results:
        for a in res:
            if a.equal:
                continue
            o, l_ = Counter(dict(a.ours)), Counter(dict(a.llc))
            oe, le = o - l_, l_ - o
            ours_extra.update(oe.keys())
            llc_extra.update(le.keys())
            sigs[(tuple(sorted(oe)), tuple(sorted(le)))] += 1
            bad.append((seed, a.diff()))
    n = len(results)
    print(f"agreement (constants={args.constants}, intrinsics={args.intrinsics}): {n - len(bad)}/{n} = {(n - len(bad)) / max(1, n):.1%}")
    for seed, d in bad[: args.show]:
        print(f"  seed {seed}: {d}")
    if args.ir_cause:
        import re
        import subprocess

        ops = re.compile(r"= (add|sub|mul|and|or|xor|shl|lshr|ashr) (?:nuw |nsw |exact |disjoint )*i32 "
                         r"|= (?:tail )?call i32 @llvm\.(ctpop|bitreverse|ctlz|cttz|abs|smin|smax|umin|umax)\.i32\(")
        ir_level = 0
        same_ops = []
        for seed, d in bad:
            text = kernel(seed)
            pre = subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-stop-before=amdgpu-isel", "-o", "-"],
                                 input=text, capture_output=True, text=True).stdout
            body = pre[pre.index("define"):]
            body = body[:body.index("\n  }\n")]
            if Counter(ops.findall(text)) != Counter(ops.findall(body)):
                ir_level += 1
            else:
                same_ops.append((seed, d))
        print(f"disagreeing kernels whose ALU ops llc's IR passes changed: {ir_level}; "
              f"same ALU ops reach the DAG: {len(bad) - ir_level}")
        for seed, d in same_ops[: args.show]:
            print(f"  same ops, seed {seed}: {d}")
    if args.pass_cause:
        tally: Counter = Counter()
        for seed, d in bad:
            text = kernel(seed)
            passes, ours_agree = _pass_cause(llc, text, f"k{seed}", target)
            tally[(passes, ours_agree)] += 1
            print(f"  passes, seed {seed}: {list(passes)} ours-on-llc-IR-agrees={ours_agree}: {d}")
        print("IR passes that changed ALU ops (first dump each), our selection of llc's post-EarlyCSE IR agrees:")
        for (passes, ok), c in tally.most_common():
            print(f"  {c:4d}  {list(passes)}  {ok}")
    print("kernels where we have extra opcode X:", dict(ours_extra.most_common()))
    print("kernels where llc has extra opcode X:", dict(llc_extra.most_common()))
    print("top signatures (ours extra, llc extra):")
    for (oe, le), c in sigs.most_common(25):
        print(f"  {c:4d}  ours+{list(oe)}  llc+{list(le)}")
    return 0


def _pass_cause(llc: str, text: str, name: str, target):
    """(IR passes whose dump changed the ALU op counts (the modeled intrinsic calls
    included), in order without repeats; whether
    our selection of the IR after llc's last pre-lowering EarlyCSE agrees with llc)."""
    import re
    import subprocess
    from collections import Counter

    from testkit.llc import compare_with_llc

    ops = re.compile(r"= (add|sub|mul|and|or|xor|shl|lshr|ashr) (?:nuw |nsw |exact |disjoint )*i32 "
                     r"|= (?:tail )?call i32 @llvm\.(ctpop|bitreverse|ctlz|cttz|abs|smin|smax|umin|umax)\.i32\(")
    decls = "".join(ln + "\n" for ln in text.splitlines() if ln.startswith("declare "))
    err = subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-print-after-all", f"-filter-print-funcs={name}",
                          "-o", "/dev/null"], input=text, capture_output=True, text=True).stderr
    dumps, cur = [], None
    for line in err.splitlines():
        m = re.match(r"\*\*\* IR Dump After .* \((.*)\) \*\*\*(.*)", line)
        if m:
            cur = [m.group(1), [m.group(2)] if m.group(2) else []]
            dumps.append(cur)
        elif line.startswith("# *** IR Dump"):
            cur = None
        elif cur is not None:
            cur[1].append(line)
    prev, changed, ecse, last = Counter(ops.findall(text)), [], 0, None
    for pname, lines in dumps:
        body = "\n".join(lines)
        if "define" not in body:
            continue
        c = Counter(ops.findall(body))
        if c != prev and pname not in changed:
            changed.append(pname)
        prev = c
        if pname == "early-cse":
            ecse += 1
            if ecse == 3:
                last = body
    agrees = None
    if last is not None:
        body = re.sub(r"\) #\d+ \{", ") {", last[last.index("define"):], count=1)
        try:
            res = compare_with_llc(body + "\n" + decls, target, llc, path=f"{name}.pre.ll")
            agrees = all(a.equal for a in res)
        except Exception as e:  # (an IR form our parser does not take)
            agrees = f"error: {str(e)[:60]}"
    return tuple(changed), agrees


def opcode_overlap(seed: int, n_ops: int) -> int:
    """Per function of one large kernel: llc's modeled opcodes, ours, and how many of
    llc's we also select (the multiset intersection), with the largest differences."""
    import shutil

    from testkit.iselgen import generate_isel_kernel
    from testkit.llc import compare_with_llc
    from tdgen.spec import load_target

    llc = shutil.which("llc-19") or "llc-19"
    text = generate_isel_kernel(seed, n_ops)
    for a in compare_with_llc(text, load_target("amdgpu"), llc, path=f"k{seed}_{n_ops}.ll"):
        ours, theirs = Counter(dict(a.ours)), Counter(dict(a.llc))
        common = sum((ours & theirs).values())
        total = sum(theirs.values())
        print(f"@{a.function}: llc {total} modeled opcodes, ours {sum(ours.values())}, in common {common} "
              f"= {100 * common / max(1, total):.2f}% of llc's")
        worst = sorted(set(ours) | set(theirs), key=lambda k: (-abs(ours[k] - theirs[k]), k))[:8]
        print("  largest differences (ours, llc): "
              + ", ".join(f"{k} {ours[k]}/{theirs[k]}" for k in worst if ours[k] != theirs[k]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

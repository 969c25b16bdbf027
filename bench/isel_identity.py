"""Check that two versions of the project give byte-identical ``tdgen isel`` output.

Run: ``python bench/isel_identity.py [--old-rev REV] [--new worktree|REV] [--seeds 300]``
(a speed change to any stage must leave every selection as it was).

The project's sources (tdgen, patterns, targets, templates) are copied twice into a
temporary folder (so edits made to the working tree while the check runs change neither
side): the old ones from git revision ``--old-rev`` (default HEAD) and the new ones from
``--new`` (default ``worktree``: the files as they are; or a git revision). ``--only
FILE...`` takes just those files from ``--new``, the rest from ``--old-rev``.
Every input is then selected by both copies, in ``--format mir`` and ``--format json``,
and the exit code, stdout and stderr of the two are compared byte for byte:

- generated kernels: ``testkit.iselgen.generate_isel_kernel(seed, size, name=f"k{seed}",
  constants=c, intrinsics=i)`` for ``--seeds`` seeds from ``--first-seed`` and the four
  (c, i) pairs (sizes cycle through ``--sizes``); run in-process through ``tdgen.cli.main`` (one worker process per
  copy), which also prints every block's combined DAG (node labels, use counts) of every
  function, selectable or not, for a third comparison;
- the isel files of the shared LLVM corpus (``../shared/corpus/llvm/**/isel/*.ll``) and the
  ``--bench-ops`` kernel of bench/isel.py (seed 7): the same in-process comparisons, and
  run as ``python -m tdgen isel`` commands, as a user runs them.

Prints the number of inputs compared and every difference (first lines of a unified
diff); exits 1 when there is one. Each copy uses its own target cache folder.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COPIED = ("tdgen", "patterns", "targets", "templates", "pyproject.toml")

# the worker run in each copy: selects every file of a list in-process, both formats
WORKER = r'''
import contextlib, hashlib, io, json, sys
from tdgen.cli import main



def dags(path):
    """Every block's combined DAG, per function (node labels in order, divergence bits
    and use counts), whether or not the function can be selected."""
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from patterns.pipeline import build_function_dags
    from tdgen.commands.common import load_isel_target

    target = load_isel_target("amdgpu")
    lines = []
    for fn in parse_module(open(path).read(), path).functions:
        if fn.is_declaration:
            continue
        lines.append(f"function {fn.name}")
        try:
            fd = build_function_dags(fn, target, analyze(fn, target))
        except Exception as x:  # (compared like the rest)
            lines.append(f"error {type(x).__name__}: {x}")
            continue
        for d in fd.dags:
            lines.append(f"block {getattr(d.block, 'name', d.block)}")
            lines += [f"{n.label()} uses={n.uses}" for n in d.nodes]
    blob = "\n".join(lines)
    return hashlib.sha256(blob.encode()).hexdigest(), len(blob)


listing, out = sys.argv[1], sys.argv[2]
with open(out, "w") as res:
    for path in open(listing).read().split("\n"):
        if not path:
            continue
        for fmt in ("mir", "json"):
            o, e = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
                try:
                    rc = main(["isel", path, "--target", "amdgpu", "--format", fmt])
                except SystemExit as x:
                    rc = x.code
            blob = f"rc={rc}\n--stdout--\n{o.getvalue()}--stderr--\n{e.getvalue()}"
            res.write(json.dumps([path, fmt, hashlib.sha256(blob.encode()).hexdigest(), len(blob)]) + "\n")
        res.write(json.dumps([path, "dags", *dags(path)]) + "\n")
'''


def snapshot(dest: Path, base: str, overlay: dict[str, str] | None = None) -> Path:
    """A copy of the project's sources in ``dest``: the working tree's (``base``
    "worktree") or a git revision's, with the files of ``overlay`` (path -> text) put over
    them."""
    dest.mkdir(parents=True)
    if base == "worktree":
        for name in COPIED:
            src = ROOT / name
            if src.is_dir():
                shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            elif src.exists():
                shutil.copy2(src, dest / name)
    else:
        archive = subprocess.run(["git", "archive", "--format=tar", base, *COPIED], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    for rel, text in (overlay or {}).items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text)
    (dest / "worker.py").write_text(WORKER)
    return dest


def env_for(copy: Path, tmp: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(copy), XDG_CACHE_HOME=str(tmp / f"cache-{copy.name}"))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def command(copy: Path, tmp: Path, path: Path, fmt: str) -> str:
    p = subprocess.run([sys.executable, "-m", "tdgen", "isel", str(path), "--target", "amdgpu", "--format", fmt],
                       cwd=copy, env=env_for(copy, tmp), capture_output=True, text=True)
    return f"rc={p.returncode}\n--stdout--\n{p.stdout}--stderr--\n{p.stderr}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old-rev", default="HEAD", help="git revision of the old sources")
    ap.add_argument("--new", default="worktree", help="the new sources: 'worktree' (the files as they are) "
                    "or a git revision")
    ap.add_argument("--only", nargs="+", metavar="FILE",
                    help="take only these files (paths from the project root) from --new, the rest from --old-rev")
    ap.add_argument("--seeds", type=int, default=300, help="seeds per kind of generated kernel")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--sizes", default="30,30,60,120,250,500", help="kernel sizes (operations), by seed")
    ap.add_argument("--bench-ops", type=int, default=50000, help="size of the bench/isel.py kernel (0: skip)")
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="tdgen-isel-identity-"))
    t0 = time.time()
    try:
        old = snapshot(tmp / "old", args.old_rev)
        if args.only:
            def read(rel):
                if args.new == "worktree":
                    return (ROOT / rel).read_text()
                return subprocess.run(["git", "show", f"{args.new}:{rel}"], cwd=ROOT, check=True,
                                      capture_output=True, text=True).stdout
            new = snapshot(tmp / "new", args.old_rev, {rel: read(rel) for rel in args.only})
        else:
            new = snapshot(tmp / "new", args.new)
        same = subprocess.run(["diff", "-rq", "-x", "worker.py", str(old), str(new)], capture_output=True).returncode == 0
        if same:
            print("note: the old and the new sources are the same")
        sys.path.insert(0, str(new))  # (the kernel generator of the copies)
        from testkit.iselgen import generate_isel_kernel

        kdir = tmp / "kernels"
        kdir.mkdir()
        sizes = [int(s) for s in args.sizes.split(",")]
        generated = []
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            for consts in (False, True):
                for intr in (False, True):
                    f = kdir / f"k{seed}-{'c' if consts else 'v'}{'i' if intr else ''}.ll"
                    f.write_text(generate_isel_kernel(seed, sizes[seed % len(sizes)], name=f"k{seed}",
                                                      constants=consts, intrinsics=intr))
                    generated.append(f)
        # corpus files and the bench kernel (also run as whole commands below)
        files = []
        if not args.no_corpus:
            corpus = ROOT.parent / "shared" / "corpus" / "llvm"
            files += sorted(p for p in corpus.rglob("*.ll") if p.parent.name == "isel")
            if not files:
                print(f"corpus: no isel files under {corpus}")
        if args.bench_ops:
            f = kdir / f"bench-{args.bench_ops}.ll"
            f.write_text(generate_isel_kernel(7, args.bench_ops))
            files.append(f)
        inputs = generated + files
        listing = tmp / "inputs.txt"
        listing.write_text("".join(f"{f}\n" for f in inputs))

        # in-process: one worker per copy, the two running side by side
        procs = {c.name: subprocess.Popen([sys.executable, "worker.py", str(listing), str(tmp / f"{c.name}.jsonl")],
                                          cwd=c, env=env_for(c, tmp)) for c in (old, new)}
        bad = [k for k, p in procs.items() if p.wait() != 0]
        if bad:
            print(f"worker failed: {bad}")
            return 2
        res = {}
        for c in (old, new):
            rows = map(json.loads, (tmp / f"{c.name}.jsonl").read_text().splitlines())
            res[c.name] = {(r[0], r[1]): r[2:] for r in rows}
        diffs = []
        where = {str(f): i for i, f in enumerate(inputs)}
        for key in sorted(res["old"], key=lambda k: (where[k[0]], k[1])):
            if res["old"][key] != res["new"].get(key):
                diffs.append(key)
        if len(res["new"]) != len(res["old"]) or len(res["old"]) != 3 * len(inputs):
            diffs.append(("(outputs missing)", ""))
        print(f"in-process: {len(generated)} generated kernels ({args.seeds} seeds x constants False/True x intrinsics False/True, "
              f"sizes {sizes}) and {len(files)} other files: {len(res['old'])} outputs per copy "
              f"(--format mir, --format json, combined DAGs), {len(diffs)} differ")
        for path, fmt in diffs:
            print(f"DIFFERENT (in-process): {path} {fmt}")

        # corpus files and the bench kernel: whole commands
        rcs: dict = {}
        n_cmd = 0
        for f in files:
            for fmt in ("mir", "json"):
                a, b = command(old, tmp, f, fmt), command(new, tmp, f, fmt)
                n_cmd += 1
                rc = a.split("\n", 1)[0]
                rcs[rc] = rcs.get(rc, 0) + 1
                if a != b:
                    diffs.append((str(f), fmt))
                    print(f"DIFFERENT: {f} --format {fmt}")
                    sys.stdout.writelines(list(difflib.unified_diff(a.splitlines(True), b.splitlines(True),
                                                                    "old", "new"))[:40])
                else:
                    print(f"same: {f.name} --format {fmt} ({len(a)} bytes, "
                          f"sha256 {hashlib.sha256(a.encode()).hexdigest()[:12]}, {rc})")
        print(f"commands: {n_cmd} compared ({len(files)} files x 2 formats; exit codes {rcs})")

        # the first few differing generated kernels, as commands, with their diffs
        for path, fmt in [d for d in diffs if d[1] in ("mir", "json") and where.get(d[0], 1 << 30) < len(generated)][:5]:
            a, b = command(old, tmp, Path(path), fmt), command(new, tmp, Path(path), fmt)
            print(f"DIFFERENT: {Path(path).name} --format {fmt}")
            sys.stdout.writelines(list(difflib.unified_diff(a.splitlines(True), b.splitlines(True),
                                                            "old", "new"))[:40])
        print(f"{'IDENTICAL' if not diffs else f'{len(diffs)} DIFFERENCES'} "
              f"({time.time() - t0:.0f} s; old: {args.old_rev}, new: {args.new}"
              f"{' (only ' + ', '.join(args.only) + ')' if args.only else ''})")
        return 1 if diffs else 0
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

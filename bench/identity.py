"""Check that two versions of the project behave identically over every user-facing command.

Run: ``python3 bench/identity.py [--old-rev REV] [--new worktree|REV|FOLDER] [--kernels 200]
[--jobs 2] [--quick] [--keep]`` (a refactor must leave every output byte-identical).

The sources (tdgen, patterns, targets, templates, pyproject.toml, out, and every other
top-level folder holding an ``__init__.py``) are copied twice into a temporary folder:
the old ones from git revision ``--old-rev`` (default HEAD), the new ones from ``--new``
(default ``worktree``: the files as they are; or a git revision, or a folder holding a
copy of the project). Each copy gets its own ``XDG_CACHE_HOME``; both get
``PYTHONHASHSEED=0`` and the compiled build folder the caller's runs use (the native mode
is left as it is: a copy whose sources match a build runs compiled). Nothing of the new
side is imported: it is driven only through ``tdgen.cli.main(argv)`` in-process (one
long-lived worker per ``--jobs`` per side) and ``python3 -m tdgen`` commands.

Inputs: isel kernels (``--kernels``) and divergence kernels made by the OLD copy's
generators (``generate_isel_kernel``, ``generate_kernel``, ``generate_cfg_module``, found
by their definitions: patterns/ before the layout change, testkit/ after), every ``.ll``
file of ../shared/corpus/llvm and ../shared/corpus/llvm-codegen, and every ``.ll`` file
the old revision has under tests/. Per input: ``divergence`` (default, ``--format json``,
``--format llvm``, ``--llvm19-compat``, ``--why`` the first value defined), ``isel
--target amdgpu|dslike --format mir|json`` and ``explain --target amdgpu --value
@fn:%v`` (two values); then a grid of ``shuffle`` commands (reference and
``--lowered``), and as commands: ``lint amdgpu|dslike``, ``list``, ``verify-shuffles
--wave 32|64``, ``generate --check``, ``generate --out DIR`` (the written files compared
too). Each is compared on exit code, stdout and stderr, byte for byte, after the copy's
own folder is replaced by ``<SIDE>``. The in-process results of a few inputs are checked
against ``python3 -m tdgen`` runs (reported before the comparison).

Prints one line per command family (inputs compared, differences, exit codes of the old
side), then each difference (command line and the first lines of a unified diff).
Exit 0: identical; 1: a difference; 2: the check could not be made (bad revision, a
worker failed, in-process and command results disagree). Elapsed time goes to stderr.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import difflib
import hashlib
import inspect
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = (ROOT.parent / "shared" / "corpus" / "llvm", ROOT.parent / "shared" / "corpus" / "llvm-codegen")
COPIED = ("tdgen", "patterns", "targets", "templates", "pyproject.toml", "out")
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
SHOWN = 10  # differences shown per family (all are counted)


def blob(rc, out: str, err: str, side: str) -> bytes:
    """One command's result as compared: exit code, stdout, stderr, with the side's own
    folder replaced by a placeholder (shared by the driver and the in-process worker)."""
    text = f"rc={rc}\n--stdout--\n{out}--stderr--\n{err}"
    return text.replace(side, "<SIDE>").encode("utf-8", "surrogateescape")


# the worker run in each copy: every command of a list, in-process, through tdgen.cli.main
WORKER = inspect.getsource(blob) + r'''
import contextlib, hashlib, io, json, os, sys
import tdgen.cli

side, todo, out = sys.argv[1:4]
if not os.path.abspath(tdgen.cli.__file__).startswith(side + os.sep):
    sys.exit(f"worker: tdgen.cli imported from {tdgen.cli.__file__}, not from {side}")
with open(out, "w") as res:
    for key, argv in json.load(open(todo)):
        o, e = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
            try:
                rc = tdgen.cli.main(argv)
            except SystemExit as x:
                rc = x.code
                if rc is None:
                    rc = 0
                elif not isinstance(rc, int):
                    e.write(f"{rc}\n")
                    rc = 1
            except Exception as x:  # (a crash: compared by its type and message)
                rc = "crash"
                e.write(f"{type(x).__name__}: {x}\n")
        b = blob(rc, o.getvalue(), e.getvalue(), side)
        res.write(json.dumps([key, hashlib.sha256(b).hexdigest(), rc]) + "\n")
os._exit(0)  # (no teardown of the heap: the results are written and closed)
'''

# run with the old copy on sys.path: writes the generated kernels into a folder (the
# generators are found by their definitions, wherever the old revision keeps them)
GENERATOR = r'''
import importlib, re, sys
from pathlib import Path


def find(name):
    for f in sorted(Path(".").rglob("*.py"), key=lambda f: (len(f.parts), str(f))):
        if re.search(rf"^def {name}\(", f.read_text(errors="replace"), re.M):
            return getattr(importlib.import_module(".".join(f.with_suffix("").parts)), name)
    sys.exit(f"no module of the old copy defines {name}()")


generate_isel_kernel, generate_kernel = find("generate_isel_kernel"), find("generate_kernel")
generate_cfg_module = find("generate_cfg_module")
out, n_isel, n_div = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
sizes = (30, 30, 60, 120, 250, 500)
for i in range(n_isel):
    seed, (c, intr) = i // 4, ((False, False), (False, True), (True, False), (True, True))[i % 4]
    (out / f"isel-{seed:03d}-{'c' if c else 'v'}{'i' if intr else ''}.ll").write_text(
        generate_isel_kernel(seed, sizes[seed % len(sizes)], name=f"k{seed}", constants=c, intrinsics=intr))
for s in range(n_div):
    if s % 2 == 0:
        text = generate_kernel(s, 40 + 23 * (s % 9), max_depth=2 + s % 3, divergent=s % 5 != 4, name=f"d{s}")
        (out / f"div-{s:03d}-irgen.ll").write_text(text)
    else:
        (out / f"div-{s:03d}-cfg.ll").write_text(generate_cfg_module([s * 7 + j for j in range(1 + s % 3)], 6 + s % 11))
'''


class Failure(Exception):
    """The check cannot be made (exit 2)."""


def git(*args: str, text: bool = True):
    p = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=text)
    if p.returncode != 0:
        raise Failure(f"git {' '.join(args)}: {(p.stderr if text else p.stderr.decode()).strip()}")
    return p.stdout


def kind(spec: str) -> str:
    if spec == "worktree":
        return "worktree"
    return "folder" if os.path.isdir(spec) else "rev"


def snapshot(spec: str, dest: Path) -> None:
    """Copy the sources named by ``spec`` (worktree, folder or git revision) into ``dest``."""
    dest.mkdir(parents=True)
    if kind(spec) == "rev":
        try:
            git("rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}")
        except Failure:
            raise Failure(f"{spec!r} is neither 'worktree', a folder nor a git revision") from None
        top = git("ls-tree", "--name-only", spec).split("\n")
        names = [n for n in top if n in COPIED or (n and f"{n}/__init__.py" in git("ls-tree", "--name-only", spec,
                                                                                       f"{n}/__init__.py"))]
        archive = git("archive", "--format=tar", spec, "--", *sorted(set(names)), text=False)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
        return
    base = ROOT if spec == "worktree" else Path(spec).resolve()
    for src in sorted(base.iterdir()):
        if src.name in COPIED or (src.is_dir() and (src / "__init__.py").is_file()):
            if src.is_dir():
                shutil.copytree(src, dest / src.name, ignore=IGNORED)
            else:
                shutil.copy2(src, dest / src.name)
    if not (dest / "tdgen").is_dir():
        raise Failure(f"{base}: no tdgen/ package here")


def test_files(spec: str, dest: Path) -> list[Path]:
    """The ``.ll`` files under tests/ of the old side, copied into ``dest``."""
    if kind(spec) == "folder":
        base = Path(spec).resolve()
        rels = sorted(str(p.relative_to(base)) for p in (base / "tests").rglob("*.ll"))
    else:
        listed = git("ls-files", "-z", "--", "tests") if spec == "worktree" else \
            git("ls-tree", "-r", "-z", "--name-only", spec, "--", "tests")
        rels = sorted(r for r in listed.split("\0") if r.endswith(".ll"))
    if kind(spec) == "worktree":
        rels = [r for r in rels if (ROOT / r).is_file()]  # (tracked, but deleted in the working tree)
    for rel in rels:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        if kind(spec) == "rev":
            (dest / rel).write_bytes(git("show", f"{spec}:{rel}", text=False))
        else:
            shutil.copy2((ROOT if spec == "worktree" else Path(spec).resolve()) / rel, dest / rel)
    return [dest / r for r in rels]


def corpus_files() -> list[Path]:
    files = []
    for d in CORPORA:
        if not d.is_dir():
            print(f"corpus: {d} is missing (skipped)")
            continue
        found = sorted(d.rglob("*.ll"))
        manifest = d / "MANIFEST.tsv"
        if manifest.is_file():
            listed = [line.split("\t", 1)[0] for line in manifest.read_text().splitlines()[1:] if line.strip()]
            missing = [r for r in listed if not (d / r).is_file()]
            if missing:
                print(f"corpus: {len(missing)} file(s) of {manifest} are missing, e.g. {missing[0]}")
        else:
            print(f"corpus: {manifest} is missing (using the .ll files found)")
        files += found
    return files


def native_dir() -> str:
    """The folder the caller's runs take compiled builds from (README: TDGEN_NATIVE_DIR,
    else $XDG_CACHE_HOME/tdgen/native, else ~/.cache/tdgen/native)."""
    if os.environ.get("TDGEN_NATIVE_DIR"):
        return os.path.abspath(os.environ["TDGEN_NATIVE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME", "")
    if base and os.path.isabs(base):
        return os.path.join(base, "tdgen", "native")
    return os.path.join(os.path.expanduser("~"), ".cache", "tdgen", "native")


class Side:
    def __init__(self, name: str, spec: str, tmp: Path):
        self.name, self.spec, self.root = name, spec, tmp / name
        self.src = self.root / "src"
        snapshot(spec, self.src)
        (self.root / "cache").mkdir()
        (self.root / "worker.py").write_text(WORKER)
        self.env = dict(os.environ, PYTHONPATH=str(self.src), XDG_CACHE_HOME=str(self.root / "cache"),
                        PYTHONHASHSEED="0", TDGEN_NATIVE_DIR=native_dir(), PYTHONDONTWRITEBYTECODE="1")

    def run(self, argv: list[str]) -> bytes:
        """One ``python3 -m tdgen`` command, as a user runs it."""
        p = subprocess.run([sys.executable, "-m", "tdgen", *argv], cwd=self.src, env=self.env, capture_output=True)
        return blob(p.returncode, p.stdout.decode("utf-8", "surrogateescape"),
                    p.stderr.decode("utf-8", "surrogateescape"), str(self.root))

    def mode(self) -> str:
        """What the copy's own build command says about the native mode (found by its
        ``--status`` option, wherever the revision keeps it)."""
        for f in sorted(self.src.rglob("*.py"), key=lambda f: (len(f.parts), str(f))):
            if 'add_argument("--status"' in f.read_text(errors="replace"):
                mod = ".".join(f.relative_to(self.src).with_suffix("").parts)
                p = subprocess.run([sys.executable, "-m", mod, "--status"], cwd=self.src, env=self.env,
                                   capture_output=True, text=True)
                if p.returncode == 0 and p.stdout.strip():
                    return p.stdout.strip().splitlines()[0]
        return "native mode unknown"


def values(path: Path) -> list[str]:
    """``@fn:%v`` for every value defined in the file's function bodies, in order."""
    out, fn = [], None
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return []
    for line in text.splitlines():
        m = re.match(r'define\b.*?(@(?:[-\w.$]+|"[^"]*"))\s*\(', line)
        if m:
            fn = m.group(1)
        elif line.startswith("}"):
            fn = None
        elif fn:
            m = re.match(r'\s+(%(?:[-\w.$]+|"[^"]*"))\s*=', line)
            if m:
                out.append(f"{fn}:{m.group(1)}")
    return out


FILE_FAMILIES = ("divergence", "divergence --format json", "divergence --format llvm", "divergence --llvm19-compat",
                 "divergence --why", "isel --target amdgpu --format mir", "isel --target amdgpu --format json",
                 "isel --target dslike --format mir", "isel --target dslike --format json", "explain --target amdgpu")


def file_commands(path: Path) -> list[tuple[str, list[str]]]:
    f, vs = str(path), values(path)
    cmds = [(fam, fam.split()[:1] + [f] + fam.split()[1:]) for fam in FILE_FAMILIES[:4]]
    if vs:
        cmds.append(("divergence --why", ["divergence", f, "--why", vs[0]]))
    for target in ("amdgpu", "dslike"):
        for fmt in ("mir", "json"):
            cmds.append((f"isel --target {target} --format {fmt}", ["isel", f, "--target", target, "--format", fmt]))
    for v in sorted(set(vs[len(vs) // 2:len(vs) // 2 + 1] + vs[-1:]), key=vs.index):
        cmds.append(("explain --target amdgpu", ["explain", f, "--target", "amdgpu", "--value", v]))
    return cmds


def shuffle_commands(quick: bool) -> list[tuple[str, list[str]]]:
    cmds = []
    for wave in (32, 64):
        widths = (wave,) if quick else (1, 4, 16, wave)
        operands = (1, wave - 3) if quick else (0, 1, 5, wave - 3, wave + 7)
        for mode in ("idx", "up", "down", "bfly"):
            for width in widths:
                for op in operands:
                    for lowered in ([], ["--lowered"]):
                        cmds.append((f"shuffle{' --lowered' if lowered else ''}",
                                     ["shuffle", mode, "--operand", str(op), "--width", str(width), "--wave", str(wave),
                                      *lowered, "--format", "json"]))
    extra = [["idx", "--operand", "3", "--wave", "32", "--exec", "0xf0f0f0f0", "--lowered"],
             ["down", "--operand", "2", "--wave", "64", "--mask", "0xffff0000ffff", "--lowered"],
             ["up", "--operand", "1", "--wave", "64", "--bits", "64", "--lowered"],
             ["bfly", "--operand", "0x5", "--wave", "32", "--values=" + ",".join(str(i * i - 50) for i in range(32)),
              "--lowered"],
             ["idx", "--operand", "1", "--c", "0x1f", "--wave", "32", "--lowered"],
             ["up", "--operand", "1", "--wave", "64", "--choose"], ["down", "--operand", "1", "--wave", "32", "--hip"],
             ["idx", "--operand", "3", "--width", "8", "--wave", "32", "--lowered", "--format", "text"],
             ["idx", "--operand", "3", "--width", "3", "--wave", "32"], ["idx", "--operand", "1", "--wave", "48"],
             ["sideways", "--operand", "1"], ["bfly", "--operand", "1", "--wave", "32", "--values=-1,2,-3,4"], ["idx", "--operand", "x1", "--wave", "32", "--lowered"]]
    for argv in extra[:4] if quick else extra:
        cmds.append(("shuffle" + (" --lowered" if "--lowered" in argv else ""), ["shuffle", *argv]))
    return cmds


def whole_commands(side: Side) -> list[tuple[str, list[str]]]:
    return [("lint", ["lint", "amdgpu"]), ("lint", ["lint", "dslike"]), ("list", ["list"]),
            ("verify-shuffles", ["verify-shuffles", "--wave", "32"]),
            ("verify-shuffles", ["verify-shuffles", "--wave", "64"]),
            ("generate --check", ["generate", "--check"]),
            ("generate --out", ["generate", "--out", str(side.root / "gen")])]


def tree(d: Path, side: Side) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes().replace(str(side.root).encode(), b"<SIDE>")
            for p in sorted(d.rglob("*")) if p.is_file()} if d.is_dir() else {}


def run_workers(sides: list[Side], cmds: list[tuple[str, list[str]]], jobs: int) -> list[dict[int, tuple]]:
    """Run every command in-process, ``jobs`` workers per side, all side by side; per side,
    command index -> (sha256, exit code)."""
    procs = []
    for side in sides:
        for j in range(jobs):
            todo = side.root / f"todo-{j}.json"
            todo.write_text(json.dumps([[i, argv] for i, (_, argv) in enumerate(cmds) if i % jobs == j]))
            res = side.root / f"done-{j}.jsonl"
            procs.append((side, res, subprocess.Popen([sys.executable, str(side.root / "worker.py"), str(side.root),
                                                       str(todo), str(res)], cwd=side.src, env=side.env)))
    try:
        codes = [p.wait() for _, _, p in procs]
    finally:
        for _, _, p in procs:
            if p.poll() is None:
                p.kill()
    out: list[dict[int, tuple]] = [{} for _ in sides]
    for (side, res, p), code in zip(procs, codes):
        if code != 0:
            raise Failure(f"{side.name} worker failed (exit {code})")
        for line in res.read_text().splitlines():
            i, sha, rc = json.loads(line)
            out[sides.index(side)][i] = (sha, rc)
    for side, got in zip(sides, out):
        if len(got) != len(cmds):
            raise Failure(f"{side.name} workers returned {len(got)} results for {len(cmds)} commands")
    return out


def diff(a: bytes, b: bytes, lines: int = 24) -> list[str]:
    d = list(difflib.unified_diff(a.decode("utf-8", "replace").splitlines(True),
                                  b.decode("utf-8", "replace").splitlines(True), "old", "new"))
    return ["    " + x.rstrip("\n") + "\n" for x in d[:lines]] + (["    ...\n"] if len(d) > lines else [])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old-rev", default="HEAD", help="git revision of the old sources (or a folder)")
    ap.add_argument("--new", default="worktree", help="'worktree' (the files as they are), a git revision, "
                    "or a folder holding a copy of the project")
    ap.add_argument("--kernels", type=int, default=200, help="generated isel kernels")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes per side")
    ap.add_argument("--quick", action="store_true", help="a smoke run: about 20 inputs, a small shuffle grid")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()
    t0 = time.time()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # (the temporary folder is removed)
    tmp = Path(tempfile.mkdtemp(prefix="tdgen-identity-")).resolve()
    try:
        return check(args, tmp)
    except Failure as e:
        print(f"error: {e}")
        return 2
    finally:
        print(f"elapsed: {time.time() - t0:.0f} s", file=sys.stderr)
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def check(args, tmp: Path) -> int:
    jobs = max(1, args.jobs)
    old, new = Side("old", args.old_rev, tmp), Side("new", args.new, tmp)
    sides = [old, new]
    print(f"old: {args.old_rev} ({old.mode()}); new: {args.new} ({new.mode()})")
    if tree(old.src, old) == tree(new.src, new):
        print("note: the old and the new sources are the same")

    # inputs: the old copy's generated kernels, the corpus, the old side's tests/ files
    gen = tmp / "inputs" / "generated"
    gen.mkdir(parents=True)
    n_isel, n_div = (8, 4) if args.quick else (max(0, args.kernels), 100)
    p = subprocess.run([sys.executable, "-c", GENERATOR, str(gen), str(n_isel), str(n_div)], cwd=old.src,
                       env=old.env, capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure(f"the old copy's generators failed:\n{p.stderr[-2000:]}")
    generated = sorted(gen.glob("*.ll"))
    corpus = corpus_files()
    tests = test_files(args.old_rev, tmp / "inputs")
    if args.quick:  # every k-th file: about 8 of the corpus and tests together
        step = max(1, (len(corpus) + len(tests)) // 8)
        corpus, tests = corpus[::step], tests[::step]
    inputs = generated + corpus + tests
    print(f"inputs: {n_isel} generated isel kernels, {len(generated) - n_isel} generated divergence kernels, "
          f"{len(corpus)} corpus files, {len(tests)} tests/ files")

    # whole commands first (they also fill each side's target cache): one after the other
    # within a side, the two sides at once
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        done = {s.name: pool.submit(lambda s: [s.run(argv) for _, argv in whole_commands(s)], s) for s in sides}
        whole = {(name, i): b for name, fut in done.items() for i, b in enumerate(fut.result())}

    # the per-file and shuffle commands, in-process
    cmds = [c for f in inputs for c in file_commands(f)] + shuffle_commands(args.quick)
    res = run_workers(sides, cmds, jobs)

    # in-process == python3 -m tdgen, for a handful of inputs (one of each kind) and shuffles
    picked = {str(g[0]) for g in (generated[:1], generated[n_isel:n_isel + 1], corpus[:1], tests[:1]) if g}
    probe = [i for i, (_, argv) in enumerate(cmds)
             if (argv[0] != "shuffle" and argv[1] in picked) or (argv[0] == "shuffle" and i % 25 == 0)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = {(k, i): pool.submit(s.run, cmds[i][1]) for k, s in enumerate(sides) for i in probe}
        bad = [(sides[k].name, i) for (k, i), f in runs.items()
               if hashlib.sha256(f.result()).hexdigest() != res[k][i][0]]
    print(f"in-process check: {len(runs)} in-process results compared with python3 -m tdgen runs "
          f"({len(probe)} commands x 2 sides): {'all equal' if not bad else f'{len(bad)} differ'}")
    for name, i in bad:
        print(f"  in-process != command ({name}): tdgen {show(cmds[i][1], tmp)}")

    # compare, per family
    families: dict[str, list] = {}
    for i, (fam, argv) in enumerate(cmds):
        families.setdefault(fam, []).append((argv, res[0][i][1], res[0][i][0] != res[1][i][0], None))
    for i, (fam, argv) in enumerate(whole_commands(old)):
        a, b = whole[("old", i)], whole[("new", i)]
        families.setdefault(fam, []).append((argv, a.split(b"\n", 1)[0].decode()[3:], a != b, (a, b)))
    gen_old, gen_new = tree(old.root / "gen", old), tree(new.root / "gen", new)
    files_differ = sorted(k for k in set(gen_old) | set(gen_new) if gen_old.get(k) != gen_new.get(k))
    families["generate --out (written files)"] = [(["generate", "--out", "<SIDE>/gen", ":", k], "-", k in files_differ,
                                                   (gen_old.get(k, b"(missing)\n"), gen_new.get(k, b"(missing)\n")))
                                                  for k in sorted(set(gen_old) | set(gen_new))]
    order = list(FILE_FAMILIES) + ["shuffle", "shuffle --lowered", "lint", "list", "verify-shuffles",
                                   "generate --check", "generate --out", "generate --out (written files)"]
    total = 0
    width = max(map(len, order))
    for fam in order:
        rows = families.get(fam, [])
        rcs: dict[str, int] = {}
        for _, rc, _, _ in rows:
            rcs[str(rc)] = rcs.get(str(rc), 0) + 1
        n_diff = sum(1 for r in rows if r[2])
        total += n_diff
        rc_text = ", ".join(f"rc {k}: {v}" for k, v in sorted(rcs.items()) if k != "-")
        print(f"{fam:<{width}}  {len(rows):5d} compared, {n_diff:4d} differ  (old side: {rc_text or '-'})")
    for fam in order:
        shown = [r for r in families.get(fam, []) if r[2]]
        for argv, _, _, texts in shown[:SHOWN]:
            print(f"DIFFERENT [{fam}]: tdgen {show(argv, tmp)}")
            if texts is None:  # an in-process result: rerun as commands for the texts
                texts = (old.run(argv), new.run(argv))
                if texts[0] == texts[1]:
                    print("    (differs in-process only; the python3 -m tdgen outputs are equal)")
            sys.stdout.writelines(diff(*(t.replace(str(tmp).encode(), b"<TMP>") for t in texts)))
        if len(shown) > SHOWN:
            print(f"  ... and {len(shown) - SHOWN} more differences in [{fam}]")
    if bad:
        print("in-process results disagree with python3 -m tdgen: the comparison cannot be trusted")
        return 2
    print("IDENTICAL" if not total else f"{total} DIFFERENCES")
    return 1 if total else 0


def show(argv: list[str], tmp: Path) -> str:
    return " ".join(a.replace(str(tmp), "<TMP>") for a in argv)


if __name__ == "__main__":
    sys.exit(main())

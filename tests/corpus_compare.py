"""Whole-file comparison of ``tdgen divergence`` with ``opt-19 print<uniformity>`` for the
real-compiler corpora (clang-19's output of tests/kernels/opencl, LLVM's AMDGPU CodeGen
tests), and the per-corpus status report.

``compare(text, path, opt_report)`` parses ``text`` with tdgen, analyzes it in both
modes and returns ``None`` when it agrees with opt-19 (the rules of
tests/test_divergence_differential.py: ``--llvm19-compat`` prints what opt-19 prints up to
its hash orders, see tests/divergence_oracle.py; the default mode may only add DIVERGENT
marks, LLVM issue 137277), else the most basic ``Mismatch``: ``parse`` (tdgen rejects
the file), ``analysis`` (the analysis refuses it), ``verdict`` (the DIVERGENT set,
divergent arguments or cycles differ from opt-19's), ``default`` (the default mode
differs from compat mode by more than added marks), ``text`` (the verdicts agree, a
printed instruction differs from opt-19's), with the first line of the problem.

Run as a script, it measures the corpora (files, functions, parsed, equal) and with
``--failures FILE`` writes every failing file with its first error line, grouped by
cause::

    python3 tests/corpus_compare.py [--failures FAILURES.md] [--corpus opencl|codegen|all]
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from divergence_oracle import comparable, divergent_lines, parse_report  # noqa: E402


@dataclass(frozen=True)
class Mismatch:
    stage: str  # parse | analysis | verdict | default | text (see _compare_function)
    message: str  # the first line of the problem

    def __str__(self) -> str:
        return f"{self.stage}: {self.message}"


def _facts():
    from tdgen.commands.divergence import load_target_facts

    return load_target_facts("amdgpu")


def compare(text: str, path: str, opt_report: str) -> Mismatch | None:
    """None when tdgen agrees with opt-19's ``print<uniformity>`` report on ``text``."""
    from patterns.ir import parse_module
    from patterns.ir.datalayout import use_target_layout
    from patterns.uniformity.analysis import analyze
    from patterns.uniformity.printer import format_llvm
    from tdgen.errors import TdgenError

    facts = _facts()
    try:
        # a module without its own 'target datalayout' gets the target's, as the
        # command and opt-19 -mtriple=amdgcn do
        mod = use_target_layout(parse_module(text, path), facts.data_layout)
    except TdgenError as e:
        return Mismatch("parse", e.format().split("\n", 1)[0])
    try:
        compat = parse_report(format_llvm(analyze(mod, facts, llvm19_compat=True)))
        default = parse_report(format_llvm(analyze(mod, facts, llvm19_compat=False)))
    except TdgenError as e:
        return Mismatch("analysis", e.format().split("\n", 1)[0])
    theirs = parse_report(opt_report)
    if compat.keys() != theirs.keys():
        return Mismatch("verdict", f"functions differ: tdgen {sorted(compat)[:4]} opt-19 {sorted(theirs)[:4]}")
    found: list[Mismatch] = []
    for fn in theirs:
        found += _compare_function(fn, compat[fn], default[fn], theirs[fn])
    return min(found, key=lambda m: _STAGES.index(m.stage)) if found else None


_STAGES = ("parse", "analysis", "verdict", "default", "text", "text-known")


def _verdicts(lines) -> list[bool]:
    return [ln.startswith("  DIVERGENT: ") for ln in lines]


# metadata numbering is opt's own (issue 20 exempts it); ``#N`` attribute-group numbers
# and intrinsic names are the two known printer gaps (opt gives every intrinsic
# declaration LLVM's own attribute set, which takes the low numbers; it remangles an
# overloaded intrinsic declared without its type suffix): a line that differs only there
# is reported as ``text-known``, any other difference as ``text``
_METADATA_ID = re.compile(r"!\d+\b")
_ATTR_GROUP = re.compile(r"#\d+\b")
_INTRINSIC = re.compile(r"@llvm\.[A-Za-z0-9_.]+")


def _known_gap(x: str, y: str) -> str | None:
    x, y = _METADATA_ID.sub("!N", x), _METADATA_ID.sub("!N", y)
    if _ATTR_GROUP.sub("#N", x) == _ATTR_GROUP.sub("#N", y):
        return "attribute-group numbers of intrinsic declarations"
    if _INTRINSIC.sub("@llvm.X", x) == _INTRINSIC.sub("@llvm.X", y):
        return "intrinsic name remangling"
    if _INTRINSIC.sub("@llvm.X", _ATTR_GROUP.sub("#N", x)) == _INTRINSIC.sub("@llvm.X", _ATTR_GROUP.sub("#N", y)):
        return "attribute-group numbers and intrinsic name remangling"
    return None


def _compare_function(fn: str, compat: dict, default: dict, theirs: dict) -> list[Mismatch]:
    """The mismatches of one function: ``verdict`` (compat mode's DIVERGENT marks,
    arguments or cycles differ from opt-19's), ``default`` (the default mode does more
    than add marks), ``text`` (verdicts agree, a printed line differs)."""
    out = []
    a, b = comparable(compat), comparable(theirs)
    if len(a[0]) != len(b[0]):
        out.append(Mismatch("verdict", f"@{fn}: tdgen prints {len(a[0])} lines, opt-19 {len(b[0])}"))
    elif _verdicts(a[0]) != _verdicts(b[0]):
        i = next(i for i, (x, y) in enumerate(zip(_verdicts(a[0]), _verdicts(b[0]))) if x != y)
        out.append(Mismatch("verdict", f"@{fn}: tdgen {a[0][i].strip()!r} opt-19 {b[0][i].strip()!r}"))
    elif a[1:] != b[1:]:
        out.append(Mismatch("verdict", f"@{fn}: divergent arguments or cycles differ: tdgen {sorted(a[1] | a[2] | a[3])[:3]} "
                                       f"opt-19 {sorted(b[1] | b[2] | b[3])[:3]}"))
    elif a[0] != b[0]:
        pairs = [(x, y) for x, y in zip(a[0], b[0]) if _METADATA_ID.sub("!N", x) != _METADATA_ID.sub("!N", y)]
        if pairs:
            x, y = pairs[0]
            gaps = sorted({_known_gap(x, y) or "" for x, y in pairs})
            stage = "text-known" if "" not in gaps else "text"
            why = f" [known gap: {', '.join(gaps)}]" if stage == "text-known" else ""
            out.append(Mismatch(stage, f"@{fn}: tdgen {x.strip()!r} opt-19 {y.strip()!r}{why}"))
    d, c = default["lines"], compat["lines"]
    if len(d) != len(c):
        out.append(Mismatch("default", f"@{fn}: {len(d)} lines, compat mode {len(c)}"))
    else:
        for x, y in zip(d, c):
            if x != y and not (x.startswith("  DIVERGENT: ") and not y.startswith("  DIVERGENT: ") and x[13:] == y[13:]):
                out.append(Mismatch("default", f"@{fn}: {x.strip()!r} where compat mode has {y.strip()!r}"))
                break
    if not divergent_lines(default) >= divergent_lines(theirs):
        out.append(Mismatch("default", f"@{fn}: misses a DIVERGENT mark of opt-19"))
    return out


def opt_reports(opt: str, paths: list[Path], mtriple: str = "amdgcn--") -> dict[Path, str]:
    """opt-19's ``print<uniformity>`` report of each file (one process per file: a file
    opt-19 rejects must not hide the others)."""
    out = {}
    for p in paths:
        r = subprocess.run([opt, f"-mtriple={mtriple}", "-passes=print<uniformity>", "-disable-output", str(p)],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            raise AssertionError(f"opt-19 rejects {p}: {r.stderr.strip().splitlines()[:1]}")
        out[p] = r.stderr
    return out


def count_functions(opt_report: str) -> int:
    return len(parse_report(opt_report))


# ------------------------------------------------------------------ status report


def _cause(m: Mismatch) -> str:
    """A grouping key: the message with paths, positions, names and numbers removed."""
    msg = re.sub(r"^\S+?:\d+:\d+: ", "", m.message)
    msg = re.sub(r"record '[^']*': ", "", msg)
    msg = re.sub(r"found .*", "found …", msg) if "expected" in msg else msg
    msg = re.sub(r"@[\w.$\"-]+", "@f", msg)
    msg = re.sub(r"tdgen '.*' opt-19 '.*'", "tdgen '…' opt-19 '…'", msg)
    msg = re.sub(r"'[^']*'", "'…'", msg)
    return f"{m.stage}: {msg}"


def _opencl_items(tmp: Path):
    from testkit.clang import compile_cl, corpus_kernels

    for k in corpus_kernels():
        for o in ("O0", "O1", "O2", "O3"):
            f = tmp / f"{k.stem}.{o}.ll"
            f.write_text(compile_cl(k, o))
            yield f"opencl/{k.name} -{o}", f


def _codegen_items():
    from llvm_tools import CODEGEN_CORPUS, codegen_oracle

    for row in codegen_oracle():
        if row["opt_parses"] == "yes":
            yield f"llvm-codegen/{row['relative_path']}", CODEGEN_CORPUS / row["relative_path"]


def _uniformity_items(opt: str):
    """LLVM's uniformity tests (``llvm/uniformity``, ``llvm/older/uniformity``) that
    opt-19 parses and analyzes."""
    from llvm_tools import CORPUS, manifest

    for row in manifest():
        rel = row["relative_path"]
        if rel.startswith(("uniformity/", "older/uniformity/")) and rel.endswith(".ll"):
            r = subprocess.run([opt, "-mtriple=amdgcn--", "-passes=print<uniformity>", "-disable-output",
                                str(CORPUS / rel)], capture_output=True, timeout=300)
            if r.returncode == 0:
                yield f"llvm/{rel}", CORPUS / rel


def main(argv: list[str]) -> int:
    import argparse
    import shutil
    import tempfile

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--failures", help="write the failing files, grouped by cause, to this Markdown file")
    ap.add_argument("--corpus", choices=("opencl", "codegen", "uniformity", "all"), default="all")
    args = ap.parse_args(argv)
    opt = shutil.which("opt-19") or "opt-19"
    rows = []  # (corpus, name, functions, mismatch)
    with tempfile.TemporaryDirectory() as tmp:
        sources = []
        if args.corpus in ("opencl", "all"):
            sources.append(("opencl", list(_opencl_items(Path(tmp)))))
        if args.corpus in ("codegen", "all"):
            sources.append(("llvm-codegen", list(_codegen_items())))
        if args.corpus in ("uniformity", "all"):
            sources.append(("llvm-uniformity", list(_uniformity_items(opt))))
        for corpus, items in sources:
            for name, path in items:
                report = opt_reports(opt, [path])[path]
                rows.append((corpus, name, count_functions(report), compare(path.read_text(), str(path), report)))
    print(f"{'corpus':16} {'files':>6} {'functions':>10} {'parsed':>7} {'equal':>6} {'same text':>10} {'up to known gaps':>17}"
          "   (functions: parsed / equal)")
    for corpus in dict.fromkeys(r[0] for r in rows):
        rs = [r for r in rows if r[0] == corpus]
        parsed = [r for r in rs if r[3] is None or r[3].stage != "parse"]
        equal = [r for r in rs if r[3] is None or r[3].stage in ("text", "text-known")]
        same = [r for r in rs if r[3] is None]
        known = [r for r in rs if r[3] is None or r[3].stage == "text-known"]
        print(f"{corpus:16} {len(rs):6} {sum(r[2] for r in rs):10} {len(parsed):7} {len(equal):6} {len(same):10}"
              f" {len(known):17}"
              f"   ({sum(r[2] for r in parsed)} / {sum(r[2] for r in equal)})")
    print("equal: the DIVERGENT sets (and divergent arguments, cycles) equal opt-19's in both modes;"
          " same text: also every printed line; up to known gaps: every line but the printer gaps _known_gap names")
    if args.failures:
        groups: dict[str, list] = {}
        for r in rows:
            if r[3] is not None:
                groups.setdefault(_cause(r[3]), []).append(r)
        lines = ["# Corpus failures (tdgen divergence vs opt-19 print<uniformity>)", "",
                 "Written by `python3 tests/corpus_compare.py --failures FAILURES.md`; not committed.", ""]
        for corpus in dict.fromkeys(r[0] for r in rows):
            rs = [r for r in rows if r[0] == corpus]
            ok = sum(r[3] is None for r in rs)
            eq = sum(r[3] is None or r[3].stage in ("text", "text-known") for r in rs)
            lines.append(f"- {corpus}: {len(rs)} files, {eq} with equal verdicts, {ok} also with the same text, "
                         f"{len(rs) - ok} failing a test")
        lines.append("")
        for cause, rs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines += [f"## {cause} ({len(rs)} files)", ""]
            lines += [f"- `{r[1]}`: {r[3].message}" for r in rs]
            lines.append("")
        Path(args.failures).write_text("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

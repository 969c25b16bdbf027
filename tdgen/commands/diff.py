"""``tdgen diff OLD NEW``: the review diff of two versions of a target.

A side is a spec (a bundled target's name, a folder with ``spec.py`` or a ``.py``
file), a generated folder (``out/<target>/``), or, with ``--rev REV SPEC``, the spec as
committed at git revision REV (old) against the spec on disk (new). Three parts, each
printed only when it has something:

1. **records** (``tdgen.commands.diff_records``): the generated TableGen of both sides,
   read by llvm-tblgen-19: records removed (``-``), added (``+``) and, for each changed
   one (``~``), every changed field with its old and new value;
2. **risks** (``!``): a pattern that lost its uniform/divergent predicate (from the
   records); with a spec on both sides also a scalar-result pattern whose root can now
   match a divergent node (``tdgen lint``'s ``scalar-result-divergent-root`` finding, new
   on the new side) and two overlapping patterns (same root opcode and type, divergence
   predicates that do not exclude each other) that the matcher now tries in the other
   order;
3. **selection** (spec sides only): every IR value of a kernel corpus selected by both
   sides, and each value whose machine instructions differ (opcode, register class,
   operands): old -> new. The corpus is built in (``tdgen gen-tests``' uniform and
   divergent kernel of every pattern of either side) plus ``--kernels FILE...``.
   Virtual register numbers are canonicalised (a register is named by the IR value
   whose instruction defines it), so code that did not change shows no difference.

Exit code: 0 no difference, 1 differences, 2 bad input (or llvm-tblgen-19 missing).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import TdgenError, UsageError, expected


def configure(parser) -> None:
    parser.add_argument("sides", nargs="+", metavar="SIDE",
                        help="OLD NEW: each a target name, spec path or generated folder; with --rev, one SPEC")
    parser.add_argument("--rev", metavar="REV", default=None,
                        help="old side: SPEC as committed at git revision REV (new: SPEC on disk)")
    parser.add_argument("--kernels", nargs="+", metavar="FILE.ll", default=(),
                        help="IR files added to the built-in selection corpus (- for stdin)")
    parser.add_argument("--no-builtin", action="store_true",
                        help="select only the --kernels files (not the built-in kernels of the patterns)")
    parser.add_argument("--no-selection", action="store_true", help="skip the selection diff")


@dataclass
class Side:
    """One side: its generated folder, and the loaded target when it is a spec."""

    label: str
    folder: Path
    target: object = None


def _is_spec(arg: str) -> bool:
    from ..spec import list_targets

    p = Path(arg)
    return arg in list_targets() or (p.is_dir() and (p / "spec.py").is_file()) or (p.is_file() and p.suffix == ".py")


def _generate(target, tmp: Path) -> Path:
    from .. import emit

    files = emit.emit_target(target.name, target)
    for rel, text in files.items():
        p = tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp / target.name


def _side(arg: str, tmp: Path) -> Side:
    from ..api import load_target

    if _is_spec(arg):
        t = load_target(arg)
        return Side(arg, _generate(t, tmp), t)
    p = Path(arg)
    if p.is_dir() and any(p.glob("*.td")):
        return Side(arg, p)
    raise UsageError(None, "tdgen diff: argument SIDE: " + expected(
        "a target name, a spec (folder with spec.py, or a .py file) or a generated folder with .td files", repr(arg)))


def _spec_at_rev(spec: str, rev: str, tmp: Path) -> str:
    """The spec's folder as committed at ``rev``, written under ``tmp``; its spec path."""
    from ..spec import list_targets
    from ..paths import TARGETS

    p = (TARGETS / spec) if spec in list_targets() else Path(spec)
    folder, entry = (p, "spec.py") if p.is_dir() else (p.parent, p.name)
    folder = folder.resolve()

    def git(*a: str, where: Path = folder) -> str:
        r = subprocess.run(["git", "-C", str(where), *a], capture_output=True, text=True)
        if r.returncode != 0:
            raise UsageError(None, "tdgen diff: argument --rev: " + expected(
                f"a git revision of the repository holding '{spec}'", f"{rev!r} ({' '.join(r.stderr.strip().splitlines()[-1:])})"))
        return r.stdout

    top = Path(git("rev-parse", "--show-toplevel").strip())
    rel = folder.relative_to(top).as_posix()
    names = [n for n in git("ls-tree", "-r", "--name-only", rev, "--", rel, where=top).splitlines() if n]
    if f"{rel}/{entry}" not in names:
        raise UsageError(None, "tdgen diff: argument --rev: " + expected(f"{rel}/{entry} at {rev}", "no such file"))
    out = tmp / "rev" / folder.name
    for n in names:
        dest = out / Path(n).relative_to(rel)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(subprocess.run(["git", "-C", str(top), "show", f"{rev}:{n}"], capture_output=True).stdout)
    return str(out / entry)


# ---------------------------------------------------------------------------------------
# risks that need the spec


def _plain(text: str) -> str:
    return re.sub(r"\banonymous_\d+\b", "anonymous", text)


def scalar_risks(old, new) -> list[str]:
    from patterns.select.lint import lint_target

    def found(t) -> set[str]:
        return {_plain(f.message) for f in lint_target(t) if f.code == "scalar-result-divergent-root"}

    return [f"{m} (new)" for m in sorted(found(new) - found(old))]


def priority_risks(old, new) -> list[str]:
    from patterns.select.matcher import build_table

    def order(t) -> dict[str, list]:
        out: dict[str, list] = {}
        for opc, pats in build_table(t).by_opcode.items():
            seen, rows = set(), []
            for p in pats:
                key = (p.src_text(), p.dst_text())
                if key not in seen:
                    seen.add(key)
                    rows.append((key, p))
            out[opc] = rows
        return out

    def div(p) -> set[str]:
        return {pr.kind for pr in p.src.preds if pr.kind in ("uniform", "divergent")}

    lines = []
    a, b = order(old), order(new)
    for opc in sorted(set(a) & set(b)):
        pos_old = {k: i for i, (k, _p) in enumerate(a[opc])}
        rows = [(k, p) for k, p in b[opc] if k in pos_old]
        for i, (k1, p1) in enumerate(rows):
            for k2, p2 in rows[i + 1:]:
                if pos_old[k1] < pos_old[k2]:
                    continue  # same order as before
                if p1.src.vt != p2.src.vt or {"uniform", "divergent"} <= (div(p1) | div(p2)) and div(p1) != div(p2):
                    continue  # cannot match the same node
                old1 = next(p for k, p in a[opc] if k == k1)
                old2 = next(p for k, p in a[opc] if k == k2)
                lines.append(f"priority changed ({opc}): {k1[0]} -> {k1[1]} (complexity {old1.complexity} -> "
                             f"{p1.complexity}) is now tried before {k2[0]} -> {k2[1]} (complexity "
                             f"{old2.complexity} -> {p2.complexity})")
    return lines


# ---------------------------------------------------------------------------------------
# selection over the corpus


def canonical(funcs) -> dict[str, tuple]:
    """``"@fn:%v"`` -> its machine instructions as (opcode, regclass, operands) with
    every virtual register named by the IR value that defines it (``%v#k``: the k-th
    register the instructions of ``%v`` define). A register of no IR value (a
    materialized constant, a machine pass's copy) is named by its defining instruction's
    opcode and position among that opcode's IR-less defs in the function (``%-S_MOV_B32#k``),
    so it is stable across the two sides when only other code changes."""
    out: dict[str, list] = {}
    for f in funcs:
        names: dict[str, str] = {}
        count: dict[str, int] = {}
        instrs = list(f.instrs())
        for mi in instrs:
            for d in ([mi.dst] if mi.dst else []) + [d for d, _rc in (mi.more_defs or ())]:
                owner = mi.ir or f"%-{mi.opcode}"
                count[owner] = count.get(owner, 0) + 1
                names[d] = f"{owner}#{count[owner]}"

        def ren(text: str) -> str:
            return re.sub(r"%\d+\b", lambda m: names.get(m.group(0), m.group(0)), text)

        for mi in instrs:
            key = f"@{f.name}:{mi.ir or '(no IR value)'}"
            out.setdefault(key, []).append((mi.opcode, mi.regclass, tuple(ren(str(o)) for o in mi.operands)))
    return {k: tuple(v) for k, v in out.items()}


def _show(instrs) -> str:
    if instrs is None:
        return "(none)"
    return "; ".join(f"{op} {', '.join(ops)}".rstrip() + (f" ({rc})" if rc else "") for op, rc, ops in instrs)


def _select_canonical(text: str, path: str, target) -> tuple[dict, dict]:
    from patterns.ir import parse_module
    from patterns.ir.intrinsic_immargs import target_immargs

    from ..api import select_functions

    try:
        funcs, errors = select_functions(parse_module(text, path, target_immargs(target)), target, collect=True)
    except TdgenError as e:
        return {}, {"(file)": e.format()}
    return canonical(funcs), {fn: es[0].format().split("; closest:")[0] for fn, es in errors.items()}


def corpus(old, new, user: list[str], builtin: bool = True) -> list[tuple[str, str]]:
    """(label, IR text) of every kernel file: the built-in kernels of both sides' patterns
    (each text once), then the user's files."""
    from .common import read_ir_text
    from .gen_tests import pattern_kernels

    out, seen = [], set()
    for t in ((old, new) if builtin else ()):
        for k in pattern_kernels(t):
            if k.text and k.text not in seen:
                seen.add(k.text)
                out.append((f"built-in:{k.name}", k.text))
    for f in user:
        text, shown = read_ir_text(f)
        out.append((shown, text))
    return out


def selection_diff(old, new, files: list[tuple[str, str]]) -> list[str]:
    from .progress import progress_bar

    lines = []
    with progress_bar("diff: selection", len(files)) as step:
        for label, text in files:
            a, ea = _select_canonical(text, label, old)
            b, eb = _select_canonical(text, label, new)
            step()
            for key in sorted(set(a) | set(b)):
                if a.get(key) != b.get(key):
                    lines.append(f"  {key}  [{label}]\n      {_show(a.get(key))}\n   -> {_show(b.get(key))}")
            for fn in sorted(set(ea) | set(eb)):
                if ea.get(fn) != eb.get(fn):
                    lines.append(f"  @{fn}  [{label}]\n      {ea.get(fn) or 'selects'}\n   -> {eb.get(fn) or 'selects'}")
    return lines


# ---------------------------------------------------------------------------------------


def report(old: Side, new: Side, kernels: list[str], selection: bool = True, builtin: bool = True) -> list[str]:
    from .diff_records import diff_records, format_records, lost_predicates, records

    rd = diff_records(records(old.folder), records(new.folder))
    out: list[str] = []
    if not rd.empty:
        out.append(f"records: {len(rd.changed)} changed, {len(rd.added)} added, {len(rd.removed)} removed")
        out.extend(format_records(rd))
    risks = lost_predicates(rd)
    specs = old.target is not None and new.target is not None
    if specs:
        risks += scalar_risks(old.target, new.target) + priority_risks(old.target, new.target)
    if risks:
        out.append("risks:")
        out.extend(f"! {r}" for r in risks)
    if not specs and out:
        out.append("risks: scalar results reachable by divergent nodes and pattern priorities not checked "
                   "(they need a spec on both sides)")
    if specs and selection:
        sel = selection_diff(old.target, new.target, corpus(old.target, new.target, list(kernels), builtin))
        if sel:
            out.append(f"selection: {len(sel)} difference(s)")
            out.extend(sel)
    elif selection and (out or kernels):
        out.append("selection: not compared (needs a spec on both sides; a generated folder has no patterns "
                   "tdgen can run)")
    return out


def run(args) -> int:
    if args.rev is not None and len(args.sides) != 1:
        raise UsageError(None, "tdgen diff: argument --rev: " + expected("one SPEC with --rev",
                                                                        f"{len(args.sides)} sides"))
    if args.rev is None and len(args.sides) != 2:
        raise UsageError(None, "tdgen diff: argument SIDE: " + expected("two sides, OLD and NEW (or --rev REV SPEC)",
                                                                       f"{len(args.sides)}"))
    from .diff_records import tblgen_path

    tblgen_path()  # a clear error before any work when it is missing
    with tempfile.TemporaryDirectory(prefix="tdgen-diff-") as d:
        tmp = Path(d)
        if args.rev is not None:
            old_arg, new_arg = _spec_at_rev(args.sides[0], args.rev, tmp), args.sides[0]
        else:
            old_arg, new_arg = args.sides
        old = _side(old_arg, tmp / "old")
        new = _side(new_arg, tmp / "new")
        lines = report(old, new, list(args.kernels), selection=not args.no_selection, builtin=not args.no_builtin)
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
    return 1 if lines else 0


def stale_record_diff(out_dir: Path, names: list[str], files: dict[str, str], problems) -> None:
    """``generate --check --diff``: the record diff of each target whose .td files are
    stale (old: the files on disk, new: what generate would write)."""
    from .diff_records import diff_records, format_records, lost_predicates, records

    stale = sorted({rel.split("/", 1)[0] for kind, rel in problems if rel.endswith(".td")})
    for name in stale:
        have = out_dir / name
        with tempfile.TemporaryDirectory(prefix="tdgen-diff-") as d:
            new = Path(d) / name
            new.mkdir()
            for rel, text in files.items():
                if rel.startswith(name + "/"):
                    (Path(d) / rel).write_text(text)
            if not have.is_dir() or not any(have.glob("*.td")):
                sys.stdout.write(f"{name}: no generated .td files in {have} to compare with\n")
                continue
            rd = diff_records(records(have), records(new))
        lines = format_records(rd) + [f"! {r}" for r in lost_predicates(rd)]
        sys.stdout.write(f"{name}: records: {len(rd.changed)} changed, {len(rd.added)} added, "
                         f"{len(rd.removed)} removed\n" + "".join(f"  {ln}\n" for ln in lines))

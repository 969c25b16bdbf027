"""`tdgen generate [TARGET...] [--out DIR] [--check [--diff]]`: write (or check) out/<target>/.

TARGET is a bundled target's name or a spec (a folder with spec.py, or a ``.py`` file)
anywhere on disk; its files go to ``<out>/<Target.name>/``. Without TARGET every bundled
target is generated. ``--diff`` (with ``--check``) also prints the record-level diff of
each stale ``.td`` file (``tdgen diff``'s report, old = the file on disk). ``--check`` builds the files in
memory, compares them with DIR and lists each stale, missing or extra file (exit 1 when
any; 0 when DIR is up to date). Any error (unknown target, bad spec) exits 2 and writes
nothing; otherwise all files are written at once and files the generator no longer
produces are removed from out/<target>/ afterwards.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import UsageError, expected
from ..paths import INSTALLED, OUT


def configure(parser) -> None:
    parser.add_argument("targets", nargs="*", metavar="TARGET",
                        help="target names (bundled targets) or spec paths (a folder with spec.py, or a .py file); "
                             "default: every bundled target")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="output folder (default: " + ("out/ in the working directory" if INSTALLED
                                                           else "out/ at the repository root") + ")")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 and list the files that are stale")
    parser.add_argument("--diff", action="store_true",
                        help="with --check: print the record-level diff of each stale .td file (needs llvm-tblgen-19)")


def _console():
    """Styled output on a terminal, plain lines when piped (rich decides)."""
    from rich.console import Console

    return Console(soft_wrap=True, highlight=False)


def run(args) -> int:
    from rich.text import Text

    from .. import emit

    if args.diff and not args.check:
        raise UsageError(None, "tdgen generate: argument --diff: " + expected("--check with it", "--diff alone"))
    specs = _resolve_targets(args.targets)
    targets = emit.load_all(specs)  # load + check every spec; all errors together
    names = _out_names(specs, targets)
    out_dir = _out_dir(args.out, names)
    files = emit.emit_all(names, targets)  # render everything in memory
    console = _console()
    if args.check:
        problems = emit.compare(out_dir, names, files)
        for kind, rel in problems:
            console.print(Text.assemble((kind, "bold red"), f": {_show(out_dir / rel)}"))
        if problems and args.diff:
            from .diff import stale_record_diff

            sys.stdout.flush()
            stale_record_diff(out_dir, names, files, problems)
        if problems:
            console.print(
                f"{len(problems)} file(s) out of date; run `tdgen generate` to update",
                markup=False,
            )
            return 1
        console.print(f"up to date: {len(files)} file(s) for {', '.join(names)}", markup=False)
        return 0
    try:
        written, removed = emit.write(out_dir, names, files)
    except OSError as e:  # nothing was renamed into place: out/ is as it was
        raise UsageError(None, "tdgen generate: argument --out: " + expected(
            "a folder that can be written", f"'{e.filename}': {e.strerror}")) from None
    for rel in removed:
        console.print(Text.assemble(("removed", "yellow"), f" {_show(out_dir / rel)}"))
    console.print(
        f"wrote {len(files)} file(s) for {', '.join(names)} to {_show(out_dir)}"
        f" ({written} changed)",
        markup=False,
    )
    return 0


def _out_dir(arg: str | None, names: list[str]) -> Path:
    """The output folder: --out, else out/ at the repository root. It (or the nearest
    of its parents that exists) and each out/<target> that exists must be folders."""
    out_dir = OUT if arg is None else Path(arg)
    if arg is not None and not arg.strip():
        raise UsageError(None, "tdgen generate: argument --out: " + expected("a folder", repr(arg)))
    if arg is not None:
        from ..fsutil import path_problem

        why = path_problem(arg)
        if why is not None:
            raise UsageError(None, "tdgen generate: argument --out: " + expected("a folder", f"'{arg}' ({why})"))
    for p in (out_dir, *out_dir.parents):
        if p.exists():
            if not p.is_dir():
                what = f"the file '{p}'" if p == out_dir else f"'{out_dir}' below the file '{p}'"
                raise UsageError(None, "tdgen generate: argument --out: " + expected("a folder", what))
            break
    for name in names:
        sub = out_dir / name
        if sub.exists() and not sub.is_dir():
            raise UsageError(None, "tdgen generate: argument --out: "
                             + expected(f"'{name}' to be a folder", f"the file '{sub}'"))
    return out_dir


def _resolve_targets(requested: list[str]) -> list[str]:
    """The bundled names and spec paths to load (names sorted first, then paths)."""
    from ..spec import list_targets

    known = sorted(list_targets())
    if not requested:
        return known
    from ..fsutil import path_problem

    for n in requested:
        why = None if n in known else path_problem(n)
        if why is not None:
            raise UsageError(None, "tdgen generate: argument TARGET: "
                             + expected("one of " + ", ".join(known) + " or a spec path", f"'{n}' ({why})"))
    unknown = [n for n in requested if n not in known and not _is_spec_path(n)]
    if unknown:
        raise UsageError(
            None,
            "tdgen generate: argument TARGET: "
            + expected("one of " + ", ".join(known), repr(unknown[0])),
        )
    names = sorted(dict.fromkeys(n for n in requested if n in known))
    return names + list(dict.fromkeys(n for n in requested if n not in known))


def _is_spec_path(arg: str) -> bool:
    p = Path(arg)
    return (p.is_dir() and (p / "spec.py").is_file()) or (p.is_file() and p.suffix == ".py")


def _out_names(specs: list[str], targets: list) -> list[str]:
    """The output folder of each target: a bundled one's name, a spec path's
    ``Target.name``; two targets may not share one."""
    names = [s if not _is_spec_path(s) else t.name for s, t in zip(specs, targets)]
    seen: dict[str, str] = {}
    for s, n in zip(specs, names):
        if n in seen:
            raise UsageError(None, "tdgen generate: argument TARGET: " + expected(
                "targets with different names", f"'{seen[n]}' and '{s}' both named '{n}'"))
        seen[n] = s
    return names


def _show(path: Path) -> str:
    """A path relative to the working directory when it is below it (stable output)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)

"""`tdgen generate [TARGET...] [--out DIR] [--check]`: write (or check) out/<target>/.

Without TARGET every target under targets/ is generated. ``--check`` builds the files in
memory, compares them with DIR and lists each stale, missing or extra file (exit 1 when
any; 0 when DIR is up to date). Any error (unknown target, bad spec) exits 2 and writes
nothing; otherwise all files are written at once and files the generator no longer
produces are removed from out/<target>/ afterwards.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.text import Text

from .. import emit
from ..errors import UsageError, expected
from ..paths import OUT


def configure(parser) -> None:
    parser.add_argument("targets", nargs="*", metavar="TARGET",
                        help="target names (folders under targets/); default: all")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="output folder (default: out/ at the repository root)")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 and list the files that are stale")


def _console() -> Console:
    """Styled output on a terminal, plain lines when piped (rich decides)."""
    return Console(soft_wrap=True, highlight=False)


def run(args) -> int:
    names = _resolve_targets(args.targets)
    out_dir = _out_dir(args.out, names)
    targets = emit.load_all(names)  # load + check every spec; all errors together
    files = emit.emit_all(names, targets)  # render everything in memory
    console = _console()
    if args.check:
        problems = emit.compare(out_dir, names, files)
        for kind, rel in problems:
            console.print(Text.assemble((kind, "bold red"), f": {_show(out_dir / rel)}"))
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
    from ..spec import list_targets

    known = sorted(list_targets())
    if not requested:
        return known
    unknown = [n for n in requested if n not in known]
    if unknown:
        raise UsageError(
            None,
            "tdgen generate: argument TARGET: "
            + expected("one of " + ", ".join(known), repr(unknown[0])),
        )
    return sorted(dict.fromkeys(requested))


def _show(path: Path) -> str:
    """A path relative to the working directory when it is below it (stable output)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)

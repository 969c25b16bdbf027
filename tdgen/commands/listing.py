"""``tdgen list [TARGET...]``: the targets and how many records of each kind they define.

Loads (and so checks) every listed target. The good ones are listed; each bad one is
reported on stderr with its errors, like any other bad input, and the exit code is 2
when any is bad (nothing is listed when every one is). Prints a rich table on a
terminal and tab-separated plain text otherwise (stable for scripts and tests).
"""

from __future__ import annotations

import sys

from ..errors import ErrorList, TdgenError
from ..spec import list_targets, load_target

COLUMNS = (
    ("intrinsics", lambda t: len(t.intrinsics)),
    ("sdnodes", lambda t: len(t.nodes)),
    ("patfrags", lambda t: len(t.frags) + len(t.frag_classes)),
    ("regclasses", lambda t: len(t.register_classes)),
    ("classes", lambda t: len(t.classes) + len(t.multiclasses)),
    ("instructions", lambda t: len(t.instructions)),
    ("patterns", lambda t: len(t.selection_patterns())),
    ("lowerings", lambda t: len(t.lowerings)),
    ("rewrites", lambda t: len(t.rewrites)),
)


def configure(parser) -> None:
    parser.add_argument("targets", nargs="*", metavar="TARGET", help="targets to list (default: all)")
    parser.add_argument("--plain", action="store_true", help="tab-separated output even on a terminal")


def rows(names: list[str]) -> list[list[str]]:
    """One row per target (raises the first bad target's errors)."""
    table, errors = rows_and_errors(names)
    if errors:
        raise errors[0]
    return table


def rows_and_errors(names: list[str]) -> tuple[list[list[str]], list[TdgenError]]:
    """The rows of the targets that load, and the errors of those that do not."""
    out = []
    errors: list[TdgenError] = []
    for name in names:
        try:
            t = load_target(name)
        except TdgenError as e:
            errors.append(e)
            continue
        out.append([name, t.spec_path] + [str(fn(t)) for _, fn in COLUMNS] + [t.description])
    return out, errors


def run(args) -> int:
    names = list(args.targets) or list_targets()
    table, errors = rows_and_errors(names)
    if errors and not table:
        raise errors[0] if len(errors) == 1 else ErrorList(errors)
    for e in errors:  # the good targets are listed below; the bad ones reported here
        sys.stderr.write(e.format() + "\n")
    if errors:
        sys.stderr.flush()
    header = ["target", "spec"] + [c for c, _ in COLUMNS] + ["description"]
    if sys.stdout.isatty() and not args.plain:
        from rich.console import Console
        from rich.table import Table

        # one column per target keeps the table narrow; details follow it
        tab = Table(title="tdgen targets")
        tab.add_column("records")
        for r in table:
            tab.add_column(r[0], justify="right")
        for i, (kind, _) in enumerate(COLUMNS):
            tab.add_row(kind, *[r[2 + i] for r in table])
        console = Console()
        console.print(tab)
        for r in table:
            console.print(f"[bold]{r[0]}[/bold] ({r[1]}): {r[-1]}")
    else:
        sys.stdout.write("\t".join(header) + "\n")
        for r in table:
            sys.stdout.write("\t".join(r) + "\n")
    return 2 if errors else 0

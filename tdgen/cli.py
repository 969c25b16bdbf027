"""The ``tdgen`` command: argument parsing and the one place errors become exit codes.

Each subcommand lives in ``tdgen/commands/<module>.py`` and provides
``configure(parser)`` and ``run(args) -> int``. Exit codes: 0 success, 1 a check found
problems (stale out/, lint errors, a shuffle counterexample), 2 bad input (spec, IR,
pattern string, command-line argument). Bad input never shows a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from .errors import TdgenError

# name -> (module under tdgen.commands, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "generate": ("generate", "generate TableGen and C++ sources for targets into out/"),
    "list": ("listing", "list the targets and what they define"),
    "divergence": ("divergence", "uniformity analysis of an LLVM IR file"),
    "isel": ("isel", "select machine instructions for an LLVM IR file"),
    "explain": ("explain", "show the patterns tried for one IR value and why they failed"),
    "lint": ("lint", "check a target's patterns for miscompile risks and gaps"),
    "shuffle": ("shuffle", "evaluate one warp shuffle per lane (reference or lowered)"),
    "verify-shuffles": ("verify_shuffles", "prove shuffle lowerings equal to the reference on every lane"),
    "run": ("run", "execute an LLVM IR file's kernels and print every work-item's stores"),
    "check-run": ("check_run", "compare the IR reference with the selected code's execution on every lane"),
}


class _Parser(argparse.ArgumentParser):
    """argparse that reports an error as one line ``tdgen <cmd>: error: ...``, exit code 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser. With ``only`` (the command named first on the command
    line, see ``_selected``), just that subcommand is made and its module imported, so
    start-up cost stays small: the others could only show in the top-level help, which
    a command line naming a command never prints (an argument error of the command is
    reported by its own parser, ``tdgen <command>: error: ...``)."""
    parser = _Parser(prog="tdgen", description="tdgen: LLVM GPU backend toolkit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, (module, help_text) in COMMANDS.items():
        if only is not None and only != name:
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module)
        _load(module).configure(p)
    return parser


def _selected(argv: list[str]) -> str | None:
    for a in argv:
        if a.startswith("-"):
            return None  # global option first (e.g. --help): configure everything
        return a if a in COMMANDS else None
    return None


def _load(module: str):
    return importlib.import_module(f"tdgen.commands.{module}")


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(_selected(argv))
    args = parser.parse_args(argv)
    # Types and constant expressions nest; LLVM accepts a few hundred levels, which the
    # recursive printers and resolvers need more than CPython's default 1000 frames for.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4000))
    try:
        return int(_load(args._module).run(args) or 0)
    except TdgenError as e:
        sys.stderr.write(e.format() + "\n")
        return 2
    except RecursionError:
        where = getattr(args, "file", None) or getattr(args, "FILE", None) or "input"
        sys.stderr.write(f"{where}: expected types and constants nested at most about a "
                         f"thousand levels deep, found deeper nesting\n")
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("tdgen: interrupted\n")
        return 130


def entry() -> None:
    """Console entry point: run, flush, and leave without tearing down the heap.

    Commands build large object graphs (an IR module, a DAG); freeing them one by one at
    interpreter exit costs more than some whole analyses. Output is flushed first, so
    nothing is lost; in-process callers (tests) use ``main`` and keep normal teardown."""
    rc = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    try:
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    os._exit(rc)


if __name__ == "__main__":
    entry()

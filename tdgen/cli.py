"""The ``tdgen`` command: argument parsing and the one place errors become exit codes.

Each subcommand lives in ``tdgen/commands/<module>.py`` and provides
``configure(parser)`` and ``run(args) -> int``; registering a command is one line in
``COMMANDS`` below (name -> (module, one-line help)). Only the named command's module is
imported (``tdgen --help`` imports none), so keep a command module's top-level imports
light and import the engine inside ``run``. A mistyped option or command gets a
did-you-mean; ``-`` as a file argument reads stdin (``commands.common.load_ir``). Exit codes: 0 success, 1 a check found
problems (stale out/, lint errors, a shuffle counterexample), 2 bad input (spec, IR,
pattern string, command-line argument). Bad input never shows a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

from . import __version__
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
    "diff": ("diff", "review diff of two spec versions: TableGen records, risks, selection of a kernel corpus"),
    "coverage": ("coverage", "which selection patterns fire on a set of IR files, and which never do"),
    "gen-tests": ("gen_tests", "write a FileCheck test per selection pattern (uniform and divergent kernel)"),
}


# A word (a run without spaces: a quoted value, a path) in a message longer than this is
# shown by its ends and its length (a 10 MB argument or input line is not echoed whole).
LONG_WORD = 200
_LONG_WORD = re.compile(r"\S{%d,}" % (LONG_WORD + 1))


def shorten(message: str) -> str:
    """``message`` with each word over LONG_WORD characters cut to its first and last
    characters and its length: ``'xxxx...xx' (10485760 characters)``."""
    return _LONG_WORD.sub(lambda m: f"{m.group(0)[:60]}...{m.group(0)[-20:]} ({len(m.group(0))} characters)",
                          message)


class _Parser(argparse.ArgumentParser):
    """argparse that reports an error as one line ``tdgen <cmd>: error: ...``, exit code 2,
    with a did-you-mean for a mistyped command or option."""

    def error(self, message: str):  # type: ignore[override]
        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            choices = re.findall(r"'([^']*)'", m.group(2))
            message += _did_you_mean(m.group(1), choices)
        self.exit(2, shorten(f"{self.prog}: error: {message} (see '{self.prog} --help')") + "\n")


def _did_you_mean(word: str, choices) -> str:
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser. With ``only`` (the command named first on the command
    line, see ``_selected``), that subcommand is configured and its module imported;
    the others are only named (their options are never needed: ``tdgen --help`` lists
    the commands, and an error in a command's arguments is reported by its own parser,
    ``tdgen <command>: error: ...``). Start-up stays small that way."""
    parser = _Parser(prog="tdgen", description="tdgen: LLVM GPU backend toolkit",
                     epilog="'tdgen COMMAND --help' shows a command's options. Exit codes: 0 success, "
                            "1 a check found problems, 2 bad input.")
    parser.add_argument("--version", action="version", version=f"tdgen {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module)
        if only == name:
            _load(module).configure(p)
    return parser


def _selected(argv: list[str]) -> str | None:
    for a in argv:
        if a.startswith("-"):
            return None  # global option first (e.g. --help)
        return a if a in COMMANDS else None
    return None


def _load(module: str):
    return importlib.import_module(f"tdgen.commands.{module}")


def _unknown_option(parser: argparse.ArgumentParser, name: str, argv: list[str]) -> None:
    """Exit 2 naming the first option of ``argv`` the command does not have, with the
    closest one it does have (before argparse's own checks, which would report a
    missing required option first)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    cmd = sub.choices[name]
    known = [o for a in cmd._actions for o in a.option_strings]  # noqa: SLF001
    takes_value = {o for a in cmd._actions for o in a.option_strings if a.nargs != 0}  # noqa: SLF001
    rest = argv[argv.index(name) + 1:]
    i = 0
    while i < len(rest):
        a = rest[i]
        i += 1
        if a == "--":
            return
        if not a.startswith("-") or a == "-" or re.fullmatch(r"-\d.*", a):
            continue
        opt = a.split("=", 1)[0]
        if opt in known or (opt.startswith("--") and sum(k.startswith(opt) for k in known) == 1):
            hit = opt if opt in known else next(k for k in known if k.startswith(opt))
            if hit in takes_value and "=" not in a:
                i += 1
            continue
        if not opt.startswith("--") and len(opt) > 2 and opt[:2] in known:
            continue  # -tamdgpu: a short option with its value attached
        cmd.error(f"unrecognized option '{opt}'" + _did_you_mean(opt, [k for k in known if k.startswith("--")] or known))


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    only = _selected(argv)
    parser = build_parser(only)
    if only is not None:
        _unknown_option(parser, only, argv)
    args = parser.parse_args(argv)
    # Types and constant expressions nest; LLVM accepts a few hundred levels, which the
    # recursive printers and resolvers need more than CPython's default 1000 frames for.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4000))
    try:
        return int(_load(args._module).run(args) or 0)
    except TdgenError as e:
        sys.stderr.write(shorten(e.format()) + "\n")
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

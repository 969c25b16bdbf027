"""Shared argument handling of the isel/explain/lint commands: load the target and the IR file."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from pathlib import Path

from ..errors import Span, UsageError, expected


def load_target(name: str):
    """The checked target and its matcher table, both from the on-disk cache when their
    sources are unchanged (tdgen.target_cache; a bad spec or pattern is reported by the
    uncached loaders every time). The cached table saves the first ``build_table`` of a
    process (35-55 ms: resolving the pattern sources); ``build_table(target)`` then returns
    it (patterns.select.matcher.adopt_table)."""
    from patterns.select.matcher import adopt_table, build_table

    from ..target_cache import load_derived, load_target as _load

    target = _load(name)
    adopt_table(target, load_derived(name, "isel-table", build_table))
    return target


def load_isel_target(name: str):
    """What ``tdgen isel`` and ``explain`` select with: the target's
    ``patterns.select.isel.IselView`` (the parts of the target selection reads, as plain
    records), its matcher table, result plans and compiled selectors, all from one
    on-disk cache entry (``IselBundle``) when the sources are unchanged. Loading it
    neither imports the spec model nor compiles code; a miss (or a bad spec, reported by
    the uncached loader every time) loads the target as ``load_target`` does. With the
    cache off, the checked target itself (``load_target``)."""
    from ..target_cache import cache_dir, load_derived, spec_folder

    folder = spec_folder(name) if cache_dir() is not None else None
    if folder is None:
        return load_target(name)
    from patterns.select.isel import IselBundle

    return load_derived(name, "isel", lambda t: IselBundle(t, str(folder))).install()


def read_ir_text(path: str) -> tuple[str, str]:
    """(text, path shown in messages) of an IR file argument; ``-`` reads stdin."""
    import sys

    if path == "-":
        return sys.stdin.read(), "<stdin>"
    p = Path(path)
    if p.is_dir():
        raise UsageError(Span(path), expected("an existing LLVM IR file", f"a directory '{path}'"), field="FILE")
    if not p.is_file():
        raise UsageError(Span(path), expected("an existing LLVM IR file", f"no file '{path}'"), field="FILE")
    try:
        text = p.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(Span(path), expected("a readable UTF-8 text file", type(e).__name__), field="FILE") from None
    return text, str(path)


def load_ir(path: str):
    """The parsed module of an IR file argument (``-``: stdin)."""
    from patterns.ir import parse_module

    text, shown = read_ir_text(path)
    return parse_module(text, shown)


@contextmanager
def gc_paused():
    """The cyclic garbage collector off for one command run. Parsing, the DAGs and the
    output build millions of small acyclic objects that reference counting frees; the
    collector's passes over them cost ~10% of a large run and find nothing to collect."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if gc.get_freeze_count() == 0:
                # everything allocated above still counts as young: the first allocation
                # after gc.enable() would start a collection walking all of it (≈0.18 s
                # after a 50k-instruction isel). Move it all to the oldest generation
                # instead (no traversal; full collections still see it).
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def add_target_argument(parser) -> None:
    """The target of a command that takes it first: ``tdgen lint T`` or ``tdgen lint -t T``
    (one of the two is required)."""
    parser.add_argument("target", nargs="?", metavar="TARGET", help="target name or spec path (or -t)")
    parser.add_argument("-t", "--target", dest="target_opt", metavar="TARGET", help="target name or spec path")


def target_argument(args, command: str) -> str:
    """The target given positionally or with -t (exit 2 when none, or two different)."""
    pos, opt = args.target, args.target_opt
    if pos is not None and opt is not None and pos != opt:
        raise UsageError(None, f"tdgen {command}: argument -t/--target: "
                         + expected("one target", f"both '{pos}' and '{opt}'"))
    name = pos if pos is not None else opt
    if name is None:
        raise UsageError(None, f"tdgen {command}: argument TARGET: "
                         + expected("a target name or spec path (positional or -t)", "none"))
    return name

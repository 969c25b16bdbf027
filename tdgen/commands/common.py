"""Shared argument handling of the isel/explain/lint/divergence commands: load the target and the IR file
(``read_input_file``: one clear error for any path that is no readable text file)."""

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


def read_input_file(path: str, what: str = "LLVM IR file", field: str = "FILE", want: str | None = None) -> str:
    """The text of an input file named on the command line, or one UsageError saying
    what the path is instead: a name the system cannot take (``tdgen.fsutil.path_problem``:
    a component over 255 bytes, a NUL byte), a folder, a device such as /dev/null, no
    such file, or a file that is not UTF-8 text. ``want`` words what was expected
    (default ``a readable <what>``)."""
    from ..fsutil import path_problem

    want = want or f"a readable {what}"

    why = path_problem(path)
    if why is not None:
        raise UsageError(Span(path), expected(want, why), field=field)
    p = Path(path)
    try:
        if p.is_dir():
            raise UsageError(Span(path), expected(want, f"a directory '{path}'"), field=field)
        if not p.exists():
            raise UsageError(Span(path), expected(want, f"no file '{path}'"), field=field)
        if not p.is_file():
            kind = "a character device" if p.is_char_device() else "a block device" if p.is_block_device() \
                else "a named pipe" if p.is_fifo() else "a socket" if p.is_socket() else "not a regular file"
            raise UsageError(Span(path), expected(want, f"{kind} '{path}'"), field=field)
        return p.read_text()
    except UnicodeDecodeError:
        raise UsageError(Span(path), expected(f"a readable UTF-8 {what}", "bytes that are not UTF-8"),
                         field=field) from None
    except OSError as e:
        raise UsageError(Span(path), expected(want, f"'{path}' ({e.strerror or type(e).__name__})"),
                         field=field) from None


def read_ir_text(path: str) -> tuple[str, str]:
    """(text, path shown in messages) of an IR file argument; ``-`` reads stdin."""
    import sys

    if path == "-":
        return sys.stdin.read(), "<stdin>"
    return read_input_file(path, want="an existing LLVM IR file"), str(path)


def load_ir(path: str, target=None):
    """The parsed module of an IR file argument (``-``: stdin), its calls checked
    against the immarg tables of ``target``'s intrinsics (a loaded target or its isel view)."""
    from patterns.ir import parse_module
    from patterns.ir.intrinsic_immargs import target_immargs

    text, shown = read_ir_text(path)
    return parse_module(text, shown, target_immargs(target))


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

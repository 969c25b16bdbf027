"""The direct IR builder's compiled regular expressions, kept in a file of tdgen's cache folder.

Compiling the direct builder's expressions (``patterns/ir/direct_syntax.py``) costs about
5 ms per process (re's parser and code generator are pure Python), a good part of what a
``tdgen divergence`` run spends before reading its input. ``compile_cached`` takes what
``re`` compiled them to from a small file in tdgen's cache folder
(``tdgen.target_cache.cache_dir``; ``TDGEN_NO_CACHE=1`` turns it off): for each
expression, the arguments of ``_sre.compile`` (the pattern, flags, code, group count and
names), one file per interpreter (cache tag, ``_sre.MAGIC``, ``_sre.CODESIZE``). An
expression missing from the file is compiled by ``re`` as usual and its arguments are
computed the way ``re._compiler.compile`` computes them, kept only if ``_sre.compile``
of them gives a pattern equal to ``re``'s (patterns compare equal when their flags and
compiled code are); ``write_cache`` then rewrites the file with the current
expressions. Every problem (no cache folder, unreadable or stale file, an interpreter
whose internals differ) silently means "compile with re". This reads CPython's own
private modules (``_sre``, ``re._compiler``, ``re._parser``): the compiled form is theirs.
"""

from __future__ import annotations

import marshal
import re
import sys
from typing import Final

try:
    import _sre  # CPython's engine: what re.compile hands the compiled code to
except ImportError:  # pragma: no cover - another interpreter: no cache
    _sre = None


def _cache_file():
    if _sre is None:
        return None
    try:
        from tdgen.target_cache import cache_dir

        root = cache_dir()
    except Exception:  # pragma: no cover - no cache folder
        return None
    if root is None:
        return None
    return root / f"ir-direct-re-{sys.implementation.cache_tag}-{_sre.MAGIC}-{_sre.CODESIZE}.marshal"


def _read_entries(path) -> dict:
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            data = marshal.loads(fh.read())  # (marshal.load reads a file item by item: slow)
    except Exception:  # missing or unreadable: compile everything
        return {}
    return data if type(data) is dict else {}


CACHE_FILE: Final = _cache_file()
READ_ENTRIES: Final = _read_entries(CACHE_FILE)  # pattern -> arguments of _sre.compile, as read
NEW_ENTRIES: Final[dict] = {}  # the same for the expressions compiled in this process


def _sre_args(src: str) -> tuple:
    """The arguments ``re._compiler.compile`` passes to ``_sre.compile`` for ``src``."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    p = _parser.parse(src, 0)
    code = _compiler._code(p, 0)
    groupindex = p.state.groupdict
    indexgroup = [None] * p.state.groups
    for k, i in groupindex.items():
        indexgroup[i] = k
    # (opcodes are int subclasses, which marshal does not write: plain ints)
    return (src, int(p.state.flags), [int(c) for c in code], p.state.groups - 1,
            {k: int(i) for k, i in groupindex.items()}, tuple(indexgroup))


def compile_cached(src: str) -> "re.Pattern":
    """``re.compile(src)``, from the cache file when it holds ``src``."""
    args = READ_ENTRIES.get(src)
    if args is not None:
        try:
            if args[0] == src:
                p = _sre.compile(*args)
                NEW_ENTRIES[src] = args
                return p
        except Exception:  # pragma: no cover - a damaged entry: compile it
            pass
    p = re.compile(src)
    if CACHE_FILE is not None:
        try:
            args = _sre_args(src)
            if _sre.compile(*args) == p:
                NEW_ENTRIES[src] = args
        except Exception:  # pragma: no cover - other interpreter internals: not cached
            pass
    return p


def write_cache() -> None:
    """Rewrite the cache file when it does not hold exactly the expressions compiled in this
    process (the direct builder calls it once, after compiling all of its own)."""
    if CACHE_FILE is None or NEW_ENTRIES == READ_ENTRIES:
        return
    try:
        from tdgen.fsutil import atomic_write

        atomic_write(CACHE_FILE, marshal.dumps(NEW_ENTRIES))
    except Exception:  # pragma: no cover - unwritable folder: no cache
        pass

"""On-disk cache of loaded targets, so a CLI run does not re-execute and re-check the spec.

``load_target(name_or_path)`` returns what ``tdgen.spec.load_target`` returns; the
first call pickles the checked Target into the cache folder and later processes
unpickle it. ``load_derived(name_or_path, kind, build)`` caches ``build(target)``
instead (a smaller object whose unpickling needs fewer imports; ``tdgen divergence``
caches only the uniformity facts this way and so never imports the spec model, ``tdgen
isel``/``explain`` the ``patterns.select.isel.IselBundle``: the parts of the target selection
reads, the matcher table and the compiled selectors).

Key: BLAKE2b over the Python version, this module's format number and the path and
bytes of every file a load depends on: the target folder's ``*.py`` files (subfolders
included) and every ``*.py``/``*.lark`` file of the tdgen package (a load imports
nothing else of the project); a derived value (``load_derived``), which the execution
engine computes, also depends on every such file of the ``patterns`` package. Editing
any of them gives a new key. Contents, not modification times, are hashed, so a result
can only come from the same sources.

Folder: ``$XDG_CACHE_HOME/tdgen`` or ``~/.cache/tdgen``; ``TDGEN_NO_CACHE=1`` turns
the cache off. Every cache problem is silent: an unwritable folder means no cache, an
unreadable or corrupted entry is ignored and rewritten. Entries are written to a temp
file and renamed, so a reader never sees half an entry. Loading errors (bad spec) are
never cached: they are raised by ``tdgen.spec.load_target`` every time. Writing an
entry removes the older entries of the same target folder and kind, so the folder
does not grow with every edit.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any, Callable

from .paths import TARGETS

# The C modules directly: importing hashlib initialises OpenSSL and pickle pulls in
# its pure-Python half, together about 5 ms of every run's start-up.
try:
    from _blake2 import blake2b as hasher
except ImportError:  # pragma: no cover - CPython always has it
    from hashlib import blake2b as hasher
try:
    from _pickle import Pickler as _CPickler, Unpickler as _CUnpickler
except ImportError:  # pragma: no cover
    from pickle import Pickler as _CPickler, Unpickler as _CUnpickler

FORMAT = 2
TDGEN_DIR = Path(__file__).resolve().parent
PATTERNS_DIR = TDGEN_DIR.parent / "patterns"  # the execution engine, which derived values come from


def cache_dir() -> Path | None:
    """The cache folder, or None when caching is off."""
    if os.environ.get("TDGEN_NO_CACHE", "") not in ("", "0"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if base and os.path.isabs(base):  # the XDG rule: a relative value is ignored
        return Path(base) / "tdgen"
    try:
        return Path.home() / ".cache" / "tdgen"
    except (RuntimeError, KeyError):  # no home folder to be found: no cache
        return None


def spec_folder(name_or_path: str | Path) -> Path | None:
    """The folder of a target given as ``tdgen.spec.load_target`` takes it, or None
    when it does not name one (the uncached loader then reports the error)."""
    s = str(name_or_path)
    from .fsutil import path_problem

    if path_problem(s) is not None:
        return None
    if s and "/" not in s and os.sep not in s and (TARGETS / s / "spec.py").is_file():
        return (TARGETS / s).resolve()
    p = Path(s)
    if p.is_dir() and (p / "spec.py").is_file():
        return p.resolve()
    if p.is_file() and p.suffix == ".py" and p.name == "spec.py":
        return p.parent.resolve()
    return None


def _sources(pkg: Path) -> list:
    """The ``*.py`` and ``*.lark`` files of a package folder and its subfolders, sorted
    (``__pycache__`` folders are not entered)."""
    out = []
    stack = [str(pkg)]
    while stack:
        try:
            it = os.scandir(stack.pop())
        except OSError:
            continue
        with it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    if e.name != "__pycache__":
                        stack.append(e.path)
                elif e.name.endswith((".py", ".lark")) and e.is_file():
                    out.append(Path(e.path))
    return sorted(out)


def fingerprint(folder: Path, derived: bool = False) -> str:
    """Hash of every file a load of the target in ``folder`` depends on (``derived``:
    and a value the ``patterns`` package derives from it)."""
    h = hasher()
    h.update(f"tdgen-target-cache {FORMAT} {sys.version} {folder}\0".encode())
    files = sorted(folder.rglob("*.py"))
    files += _sources(TDGEN_DIR)
    if derived and PATTERNS_DIR.is_dir():
        files += _sources(PATTERNS_DIR)
    for f in files:
        h.update(str(f).encode() + b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


# -- pickling: module-level objects compared by identity (sentinels such as
# tdgen.model.instructions.REQUIRED) travel as references, so they unpickle to the same object.

def _identity_globals() -> dict[int, tuple[str, str]]:
    table: dict[int, tuple[str, str]] = {}
    for modname, mod in sorted(sys.modules.items()):
        if mod is None or not (modname == "tdgen" or modname.startswith("tdgen.")):
            continue
        for name, val in sorted(vars(mod).items()):
            cls = type(val)
            if (
                name.startswith("__")
                or isinstance(val, (type, type(sys), type(fingerprint)))
                or cls.__module__ != modname
                or cls.__eq__ is not object.__eq__
            ):
                continue
            table.setdefault(id(val), (modname, name))
    return table


class _Pickler(_CPickler):
    def __init__(self, f: Any) -> None:
        super().__init__(f, protocol=5)
        self._refs = _identity_globals()

    def persistent_id(self, obj: Any) -> Any:
        return self._refs.get(id(obj))


class _Unpickler(_CUnpickler):
    def persistent_load(self, pid: Any) -> Any:
        modname, name = pid
        __import__(modname)
        return getattr(sys.modules[modname], name)


def _dumps(obj: Any) -> bytes:
    buf = io.BytesIO()
    _Pickler(buf).dump(obj)
    return buf.getvalue()


def read_entry(path: Path) -> Any:
    """The value stored in the cache entry ``path``, or ``MISS`` when there is none to
    read (missing, truncated, corrupted, stale classes)."""
    try:
        with open(path, "rb") as f:
            return _Unpickler(f).load()
    except Exception:  # missing, truncated, corrupted, stale classes: a miss
        return MISS


def _write(path: Path, obj: Any) -> None:
    from .fsutil import atomic_write

    try:
        atomic_write(path, _dumps(obj))
    except Exception:  # unwritable folder, full disk, unpicklable value: no cache
        pass


MISS = object()  # what read_entry returns for an entry it cannot read


def _entry(folder: Path, kind: str) -> Path | None:
    root = cache_dir()
    if root is None:
        return None
    try:
        key = fingerprint(folder, kind != "target")
    except OSError:
        return None
    where = hasher(str(folder).encode(), digest_size=4).hexdigest()
    return root / f"{folder.name}-{where}-{kind}-{key[:40]}.pickle"


def _prune(entry: Path) -> None:
    """Remove the entries of the same target folder and kind made from other sources
    (stale since an edit): the cache holds one entry per folder and kind."""
    prefix = entry.name[: entry.name.rindex("-") + 1]
    try:
        for old in entry.parent.glob(prefix + "*.pickle"):
            if old != entry:
                old.unlink()
    except OSError:
        pass


def load_target(name_or_path: str | Path):
    """``tdgen.spec.load_target``, cached on disk."""
    return load_derived(name_or_path, "target", lambda t: t)


def load_derived(name_or_path: str | Path, kind: str, build: Callable[[Any], Any]) -> Any:
    """``build(tdgen.spec.load_target(name_or_path))``, cached on disk under ``kind``
    (one name per kind of derived value; ``build`` must be a pure function of the
    target and of tdgen's own code)."""
    folder = spec_folder(name_or_path)
    path = _entry(folder, kind) if folder is not None else None
    if path is not None:
        hit = read_entry(path)
        if hit is not MISS:
            return hit
    from .spec import load_target as load_uncached

    value = build(load_uncached(name_or_path))
    if path is not None:
        _write(path, value)
        _prune(path)
    return value

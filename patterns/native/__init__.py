"""Compiled builds of the execution engine's hot modules (mypyc), and the import hook that uses them.

The modules in ``MODULES`` are plain Python and stay the reference: ``python3 -m
patterns.native.build`` (patterns/native/build.py) compiles them with mypyc (which needs ``mypy``, a build-time
dependency only) into a folder keyed by the bytes of their sources, and ``install()``
(run when the ``patterns`` package is imported) puts an import hook in front of the
normal one that loads the compiled module for each of them when a build for exactly
these sources exists. An edited source gives a new key and so the plain module, never
a stale build: a build can only come from the sources it is loaded for.

``TDGEN_PURE=1`` turns the hook off (plain Python everywhere). ``python3 -m
patterns.native.build --status`` says which mode a run gets and why. The compiled and the plain
modules produce byte-identical output (tests/test_native.py runs both).

Folder: ``$TDGEN_NATIVE_DIR``, else ``$XDG_CACHE_HOME/tdgen/native`` or
``~/.cache/tdgen/native``; one subfolder per key, written to a temp folder and renamed,
so a reader never sees half a build. Every problem of the hook is silent (no build,
unreadable folder: the plain modules); a failing build is reported by the build command.

Writing a compiled module: mypyc turns what mypy knows into native code and leaves the
rest to CPython's generic calls. What cost the most, measured with callgrind on the
isel bench kernel:

- a function without any annotation is compiled untyped, locals included: give it a
  return annotation (and its attributes a class-level declaration) where it is hot;
- ``x.__class__`` is a generic attribute read, ``type(x)`` a pointer read;
- a module-level name is looked up in the module's dictionary at every use unless it
  is ``Final`` (a C static then), imported classes included (``_CONSTANT: Final =
  Constant``); tests/test_native.py reports new occurrences of these two;
- an attribute read through a value typed ``Any`` is generic even on a native object:
  declare the local (``n: SDNode``), and the fields of ``SDNode`` that hot code reads;
- an object of an interpreted class is always read generically (about 150 machine
  instructions a field): the IR's instruction, argument, block and function are
  therefore classes of their own compiled module (``patterns.ir.function``), read through
  locals declared ``ins: Instruction`` or parameters ``fn: Function`` (whose typed lists
  give typed loop variables). A native class has no ``__dict__``: declare every field it
  may be given. A typed field takes only its type in the compiled build, and a variable
  first bound to a native class is checked at each later assignment: a name reused for
  another kind of value raises ``TypeError`` there (rename it);
- the reverse holds too: interpreted code reading a native object's field goes through
  a descriptor call (about as costly). The per-target selectors are generated and run
  interpreted, so what they do to nodes field by field (operand registers, use
  counts) they do by calling compiled helpers (``patterns.select.machine``);
- a declared local assigned a value typed ``Any`` (``dict.get``, an untyped function's
  result, an ``or`` with either) is ``Any`` to mypy from there on, so every operation on
  it is generic again: take memo answers from a typed function (``_kb_full`` looks its
  memo up itself) and unpack typed tuples (``k, need = g``) rather than index them.
  Together with typed loop variables this cut the 10k run by another 10%.
"""

from __future__ import annotations

import os
import sys

# The hot modules, in no particular order (what the profile of ``tdgen isel`` on the
# 50k-operation bench kernel spends its time in; see bench/isel.py).
MODULES = (
    "patterns.dag.builder",
    "patterns.dag.calls",
    "patterns.dag.combine.arith",
    "patterns.dag.combine.context",
    "patterns.dag.combine.demanded",
    "patterns.dag.combine.driver",
    "patterns.dag.combine.freeze",
    "patterns.dag.combine.inert",
    "patterns.dag.combine.intrinsics",
    "patterns.dag.combine.known",
    "patterns.dag.combine.known_ops",
    "patterns.dag.combine.logic",
    "patterns.dag.combine.queries",
    "patterns.dag.combine.reassoc",
    "patterns.dag.combine.setcc",
    "patterns.dag.combine.shifts",
    "patterns.dag.cse",
    "patterns.dag.deadcode",
    "patterns.dag.isd",
    "patterns.dag.liveout",
    "patterns.dag.nodes",
    "patterns.dag.prepare",
    "patterns.dag.sink",
    "patterns.ir.cfg",
    "patterns.ir.cycles",
    "patterns.ir.dominators",
    "patterns.ir.effects",
    "patterns.ir.function",
    "patterns.ir.opcodes",
    "patterns.ir.parser_base",
    "patterns.ir.parser_body",
    "patterns.ir.parser_calls",
    "patterns.ir.parser_insts",
    "patterns.ir.parser_metadata",
    "patterns.ir.parser_module",
    "patterns.ir.parser_values",
    "patterns.ir.printer",
    "patterns.ir.verify",
    "patterns.llc.analyses",
    "patterns.llc.codegenprepare",
    "patterns.llc.earlycse",
    "patterns.llc.instsimplify",
    "patterns.llc.instsimplify_arith",
    "patterns.llc.instsimplify_binop",
    "patterns.llc.instsimplify_icmp",
    "patterns.llc.instsimplify_logic",
    "patterns.llc.instsimplify_query",
    "patterns.llc.licm",
    "patterns.llc.licm_reassociate",
    "patterns.llc.licm_state",
    "patterns.llc.lsr",
    "patterns.llc.lsr_claim",
    "patterns.llc.lsr_expand",
    "patterns.llc.lsr_scev",
    "patterns.llc.naming",
    "patterns.llc.pipeline",
    "patterns.llc.replace",
    "patterns.llc.unreachable",
    "patterns.llc.valuetracking",
    "patterns.select.machine",
    "patterns.select.mir",
    "patterns.support.intops",
    "patterns.support.knownbits",
    "patterns.uniformity.analysis",
    "patterns.uniformity.joins",
    "patterns.uniformity.results",
    "patterns.uniformity.seeds",
)
GROUP = "tdgen_native"  # mypyc's shared library: ``tdgen_native__mypyc``
FORMAT = 1

# mypy's settings for the build: only the compiled modules are type-checked (the
# others are read for their types, their errors ignored); untyped function bodies are
# compiled with their variables as ``object``.
MYPY_CONFIG = """\
[mypy]
ignore_missing_imports = True
disable_error_code = annotation-unchecked
follow_imports = normal

[mypy-tdgen.*]
ignore_errors = True

[mypy-patterns.*]
ignore_errors = True

[mypy-{compiled}]
ignore_errors = False
"""

_HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(_HERE))
_status = "plain Python: not checked"


def module_source(mod: str) -> str:
    return os.path.join(SOURCE_ROOT, *mod.split(".")) + ".py"


def _type_sources() -> list[str]:
    """Every file mypy reads the compiled modules' types from: the ``.py`` files of the
    ``patterns`` and ``tdgen`` packages (the compiled modules and what they import),
    sorted by path."""
    out = []
    for pkg in ("patterns", "tdgen"):
        for dirpath, dirnames, names in os.walk(os.path.join(SOURCE_ROOT, pkg)):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            out += [os.path.join(dirpath, n) for n in names if n.endswith(".py")]
    return sorted(out)


def source_key() -> str:
    """The key of a build: BLAKE2b over the interpreter's ABI tag, this module's format
    number, the mypy settings and the path and bytes of every source file mypy reads
    for the build (``_type_sources``): a compiled module checks the types of what it
    reads from plain modules (an attribute of an IR instruction, say), so an edit to any
    of them needs a new build, not only an edit to a compiled one."""
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - CPython always has it
        from hashlib import blake2b
    h = blake2b(digest_size=16)
    h.update(f"{sys.implementation.cache_tag}\0{FORMAT}\0".encode())
    h.update(MYPY_CONFIG.encode())
    for path in _type_sources():
        with open(path, "rb") as f:
            data = f.read()
        h.update(f"\0{os.path.relpath(path, SOURCE_ROOT)}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def native_root() -> str | None:
    """The folder holding the builds, or None when none can be named."""
    d = os.environ.get("TDGEN_NATIVE_DIR", "")
    if d:
        return os.path.abspath(d)
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if base and os.path.isabs(base):
        return os.path.join(base, "tdgen", "native")
    home = os.path.expanduser("~")
    if home == "~":
        return None
    return os.path.join(home, ".cache", "tdgen", "native")


def build_files(folder: str) -> dict[str, str] | None:
    """Module name -> extension file of the build in ``folder`` (its MANIFEST: one
    ``name file`` line per module, the shared library included), or None."""
    try:
        with open(os.path.join(folder, "MANIFEST"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    files = {}
    for line in lines:
        name, _, rel = line.partition(" ")
        path = os.path.join(folder, rel)
        if not rel or not os.path.isfile(path):
            return None
        files[name] = path
    if set(MODULES) - set(files):
        return None
    return files


class _Finder:
    """The import hook: the compiled extension for the modules of a build, nothing
    for any other name (the normal finders then run)."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def find_spec(self, fullname, path=None, target=None):
        p = self.files.get(fullname)
        if p is None:
            return None
        from importlib.machinery import ExtensionFileLoader
        from importlib.util import spec_from_file_location

        return spec_from_file_location(fullname, p, loader=ExtensionFileLoader(fullname, p))

    def invalidate_caches(self) -> None:
        pass


def install() -> None:
    """Put the hook in front of the import system when a build for the current
    sources exists and ``TDGEN_PURE`` is not set; otherwise do nothing."""
    global _status
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    if os.environ.get("TDGEN_PURE", "") not in ("", "0"):
        _status = "plain Python: TDGEN_PURE is set"
        return
    root = native_root()
    if root is None:
        _status = "plain Python: no folder for builds (no home folder, no TDGEN_NATIVE_DIR)"
        return
    try:
        key = source_key()
    except OSError as e:
        _status = f"plain Python: cannot read a source ({e})"
        return
    files = build_files(os.path.join(root, key))
    if files is None:
        _status = f"plain Python: no build for these sources in {root} (run: python3 -m patterns.native.build)"
        return
    if any(m in sys.modules for m in MODULES):  # (too late to load them compiled)
        _status = "plain Python: the modules were imported before the hook"
        return
    sys.meta_path.insert(0, _Finder(files))
    _status = f"compiled: {os.path.join(root, key)}"


def status() -> str:
    """Which mode this process runs in, and why (``compiled: FOLDER`` or ``plain
    Python: REASON``)."""
    return _status


def compiled() -> bool:
    """Whether this process loads the compiled modules."""
    return _status.startswith("compiled")

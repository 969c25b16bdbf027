"""Load a target spec: run ``targets/<name>/spec.py`` and check the Target it builds.

Contract (other stages code against these):

- ``load_target(name_or_path) -> Target``: ``name_or_path`` is a target name from
  ``list_targets()``, a target folder, or a spec ``.py`` file. The spec's folder is
  loaded as a package, so ``spec.py`` may import its sibling modules (``from . import
  alu``). The module must define ``TARGET = Target(...)``. Loading runs every check of
  ``tdgen.check`` and raises ``SpecError``/``ErrorList`` (all problems together, sorted,
  each ``path:line:col: record 'R' field 'f': expected ..., found ...``). A Python
  exception inside the spec becomes a SpecError at the spec line that raised it.
  Unknown target names raise ``UsageError`` listing the known ones.
  While the spec runs, a record constructor given malformed values does not stop it:
  it records its SpecErrors (``tdgen.model.record.collecting_construction_errors``) and
  returns a record marked invalid; the checks then skip invalid records, and the
  construction errors are reported together with the checks' errors.
  Results are cached per spec folder contents (the Target is immutable).
- ``list_targets() -> list[str]``: names of folders under ``targets/`` with a spec.py.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
import traceback
import types
import warnings
from pathlib import Path

from .errors import Diagnostics, ErrorList, Span, SpecError, TdgenError, UsageError, expected
from .hooks import load_hooks
from .model.record import collecting_construction_errors, is_invalid
from .model.target import Target
from .paths import TARGETS
from .srcpos import display_path


def list_targets() -> list[str]:
    if not TARGETS.is_dir():
        return []
    return sorted(p.name for p in TARGETS.iterdir() if (p / "spec.py").is_file())


def _spec_file(name_or_path: str | Path) -> Path:
    from .fsutil import path_problem

    s = str(name_or_path)
    known = ", ".join(list_targets()) or "none"
    why = path_problem(s)
    if why is not None:
        raise UsageError(None, expected(f"a target name ({known}) or a spec file", f"'{s}' ({why})"))
    if s in list_targets():
        return TARGETS / s / "spec.py"
    p = Path(s)
    if p.is_dir() and (p / "spec.py").is_file():
        return p / "spec.py"
    if p.is_file() and p.suffix == ".py":
        return p
    raise UsageError(None, expected(f"a target name ({known}) or a spec file", f"'{s}'"))


def _fingerprint(folder: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(folder.glob("*.py")):
        st = f.stat()
        h.update(f"{f.name}:{st.st_mtime_ns}:{st.st_size};".encode())
    return h.hexdigest()


_CACHE: dict[tuple[str, str], Target] = {}


def clear_cache() -> None:
    """Forget the targets loaded in this process: the next ``load_target`` runs and
    checks the spec again."""
    _CACHE.clear()


def load_target(name_or_path: str | Path) -> Target:
    path = _spec_file(name_or_path).resolve()
    key = (str(path), _fingerprint(path.parent))
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    from .check.checker import check_target

    with collecting_construction_errors() as built:
        try:
            target = _execute(path)
        except TdgenError as e:
            if not built:
                raise
            diags = Diagnostics()
            for err in built:
                diags.add(err)
            diags.add(e)
            diags.check()
    if built:
        # Records built with errors are marked invalid; the checks skip them and
        # everything else is checked, so the report has all errors of the spec.
        diags = Diagnostics()
        for err in built:
            diags.add(err)
        if not is_invalid(target):
            check_target(target, diags, tolerant=True)
        try:
            diags.check()
        except TdgenError as e:
            raise with_listing_hints(e, target) from None
    try:
        check_target(target)
    except TdgenError as e:
        raise with_listing_hints(e, target) from None
    except Exception as e:  # a record shape the checks did not anticipate: still no traceback
        raise SpecError(
            target.span,
            expected("records the checks can read", f"{type(e).__name__}: {e}"),
            record=target.name,
        ) from None
    load_hooks(target)  # (the target's engine hooks, checked now: tdgen.hooks)
    _CACHE[key] = target
    return target


def _exception_span(exc: BaseException, folder: Path) -> Span:
    """The innermost traceback frame inside the spec folder."""
    best: Span | None = None
    for fs in traceback.extract_tb(exc.__traceback__):
        try:
            inside = Path(fs.filename).resolve().is_relative_to(folder)
        except (OSError, ValueError):
            inside = False
        if inside:
            col = (fs.colno + 1) if getattr(fs, "colno", None) is not None else 1
            best = Span(display_path(fs.filename), fs.lineno or 0, col)
    return best if best is not None else Span(display_path(folder))


def _execute(path: Path) -> Target:
    folder = path.parent
    pkg = "_tdgen_spec_" + hashlib.sha256(str(folder).encode()).hexdigest()[:12]
    modname = f"{pkg}.{path.stem}"
    shown = display_path(path)
    # a fresh package for the folder, so relative imports work and nothing is stale
    for m in [m for m in sys.modules if m == pkg or m.startswith(pkg + ".")]:
        del sys.modules[m]
    package = types.ModuleType(pkg)
    package.__path__ = [str(folder)]  # type: ignore[attr-defined]
    package.__package__ = pkg
    sys.modules[pkg] = package
    try:
        spec = importlib.util.spec_from_file_location(modname, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module
        try:
            with warnings.catch_warnings():
                # Python's compile-time warnings on the spec's source (an invalid escape
                # in a string) would be printed before, and apart from, tdgen's report
                warnings.simplefilter("ignore", SyntaxWarning)
                warnings.simplefilter("ignore", DeprecationWarning)
                spec.loader.exec_module(module)
        except TdgenError:
            raise
        except SyntaxError as e:
            where = Span(display_path(e.filename or path), e.lineno or 0, e.offset or 0)
            raise SpecError(where, expected("valid Python", f"syntax error: {e.msg}")) from None
        except SystemExit as e:  # sys.exit()/exit() in spec code: not a way to leave tdgen
            raise SpecError(
                _exception_span(e, folder.resolve()),
                expected("a spec module that runs to the end", f"a call of sys.exit({e.code!r})"),
            ) from None
        except Exception as e:  # any error raised by spec code
            raise SpecError(
                _exception_span(e, folder.resolve()),
                expected("a spec module that runs", f"{type(e).__name__}: {e}"),
            ) from None
    finally:
        for m in [m for m in sys.modules if m == pkg or m.startswith(pkg + ".")]:
            del sys.modules[m]
    target = getattr(module, "TARGET", None)
    if not isinstance(target, Target):
        raise SpecError(
            Span(shown, 1, 1),
            expected("a module-level 'TARGET = Target(...)'", type(target).__name__ if target is not None else "none"),
        )
    object.__setattr__(target, "spec_path", shown)
    object.__setattr__(target, "spec_folder", str(folder))
    target.__dict__["_spec_defined"] = _defined_records(module)
    return target


# The Target field each kind of record is listed in (for "defined but not listed")
_LISTED_IN = {
    "Intrinsic": "intrinsics", "SDTypeProfile": "profiles", "SDNode": "nodes", "PatFrag": "frags",
    "ImmLeaf": "frags", "PatLeaf": "frags", "SDNodeXForm": "xforms", "DivergenceFrag": "frag_classes",
    "RegisterClass": "register_classes", "OperandKind": "operands", "InstrClass": "classes",
    "Multiclass": "multiclasses", "Instruction": "defs", "Defm": "defs", "Lowering": "lowerings",
    "Rewrite": "rewrites", "CustomSelect": "custom_selects",
}


def _defined_records(module: types.ModuleType) -> dict[str, object]:
    """Named records the spec module defines at top level (also inside top-level lists,
    tuples and dicts), by name: what a reference to an unlisted record is told about."""
    from .model.record import Record

    out: dict[str, object] = {}

    def add(v: object, depth: int) -> None:
        if isinstance(v, Record):
            name = getattr(v, "name", None)
            if isinstance(name, str) and type(v).__name__ in _LISTED_IN:
                out.setdefault(name, v)
        elif depth < 2 and isinstance(v, (list, tuple)):
            for x in v:
                add(x, depth + 1)
        elif depth < 2 and isinstance(v, dict):
            for x in v.values():
                add(x, depth + 1)

    for k, v in sorted(vars(module).items()):
        if not k.startswith("__"):
            add(v, 0)
    return out


def with_listing_hints(err: TdgenError, target: Target) -> TdgenError:
    """``err`` with a hint on each message whose found value names a record the spec
    defines but does not list in ``Target(...)``: where to list it."""
    import re

    defined = target.__dict__.get("_spec_defined") or {}
    if not defined:
        return err
    listed = {id(r) for r in target.records()}
    listed |= {id(x) for x in (*target.lowerings, *target.rewrites, *target.custom_selects)}
    errs = err.errors if isinstance(err, ErrorList) else [err]
    out: list[TdgenError] = []
    changed = False
    for e in errs:
        m = re.search(r"found '([A-Za-z_][A-Za-z0-9_]*)'$", e.message)
        rec = defined.get(m.group(1)) if m else None
        if rec is not None and id(rec) not in listed:
            kind = type(rec).__name__
            hint = (f" (the {kind} '{m.group(1)}' is defined at {rec.span} but not listed in Target(...): "
                    f"add it to Target({_LISTED_IN[kind]}=[...]))")
            e = type(e)(e.span, e.message + hint, record=e.record, field=e.field)
            changed = True
        out.append(e)
    if not changed:
        return err
    return out[0] if len(out) == 1 else ErrorList(out)

"""The execution engines by name: ``register(name, fn)`` and ``engine(name)``.

An engine is a callable ``fn(module, launch, target) -> Result`` (``patterns.run.result``):
it runs ``launch.kernel`` of the parsed ``module`` for ``target`` (a loaded tdgen target,
or None) on the launch's inputs (``patterns.run.launch``). ``reference`` (the IR
interpreter, patterns/run/reference.py) is registered here; the machine interpreters
(``selected``: tdgen's own selection; ``llc``: llc-19's MIR) register themselves from
their modules (``MACHINE_MODULES`` are imported on first use, when present), so this
module does not depend on them.
"""

from __future__ import annotations

import importlib
from typing import Callable

from tdgen.errors import Span, UsageError, expected

_ENGINES: dict[str, Callable] = {}
MACHINE_MODULES = ("patterns.run.machine",)
_LOADED = [False]


def register(name: str, fn: Callable) -> None:
    """Make ``fn`` the engine called ``name`` (a later registration replaces it)."""
    _ENGINES[name] = fn


def unregister(name: str) -> None:
    """Forget the engine ``name`` (tests that register one of their own)."""
    _ENGINES.pop(name, None)


def _load_all() -> None:
    if _LOADED[0]:
        return
    _LOADED[0] = True
    from patterns.run import reference

    register("reference", reference.run_reference)
    for mod in MACHINE_MODULES:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                raise


def names() -> tuple[str, ...]:
    _load_all()
    return tuple(sorted(_ENGINES))


def engine(name: str) -> Callable:
    """The engine called ``name``; a UsageError listing the known ones otherwise."""
    _load_all()
    fn = _ENGINES.get(name)
    if fn is None:
        raise UsageError(Span("--engine"), expected("an engine of " + ", ".join(sorted(_ENGINES)), repr(name)),
                         field="--engine")
    return fn

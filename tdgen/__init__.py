"""tdgen: a declarative DSL for LLVM GPU backends, and its Python API.

The package holds the spec model, spec loading and checks, the emitters and the CLI.
The execution engine (IR, divergence, SelectionDAG, matcher, wave model) lives in the
sibling package ``patterns``.

The API (``tdgen.api``, README "Python API") is re-exported here and imported on first
use, so ``import tdgen`` (and every ``tdgen`` command's start-up) stays cheap:

    import tdgen
    t = tdgen.load_target("amdgpu")
    tdgen.select(ir_text, t)["@k:%sum"].opcode      # 'S_ADD_I32'
    tdgen.analyze(ir_text, t)["@k:%tid"].divergent  # True
    print(tdgen.explain(ir_text, t, "@k:%sum"))

    tdgen.run(ir_text, t, engine="selected")[0].stores  # every work-item's stores
    tdgen.check_run(ir_text, t, trials=5).counterexample  # None: every lane agrees
"""

from __future__ import annotations

__version__ = "0.1.0"

# name -> module it comes from (imported on first attribute access)
_API = {
    "load_target": "tdgen.api",
    "analyze": "tdgen.api",
    "select": "tdgen.api",
    "explain": "tdgen.api",
    "Selection": "tdgen.api",
    "Selected": "tdgen.api",
    "Uniformity": "tdgen.api",
    "Verdict": "tdgen.api",
    "Explanation": "tdgen.api",
    "Attempt": "tdgen.api",
    "run": "tdgen.api",
    "check_run": "tdgen.api",
}

__all__ = ["__version__", *_API]


def __getattr__(name: str):
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'tdgen' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))

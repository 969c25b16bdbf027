"""Assertions on instruction selection and divergence for a backend's own pytest suite.

    from tdgen.testing import assert_selects, assert_uniform, assert_divergent

    assert_selects(ir, "@k:%sum", "S_ADD_I32", target="amdgpu")
    assert_uniform(ir, "@k:%sum", target=tdgen_target)      # the pytest fixture
    assert_divergent(ir, "@k:%d", target="path/to/spec.py")

``ir`` is IR text or a path, ``target`` a ``tdgen.load_target`` result or what it
accepts. A failing assertion raises ``AssertionError`` whose message is the explain
trace: the DAG node, why it is divergent (the chain back to its source), and every
pattern tried in matcher order with the check that failed (``tdgen explain``'s text).
``assert_lanes_equal`` comes with the execution model (issue 22).
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from . import api

__all__ = ["assert_selects", "assert_uniform", "assert_divergent"]


def _trace(ir, target, value: str) -> str:
    try:
        return api.explain(ir, target, value).text
    except Exception as e:  # the trace is extra information: never hide the assertion itself
        return f"(no explain trace: {e})\n"


def assert_selects(ir: Any, value: str, opcode: str, *, target: Any, regclass: str | None = None,
                   file: str | None = None) -> api.Selected:
    """``value`` (``"@fn:%v"`` or ``"%v"``) is selected to ``opcode`` (and, when given,
    register class ``regclass`` / register file ``file``: "scalar" or "vector").
    Returns what it was selected to."""
    t = api.load_target(target) if isinstance(target, (str, PurePath)) else target
    sel = api.select(ir, t, errors="collect")
    try:
        got = sel[value]
    except KeyError as e:
        fn_name, _ = api.parse_value(value)
        errs = sel.errors.get(fn_name or "", []) or [x for es in sel.errors.values() for x in es]
        why = "".join(f"\n  {x.format()}" for x in errs) if errs else ""
        raise AssertionError(f"{value}: expected {opcode}, but the value was not selected: {e.args[0]}{why}\n"
                             + _trace(ir, t, value)) from None
    bad = []
    if got.opcode != opcode:
        bad.append(f"opcode {got.opcode}")
    if regclass is not None and got.regclass != regclass:
        bad.append(f"register class {got.regclass}")
    if file is not None and got.file != file:
        bad.append(f"register file {got.file}")
    if bad:
        want = opcode + (f" ({regclass})" if regclass else "") + (f" [{file}]" if file else "")
        raise AssertionError(f"{value}: expected {want}, selected {', '.join(bad)} "
                             f"(pattern {got.pattern or 'none'}{' at ' + got.source if got.source else ''})\n"
                             + _trace(ir, t, value))
    return got


def _verdict(ir, value: str, target):
    t = api.load_target(target) if isinstance(target, (str, PurePath)) else target
    u = api.analyze(ir, t)
    try:
        return t, u[value]
    except KeyError as e:
        raise AssertionError(f"{value}: {e.args[0]}") from None


def assert_uniform(ir: Any, value: str, *, target: Any) -> None:
    """The uniformity analysis finds ``value`` uniform; the message of a failure gives
    the reason chain and the explain trace."""
    t, v = _verdict(ir, value, target)
    if v.divergent:
        raise AssertionError(f"{value}: expected uniform, found divergent:\n{v.reason()}\n" + _trace(ir, t, value))


def assert_divergent(ir: Any, value: str, *, target: Any) -> None:
    """The uniformity analysis finds ``value`` divergent."""
    t, v = _verdict(ir, value, target)
    if not v.divergent:
        raise AssertionError(f"{value}: expected divergent, found uniform (no operand or branch it depends on "
                             f"is divergent)\n" + _trace(ir, t, value))

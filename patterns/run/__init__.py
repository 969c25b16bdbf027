"""The execution stage: run a kernel on a modelled GPU and compare executions lane by lane.

- ``memory``: the address spaces' byte arenas (global/constant, LDS per work-group,
  private per work-item, the kernarg segment), vectorised over lanes, with undefined
  behaviour (out of bounds, LDS races) reported;
- ``launch``: ``Launch`` (grid, arguments, buffers) from a seed or a JSON file, and the
  memory it starts with;
- ``result``: ``Result`` (every store in canonical order, or the undefined behaviour),
  text and JSON, ``first_difference``;
- ``reference`` (+ ``simt``, ``ops``, ``values``, ``intrinsics``, ``lanes``,
  ``atomics``): the SIMT reference interpreter of LLVM IR;
- ``engines``: the engines by name (``reference``; ``selected``/``llc`` registered by the
  machine interpreter);
- ``api``: ``run`` and ``check_run``, what ``tdgen run``/``check-run`` call;
- ``ub``: ``Undefined`` and ``NotModeled``.
"""

from __future__ import annotations


def run(*args, **kwargs):
    """``patterns.run.api.run`` (see there)."""
    from patterns.run.api import run as _run

    return _run(*args, **kwargs)


def check_run(*args, **kwargs):
    """``patterns.run.api.check_run`` (see there)."""
    from patterns.run.api import check_run as _check

    return _check(*args, **kwargs)

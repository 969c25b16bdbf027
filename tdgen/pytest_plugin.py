"""tdgen's pytest plugin (the ``pytest11`` entry point ``tdgen``): the ``tdgen_target`` fixture.

Active in every pytest run once tdgen is installed (``-p no:tdgen`` turns it off).

- ``tdgen_target``: the loaded, checked target (``tdgen.load_target``). Which one: the
  test's parameter when parametrized indirectly
  (``@pytest.mark.parametrize("tdgen_target", ["amdgpu", "spec/spec.py"], indirect=True)``),
  else ``--tdgen-target NAME_OR_PATH`` on the command line, else the ``tdgen_target``
  ini option (pytest.ini / pyproject's ``[tool.pytest.ini_options]``; a relative spec
  path is taken from the ini file's folder). Without any of these the test errors,
  saying how to name one. Loaded once per target per session.
- The assertions to use with it are in ``tdgen.testing``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

_LOADED: dict[str, object] = {}


def pytest_addoption(parser) -> None:
    group = parser.getgroup("tdgen")
    group.addoption("--tdgen-target", metavar="NAME_OR_PATH", default=None,
                    help="target for the tdgen_target fixture: a bundled target name or a spec path")
    parser.addini("tdgen_target", "target for the tdgen_target fixture (name or spec path)", default="")


def _named(request) -> str:
    param = getattr(request, "param", None)
    if param is not None:
        return str(param)
    opt = request.config.getoption("--tdgen-target")
    if opt:
        return opt
    ini = request.config.getini("tdgen_target")
    if ini:
        base = request.config.inipath.parent if request.config.inipath else Path.cwd()
        cand = base / ini
        return str(cand) if cand.exists() else ini
    raise pytest.UsageError(
        "the tdgen_target fixture needs a target: parametrize it (indirect=True), pass "
        "--tdgen-target NAME_OR_PATH, or set tdgen_target in the pytest ini options")




@pytest.fixture
def tdgen_target(request):
    """The target the test runs against (``tdgen.load_target``)."""
    from .api import load_target

    name = _named(request)
    if name not in _LOADED:
        _LOADED[name] = load_target(name)
    return _LOADED[name]

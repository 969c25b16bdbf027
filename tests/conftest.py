import sys
from pathlib import Path

# Make tests/llvm_tools.py importable as `llvm_tools` from any test module.
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _plugin_installed() -> bool:
    from importlib.metadata import entry_points

    return any(ep.name == "tdgen" for ep in entry_points(group="pytest11"))


# tdgen's pytest plugin (the tdgen_target fixture): registered by its pytest11 entry
# point when tdgen is installed with it; from a checkout whose install predates it, here.
if not _plugin_installed():
    pytest_plugins = ["tdgen.pytest_plugin"]


def run_pure_python(request) -> bool:
    """For a test that replaces a function of a compiled module (patterns/native/__init__.py) to
    watch it: compiled code calls its module's functions directly, so the replacement
    would see nothing. When this process runs the compiled modules, run the test again
    in a pytest child with ``TDGEN_PURE=1`` (plain Python), assert that it passed, and
    return True (the caller then returns); else return False and the test runs here."""
    import os
    import re
    import subprocess

    from patterns import native

    if not native.compiled():
        return False
    root = Path(__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", request.node.nodeid],
                       cwd=root, env={**os.environ, "TDGEN_PURE": "1"}, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert re.search(r"(?m)^1 passed in ", r.stdout), r.stdout[-2000:]
    return True

"""The compiled build of the hot modules (patterns/native/__init__.py): loaded in CI, keyed by
every source it was typed from, and byte-identical in output to plain Python.

The differential test runs the same command lines (``tdgen isel`` in both formats,
``tdgen divergence``, ``tdgen explain``, and inputs that must fail) in two child
processes, one with the compiled modules and one with ``TDGEN_PURE=1``, and compares
stdout, stderr and exit code of each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from patterns import native

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
CORPUS = ROOT.parent / "shared" / "corpus" / "llvm"

# Runs every command line of argv-lists file sys.argv[1] through tdgen.cli.main in this
# one process; prints a JSON list of [stdout, stderr, exit code] per command line.
_DRIVER = r"""
import contextlib, io, json, sys
from patterns import native
from tdgen.cli import main
out = []
for argv in json.load(open(sys.argv[1])):
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        rc = main(argv)
    out.append([o.getvalue(), e.getvalue(), rc])
print(json.dumps({"status": native.status(), "runs": out}))
"""


def _no_build_reason() -> str:
    return f"the compiled modules are not loaded ({native.status()}); .ci/setup builds them"


def _run_all(commands: list[list[str]], tmp_path: Path, pure: bool) -> dict:
    argv_file = tmp_path / "argv.json"
    argv_file.write_text(json.dumps(commands))
    env = {k: v for k, v in os.environ.items() if k != "TDGEN_PURE"}
    if pure:
        env["TDGEN_PURE"] = "1"
    r = subprocess.run([sys.executable, "-c", _DRIVER, str(argv_file)], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    return json.loads(r.stdout)


def test_compiled_modules_load_in_ci():
    """CI builds the compiled modules (.ci/setup), so there the test process must load
    them: otherwise the suite would silently test only plain Python."""
    if not native.compiled():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the compiled modules are not loaded: {native.status()}")
        pytest.skip(_no_build_reason())
    import patterns.dag.builder
    import patterns.dag.combine.driver

    for mod in (patterns.dag.combine.driver, patterns.dag.builder):
        assert mod.__file__.endswith(".so"), mod.__file__


def test_compiled_instruction_is_a_native_class():
    """The compiled build makes the IR instruction a native class (patterns/ir/function.py):
    no instance ``__dict__``, so a field it does not declare cannot be set (plain Python
    keeps the ordinary class). Both parse to the same fields."""
    from patterns import ir
    inst = ir.parse_module("define i32 @f(i32 %a) {\n  %x = add i32 %a, 1\n  ret i32 %x\n}\n",
                           "n.ll").functions[0].blocks[0].instructions[0]
    assert (inst.opcode, inst.name, inst.incoming, inst.span.line, inst.cgp_copy) == ("add", "x", [], 2, False)
    if not native.compiled():
        assert hasattr(inst, "__dict__")
        pytest.skip(_no_build_reason())
    assert ir.Instruction.__module__ == "patterns.ir.function" and not hasattr(inst, "__dict__")
    with pytest.raises(AttributeError):
        inst.not_a_field = 1


def test_build_key_covers_every_source_it_was_typed_from(tmp_path, monkeypatch):
    """The key changes when a compiled module changes and when a plain module whose
    types the compiled ones read changes (an IR class's attribute), and only then."""
    import shutil

    for pkg in ("patterns", "tdgen"):
        shutil.copytree(ROOT / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(native, "SOURCE_ROOT", str(tmp_path))
    base = native.source_key()
    assert native.source_key() == base
    (tmp_path / "patterns" / "__pycache__").mkdir(exist_ok=True)
    (tmp_path / "patterns" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"x")
    assert native.source_key() == base  # (byte code is not a source)
    keys = {base}
    for rel in ("patterns/dag/combine/driver.py", "patterns/ir/core.py", "tdgen/errors.py"):
        p = tmp_path / rel
        text = p.read_text()
        p.write_text(text + "\n# edited\n")
        k = native.source_key()
        assert k not in keys, rel
        keys.add(k)
        p.write_text(text)
        assert native.source_key() == base


def test_plain_python_switch(tmp_path):
    """``TDGEN_PURE=1`` turns the hook off, and the build command says so."""
    env = {**os.environ, "TDGEN_PURE": "1"}
    r = subprocess.run([sys.executable, "-m", "patterns.native.build", "--status"], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0
    assert r.stdout.strip() == "plain Python: TDGEN_PURE is set"


def _commands(tmp_path: Path) -> list[list[str]]:
    from testkit.divergence_gen import generate_cfg_module
    from testkit.iselgen import generate_isel_kernel

    cmds: list[list[str]] = []
    families = [dict(constants=False), dict(constants=True), dict(constants=False, intrinsics=True),
                dict(constants=True, intrinsics=True)]
    for fi, fam in enumerate(families):
        for seed in range(30):
            n = 120 if seed % 10 == 0 else 40
            p = tmp_path / f"k{fi}_{seed}.ll"
            p.write_text(generate_isel_kernel(seed, n, **fam))
            cmds.append(["isel", str(p), "--target", "amdgpu"])
            if seed % 5 == 0:
                cmds.append(["isel", str(p), "--target", "amdgpu", "--format", "json"])
                cmds.append(["divergence", str(p), "--target", "amdgpu"])
                cmds.append(["explain", str(p), "--target", "amdgpu", "--value", "%v10"])
    for seed in range(10):
        p = tmp_path / f"cfg{seed}.ll"
        p.write_text(generate_cfg_module([seed * 7 + i for i in range(4)], 10))
        cmds.append(["divergence", str(p), "--target", "amdgpu"])
        cmds.append(["divergence", str(p), "--target", "amdgpu", "--format", "json"])
    for p in sorted((GOLDEN / "isel").glob("*/*.ll")):
        cmds.append(["isel", str(p), "--target", "amdgpu"])
    for p in sorted((GOLDEN / "ir" / "fail").glob("*.ll"))[:8]:
        cmds.append(["isel", str(p), "--target", "amdgpu"])
    for sub in ("uniformity", "isel"):
        for p in sorted((CORPUS / sub).glob("*.ll")) if (CORPUS / sub).is_dir() else ():
            cmds.append(["divergence", str(p), "--target", "amdgpu"] if sub == "uniformity"
                        else ["isel", str(p), "--target", "amdgpu"])
    return cmds


def test_compiled_and_plain_python_give_identical_output(tmp_path):
    """Every command line gives the same stdout, stderr and exit code compiled and as
    plain Python: generated kernels of the four isel families (isel, json, divergence,
    explain), generated control-flow modules, the golden isel inputs and some failing IR
    inputs, and LLVM's own uniformity and isel test inputs."""
    if not native.compiled():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the compiled modules are not loaded: {native.status()}")
        pytest.skip(_no_build_reason())
    cmds = _commands(tmp_path)
    compiled = _run_all(cmds, tmp_path, pure=False)
    plain = _run_all(cmds, tmp_path, pure=True)
    assert compiled["status"].startswith("compiled"), compiled["status"]
    assert plain["status"] == "plain Python: TDGEN_PURE is set"
    assert len(compiled["runs"]) == len(plain["runs"]) == len(cmds)
    differ = [" ".join(c) for c, a, b in zip(cmds, compiled["runs"], plain["runs"]) if a != b]
    assert not differ, f"{len(differ)} of {len(cmds)} command lines differ, e.g. {differ[:3]}"
    # (the inputs exercise selection and errors: both kinds of exit are among them;
    # more than 100 command lines reach the selector, which selects S_ and V_ code for
    # at least 30 of them and refuses a form it does not model for the others, e.g.
    # the generated kernels' if-then-else regions, with the selector's error)
    codes = {rc for _, _, rc in plain["runs"]}
    assert 0 in codes and 2 in codes, codes
    selected = sum(1 for o, _, rc in plain["runs"] if rc == 0 and "V_" in o and "S_" in o)
    refused = sum(1 for _, e, rc in plain["runs"] if rc == 2 and "cannot be selected" in e)
    assert selected >= 30 and selected + refused > 100, (selected, refused)


def test_build_folder_keeps_the_newest_builds(tmp_path):
    """After a build, older builds beyond the newest few are removed; the new build and
    a build running now (its temp folder) stay."""
    from patterns.native.build import prune_builds

    for i in range(9):
        d = tmp_path / f"key{i}"
        d.mkdir()
        os.utime(d, (1000 + i, 1000 + i))
    (tmp_path / "build-running").mkdir()
    current = tmp_path / "key0"  # (the oldest by time, but the one just built)
    prune_builds(str(tmp_path), str(current), keep=4)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["build-running", "key0", "key6", "key7", "key8"]


def test_build_into_a_folder_that_cannot_be_made_is_one_error(tmp_path):
    """An unwritable build folder: one line on stderr naming it, exit 1, no traceback."""
    pytest.importorskip("mypyc", reason="mypyc (the native extra) is not installed")
    blocker = tmp_path / "file"
    blocker.write_text("")
    env = {**os.environ, "TDGEN_NATIVE_DIR": str(blocker / "builds")}
    r = subprocess.run([sys.executable, "-m", "patterns.native.build"], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr == f"patterns.native.build: cannot write the build: {blocker / 'builds'}: Not a directory\n"
    assert not blocker.read_text()


def _compiled_sources():
    import ast

    root = Path(native.__file__).resolve().parent.parent.parent
    for m in native.MODULES:
        path = root / (m.replace(".", "/") + ".py")
        yield path.relative_to(root), ast.parse(path.read_text())


def test_compiled_modules_avoid_the_reads_mypyc_leaves_dynamic():
    """Two spellings cost a compiled module a dictionary lookup at every execution, where
    the alternative is a pointer read: ``x.__class__`` (a generic attribute read; mypyc
    compiles ``type(x)`` to one) and a module-level constant that is not ``Final`` (read
    from the module's dictionary; a Final one is a C static). Replacing both in the
    compiled modules cut the 10k-operation isel run by 9% of its instructions
    (callgrind), so a new occurrence is reported here, with its place."""
    import ast

    found = []
    for path, tree in _compiled_sources():
        rebound = {n for x in ast.walk(tree) if isinstance(x, (ast.Global, ast.Nonlocal)) for n in x.names}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "__class__" and isinstance(node.ctx, ast.Load):
                found.append(f"{path}:{node.lineno}: x.__class__ (write type(x))")
        for st in tree.body:
            if isinstance(st, ast.Assign):
                for target in st.targets:
                    names = target.elts if isinstance(target, ast.Tuple) else [target]
                    for name in (n.id for n in names if isinstance(n, ast.Name)):
                        # (``__all__`` is read by imports only; a type alias stays one;
                        # a name some function rebinds cannot be final)
                        if name != "__all__" and name not in rebound and ast.unparse(st.value) != "Any":
                            found.append(f"{path}:{st.lineno}: module constant {name} without Final")
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
                if "Final" not in ast.unparse(st.annotation) and st.target.id not in rebound:
                    found.append(f"{path}:{st.lineno}: module constant {st.target.id} without Final")
    assert found == []


def test_compiled_modules_pass_mypy_as_the_build_runs_it(tmp_path):
    """The type check mypyc stops at, without the C build: a plain-Python run of the suite
    finds what would break ``python3 -m patterns.native.build`` (and so .ci/setup)."""
    import os
    import subprocess
    import sys

    pytest.importorskip("mypy")
    from patterns.native import MODULES
    from patterns.native.build import MYPY_CONFIG, SOURCE_ROOT, module_source

    cfg = tmp_path / "mypy.ini"
    cfg.write_text(MYPY_CONFIG.format(compiled=",".join(MODULES)))
    paths = [os.path.relpath(module_source(m), SOURCE_ROOT) for m in MODULES]
    r = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(cfg), *paths], cwd=SOURCE_ROOT,
                       capture_output=True, text=True,
                       env=dict(os.environ, TDGEN_PURE="1", MYPY_CACHE_DIR=str(tmp_path / "cache")))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]

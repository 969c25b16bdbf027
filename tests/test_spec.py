"""Spec loading: target discovery, package-relative imports, error conversion, caching,
and determinism of what a loaded target exposes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tdgen.errors import ErrorList, SpecError, UsageError
from tdgen.paths import ROOT
from tdgen.spec import list_targets, load_target


def test_list_targets():
    names = list_targets()
    assert "amdgpu" in names and "dslike" in names
    assert names == sorted(names)


def test_load_by_name_folder_and_file():
    a = load_target("dslike")
    assert a.spec_path == "targets/dslike/spec.py"
    assert load_target(ROOT / "targets" / "dslike") == a
    assert load_target(ROOT / "targets" / "dslike" / "spec.py") == a


def test_unknown_target_is_a_usage_error():
    with pytest.raises(UsageError) as info:
        load_target("nosuchtarget")
    assert "expected a target name (amdgpu, dslike" in info.value.format()
    assert "found 'nosuchtarget'" in info.value.format()


def _write(folder, files: dict[str, str]):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text))


REG = """
    from tdgen.model import RegisterClass, reg_names
    from tdgen.types import i32
    R = RegisterClass("R", "scalar", [i32], reg_names("R", 2))
"""


def test_spec_may_import_sibling_modules(tmp_path):
    _write(tmp_path / "t", {
        "regs.py": REG,
        "spec.py": """
            from tdgen.model import Target
            from .regs import R
            from . import regs
            TARGET = Target("t", "T", "t", register_classes=[R, ] if regs.R is R else [])
        """,
    })
    t = load_target(tmp_path / "t")
    assert t.register_classes_by_name["R"].registers == ("R0", "R1")
    # the record remembers the sibling module it was declared in
    assert t.register_classes[0].span.path.endswith("t/regs.py")
    assert t.register_classes[0].span.line == 4


def test_exception_in_sibling_module_points_there(tmp_path):
    _write(tmp_path / "t", {
        "regs.py": "X = 1\nY = X / 0\n",
        "spec.py": "from . import regs\n",
    })
    with pytest.raises(SpecError) as info:
        load_target(tmp_path / "t")
    text = info.value.format()
    assert text.endswith("t/regs.py:2:5: expected a spec module that runs, found ZeroDivisionError: division by zero")


def test_syntax_error_in_spec(tmp_path):
    _write(tmp_path / "t", {"spec.py": "TARGET = (\n"})
    with pytest.raises(SpecError) as info:
        load_target(tmp_path / "t")
    assert "t/spec.py:1:" in info.value.format()
    assert "expected valid Python, found syntax error" in info.value.format()


def test_cache_follows_file_changes(tmp_path):
    spec = """
        from tdgen.model import Target
        TARGET = Target("t", "T", "t", description="{}")
    """
    _write(tmp_path / "t", {"spec.py": spec.format("one")})
    assert load_target(tmp_path / "t").description == "one"
    assert load_target(tmp_path / "t") is load_target(tmp_path / "t")
    import time

    time.sleep(0.01)
    _write(tmp_path / "t", {"spec.py": spec.format("two, longer")})
    assert load_target(tmp_path / "t").description == "two, longer"


def test_spec_modules_do_not_leak_into_sys_modules():
    load_target("amdgpu")
    assert not [m for m in sys.modules if m.startswith("_tdgen_spec_")]


_DUMP = """
from tdgen.spec import list_targets, load_target
for name in list_targets():
    t = load_target(name)
    for s in t.selection_patterns():
        print(name, s.order, s.record, s.src.render(), s.dst.render(), s.added_complexity, s.span)
    for n, i in t.instructions.items():
        print(name, n, i.fields, [o.tablegen for o in i.operands], i.asm)
    for n in sorted(t.patfrags):
        f = t.patfrags[n]
        print(name, n, f.fragment, f.divergence, f.predicate_code)
"""


def test_model_views_are_identical_across_hash_seeds():
    outs = []
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        r = subprocess.run([sys.executable, "-c", _DUMP], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        outs.append(r.stdout)
    assert outs[0] and outs[0] == outs[1] == outs[2]


def test_list_command_plain(capsys):
    from tdgen.cli import main

    assert main(["list", "--plain"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split("\t")[:3] == ["target", "spec", "intrinsics"]
    rows = {ln.split("\t")[0]: ln.split("\t") for ln in out[1:]}
    t = load_target("dslike")
    assert rows["dslike"][1] == "targets/dslike/spec.py"
    assert int(rows["dslike"][2]) == len(t.intrinsics)
    assert int(rows["dslike"][7]) == len(t.instructions)


def test_mutated_specs_fail_cleanly(tmp_path):
    """Random line deletions/swaps/token replacements in a real spec either still load
    or raise a TdgenError -- never another exception (no traceback for users)."""
    import random

    from tdgen.errors import TdgenError

    src = (ROOT / "targets" / "dslike" / "spec.py").read_text().splitlines()
    rng = random.Random(20261121)
    outcomes = {"ok": 0, "error": 0}
    for it in range(40):
        lines = list(src)
        i = rng.randrange(len(lines))
        op = rng.choice(["del", "swap", "tok"])
        if op == "del":
            del lines[i]
        elif op == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            toks = lines[i].split(" ")
            toks[rng.randrange(len(toks))] = rng.choice(["0", "None", "[]", '"x"', "i32", "VReg_32", "'(add $a)'"])
            lines[i] = " ".join(toks)
        d = tmp_path / f"t{it}"
        d.mkdir()
        (d / "spec.py").write_text("\n".join(lines) + "\n")
        try:
            load_target(d)
            outcomes["ok"] += 1
        except TdgenError as e:
            assert "expected" in e.format()
            outcomes["error"] += 1
    assert outcomes["error"] > 0


def test_list_command_table_on_a_terminal(capsys, monkeypatch):
    import sys as _sys

    from tdgen.cli import main

    monkeypatch.setattr(_sys.stdout, "isatty", lambda: True, raising=False)
    assert main(["list", "dslike"]) == 0
    out = capsys.readouterr().out
    assert "records" in out and "dslike" in out and "rewrites" in out
    t = load_target("dslike")
    row = next(ln for ln in out.splitlines() if "instructions" in ln)
    assert str(len(t.instructions)) in row


def test_error_position_inside_a_multiline_pattern(tmp_path):
    _write(tmp_path / "t", {
        "spec.py": '''
            from tdgen.model import Instruction, RegisterClass, Target
            from tdgen.types import i32
            R = RegisterClass("R", "vector", [i32], ["R0"])
            TARGET = Target("t", "T", "t", register_classes=[R], defs=[
                Instruction("A", None, [], outs="(outs R:$d)", ins="(ins R:$a, R:$b)", asm="a",
                            pattern="""(set i32:$d,
                                         (add i32:$a, i32:$c))"""),
            ])
        ''',
    })
    with pytest.raises(SpecError) as info:
        load_target(tmp_path / "t")
    e = info.value
    lines = (tmp_path / "t" / "spec.py").read_text().splitlines()
    assert lines[e.span.line - 1][e.span.col - 1 :].startswith("i32:$c))")
    assert e.message == "expected an operand of A (d, a, b), found '$c'"


def test_construction_errors_are_reported_with_a_later_failure(tmp_path):
    """A bad constructor does not stop the spec: a later Python exception, or a missing
    TARGET, is reported together with the construction errors."""
    head = "from tdgen.model import Intrinsic, Target\nfrom tdgen.types import llvm_i32_ty\n"
    _write(tmp_path / "a", {"spec.py": head + 'X = Intrinsic("int_a_x", ["i32"])\nY = 1 / 0\n'})
    with pytest.raises(ErrorList) as info:
        load_target(tmp_path / "a")
    text = info.value.format()
    assert [line.split(": ", 1)[1] for line in text.splitlines()] == [
        "record 'int_a_x' field 'results': expected a list of (IntrinsicType), found 'i32' (item 0; use the intrinsic type tdgen.types.llvm_i32_ty)",
        "expected a spec module that runs, found ZeroDivisionError: division by zero",
    ], text
    _write(tmp_path / "b", {"spec.py": head + 'X = Intrinsic("int_b_x", ["i32"])\n'})
    with pytest.raises(ErrorList) as info:
        load_target(tmp_path / "b")
    assert len(info.value.errors) == 2 and "module-level 'TARGET" in info.value.errors[0].message


def test_an_invalid_target_record_reports_only_its_construction_errors(tmp_path):
    _write(tmp_path / "c", {"spec.py": """
        from tdgen.model import Intrinsic, Target
        from tdgen.types import llvm_i32_ty
        X = Intrinsic("int_c_x", ["i32"])
        TARGET = Target("c", "C", "c", intrinsics=[X, "int_c_y"])
    """})
    with pytest.raises(ErrorList) as info:
        load_target(tmp_path / "c")
    assert [(e.record, e.field) for e in info.value.errors] == [("int_c_x", "results"), ("c", "intrinsics")]
    # the next load of an unchanged folder is not a cached success
    with pytest.raises(ErrorList):
        load_target(tmp_path / "c")

"""The isel/explain/lint commands end to end: golden failures, formats, determinism."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "isel"


def tdgen(*args, env=None):
    e = dict(os.environ, PYTHONPATH=str(ROOT))
    if env:
        e.update(env)
    return subprocess.run([sys.executable, "-m", "tdgen", *args], capture_output=True, text=True, cwd=ROOT, env=e)


FAIL = sorted((GOLDEN / "fail").glob("*.ll"))


def _target_of(path: Path) -> str:
    """``; --target X`` on the first line of a golden input picks its target (default amdgpu)."""
    first = path.read_text().splitlines()[0]
    return first.split("--target", 1)[1].split(":")[0].strip() if "--target" in first else "amdgpu"


@pytest.mark.parametrize("path", FAIL, ids=[p.stem for p in FAIL])
def test_golden_failures(path):
    rel = path.relative_to(ROOT)
    r = tdgen("isel", str(rel), "--target", _target_of(path))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert r.stdout == ""
    assert r.stderr == path.with_suffix(".err").read_text()


def test_fail_corpus_is_not_empty():
    assert len(FAIL) >= 3 and all(p.with_suffix(".err").exists() for p in FAIL)


def test_bad_arguments_exit_2_without_traceback():
    r = tdgen("isel", "no/such/file.ll", "--target", "amdgpu")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr == "no/such/file.ll: field 'FILE': expected an existing LLVM IR file, found no file 'no/such/file.ll'\n"
    r = tdgen("isel", "tests", "--target", "amdgpu")
    assert r.returncode == 2
    assert r.stderr == "tests: field 'FILE': expected an existing LLVM IR file, found a directory 'tests'\n"
    r = tdgen("explain", "tests/golden/isel/pass/mixed.ll", "--target", "amdgpu", "--value", "%nope")
    assert r.returncode == 2
    assert r.stderr == ("tests/golden/isel/pass/mixed.ll: field '--value': expected a value defined in the file, "
                        "found '%nope'\n")
    r = tdgen("isel", "tests/golden/isel/pass/mixed.ll", "--target", "amdgpu", "--format", "xml")
    assert r.returncode == 2 and "invalid choice" in r.stderr


def test_mir_and_json_agree_and_parse():
    from testkit.llc import read_mir

    mir = tdgen("isel", "tests/golden/isel/pass/mixed.ll", "--target", "amdgpu")
    js = tdgen("isel", "tests/golden/isel/pass/mixed.ll", "--target", "amdgpu", "--format", "json")
    assert mir.returncode == 0 and js.returncode == 0, mir.stderr + js.stderr
    (fn,) = read_mir("---\n" + mir.stdout.replace("\nname:", "\n---\nname:"))
    data = json.loads(js.stdout)
    ops_json = [i["opcode"] for b in data[0]["blocks"] for i in b["instrs"]]
    assert fn.name == "mixed" and fn.opcodes() == ops_json
    by_ir = {i["ir"]: i for b in data[0]["blocks"] for i in b["instrs"] if i["pattern"]}
    assert by_ir["%u"]["file"] == "scalar" and by_ir["%x"]["file"] == "vector"


def test_json_writer_matches_json_dumps(tmp_path):
    """``--format json`` writes its text directly (``commands.isel.json_text``); it is
    ``json.dumps(data, indent=2, sort_keys=True)`` of the same data: on selected kernels
    (extra results, PHIs, several functions, none) and on hand-made instructions with
    text to escape, empty lists and values of other types (which go through json.dumps)."""
    from patterns.select.isel import SelectedBlock, SelectedFunction
    from patterns.pipeline import select_function
    from tdgen.errors import Diagnostics
    from patterns.select.mir import MachineInstr
    from testkit.iselgen import generate_isel_kernel
    from patterns.ir import parse_module
    from tdgen.commands.isel import json_data, json_text
    from tdgen.commands.common import load_isel_target

    def dumps(funcs):
        return json.dumps(json_data(funcs), indent=2, sort_keys=True) + "\n"

    target = load_isel_target("amdgpu")
    more_defs = 0
    for seed in range(6):
        # (the functions as far as they select: generated kernels have if-then-else
        # regions the target does not model; the writer is what is tested)
        text = generate_isel_kernel(seed, 120, name=f"k{seed}", constants=bool(seed % 2))
        funcs = [select_function(f, target, None, None, Diagnostics())[0]
                 for f in parse_module(text, "k.ll").functions if not f.is_declaration]
        more_defs += sum(bool(mi.more_defs) for f in funcs for mi in f.instrs())
        keep: list = []
        assert json_text(funcs, keep) == dumps(funcs) and keep
        assert json_text(funcs + funcs) == dumps(funcs + funcs)
    assert more_defs  # (V_MAD_U64_U32's carry-out)
    assert json_text([]) == dumps([]) == "[]\n"
    odd = [SelectedFunction("f\u00e9\"q", [
        SelectedBlock("b\\1", [MachineInstr("OP", None, None, None, [], None, "phi"),
                                MachineInstr("OP2", "%1", "RC", "vector", ["%0", "a\tb\u2028"], "%x y", 7, "p",
                                             more_defs=(("%2", None), ("%3", "SReg_64")))]),
        SelectedBlock("empty", [])]), SelectedFunction("none", [])]
    assert json_text(odd) == dumps(odd)
    for bad in (MachineInstr("OP", 3, None, None, [], None, 1), MachineInstr("OP", None, None, None, [1.5], None, 1),
                MachineInstr("OP", None, None, None, ("x",), None, 1)):
        fs = [SelectedFunction("g", [SelectedBlock("b", [bad])])]
        assert json_text(fs) == dumps(fs)


def test_output_is_deterministic_across_hash_seeds():
    outs = {tdgen("isel", "tests/golden/isel/pass/mixed.ll", "--target", "amdgpu", "--format", fmt,
                  env={"PYTHONHASHSEED": seed}).stdout
            for seed in ("0", "1", "12345") for fmt in ("mir",)}
    assert len(outs) == 1 and next(iter(outs))
    lint = {tdgen("lint", "amdgpu", env={"PYTHONHASHSEED": seed}).stdout for seed in ("0", "7")}
    assert len(lint) == 1


def test_explain_names_the_failing_divergence_check():
    r = tdgen("explain", "tests/golden/isel/pass/mixed.ll", "--target", "amdgpu", "--value", "%x")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("@mixed %x:") and "ISD::MUL" in lines[0] and "[divergent]" in lines[0]
    s_mul = next(ln for ln in lines if "S_MUL_I32" in ln)
    assert "UniformBinFrag<mul> predicate failed" in s_mul and "is divergent, via operand" in s_mul and "%tid" in s_mul
    assert next(ln for ln in lines if "V_MUL_LO_U32_e64" in ln).endswith("MATCHED")
    r = tdgen("explain", "tests/golden/isel/pass/mixed.ll", "--target", "amdgpu", "--value", "%u")
    assert any(ln.endswith("MATCHED") and "S_ADD_I32" in ln for ln in r.stdout.splitlines())


def test_lint_reference_target_has_no_errors():
    r = tdgen("lint", "amdgpu")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1].startswith("amdgpu: 0 error(s)")


def test_cached_target_and_table_give_the_same_output(tmp_path):
    """A cold run fills the on-disk cache with one entry (``patterns.select.isel.IselBundle``:
    the target's view, its matcher table, result plans and compiled selectors), a warm
    run reads it; both print what a run with the cache off prints, in both formats and
    for ``explain``. A warm load imports neither the spec model nor lark."""
    # (a kernel the amdgpu target selects whole: the generated ones have if-then-else
    # regions, which it does not model)
    kernel = tmp_path / "k.ll"
    kernel.write_text((GOLDEN / "pass" / "mixed.ll").read_text())
    ll = str(kernel)
    cache = tmp_path / "cache"
    value = "%acc.next"  # (an xor)
    runs = {}
    for name, env in (("cold", {"XDG_CACHE_HOME": str(cache)}), ("warm", {"XDG_CACHE_HOME": str(cache)}),
                      ("off", {"TDGEN_NO_CACHE": "1"})):
        runs[name] = [tdgen("isel", ll, "--target", "amdgpu", "--format", fmt, env=env) for fmt in ("mir", "json")]
        runs[name].append(tdgen("explain", ll, "--target", "amdgpu", "--value", value, env=env))
        if name == "cold":
            entries = sorted(p.name for p in (cache / "tdgen").glob("*.pickle"))
            assert len(entries) == 1 and "-isel-" in entries[0], entries
    for name, rs in runs.items():
        assert all(r.returncode == 0 and r.stderr == "" for r in rs), (name, [r.stderr for r in rs])
    assert "V_" in runs["off"][0].stdout and "S_" in runs["off"][0].stdout and "MATCHED" in runs["off"][2].stdout
    assert [r.stdout for r in runs["cold"]] == [r.stdout for r in runs["warm"]] == [r.stdout for r in runs["off"]]
    probe = ("import sys; from tdgen.commands.common import load_isel_target; t = load_isel_target('amdgpu'); "
             "print(type(t).__name__, sorted(m for m in sys.modules if m in ('tdgen.model', 'tdgen.spec', 'lark', "
             "'tdgen.builtins')))")
    r = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(cache)))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "IselView []"


def test_isel_view_selects_like_the_target():
    """Selecting with the target's ``IselView`` (what the cached CLI selects with) gives
    what selecting with the target gives, and the view answers like the target."""
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from patterns.select.isel import IselBundle
    from patterns.pipeline import select_function
    from testkit.iselgen import generate_isel_kernel
    from patterns.select.matcher import build_table
    from patterns.select.mir import print_function
    from tdgen.errors import Diagnostics
    from tdgen.spec import load_target

    target = load_target("amdgpu")
    bundle = IselBundle(target)
    view = bundle.install()
    assert view.custom_selects and view.lowerings
    for name in list(target.intrinsics_by_ir_name) + ["llvm.smax.i32", "llvm.amdgcn.nope"]:
        assert view.intrinsic_divergence(name) is target.intrinsic_divergence(name)
    import pickle

    # (as the CLI reads it from its cache: the records alone; reading anything else
    # would need the full target, which this copy cannot load)
    cached = pickle.loads(pickle.dumps(bundle)).install()
    table = build_table(view)
    texts = [generate_isel_kernel(seed, 400, constants=bool(seed % 2)) for seed in range(4)]
    texts.append(LOOP_CALLS)
    for seed, text in enumerate(texts):
        out = []
        for t in (target, view, cached):
            fn = next(f for f in parse_module(text, "k.ll").functions if not f.is_declaration)
            diags = Diagnostics()  # (divergent branches cannot be selected: their errors are compared too)
            sf, _ = select_function(fn, t, analyze(fn, t), table, diags)
            out.append((print_function(sf), [mi.as_json() for mi in sf.instrs()], [e.format() for e in diags.errors]))
        assert out[0] == out[1] == out[2], seed
    # anything else is read from the full target
    assert view.namespace == target.namespace


# target intrinsics called in a loop: LICM asks whether each may be hoisted (its
# properties: IntrNoMem, IntrSpeculatable, IntrConvergent)
LOOP_CALLS = """define amdgpu_kernel void @f(ptr addrspace(1) %out, i32 %a, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %inext, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %accn, %loop ]
  %m = call i32 @llvm.amdgcn.mbcnt.lo(i32 %a, i32 0)
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %acc)
  %s = add i32 %m, %r
  %accn = add i32 %acc, %s
  %inext = add i32 %i, 1
  %c = icmp ult i32 %inext, %n
  br i1 %c, label %loop, label %exit
exit:
  store i32 %accn, ptr addrspace(1) %out, align 4
  ret void
}
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
"""


TWO_FNS = """declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @f(ptr addrspace(1) %out, i32 %a) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %y = add i32 %tid, %a
  store i32 %y, ptr addrspace(1) %out
  ret void
}

define amdgpu_kernel void @g(ptr addrspace(1) %out, i32 %a) {
entry:
  %y = add i32 %a, 1
  store i32 %y, ptr addrspace(1) %out
  ret void
}

define void @h(i32 %v) {
entry:
  ret void
}
"""


def test_explain_value_in_several_functions_is_an_error_unless_one_is_selected(tmp_path):
    f = tmp_path / "two.ll"
    f.write_text(TWO_FNS)
    r = tdgen("explain", str(f), "--target", "amdgpu", "--value", "%y")
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr == (f"{f}: field '--value': expected a value name defined in one function "
                        "(write @function:%name or pass --function), found '%y' in @f, @g\n")
    r = tdgen("explain", str(f), "--target", "amdgpu", "--value", "@g:%y")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("@g %y:") and "[uniform]" in r.stdout.splitlines()[0]
    r = tdgen("explain", str(f), "--target", "amdgpu", "--value", "%y", "--function", "f")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("@f %y:") and "[divergent]" in r.stdout.splitlines()[0]
    r = tdgen("explain", str(f), "--target", "amdgpu", "--value", "@f:%y", "--function", "g")
    assert r.returncode == 2 and "found both @g and @f" in r.stderr


def test_explain_reports_the_value_as_typed_and_explains_arguments(tmp_path):
    f = tmp_path / "two.ll"
    f.write_text(TWO_FNS)
    r = tdgen("explain", str(f), "--target", "amdgpu", "--value", "@g")
    assert r.returncode == 2
    assert r.stderr == f"{f}: field '--value': expected a value like %name or @function:%name, found '@g'\n"
    r = tdgen("explain", "tests/golden/isel/pass/mixed.ll", "--target", "amdgpu", "--value", "%a")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "@mixed %a: function argument, read through ISD::CopyFromReg [uniform]"
    r = tdgen("explain", str(f), "--target", "amdgpu", "--value", "@h:%v")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "@h %v: function argument, read through ISD::CopyFromReg [divergent]"
    assert lines[1].startswith("  divergent because:") and "%v" in lines[1]


def test_spec_calling_sys_exit_is_a_spec_error(tmp_path):
    spec = tmp_path / "t" / "spec.py"
    spec.parent.mkdir()
    spec.write_text("import sys\nX = 1\nif X:\n    sys.exit(3)\n")
    for cmd in (["isel", "tests/golden/isel/pass/mixed.ll", "--target", str(spec.parent)],
                ["explain", "tests/golden/isel/pass/mixed.ll", "--target", str(spec.parent), "--value", "%x"]):
        r = tdgen(*cmd)
        assert r.returncode == 2, (cmd, r.returncode, r.stderr)
        assert r.stdout == "" and "Traceback" not in r.stderr
        assert r.stderr == f"{spec}:4:5: expected a spec module that runs to the end, found a call of sys.exit(3)\n"


def test_intrinsic_divergence_errors_are_not_swallowed(monkeypatch):
    """Both hook owners (Target, DivergenceFacts) define intrinsic_divergence: an exception
    from it is a real bug and must surface, not turn the intrinsic into 'follows'."""
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from patterns.pipeline import build_function_dags
    from tdgen.spec import load_target

    target = load_target("amdgpu")
    module = parse_module((GOLDEN / "pass" / "mixed.ll").read_text(), "mixed.ll")
    fn = next(f for f in module.functions if not f.is_declaration)
    ua = analyze(fn, target)

    def boom(self, name):
        raise RuntimeError(f"hook failed for {name}")

    monkeypatch.setattr(type(target), "intrinsic_divergence", boom)
    with pytest.raises(RuntimeError, match="hook failed for llvm.amdgcn.workitem.id.x"):
        build_function_dags(fn, target, ua)


def test_explain_shows_the_custom_step_before_the_table():
    """A uniform and(srl) goes to SelectS_BFE (a CustomSelect) before any table pattern:
    explain prints the step first, with what it selected (s_bfe_u32 with the packed
    offset | width << 16 immediate), and every table pattern as not tried; a node the step
    declines says why and the table decides."""
    f = "tests/golden/isel/pass/bfe.ll"
    r = tdgen("explain", f, "--target", "amdgpu", "--value", "%u")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    # the step's source operand is the srl's own operand (%a's CopyFromReg), not the srl
    root = re.match(r"@k %u: (t\d+): i32 = ISD::AND (t\d+), (t\d+) \[uniform\]$", lines[0])
    assert root, lines[0]
    step = re.match(r"  \[custom\] SelectS_BFE .*: SELECTED S_BFE_U32 (t\d+), (\d+)$", lines[1])
    assert step and int(step.group(2)) == 4 | 8 << 16, lines[1]
    assert step.group(1) not in (root.group(2), root.group(3))
    assert len(lines) > 3 and all(ln.endswith("not tried (a custom step selected the node)") for ln in lines[2:])
    r = tdgen("explain", f, "--target", "amdgpu", "--value", "%y")
    assert "[custom]" not in r.stdout  # SelectS_BFE does not handle or
    r = tdgen("isel", f, "--target", "amdgpu", "--format", "json")
    (fn,) = json.loads(r.stdout)
    by_ir = {i["ir"]: i for b in fn["blocks"] for i in b["instrs"] if i["ir"]}
    assert (by_ir["%u"]["opcode"], by_ir["%u"]["operands"][1], by_ir["%u"]["file"]) == ("S_BFE_U32", "524292", "scalar")
    assert (by_ir["%d"]["opcode"], by_ir["%d"]["operands"][1:], by_ir["%d"]["file"]) == ("V_BFE_U32_e64", ["8", "16"], "vector")
    assert by_ir["%u"]["pattern"] == "SelectS_BFE"


def test_custom_step_decline_is_explained(tmp_path):
    f = tmp_path / "k.ll"
    f.write_text("define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {\n"
                 "  %s = lshr i32 %a, 4\n  %m = and i32 %s, 65280\n"
                 "  store i32 %m, ptr addrspace(1) %out\n  ret void\n}\n")
    r = tdgen("explain", str(f), "--target", "amdgpu", "--value", "%m")
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if "[custom]" in ln)
    assert "declined (not (and (srl x, constant), low-bit mask)); the table is tried" in line
    assert "MATCHED" in r.stdout


CROSS_BLOCK = """declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @cb(ptr addrspace(1) %out, i32 %a, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = xor i32 %tid, %a
  %c = icmp slt i32 %n, 7
  br i1 %c, label %then, label %join
then:
  %t = add i32 %d, %n
  br label %join
join:
  %p = phi i32 [ %t, %then ], [ %a, %entry ]
  %q = mul i32 %p, %a
  store i32 %q, ptr addrspace(1) %out
  ret void
}
"""


def test_explain_gives_the_reason_of_a_value_read_from_another_block(tmp_path):
    """A divergent value read through a CopyFromReg: besides the DAG path, the IR value's
    own reason chain, from the uniformity analysis of the IR as selected."""
    f = tmp_path / "cb.ll"
    f.write_text(CROSS_BLOCK)
    r = tdgen("explain", str(f), "--target", "amdgpu", "--value", "%q")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1] == "  divergent because: t1 <- %p (divergent per the uniformity analysis)"
    assert lines[2].startswith("  %p is divergent because: source %tid: @llvm.amdgcn.workitem.id.x")
    assert lines[2].endswith("<- data %p: uses divergent %t"), lines[2]

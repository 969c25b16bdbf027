"""The Python API (``import tdgen``) and our own use of the pytest plugin's fixture and assertions.

The API must give what the commands print: ``tdgen.select`` the same machine
instructions as ``tdgen isel --format json``, ``tdgen.explain`` the text of ``tdgen
explain``, ``tdgen.analyze`` the verdicts of ``tdgen divergence --format json``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import tdgen
from tdgen.testing import assert_divergent, assert_selects, assert_uniform

ROOT = Path(__file__).resolve().parent.parent

KERNEL = """declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %u = add i32 %a, %b
  %d = add i32 %tid, %u
  %x = xor i32 %d, %u
  %s = mul i32 %u, %b
  %r = add i32 %x, %s
  store i32 %r, ptr addrspace(1) %out
  ret void
}
"""


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdgen", *args], cwd=ROOT, input=stdin, capture_output=True,
                          text=True)


def test_select_agrees_with_isel_json(tmp_path):
    f = tmp_path / "k.ll"
    f.write_text(KERNEL)
    sel = tdgen.select(f, tdgen.load_target("amdgpu"))
    r = _cli("isel", str(f), "-t", "amdgpu", "--format", "json")
    assert r.returncode == 0, r.stderr
    cli = [(fn["function"], mi["ir"], mi["opcode"], mi["regclass"], mi["file"], mi["pattern"])
           for fn in json.loads(r.stdout) for b in fn["blocks"] for mi in b["instrs"] if mi["ir"]]
    api = [(fn.name, mi.ir, mi.opcode, mi.regclass, mi.file, mi.pattern) for fn in sel.functions
           for mi in fn.instrs() if mi.ir]
    assert api == cli
    assert sel["@k:%u"].opcode == "S_ADD_I32" and sel["@k:%u"].file == "scalar"
    assert sel["%d"].opcode == "V_ADD_U32_e64" and sel["%d"].regclass == "VGPR_32"
    assert sel["@k:%u"].source.startswith("targets/amdgpu/alu.py:")
    assert sel.mir() == _cli("isel", str(f), "-t", "amdgpu").stdout


def test_ir_text_and_path_give_the_same_selection(tmp_path):
    f = tmp_path / "k.ll"
    f.write_text(KERNEL)
    t = tdgen.load_target("amdgpu")
    a, b = tdgen.select(KERNEL, t), tdgen.select(str(f), t)
    assert [(k, v.opcodes) for k, v in a.items()] == [(k, v.opcodes) for k, v in b.items()]
    with pytest.raises(KeyError, match="no selected value '@k:%nope'"):
        a["@k:%nope"]


def test_analyze_agrees_with_divergence_json():
    u = tdgen.analyze(KERNEL, "amdgpu")
    r = _cli("divergence", "-", "-t", "amdgpu", "--format", "json", stdin=KERNEL)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    text = json.dumps(data)
    assert u["@k:%tid"].divergent and u["@k:%d"].divergent and u["%x"].divergent
    assert u["@k:%u"].uniform and u["@k:%a"].uniform
    assert [s.value for s in u["@k:%d"].chain] == ["%tid", "%d"]
    for key, v in u.items():  # every value the API calls divergent, the CLI does too
        if v.divergent:
            assert key.split(":", 1)[1] in text


def test_explain_is_the_explain_command_text():
    e = tdgen.explain(KERNEL, "amdgpu", "@k:%d")
    r = _cli("explain", "-", "-t", "amdgpu", "--value", "@k:%d", stdin=KERNEL)
    assert r.returncode == 0, r.stderr
    assert e.text == r.stdout
    assert e.divergent and e.matched.record == "anonymous_0" and e.matched.dst.startswith("(V_ADD_U32_e64")
    first_uniform = next(a for a in e.attempts if a.record == "S_ADD_I32")
    assert first_uniform.outcome.startswith("UniformBinFrag<add> predicate failed: ")
    assert not any(a.tried for a in e.attempts[e.attempts.index(e.matched) + 1:])


def test_missing_ir_file_is_a_usage_error(tmp_path):
    from tdgen.errors import UsageError

    for missing in (str(tmp_path / "none.ll"), tmp_path / "none.ll"):
        with pytest.raises(UsageError) as e:
            tdgen.select(missing, "amdgpu")
        assert e.value.format() == f"{tmp_path / 'none.ll'}: expected an existing LLVM IR file, found no file " \
                                   f"'{tmp_path / 'none.ll'}'"


def test_bad_ir_is_a_parse_error():
    from tdgen.errors import ParseError

    with pytest.raises(ParseError) as e:
        tdgen.select("define void @f() {\n  %x = frob i32 1\n}\n", "amdgpu")
    assert e.value.format().startswith("<string>:2:")


@pytest.mark.parametrize("tdgen_target", ["amdgpu", str(ROOT / "targets" / "amdgpu" / "spec.py")], indirect=True)
def test_fixture_by_name_and_by_spec_path(tdgen_target):
    assert tdgen_target.name == "amdgpu"
    assert_selects(KERNEL, "@k:%u", "S_ADD_I32", target=tdgen_target, file="scalar")
    assert_selects(KERNEL, "@k:%s", "S_MUL_I32", target=tdgen_target, regclass="SReg_32")
    assert_uniform(KERNEL, "@k:%u", target=tdgen_target)
    assert_divergent(KERNEL, "@k:%x", target=tdgen_target)


@pytest.mark.parametrize("tdgen_target", ["amdgpu"], indirect=True)
def test_failed_assertion_message_is_the_explain_trace(tdgen_target):
    with pytest.raises(AssertionError) as e:
        assert_selects(KERNEL, "@k:%d", "S_ADD_I32", target=tdgen_target)
    msg = str(e.value)
    assert msg.startswith("@k:%d: expected S_ADD_I32, selected opcode V_ADD_U32_e64 (pattern anonymous_0 at "
                          "targets/amdgpu/alu.py:")
    assert "divergent because: t2 <- %tid (source of divergence)" in msg
    from patterns.select.matcher import build_table

    # the uniform add's pattern at its place in the matcher table (the trace names it by index)
    (index,) = [p.index for p in build_table(tdgen_target).patterns if p.record == "S_ADD_I32"]
    assert f"  [{index}] S_ADD_I32 complexity=4 (UniformBinFrag<add> i32:$src0, i32:$src1)" in msg
    assert "UniformBinFrag<add> predicate failed: t6 is divergent, via t2 <- %tid" in msg
    with pytest.raises(AssertionError, match=r"(?s)expected uniform, found divergent:.*1\. source +%tid"):
        assert_uniform(KERNEL, "@k:%d", target=tdgen_target)
    with pytest.raises(AssertionError, match="expected divergent, found uniform"):
        assert_divergent(KERNEL, "@k:%u", target=tdgen_target)

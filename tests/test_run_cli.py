"""``tdgen run`` / ``tdgen check-run`` and their Python API: output, JSON inputs round trip,
determinism, the counterexample of ``check_run`` (against an engine made wrong on purpose
here), and every bad input as one clear error with exit 2."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from patterns.run import engines
from patterns.run.api import check_run, run
from patterns.run.launch import from_json
from patterns.run.result import Result, Store

ROOT = Path(__file__).resolve().parent.parent

KERNEL = """define amdgpu_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %out, i32 %n) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr inbounds i32, ptr addrspace(1) %a, i32 %t
  %v = load i32, ptr addrspace(1) %p
  %c = icmp slt i32 %t, 10
  br i1 %c, label %then, label %else
then:
  %x = add i32 %v, %n
  br label %join
else:
  %y = mul i32 %v, 3
  br label %join
join:
  %r = phi i32 [ %x, %then ], [ %y, %else ]
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t
  store i32 %r, ptr addrspace(1) %q
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


def _tdgen(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "tdgen", *args], cwd=ROOT, capture_output=True, text=True, env=e)


@pytest.fixture()
def kernel(tmp_path):
    p = tmp_path / "k.ll"
    p.write_text(KERNEL)
    return p


def test_run_prints_every_store_and_matches_the_inputs(kernel, tmp_path):
    res = run(kernel, target="amdgpu", wave=32, workgroup=16, seed=5)[0]
    assert res.undefined is None
    (launch_a, launch_out) = res.kernel, None
    del launch_a, launch_out
    from patterns.run.launch import from_seed
    from patterns.ir import parse_module

    fn = parse_module(KERNEL).function("k")
    launch = from_seed(fn, 5, group_size=16, wave=32)
    a = launch.buffer("a").data
    n = launch.args[2].value
    vals = [int.from_bytes(a[4 * i:4 * i + 4], "little") for i in range(16)]
    want = [(v + n) & 0xFFFFFFFF if i < 10 else (v * 3) & 0xFFFFFFFF for i, v in enumerate(vals)]
    assert [s.value for s in res.stores] == want
    assert [(s.buffer, s.offset, s.local) for s in res.stores] == [("out", 4 * i, i) for i in range(16)]
    out = _tdgen("run", str(kernel), "--target", "amdgpu", "--wave", "32", "--workgroup", "16", "--seed", "5")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "; engine reference, kernel @k: 16 stores"
    assert lines[1] == f"wg 0 item 0: global out+0 i32 = {want[0] - (1 << 32) if want[0] >> 31 else want[0]}"


def test_json_inputs_round_trip(kernel, tmp_path):
    from patterns.ir import parse_module
    from patterns.run.launch import from_seed

    launch = from_seed(parse_module(KERNEL).function("k"), 3, group_size=64, wave=64)
    f = tmp_path / "in.json"
    f.write_text(launch.json_text())
    assert from_json(f.read_text()) == launch
    a = _tdgen("run", str(kernel), "--target", "amdgpu", "--inputs", str(f), "--format", "json")
    b = _tdgen("run", str(kernel), "--target", "amdgpu", "--seed", "3", "--format", "json")
    assert a.returncode == 0 and a.stdout == b.stdout
    doc = json.loads(a.stdout)
    assert len(doc[0]["stores"]) == 64 and doc[0]["undefined"] is None


def test_output_is_deterministic_across_hash_seeds(kernel):
    outs = {_tdgen("run", str(kernel), "--target", "amdgpu", "--seed", "1", env={"PYTHONHASHSEED": h}).stdout
            for h in ("0", "12345")}
    assert len(outs) == 1


class _Broken:
    """The reference with lane 13's stored value off by one (an engine made wrong here)."""

    def __call__(self, module, launch, target):
        ref = engines.engine("reference")(module, launch, target)
        stores = tuple(dataclasses.replace(s, value=(s.value + 1) & 0xFFFFFFFF, origin="V_ADD_U32_e64 %9, 1")
                       if s.local == 13 else s for s in ref.stores)
        return Result("broken", ref.kernel, stores)


def test_check_run_reports_the_first_counterexample(kernel):
    engines.register("broken", _Broken())
    try:
        rep = check_run(kernel, target="amdgpu", wave=32, workgroup=16, trials=3, engine_names=["broken"])
    finally:
        engines.unregister("broken")
    c = rep.counterexample
    assert not rep.ok and c["seed"] == 0 and c["item"] == 13 and c["lane"] == 13 and c["wave_index"] == 0
    assert c["where"] == "global out+52" and c["ir_value"] == "%r"
    assert "store i32 %r" in c["expected"]["by"] and c["found"]["by"] == "V_ADD_U32_e64 %9, 1"
    assert f"tdgen run {kernel} --target amdgpu --engine broken --wave 32 --workgroup 16 --seed 0" in c["commands"]
    assert json.loads(c["inputs_json"])["kernel"] == "k"
    text = rep.text()
    assert "counterexample: @k seed 0, work-group 0, work-item 13 (lane 13 of wave 0)" in text


def test_check_run_agrees_with_an_equal_engine(kernel):
    engines.register("same", lambda m, launch, t: engines.engine("reference")(m, launch, t))
    try:
        rep = check_run(kernel, target="amdgpu", wave=64, workgroup=64, trials=4, engine_names=["same"])
    finally:
        engines.unregister("same")
    assert rep.ok and rep.trials == 4 and rep.lanes == 4 * 64 and rep.stores == 4 * 64


@pytest.mark.parametrize("args,message", [
    (["--inputs", "/nonexistent.json"], "/nonexistent.json: field '--inputs': expected an existing JSON inputs file, "
                                        "found no file '/nonexistent.json'"),
    (["--engine", "nope"], "expected an engine of "),
    (["--workgroup", "0"], "--workgroup: field '--workgroup': expected a work-group size of 1..1024, found 0"),
])
def test_bad_arguments_exit_2(kernel, args, message):
    r = _tdgen("run", str(kernel), "--target", "amdgpu", *args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_bad_inputs_file(kernel, tmp_path):
    f = tmp_path / "bad.json"
    f.write_text('{"kernel": "k", "workgroup": 64,\n "wave": 48, "groups": 1, "args": [], "buffers": []}')
    r = _tdgen("run", str(kernel), "--target", "amdgpu", "--inputs", str(f))
    assert r.returncode == 2 and r.stderr.strip() == f"{f}:1:1: expected 'wave' 32 or 64, found 48"
    f.write_text('{"kernel": ')
    r = _tdgen("run", str(kernel), "--target", "amdgpu", "--inputs", str(f))
    assert r.returncode == 2 and r.stderr.startswith(f"{f}:1:12: expected JSON, found Expecting value")
    f.write_text('{"kernel": "other", "workgroup": 64, "wave": 64, "groups": 1, "args": [], "buffers": []}')
    r = _tdgen("run", str(kernel), "--target", "amdgpu", "--inputs", str(f))
    assert r.returncode == 2 and "expected a kernel of" in r.stderr and "'other'" in r.stderr


def test_not_modeled_is_exit_2(tmp_path):
    p = tmp_path / "call.ll"
    p.write_text("define void @f() {\n  ret void\n}\ndefine amdgpu_kernel void @k() {\n  call void @f()\n"
                 "  ret void\n}\n")
    r = _tdgen("run", str(p), "--target", "amdgpu")
    assert r.returncode == 2
    assert r.stderr.strip() == f"{p}:5:3: not modeled: call of a defined function @f"


def test_undefined_behaviour_exits_1(tmp_path):
    p = tmp_path / "ub.ll"
    p.write_text("define amdgpu_kernel void @k(ptr addrspace(1) %o) {\n  store i32 poison, ptr addrspace(1) %o\n"
                 "  ret void\n}\n")
    r = _tdgen("run", str(p), "--target", "amdgpu", "--workgroup", "1")
    assert r.returncode == 1
    assert f"{p}:2:3: undefined behaviour: poison: the stored value is poison (work-group 0, work-item 0, lane 0)" \
        in r.stdout


def test_check_run_without_a_machine_engine_is_bad_input(kernel, monkeypatch):
    monkeypatch.setattr(engines, "names", lambda: ("reference",))
    from tdgen.errors import UsageError

    with pytest.raises(UsageError):
        check_run(kernel, target="amdgpu", trials=1)


def test_result_json_is_the_store_list(kernel):
    res = run(kernel, target="amdgpu", wave=64, workgroup=2)[0]
    doc = json.loads(res.json_text())
    assert doc["stores"] == [s.as_json() for s in res.stores]
    assert isinstance(res.stores[0], Store)


def test_inputs_schema_describes_the_launch_json(kernel):
    jsonschema = pytest.importorskip("jsonschema")
    from patterns.ir import parse_module
    from patterns.run.launch import from_seed

    schema = json.loads((ROOT / "schemas" / "run-inputs.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    text = KERNEL.replace("i32 %n)", "i32 %n, ptr addrspace(3) %scratch, float %f)")
    launch = from_seed(parse_module(text).function("k"), 9, group_size=8, wave=32, groups=2)
    doc = launch.as_json()
    jsonschema.validate(doc, schema)
    assert {a["kind"] for a in doc["args"]} == {"buffer", "int", "lds", "float"}
    assert from_json(json.dumps(doc)) == launch
    doc["args"][0]["kind"] = "pointer"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)

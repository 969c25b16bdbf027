"""llc-19 as the third execution: its MIR (``-stop-after=finalize-isel``) read by
patterns/run/mir_reader.py and run on the machine interpreter (patterns/run/mir_run.py),
lane by lane against the IR reference; the MIR reader's errors; a broken exec-mask
restore caught."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from llvm_tools import require
from patterns.ir.reader import parse_module
from patterns.run import engines
from patterns.run.launch import from_seed
from patterns.run.mir_reader import read_mir
from patterns.run.result import first_difference
from tdgen.check.semantics import check_instruction_semantics
from tdgen.errors import Diagnostics, TdgenError
from tdgen.model.resolved import OperandRef
from tdgen.model.semantics import Branch, Implicit, walk
from tdgen.target_cache import load_target
from testkit.cfggen import generate_cfg_kernel

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden" / "machine"

DIAMOND = """\
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %s = add i32 %a, %b
  %d = sub i32 %tid, %s
  %c = icmp ult i32 %tid, 7
  br i1 %c, label %then, label %else
then:
  %x = xor i32 %d, %a
  br label %join
else:
  %y = shl i32 %d, 3
  br label %join
join:
  %p = phi i32 [ %x, %then ], [ %y, %else ]
  %g = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %p, ptr addrspace(1) %g
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""

LOOP = """\
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %pi = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %v = load i32, ptr addrspace(1) %pi
  %lim = and i32 %v, 7
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi i32 [ %n, %entry ], [ %acc1, %loop ]
  %acc1 = add i32 %acc, %i
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %lim
  br i1 %c, label %loop, label %exit
exit:
  %g = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  %m = icmp sgt i32 %acc1, %n
  %r = select i1 %m, i32 %acc1, i32 %v
  store i32 %r, ptr addrspace(1) %g
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


@pytest.fixture(scope="module")
def amdgpu():
    return load_target(ROOT / "targets" / "amdgpu")


def _write(tmp_path: Path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text)
    return parse_module(text, str(p))


def _final_memory(res):
    """The last value stored at each place (a compiler may drop a store that rewrites the
    value already there: llc does for a loop-invariant store it hoists)."""
    out = {}
    for s in sorted(res.stores, key=lambda s: (s.space, s.buffer, s.offset)):
        out[(s.space, s.buffer, s.offset)] = s.value
    return out


@pytest.mark.parametrize("kernel", ["diamond", "loop"])
def test_llc_agrees_with_the_reference_on_every_lane(kernel, amdgpu, tmp_path):
    require("llc-19")
    m = _write(tmp_path, f"{kernel}.ll", DIAMOND if kernel == "diamond" else LOOP)
    fn = m.function("k")
    for seed in range(3):
        launch = from_seed(fn, seed, group_size=64, wave=64)
        ref = engines.engine("reference")(m, launch, amdgpu)
        got = engines.engine("llc")(m, launch, amdgpu)
        assert ref.undefined is None and got.undefined is None, got.undefined
        assert len(ref.stores) == 64
        assert first_difference(ref, got) is None
    # the exec-mask sequence the SI pseudos make
    trace = "\n".join(got.trace)
    if kernel == "diamond":
        assert "SI_IF: exec = " in trace and "SI_ELSE: exec = " in trace and "SI_END_CF: exec = 0xffffffffffffffff" in trace
    else:
        assert "SI_LOOP: exec = " in trace and "SI_END_CF: exec = 0xffffffffffffffff" in trace


def test_llc_on_generated_control_flow_kernels(amdgpu, tmp_path):
    require("llc-19")
    n = 0
    for seed in range(8):
        m = _write(tmp_path, f"g{seed}.ll", generate_cfg_kernel(seed, 40))
        fn = m.definitions()[0]
        launch = from_seed(fn, seed, group_size=64, wave=64)
        ref = engines.engine("reference")(m, launch, amdgpu)
        got = engines.engine("llc")(m, launch, amdgpu)
        assert got.undefined is None, (seed, got.undefined)
        assert _final_memory(ref) == _final_memory(got), seed
        n += len(ref.stores)
    assert n > 8 * 64


def test_mir_reader_reads_llcs_output(amdgpu, tmp_path):
    llc = require("llc-19")
    src = tmp_path / "d.ll"
    src.write_text(DIAMOND)
    text = subprocess.run([llc, "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx900", "-stop-after=finalize-isel", "-o", "-",
                           str(src)], capture_output=True, text=True, check=True).stdout
    (fn,) = read_mir(text, "d.mir")
    assert fn.name == "k"
    assert fn.argument_info["kernargSegmentPtr"].startswith("$sgpr")
    ops = [mi.opcode for b in fn.blocks for mi in b.instrs]
    assert {"SI_IF", "SI_ELSE", "SI_END_CF", "PHI", "GLOBAL_STORE_DWORD_SADDR"} <= set(ops)
    si_if = next(mi for b in fn.blocks for mi in b.instrs if mi.opcode == "SI_IF")
    assert si_if.operands[1].startswith("%bb.") and "$exec" in si_if.extra["implicit"]
    assert si_if.where.startswith("d.mir:")


@pytest.mark.parametrize("case", sorted(p.stem for p in (GOLDEN / "fail").glob("*.mir")))
def test_mir_reader_errors(case):
    path = GOLDEN / "fail" / f"{case}.mir"
    rel = str(path.relative_to(ROOT))
    with pytest.raises(TdgenError) as info:
        read_mir(path.read_text(), rel)
    assert info.value.format() + "\n" == path.with_suffix(".expected").read_text()


class _Shim:
    """A resolved-instruction view of one MIR_INSTRUCTIONS entry, for the semantics checks."""

    def __init__(self, name, outs, ins, sem):
        self.name = name
        self.outs = tuple(OperandRef(n, k) for n, k in outs)
        self.ins = tuple(OperandRef(n, k) for n, k in ins)
        self.operands = self.outs + self.ins
        regs = {x.reg for eff in sem.effects for x in walk(eff) if isinstance(x, Implicit)}
        self.implicit_uses = tuple(sorted(regs))
        self.implicit_defs = tuple(sorted({eff.dst.reg for eff in sem.effects
                                           if not isinstance(eff, Branch) and isinstance(getattr(eff, "dst", None),
                                                                                          Implicit)}))
        self.declared_by = type("D", (), {"semantics": sem, "cls": None})()


def test_mir_instruction_table_passes_the_semantics_checks(amdgpu):
    from patterns.run.mir_run import mir_facts

    facts = mir_facts(amdgpu)
    d = Diagnostics()

    class C:
        t = amdgpu

        def err(self, span, message, record=None, field=None):
            d.add(TdgenError(span, f"{record}: {message}"))

    for name, (outs, ins, sem) in facts.MIR_INSTRUCTIONS.items():
        # a brtarget operand is a block: give the checks an operand kind they know
        ins = tuple((n, "i32imm" if k == "brtarget" else k) for n, k in ins)
        check_instruction_semantics(C(), _Shim(name, outs, ins, sem))
    assert [e.format() for e in d.errors] == []


def test_wrong_exec_mask_restore_is_caught(tmp_path):
    require("llc-19")
    k = tmp_path / "d.ll"
    k.write_text(DIAMOND)
    broken = tmp_path / "amdgpu_broken"
    shutil.copytree(ROOT / "targets" / "amdgpu", broken)
    ms = broken / "mir_semantics.py"
    old = '"SI_END_CF": ((), (("mask", _S64),), S.wave(S.write("EXEC", S.or_(_EXEC, "mask")))),'
    text = ms.read_text()
    assert text.count(old) == 1
    # restore only the saved mask: the lanes of the side that ran last stay off
    ms.write_text(text.replace(old, '"SI_END_CF": ((), (("mask", _S64),), S.wave(S.write("EXEC", "mask"))),'))
    cmd = [sys.executable, "-m", "tdgen", "check-run", str(k), "--engines", "llc", "--trials", "2", "--format", "json"]
    good = subprocess.run(cmd + ["--target", "amdgpu"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = subprocess.run(cmd + ["--target", str(broken)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    c = json.loads(bad.stdout)["counterexample"]
    assert c["expected"]["engine"] == "reference" and c["found"]["engine"] == "llc"
    assert "GLOBAL_STORE_DWORD_SADDR" in (c["found"]["by"] or "") or c["found"]["store"] == "no store here"

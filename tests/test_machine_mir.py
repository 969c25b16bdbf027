"""llc-19 as the third execution: its MIR (``-stop-after=finalize-isel``) read by
patterns/run/mir_reader.py and run on the machine interpreter (patterns/run/mir_run.py),
lane by lane against the IR reference; the MIR reader's errors; a broken exec-mask
restore caught."""

from __future__ import annotations

import json
import re
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


# the subset's ALU, bit, 24-bit, three-operand and cross-lane instructions, each value
# stored: llc selects them (and v_mad_u64_u32 for %v11); their semantics run in llc's MIR
ALU = """\
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %x = mul i32 %tid, -1640531535
  %y = xor i32 %x, %a
  %tlo = and i32 %tid, 15
  %base = mul i32 %tlo, 16
  %v0 = call i32 @llvm.ctpop.i32(i32 %x)
  %v1 = call i32 @llvm.bitreverse.i32(i32 %y)
  %v2 = call i32 @llvm.smax.i32(i32 %x, i32 %y)
  %v3 = call i32 @llvm.umin.i32(i32 %x, i32 %a)
  %s1 = shl i32 %y, 24
  %v4 = ashr i32 %s1, 24
  %sh = lshr i32 %x, 5
  %v5 = and i32 %sh, 255
  %m1 = and i32 %x, 16777215
  %m2 = and i32 %y, 16777215
  %v6 = mul i32 %m1, %m2
  %t1 = add i32 %x, %y
  %v7 = add i32 %t1, %b
  %t2 = shl i32 %x, 3
  %v8 = add i32 %t2, %y
  %t3 = xor i32 %x, %y
  %v9 = add i32 %t3, %a
  %t4 = and i32 %x, %y
  %na = xor i32 %x, -1
  %t5 = and i32 %na, %a
  %v10 = or i32 %t4, %t5
  %t6 = mul i32 %x, %y
  %v11 = add i32 %t6, %b
  %ua = mul i32 %a, %b
  %ub = call i32 @llvm.ctpop.i32(i32 %ua)
  %uc = call i32 @llvm.smin.i32(i32 %ua, i32 %b)
  %v12 = add i32 %ub, %uc
  %v13 = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %y)
  %m = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %v14 = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %m)
  %ad = shl i32 %v14, 2
  %ad2 = xor i32 %ad, 12
  %v15 = call i32 @llvm.amdgcn.ds.bpermute(i32 %ad2, i32 %y)
  %p0 = getelementptr i32, ptr addrspace(1) %out, i32 %base
  store i32 %v0, ptr addrspace(1) %p0
  %i1 = add i32 %base, 1
  %p1 = getelementptr i32, ptr addrspace(1) %out, i32 %i1
  store i32 %v1, ptr addrspace(1) %p1
  %i2 = add i32 %base, 2
  %p2 = getelementptr i32, ptr addrspace(1) %out, i32 %i2
  store i32 %v2, ptr addrspace(1) %p2
  %i3 = add i32 %base, 3
  %p3 = getelementptr i32, ptr addrspace(1) %out, i32 %i3
  store i32 %v3, ptr addrspace(1) %p3
  %i4 = add i32 %base, 4
  %p4 = getelementptr i32, ptr addrspace(1) %out, i32 %i4
  store i32 %v4, ptr addrspace(1) %p4
  %i5 = add i32 %base, 5
  %p5 = getelementptr i32, ptr addrspace(1) %out, i32 %i5
  store i32 %v5, ptr addrspace(1) %p5
  %i6 = add i32 %base, 6
  %p6 = getelementptr i32, ptr addrspace(1) %out, i32 %i6
  store i32 %v6, ptr addrspace(1) %p6
  %i7 = add i32 %base, 7
  %p7 = getelementptr i32, ptr addrspace(1) %out, i32 %i7
  store i32 %v7, ptr addrspace(1) %p7
  %i8 = add i32 %base, 8
  %p8 = getelementptr i32, ptr addrspace(1) %out, i32 %i8
  store i32 %v8, ptr addrspace(1) %p8
  %i9 = add i32 %base, 9
  %p9 = getelementptr i32, ptr addrspace(1) %out, i32 %i9
  store i32 %v9, ptr addrspace(1) %p9
  %i10 = add i32 %base, 10
  %p10 = getelementptr i32, ptr addrspace(1) %out, i32 %i10
  store i32 %v10, ptr addrspace(1) %p10
  %i11 = add i32 %base, 11
  %p11 = getelementptr i32, ptr addrspace(1) %out, i32 %i11
  store i32 %v11, ptr addrspace(1) %p11
  %i12 = add i32 %base, 12
  %p12 = getelementptr i32, ptr addrspace(1) %out, i32 %i12
  store i32 %v12, ptr addrspace(1) %p12
  %i13 = add i32 %base, 13
  %p13 = getelementptr i32, ptr addrspace(1) %out, i32 %i13
  store i32 %v13, ptr addrspace(1) %p13
  %i14 = add i32 %base, 14
  %p14 = getelementptr i32, ptr addrspace(1) %out, i32 %i14
  store i32 %v14, ptr addrspace(1) %p14
  %i15 = add i32 %base, 15
  %p15 = getelementptr i32, ptr addrspace(1) %out, i32 %i15
  store i32 %v15, ptr addrspace(1) %p15
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.bitreverse.i32(i32)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
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


@pytest.mark.parametrize("engine_names", [("llc",), ("selected", "llc")])
def test_alu_semantics_against_llc_and_tdgens_selection(engine_names, amdgpu, tmp_path):
    require("llc-19")
    text = ALU
    if "selected" in engine_names:
        # (tdgen's selection orders the IMPLICIT_DEF of v_mad_u64_u32's addend after its
        # REG_SEQUENCE, a read of an undefined register: %v11 made a xor here; the store
        # indices made provably non-negative -- the selection has no 64-bit address
        # arithmetic for an index that may be negative)
        text = ALU.replace("%v11 = add i32 %t6, %b", "%v11 = xor i32 %t6, %b")
    m = _write(tmp_path, "alu.ll", text)
    fn = m.function("k")
    for seed in range(3):
        launch = from_seed(fn, seed, group_size=64, wave=64)
        ref = engines.engine("reference")(m, launch, amdgpu)
        assert ref.undefined is None and len(ref.stores) == 64 * 16
        for name in engine_names:
            got = engines.engine(name)(m, launch, amdgpu)
            assert got.undefined is None, got.undefined
            assert first_difference(ref, got) is None, name
    # llc's MIR ran the subset's own instructions (their semantics), not only llc's extras
    from patterns.run.mir_run import llc_mir, mir_facts

    (mf,) = read_mir(llc_mir(m.path, tuple(mir_facts(amdgpu).LLC_ARGS)), "alu.mir")
    ran = {mi.opcode for b in mf.blocks for mi in b.instrs}
    assert {"V_BFI_B32_e64", "V_ADD3_U32_e64", "V_BFE_U32_e64", "V_BFE_I32_e64", "S_BCNT1_I32_B32",
            "V_BFREV_B32_e64", "V_MUL_U32_U24_e64", "V_MBCNT_HI_U32_B32_e64", "DS_BPERMUTE_B32",
            "V_READFIRSTLANE_B32"} <= ran & set(amdgpu.instructions)


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

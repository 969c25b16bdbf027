"""Integer promotion (patterns.dag.legalize_types) and the expansion of variable-index
vector extracts (patterns.dag.legalize_vectors with the target's hook), on the amdgpu
reference target, checked against what llc-19 -mcpu=gfx900 computes: i8 is promoted to
i16 (gfx900 has 16-bit instructions: llc selects V_ADD_U16 / V_LSHRREV_B16 /
V_CMP_LT_I16), i33 to i64; an extract at a variable index of a v2i32 is a compare with
each lane index and a select (llc: V_CMP_EQ_U32 + V_CNDMASK_B32, S_CMP_EQ_U32 +
S_CSELECT_B32)."""

from __future__ import annotations

import subprocess
from collections import Counter

import pytest

from llvm_tools import require
from patterns.dag.legalize_types import promoted_type
from patterns.dag.legaltable import legal_table
from patterns.ir import parse_module
from patterns.pipeline import build_function_dags
from tdgen.errors import TdgenError
from tdgen.spec import load_target

I8 = """
define amdgpu_kernel void @u8(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i8, ptr addrspace(1) %in, i32 %tid
  %b = load i8, ptr addrspace(1) %p
  %c = add i8 %b, 3
  %d = lshr i8 %c, 1
  %e = icmp slt i8 %d, 5
  %f = zext i8 %d to i32
  %g = select i1 %e, i32 %f, i32 %n
  store i32 %g, ptr addrspace(1) %out
  %q = getelementptr i8, ptr addrspace(1) %out, i32 %tid
  store i8 %c, ptr addrspace(1) %q
  ret void
}
define amdgpu_kernel void @odd(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %x = zext i32 %a to i33
  %y = zext i32 %b to i33
  %s = add i33 %x, %y
  %t = lshr i33 %s, 1
  %r = trunc i33 %t to i32
  store i32 %r, ptr addrspace(1) %out
  ret void
}
define amdgpu_kernel void @sext_trunc(ptr addrspace(1) %out, i32 %a) {
  %t = trunc i32 %a to i8
  %r = sext i8 %t to i32
  store i32 %r, ptr addrspace(1) %out
  ret void
}
define amdgpu_kernel void @dyn(ptr addrspace(1) %out, <2 x i32> %v, i32 %i) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %e = extractelement <2 x i32> %v, i32 %tid
  %f = extractelement <2 x i32> %v, i32 %i
  %s = add i32 %e, %f
  store i32 %s, ptr addrspace(1) %out
  ret void
}
define amdgpu_kernel void @wide(ptr addrspace(1) %out, i64 %a) {
  %x = zext i64 %a to i128
  %y = add i128 %x, 1
  %r = trunc i128 %y to i32
  store i32 %r, ptr addrspace(1) %out
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


@pytest.fixture(scope="module")
def amdgpu():
    return load_target("amdgpu")


def _live(target, name):
    fn = next(f for f in parse_module(I8, "t.ll").functions if f.name == name)
    dag = build_function_dags(fn, target, None).dags[0]
    return [n for n in dag.nodes if n.uses or n in dag.roots]


def test_promoted_types(amdgpu):
    lt = legal_table(amdgpu.legality)
    assert promoted_type("i8", lt) == "i16" and promoted_type("i33", lt) == "i64"
    assert promoted_type("i1", lt) is None and promoted_type("i32", lt) is None
    assert promoted_type("i128", lt) == ""  # wider than every legal integer: expansion


def test_i8_is_computed_in_i16(amdgpu):
    live = _live(amdgpu, "u8")
    kinds = Counter((n.opcode, n.vt) for n in live)
    assert not any(vt == "i8" for _, vt in kinds)
    assert kinds[("ISD::ADD", "i16")] == 1 and kinds[("ISD::SRL", "i16")] == 1
    (load,) = [n for n in live if n.opcode == "ISD::LOAD"]
    assert (load.vt, load.cc, load.mem.memvt, load.mem.size) == ("i16", "EXTLOAD", "i8", 1)
    (cmp,) = [n for n in live if n.opcode == "ISD::SETCC"]
    assert cmp.ops[0].vt == "i16" and cmp.cc == "SETLT"
    stores = {n.cc: n for n in live if n.opcode == "ISD::STORE"}
    assert set(stores) == {None, "TRUNCSTORE"}
    assert stores["TRUNCSTORE"].ops[0].vt == "i16" and stores["TRUNCSTORE"].mem.memvt == "i8"
    # divergence is kept on the new nodes: the loaded byte is divergent, so is its arithmetic
    assert all(n.divergent for n in live if n.opcode in ("ISD::ADD", "ISD::SRL", "ISD::SETCC") and n.vt != "i64")


def test_i33_is_computed_in_i64_and_masked(amdgpu):
    live = _live(amdgpu, "odd")
    kinds = Counter((n.opcode, n.vt) for n in live)
    assert kinds[("ISD::ADD", "i64")] == 1 and kinds[("ISD::ZERO_EXTEND", "i64")] == 2
    # the srl reads the sum zero-extended in the register from bit 33 (ZExtPromotedInteger)
    (srl,) = [n for n in live if n.opcode == "ISD::SRL"]
    mask = srl.ops[0]
    # (the mask 2^33-1, its bit 0 dropped by SimplifyDemandedBits: the srl by 1 does not read it)
    assert mask.opcode == "ISD::AND" and mask.ops[1].value == ((1 << 33) - 1) & ~1
    assert [n.vt for n in live if n.opcode == "ISD::TRUNCATE"] == ["i32"]


def test_combine1_runs_before_promotion(amdgpu):
    """sext (trunc x to i8) is sign_extend_inreg x, i8 on i32 (visitSIGN_EXTEND in combine1),
    not an i16 computation: llc legalizes types after its first combine."""
    live = _live(amdgpu, "sext_trunc")
    (sx,) = [n for n in live if n.opcode == "ISD::SIGN_EXTEND_INREG"]
    assert sx.vt == "i32" and sx.ops[1].vt == "i8"
    assert not any(n.vt == "i16" for n in live)


def test_variable_index_extract_is_a_select_chain(amdgpu):
    live = _live(amdgpu, "dyn")
    assert not any(n.opcode == "ISD::EXTRACT_VECTOR_ELT" and n.ops[1].opcode != "ISD::Constant" for n in live)
    sels = [n for n in live if n.opcode == "ISD::SELECT"]
    assert len(sels) == 2 and sorted(s.divergent for s in sels) == [False, True]
    for s in sels:
        cond = s.ops[0]
        assert cond.opcode == "ISD::SETCC" and cond.cc == "SETEQ" and cond.ops[1].value == 1
        assert [o.ops[1].value for o in s.ops[1:]] == [1, 0]  # lane 1 when index == 1, else lane 0


def test_wider_than_legal_is_not_modelled(amdgpu):
    fn = next(f for f in parse_module(I8, "t.ll").functions if f.name == "wide")
    with pytest.raises(TdgenError) as e:
        build_function_dags(fn, amdgpu, None)
    text = e.value.format()
    assert "t.ll:" in text and "i128" in text and "expanding it into halves; not modelled" in text


def test_llc_computes_the_same_widths(tmp_path):
    """The promoted widths are llc's: its MIR for @u8 has 16-bit VALU ops, for @dyn the
    compare-and-select pairs."""
    llc = require("llc-19")
    src = tmp_path / "t.ll"
    src.write_text(I8.replace(_WIDE, ""))
    r = subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-stop-after=amdgpu-isel", str(src), "-o", "-"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    funcs = {}
    for chunk in r.stdout.split("\nname:")[1:]:
        funcs[chunk.split()[0]] = chunk
    for op in ("V_ADD_U16_e64", "V_LSHRREV_B16_e64", "V_CMP_LT_I16_e64"):
        assert op in funcs["u8"], op
    for op in ("V_CMP_EQ_U32_e64", "V_CNDMASK_B32_e64", "S_CMP_EQ_U32", "S_CSELECT_B32"):
        assert op in funcs["dyn"], op


_WIDE = I8[I8.index("define amdgpu_kernel void @wide"):I8.index("declare")]


EXTLOADS = """
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i8, ptr addrspace(1) %in, i32 %tid
  %b = load i8, ptr addrspace(1) %p
  %z = zext i8 %b to i32
  %q = getelementptr i16, ptr addrspace(1) %in, i32 %z
  %h = load i16, ptr addrspace(1) %q
  %s = sext i16 %h to i32
  %v = load volatile i8, ptr addrspace(1) %in
  %w = zext i8 %v to i32
  %r = add i32 %z, %s
  %r2 = add i32 %r, %w
  store i32 %r2, ptr addrspace(1) %out
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


def test_extension_of_a_load_is_an_extending_load(amdgpu, tmp_path):
    """tryToFoldExtOfLoad in combine1, before the i8 is promoted: zext (load i8) is a
    ZEXTLOAD to i32, sext (load i16) a SEXTLOAD; a volatile load is not folded (it is
    promoted: an i16 EXTLOAD, masked, then extended). llc-19 selects the same extending
    loads (GLOBAL_LOAD_UBYTE, GLOBAL_LOAD_SSHORT)."""
    fn = parse_module(EXTLOADS, "e.ll").functions[0]
    live = [n for d in build_function_dags(fn, amdgpu, None).dags for n in d.nodes if n.uses or n.chain]
    loads = sorted((n.cc, n.vt, n.mem.memvt, n.mem.is_volatile) for n in live if n.opcode == "ISD::LOAD")
    assert loads == [("EXTLOAD", "i16", "i8", True), ("SEXTLOAD", "i32", "i16", False),
                     ("ZEXTLOAD", "i32", "i8", False)]
    assert not any(n.opcode in ("ISD::ZERO_EXTEND", "ISD::SIGN_EXTEND") and n.ops[0].opcode == "ISD::LOAD"
                   and not n.ops[0].mem.is_volatile for n in live)
    llc = require("llc-19")
    (tmp_path / "e.ll").write_text(EXTLOADS)
    r = subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-stop-after=amdgpu-isel", str(tmp_path / "e.ll"),
                        "-o", "-"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "GLOBAL_LOAD_UBYTE" in r.stdout and "GLOBAL_LOAD_SSHORT" in r.stdout

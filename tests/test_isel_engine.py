"""Engine tests for the SelectionDAG, matcher table and selector on a small hand-built target.

The target is built with the spec DSL (tdgen.model) right here, so these tests do not
depend on the amdgpu reference spec; agreement with llc is tested in test_isel_llc.py.
"""

from __future__ import annotations

import pytest

from tdgen.errors import TdgenError, VerifyError
from tdgen.model import DivergenceFrag, Instruction, Pat, RegisterClass, Target
from tdgen.types import VALUE_TYPES

I32 = VALUE_TYPES["i32"]


def mini_target(extra_pats=(), sadd_pred="UniformBinFrag<add>"):
    s32 = RegisterClass("SReg_32", "scalar", (I32,), tuple(f"SGPR{i}" for i in range(8)))
    v32 = RegisterClass("VGPR_32", "vector", (I32,), tuple(f"VGPR{i}" for i in range(8)))
    uni = DivergenceFrag("UniformBinFrag", "uniform", 2)
    div = DivergenceFrag("DivergentBinFrag", "divergent", 2)
    defs = []
    for op, s, v in (("add", "S_ADD_I32", "V_ADD_U32_e64"), ("xor", "S_XOR_B32", "V_XOR_B32_e64"),
                     ("mul", "S_MUL_I32", "V_MUL_LO_U32_e64")):
        spred = sadd_pred.replace("add", op) if sadd_pred else op
        defs.append(Instruction(s, outs="(outs SReg_32:$sdst)", ins="(ins SReg_32:$src0, SReg_32:$src1)",
                                asm=f"{s.lower()} $sdst, $src0, $src1",
                                pattern=f"(set i32:$sdst, ({spred} i32:$src0, i32:$src1))"))
        defs.append(Instruction(v, outs="(outs VGPR_32:$vdst)", ins="(ins VGPR_32:$src0, VGPR_32:$src1)",
                                asm=f"{v.lower()} $vdst, $src0, $src1",
                                pattern=f"(set i32:$vdst, (DivergentBinFrag<{op}> i32:$src0, i32:$src1))"))
    defs.append(Instruction("S_NOT_B32", outs="(outs SReg_32:$sdst)", ins="(ins SReg_32:$src0)", asm="s_not_b32 $sdst, $src0"))
    defs.append(Instruction("V_NOT_B32_e32", outs="(outs VGPR_32:$vdst)", ins="(ins VGPR_32:$src0)", asm="v_not_b32 $vdst, $src0"))
    defs.append(Instruction("S_XNOR_B32", outs="(outs SReg_32:$sdst)", ins="(ins SReg_32:$src0, SReg_32:$src1)", asm="s_xnor_b32 $sdst, $src0, $src1"))
    pats = [
        Pat("(UniformBinFrag<xor> i32:$a, -1)", "(S_NOT_B32 $a)"),
        Pat("(DivergentBinFrag<xor> i32:$a, -1)", "(V_NOT_B32_e32 $a)"),
        Pat("(UniformBinFrag<xor> (xor i32:$a, i32:$b), -1)", "(S_XNOR_B32 $a, $b)"),
        *extra_pats,
    ]
    return Target("mini", "MINI", "mini", register_classes=(s32, v32), frag_classes=(uni, div),
                  defs=tuple(defs), patterns=tuple(pats), uniformity=_uniformity())


def _uniformity():
    import importlib.util

    from tdgen.paths import TARGETS

    spec = importlib.util.spec_from_file_location("_amdgpu_uniformity", TARGETS / "amdgpu" / "uniformity.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.UNIFORMITY


KERNEL = """
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %u = add i32 %a, %b
  %d = add i32 %tid, %u
  %m = mul i32 %d, %u
  %n = xor i32 %m, -1
  %x = xor i32 %a, %b
  %xn = xor i32 %x, -1
  %r = add i32 %n, %xn
  store i32 %r, ptr addrspace(1) %out
  ret void
}
"""


# the nodes the test targets here have no instructions for (no memory, no return, no
# move of a constant): as in llc, they cannot be selected; the tests read what the
# other nodes selected to
_NO_INSTRUCTIONS = ("ISD::STORE", "ISD::RET", "ISD::Constant")


def _select(text, target, table=None):
    """The selected functions of ``text`` (with ``table``, or the target's); the only
    "cannot select" errors allowed are those of the nodes the test target has no
    instructions for (others are raised)."""
    from patterns.ir import parse_module
    from patterns.pipeline import select_function
    from patterns.select.matcher import build_table
    from tdgen.errors import Diagnostics

    mod = parse_module(text, "k.ll")
    table = table if table is not None else build_table(target)
    out = []
    for fn in mod.functions:
        if fn.is_declaration:
            continue
        diags = Diagnostics()
        sf, _ = select_function(fn, target, None, table, diags)
        other = Diagnostics()
        for e in diags.errors:
            if not (isinstance(e, VerifyError) and any(f"{op} " in e.message and "cannot select" in e.message
                                                       for op in _NO_INSTRUCTIONS)):
                other.add(e)
        other.check()
        out.append(sf)
    return out


def test_a_node_without_instructions_cannot_be_selected():
    """No generic fallback: a store or return the target has no instruction for is a
    "cannot select" error naming the node, its operand types, divergence and IR line."""
    from patterns.ir import parse_module
    from patterns.pipeline import select_module

    with pytest.raises(TdgenError) as e:
        select_module(parse_module(KERNEL, "k.ll"), mini_target())
    msg = e.value.format()
    assert "k.ll:13:3: expected a pattern selecting t14: ISD::STORE t12:i32, t13:i64 [divergent], " \
           "found no pattern rooted at ISD::STORE and no lowering of it (cannot select)" in msg, msg
    assert "k.ll:14:3: expected a pattern selecting t15: ISD::RET [uniform]" in msg


def _alu(fn):
    return [(mi.opcode, mi.file, mi.ir) for mi in fn.instrs() if mi.opcode[:2] in ("S_", "V_")]


def test_uniform_and_divergent_choice():
    t = mini_target()
    (fn,) = _select(KERNEL, t)
    assert _alu(fn) == [
        ("S_ADD_I32", "scalar", "%u"),
        ("V_ADD_U32_e64", "vector", "%d"),
        ("V_MUL_LO_U32_e64", "vector", "%m"),
        ("V_NOT_B32_e32", "vector", "%n"),
        ("S_XNOR_B32", "scalar", "%xn"),
        ("V_ADD_U32_e64", "vector", "%r"),
    ]


def test_complexity_orders_xnor_before_not():
    from patterns.select.matcher import build_table

    t = mini_target()
    table = build_table(t)
    xor = [(p.record, p.complexity) for p in table.candidates("ISD::XOR")]
    # (xor (xor a, b), -1) with predicate: 3+1 + 3 + 5 = 12 ; (xor a, -1) with predicate: 3+1+5 = 9
    assert xor[0][1] == 12 and xor[0][0].startswith("anonymous")
    assert [c for _r, c in xor] == sorted([c for _r, c in xor], reverse=True)


def test_cannot_select_names_node_and_closest():
    t = mini_target()
    text = KERNEL.replace("%m = mul i32 %d, %u", "%m = sub i32 %tid, %u")
    with pytest.raises(VerifyError) as e:
        _select(text, t)
    msg = e.value.format()
    assert msg.startswith("k.ll:8:3: record '%m': expected a pattern selecting") and \
        "i32 = ISD::SUB t2:i32, t5:i32 [divergent]" in msg
    assert "found no pattern rooted at ISD::SUB" in msg


def test_missing_uniform_predicate_is_linted():
    from patterns.select.lint import lint_target

    t = mini_target(sadd_pred="")
    found = lint_target(t)
    errs = [f for f in found if f.level == "error" and f.code == "scalar-result-divergent-root"]
    assert {f.record for f in errs} == {"S_ADD_I32", "S_XOR_B32", "S_MUL_I32"}
    # and the good target has no error
    assert not [f for f in lint_target(mini_target()) if f.level == "error"]


def test_lowering_map_turns_intrinsic_into_target_node():
    """dslike lowers llvm.dslike.shfl.idx.i32 to DSLikeISD::SHFLIDX_I32 (its Lowering);
    the DAG has the target node, divergence follows the lane id, and it selects DS_SHFL_IDX_B32."""
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from patterns.pipeline import build_function_dags
    from tdgen.spec import load_target
    from tdgen.testing import assert_divergent, assert_selects, assert_uniform

    t = load_target("dslike")
    low = {lw.intrinsic.ir_name: lw.node.opcode for lw in t.lowerings}
    text = """
declare i32 @llvm.dslike.shfl.idx.i32(i32, i32, i32)
declare i32 @llvm.dslike.lane.id()
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
entry:
  %l = call i32 @llvm.dslike.lane.id()
  %s = add i32 %a, %b
  %v = call i32 @llvm.dslike.shfl.idx.i32(i32 %l, i32 %s, i32 31)
  store i32 %v, ptr addrspace(1) %out
  ret void
}
"""
    fn = next(f for f in parse_module(text, "k.ll").functions if not f.is_declaration)
    ua = analyze(fn, t)
    dag = build_function_dags(fn, t, ua).dags[0]
    (node,) = [n for n in dag.nodes if n.ir is not None and getattr(n.ir, "name", None) == "v"]
    assert node.opcode == low["llvm.dslike.shfl.idx.i32"] and node.divergent
    # (tdgen.testing: a failure shows the explain trace; the kernel selects whole: dslike
    # has its own store, constant move and S_ENDPGM)
    assert_selects(text, "@k:%v", "DS_SHFL_IDX_B32", target=t, file="vector")
    assert_selects(text, "@k:%s", "S_ADD_U32", target=t, file="scalar")
    assert_divergent(text, "@k:%v", target=t)
    assert_uniform(text, "@k:%s", target=t)


# sign_extend_inreg (a VT operand) formed from IR the way llc's DAGCombiner forms it, for
# every width llc-19 turns into s_sext_i32_i8/i16, s_bfe_i32 or v_bfe_i32; ``u``/``d`` =
# the source is uniform / divergent. Uniform widths other than 8/16 become s_bfe_i32 with
# a packed immediate (the SelectS_BFE CustomSelect step).
_SEXT_FORMS = {
    "shift8": ("shl i32 %x, 24", "ashr i32 %r0, 24", "ud"),
    "shift16": ("shl i32 %x, 16", "ashr i32 %r0, 16", "ud"),
    "trunc8": ("trunc i32 %x to i8", "sext i8 %r0 to i32", "ud"),
    "trunc16": ("trunc i32 %x to i16", "sext i16 %r0 to i32", "ud"),
    "shift7": ("shl i32 %x, 25", "ashr i32 %r0, 25", "ud"),
    "shift1": ("shl i32 %x, 31", "ashr i32 %r0, 31", "ud"),
    "shift8_4": ("shl i32 %x, 20", "ashr i32 %r0, 24", "ud"),
}


def _sext_module() -> str:
    out = ["declare i32 @llvm.amdgcn.workitem.id.x()"]
    for name, (first, second, kinds) in _SEXT_FORMS.items():
        for k in kinds:
            src = "%tid" if k == "d" else "%b"
            out.append(
                f"define amdgpu_kernel void @{name}_{k}(ptr addrspace(1) %out, i32 %a, i32 %b) {{\n"
                f"  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = add i32 %a, {src}\n"
                f"  %r0 = {first}\n  %r = {second}\n"
                f"  store i32 %r, ptr addrspace(1) %out\n  ret void\n}}\n")
    return "\n".join(out)


def test_sext_inreg_forms_agree_with_llc():
    from llvm_tools import require
    from testkit.llc import compare_with_llc
    from tdgen.spec import load_target

    llc = require("llc-19")
    results = compare_with_llc(_sext_module(), load_target("amdgpu"), llc, path="sext.ll")
    assert len(results) == sum(len(k) for *_x, k in _SEXT_FORMS.values())
    bad = [a.diff() for a in results if not a.equal]
    assert not bad, "\n".join(bad)
    # not vacuous: the sign extension itself is on both sides
    for a in results:
        if not a.function.endswith("_u"):
            want = "V_BFE_I32"
        elif a.function.rsplit("_", 1)[0] in ("shift8", "shift16", "trunc8", "trunc16"):
            want = "S_SEXT_I32_I"
        else:
            want = "S_BFE_I32"
        assert any(op.startswith(want) for op, _n in a.ours), a
        assert any(op.startswith(want) for op, _n in a.llc), a


def test_sext_inreg_node_has_uniform_vt_operand():
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from patterns.pipeline import build_function_dags
    from tdgen.spec import load_target

    t = load_target("amdgpu")
    mod = parse_module(_sext_module(), "sext.ll")
    seen = {}
    for fn in mod.functions:
        if fn.is_declaration or fn.name.rsplit("_", 1)[0] not in ("shift8", "shift16", "trunc8", "trunc16"):
            continue
        dags = build_function_dags(fn, t, analyze(fn, t))
        nodes = [n for d in dags.dags for n in d.nodes]
        (sx,) = [n for n in nodes if n.opcode == "ISD::SIGN_EXTEND_INREG"]
        src, vt = sx.ops
        assert vt.opcode == "ISD::VALUETYPE" and not vt.divergent and not vt.ops
        assert sx.divergent == src.divergent == fn.name.endswith("_d")
        assert not any(n.opcode in ("ISD::SRA", "ISD::SIGN_EXTEND", "ISD::TRUNCATE") for n in nodes)
        seen[fn.name] = vt.vt
    assert seen == {"shift8_u": "i8", "shift8_d": "i8", "shift16_u": "i16", "shift16_d": "i16",
                    "trunc8_u": "i8", "trunc8_d": "i8", "trunc16_u": "i16", "trunc16_d": "i16"}


def test_value_type_leaf_checks_a_vt_operand():
    """A value-type leaf of a source pattern (sext_inreg's ``i8``) compiles to LLVM's
    CheckValueType: the operand must be an ISD::VALUETYPE node carrying that type; it
    counts as a leaf for the pattern size (complexity agrees with llvm-tblgen, see
    tests/test_matcher_tblgen.py)."""
    from patterns.select.matcher import build_table
    from tdgen.spec import load_target

    table = build_table(load_target("amdgpu"))
    pats = [p for p in table.candidates("ISD::SIGN_EXTEND_INREG")]
    assert len(pats) == 4 and all("SextInreg_i" in p.src_text() for p in pats), [p.src_text() for p in pats]
    for p in pats:
        vt_slot = next(c[3] for c in p.checks if c[0] == "child" and c[1] == 0 and c[2] == 1)
        mine = [c[:3] for c in p.checks if c[0] in ("opcode", "type") and c[1] == vt_slot]
        assert mine[0] == ("opcode", vt_slot, "ISD::VALUETYPE")
        assert mine[1][0] == "type" and mine[1][2] in ("i8", "i16")


# ---------------------------------------------------------------------------------------
# CustomSelect: a target's C++ Select case, run before the matcher table

_MAD_MODEL = """
def select(N, cur):
    m = N.ops[0]
    if m.opcode != "ISD::MUL":
        return cur.decline("operand 0 is not mul")
    if not N.divergent:
        return None
    return cur.machine_node("V_MAD_U32", m.ops[0], m.ops[1], N.ops[1])
"""


def custom_target(model=_MAD_MODEL, emits=("V_MAD_U32",), opcodes=("add",)):
    from tdgen.model import CustomSelect

    base = mini_target()
    mad = Instruction("V_MAD_U32", outs="(outs VGPR_32:$vdst)", ins="(ins VGPR_32:$a, VGPR_32:$b, VGPR_32:$c)",
                      asm="v_mad_u32 $vdst, $a, $b, $c")
    cs = CustomSelect("SelectMad", opcodes=opcodes, emits=emits, model=model)
    return Target("mini", "MINI", "mini", register_classes=base.register_classes, frag_classes=base.frag_classes,
                  defs=base.defs + (mad,), patterns=base.patterns, custom_selects=(cs,), uniformity=_uniformity())


_MAD_KERNEL = """
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %m = mul i32 %tid, %a
  %r = add i32 %m, %b
  %um = mul i32 %a, %b
  %u = add i32 %um, %a
  %w = xor i32 %r, %u
  store i32 %w, ptr addrspace(1) %out
  ret void
}
"""


def test_custom_select_runs_before_the_table_and_releases_operands():
    """The step takes the divergent add of a mul (its mul is then dead: not selected), the
    add it declines (no mul operand) and the uniform one it leaves (None) go to the table."""
    from tdgen.check import check_target

    t = custom_target()
    check_target(t)
    (fn,) = _select(_MAD_KERNEL, t)
    assert _alu(fn) == [
        ("V_MAD_U32", "vector", "%r"),
        ("S_MUL_I32", "scalar", "%um"),
        ("S_ADD_I32", "scalar", "%u"),
        ("V_XOR_B32_e64", "vector", "%w"),
    ]
    mad = next(mi for mi in fn.instrs() if mi.opcode == "V_MAD_U32")
    assert mad.pattern == "SelectMad" and len(mad.operands) == 3


def test_custom_select_inner_node_with_other_users_is_selected_again():
    t = custom_target()
    text = _MAD_KERNEL.replace("%w = xor i32 %r, %u", "%w0 = xor i32 %r, %u\n  %w = xor i32 %w0, %m")
    (fn,) = _select(text, t)
    ops = [op for op, _f, _ir in _alu(fn)]
    assert ops.count("V_MAD_U32") == 1 and ops.count("V_MUL_LO_U32_e64") == 1


def test_custom_select_model_errors_are_spec_errors():
    from tdgen.errors import TdgenError

    cases = {
        # an instruction it does not declare
        "undeclared": (_MAD_MODEL.replace('"V_MAD_U32", m.ops[0]', '"V_ADD_U32_e64", m.ops[0]'),
                       "expected an instruction listed in emits (V_MAD_U32)"),
        # a scalar-class result for a divergent node
        "scalar": (_MAD_MODEL.replace('cur.machine_node("V_MAD_U32", m.ops[0], m.ops[1], N.ops[1])',
                                      'cur.machine_node("S_ADD_I32", m.ops[0], N.ops[1])'),
                   "expected a vector-register result for a divergent node"),
        "raises": (_MAD_MODEL.replace("m = N.ops[0]", "m = N.ops[7]"), "expected a model that runs"),
    }
    for name, (model, want) in cases.items():
        emits = ("V_MAD_U32", "S_ADD_I32") if name == "scalar" else ("V_MAD_U32",)
        with pytest.raises(TdgenError) as e:  # one SpecError per node, reported together
            _select(_MAD_KERNEL, custom_target(model, emits=emits))
        msg = e.value.format()
        assert "record 'SelectMad' field 'model'" in msg and want in msg, (name, msg)
        assert "test_isel_engine.py:" in msg  # points at the record in the spec


def test_custom_select_record_is_checked():
    from tdgen.check import check_target
    from tdgen.errors import ErrorList

    bad = custom_target(model="def select(N, cur)\n    return None\n", emits=("V_NOPE",), opcodes=("add", "nosuch"))
    with pytest.raises(ErrorList) as e:
        check_target(bad)
    text = e.value.format()
    assert "field 'opcodes': expected an SDNode name (builtin or declared by the target), found 'nosuch'" in text
    assert "field 'emits': expected an instruction defined by the target, found 'V_NOPE'" in text
    assert "field 'model': expected Python source defining select(N, cur), found a syntax error at model line 1" in text


def test_custom_select_is_listed_in_the_generated_td():
    """The step has no TableGen form; the instructions .td says which C++ Select case
    takes which nodes before the patterns (the amdgpu output is checked by llvm-tblgen-19
    in tests/test_tblgen.py)."""
    from tdgen.emit import emit_target

    files = emit_target("mini", custom_target())
    (td,) = [text for rel, text in files.items() if rel.endswith("Instructions.td")]
    assert "// Custom selection: cases of the C++ MINIDAGToDAGISel::Select() switch" in td
    assert "//   SelectMad: i32 ISD::ADD -> V_MAD_U32" in td


# Result DAGs with Target.td instructions (REG_SEQUENCE, IMPLICIT_DEF, EXTRACT_SUBREG,
# COPY_TO_REGCLASS) on the mini target plus a 64-bit pair class and a two-result op.
WIDE_KERNEL = """
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = sub i32 %tid, %a
  %u = sub i32 %a, %b
  %r = xor i32 %d, %u
  store i32 %r, ptr addrspace(1) %out
  ret void
}
"""


def wide_target():
    from dataclasses import replace

    from tdgen.model import reg_tuples

    t = mini_target(extra_pats=(
        Pat("(DivergentBinFrag<sub> i32:$a, i32:$b)",
            "(EXTRACT_SUBREG (V_MULW $a, $b, (REG_SEQUENCE VReg_64, $b, sub0, (i32 (IMPLICIT_DEF)), sub1)), sub1)"),
        Pat("(UniformBinFrag<sub> i32:$a, i32:$b)", "(COPY_TO_REGCLASS (V_XOR_B32_e64 $a, $b), SReg_32)"),
    ))
    v32 = t.register_classes_by_name["VGPR_32"]
    pairs, parts = reg_tuples(v32.registers, 2, 2)
    v64 = RegisterClass("VReg_64", "vector", (VALUE_TYPES["i64"],), pairs, size=64,
                        subreg_indices=("sub0", "sub1"), subregs=parts)
    mulw = Instruction("V_MULW", outs="(outs VReg_64:$vdst, SReg_32:$carry)",
                       ins="(ins VGPR_32:$src0, VGPR_32:$src1, VReg_64:$src2)", asm="v_mulw $vdst, $carry, $src0, $src1, $src2")
    return replace(t, register_classes=t.register_classes + (v64,), defs=t.defs + (mulw,))


@pytest.mark.parametrize("interpreted", [False, True])
def test_generic_result_instructions_are_emitted_like_instr_emitter(interpreted, monkeypatch):
    """REG_SEQUENCE keeps %subreg operands and defines its class; IMPLICIT_DEF gets the
    scalar class of its cast type; a two-result instruction defines both classes;
    EXTRACT_SUBREG is a COPY of ``.sub1`` into the sub-register's class (VGPR_32);
    COPY_TO_REGCLASS a COPY into the named class. The compiled selectors and the
    interpreted result plans (``_emit_dst``) give the same instructions."""
    from tdgen.check import check_target
    from patterns.select import selgen

    if interpreted:
        monkeypatch.setattr(selgen, "compile_selector", selgen.interpreted_selector)
    t = wide_target()
    check_target(t)
    (fn,) = _select(WIDE_KERNEL, t)
    by_ir = {}
    for mi in fn.instrs():
        by_ir.setdefault(mi.ir, []).append(mi)
    d = by_ir["%d"]
    assert [(mi.opcode, mi.regclass, [c for _r, c in mi.more_defs]) for mi in d] == [
        ("IMPLICIT_DEF", "SReg_32", []),
        ("REG_SEQUENCE", "VReg_64", []),
        ("V_MULW", "VReg_64", ["SReg_32"]),
        ("COPY", "VGPR_32", []),
    ]
    imp, seq, mulw, copy = d
    assert seq.operands[1:] == ["%subreg.sub0", imp.dst, "%subreg.sub1"]
    assert mulw.operands[2] == seq.dst and copy.operands == [f"{mulw.dst}.sub1"] and copy.file == "vector"
    assert mulw.mir_text().startswith(f"{mulw.dst}:vreg_64, {mulw.more_defs[0][0]}:sreg_32 = V_MULW ")
    u = by_ir["%u"]
    assert [(mi.opcode, mi.regclass, mi.file) for mi in u] == [("V_XOR_B32_e64", "VGPR_32", "vector"), ("COPY", "SReg_32", "scalar")]
    assert u[1].operands == [u[0].dst]
    # every vreg is defined once
    defs = [mi.dst for mi in fn.instrs() if mi.dst] + [r for mi in fn.instrs() for r, _c in mi.more_defs]
    assert len(defs) == len(set(defs))


_PROBE = frozenset({-2**31, -129, -128, -16, -1, 0, 1, 2, 64, 127, 255, 256, 1000, 4096, 65535})


@pytest.mark.parametrize("code, accepted", [
    ("return Imm >= -16 && Imm <= 64;", {-16, -1, 0, 1, 2, 64}),
    ("return isInt<8>(Imm);", {-128, -16, -1, 0, 1, 2, 64, 127}),
    ("return isUInt<8>(Imm);", {0, 1, 2, 64, 127, 255}),
    ("return isUInt<16>(N->getZExtValue());", {0, 1, 2, 64, 127, 255, 256, 1000, 4096, 65535}),
    ("return N->getZExtValue() >= 0x80000000;", {-2**31, -129, -128, -16, -1}),
    ("return isPowerOf2_32(Imm);", {-2**31, 1, 2, 64, 256, 4096}),
    ("return !(Imm == 0) && Imm != 1;", _PROBE - {0, 1}),
])
def test_immediate_predicate_code_is_read_as_cpp(code, accepted):
    """ImmLeaf bodies read as LLVM does: ``Imm``/``getSExtValue`` sign-extended,
    ``getZExtValue`` zero-extended at the constant's width (i32 here), ``isUInt<N>`` of a
    negative int64 false, ``isPowerOf2_32`` on the low 32 bits."""
    from tdgen.cppexpr import compile_imm_code

    fn = compile_imm_code(code)
    assert fn is not None
    assert {v for v in _PROBE if fn(v, 32)} == accepted


def test_unreadable_immediate_code_is_not_compiled():
    from tdgen.cppexpr import compile_imm_code

    assert compile_imm_code("return Subtarget->hasFoo() && isInt<8>(Imm);") is None
    assert compile_imm_code("int x = Imm; return x > 0;") is None

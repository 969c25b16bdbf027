"""The DSL records: frozen values compared without spans, spans captured from the spec,
name conversions, divergence lookup, and class/multiclass resolution."""

from __future__ import annotations

import dataclasses

import pytest

from tdgen.builtins import BUILTIN_NODES
from tdgen.errors import Span
from tdgen.hw import DivergenceKind, DivergenceRule, UniformityModel
from tdgen.model import (
    DivergenceFrag,
    ImmArg,
    InstrClass,
    InstrField,
    Instruction,
    IntrNoMem,
    Intrinsic,
    Param,
    Pat,
    Ref,
    RegisterClass,
    Target,
    divergent,
    uniform,
)
from tdgen.model.instructions import value_text
from tdgen.model.intrinsics import enum_name_of, ir_name_of, tablegen_name_of
from tdgen.spec import load_target
from tdgen.types import LLVMMatchType, i32, llvm_any_ty, llvm_i32_ty


def test_records_are_frozen_and_compare_without_span():
    a = Intrinsic("int_x_foo", [llvm_i32_ty], [llvm_i32_ty], [IntrNoMem])
    b = Intrinsic("int_x_foo", (llvm_i32_ty,), (llvm_i32_ty,), (IntrNoMem,), span=Span("other.py", 9, 9))
    assert a == b and hash(a) == hash(b)
    assert a.span != b.span
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.name = "int_x_bar"  # type: ignore[misc]
    assert a != dataclasses.replace(a, properties=(IntrNoMem, ImmArg(0)))


def test_span_is_the_constructor_call_in_the_caller():
    rc = RegisterClass("R", "scalar", [i32], ["R0"]); line = _line()  # noqa: E702
    assert rc.span.path.endswith("tests/test_model.py")
    assert rc.span.line == line
    assert rc.span.col == 10  # column of `RegisterClass(`


def _line() -> int:
    import sys

    return sys._getframe(1).f_lineno


def test_lists_and_dicts_become_tuples():
    inst = Instruction("X", None, [], lets={"Size": 4, "isConvergent": 1})
    assert inst.lets == (("Size", 4), ("isConvergent", 1))
    assert inst.let("Size") == 4
    hash(inst)


@pytest.mark.parametrize(
    "tg,ir",
    [("int_dslike_shfl_idx_i32", "llvm.dslike.shfl.idx.i32"), ("int_amdgcn_ds_bpermute", "llvm.amdgcn.ds.bpermute")],
)
def test_intrinsic_names(tg, ir):
    assert ir_name_of(tg) == ir and tablegen_name_of(ir) == tg
    intr = Intrinsic(tg, [llvm_i32_ty], [])
    assert intr.ir_name == ir
    assert intr.enum_name == "Intrinsic::" + tg[4:]
    assert enum_name_of("llvm.nvvm.shfl.sync.idx.i32") == "Intrinsic::nvvm_shfl_sync_idx_i32"


def test_intrinsic_divergence_lookup_order():
    declared = Intrinsic("int_t_lane", [llvm_i32_ty], [], divergence=DivergenceKind.SOURCE)
    uni = UniformityModel(
        rules=(
            DivergenceRule("llvm.t.lane", DivergenceKind.ALWAYS_UNIFORM),  # loses to the declaration
            DivergenceRule("llvm.t.read*", DivergenceKind.ALWAYS_UNIFORM),
            DivergenceRule("llvm.t.*", DivergenceKind.SOURCE),
        )
    )
    t = Target("t", "T", "t", intrinsics=[declared], uniformity=uni)
    assert t.intrinsic_divergence("llvm.t.lane") is DivergenceKind.SOURCE
    assert t.intrinsic_divergence("llvm.t.readlane") is DivergenceKind.ALWAYS_UNIFORM
    assert t.intrinsic_divergence("llvm.t.other") is DivergenceKind.SOURCE
    assert t.intrinsic_divergence("llvm.smax.i32") is DivergenceKind.FOLLOWS_OPERANDS


def test_divergence_wrappers_are_patfrags_with_predicates():
    u = uniform(BUILTIN_NODES["add"], "uadd")
    d = divergent(BUILTIN_NODES["add"])
    assert u.divergence == "uniform" and u.predicate_code == "return !N->isDivergent();"
    assert d.name == "divergent_add" and d.predicate_code == "return N->isDivergent();"
    assert u.ops == ("src0", "src1") and u.fragment == "(add node:$src0, node:$src1)"
    cls = DivergenceFrag("UniformBinFrag", "uniform", 2)
    inst = cls.instantiate("xor")
    assert inst.name == "UniformBinFrag<xor>" and inst.instance_of == "UniformBinFrag" and inst.wraps == "xor"
    assert cls.fragment_tablegen == "(Op $src0, $src1)"


def test_value_text():
    assert value_text(1) == "1" and value_text(True) == "1"
    assert value_text('a"b') == '"a\\"b"'
    assert value_text(Ref("opName")) == "opName"
    assert value_text(i32) == "i32"


# -- resolution on the real targets ----------------------------------------------


def test_dslike_class_chain_and_template_args():
    t = load_target("dslike")
    inst = t.instructions["DS_SHFL_IDX_B32"]
    assert inst.classes == ("DSlikep", "DSlikep_SHFL_RET")
    f = dict(inst.fields)
    assert f["isRTN"] == 1 and f["has_vdst"] == 1 and f["has_src0"] == 1 and f["has_src1"] == 1
    assert f["mayLoad"] == 0 and f["mayStore"] == 0 and f["isConvergent"] == 1
    assert f["PseudoInstr"] == "ds_shfl_idx_b32" and f["Size"] == 8
    assert [(o.name, o.kind) for o in inst.outs] == [("vdst", "VReg_32")]
    assert [(o.name, o.kind) for o in inst.ins] == [("src0", "VReg_32"), ("idx", "VReg_32"), ("src1", "VReg_32")]
    assert inst.asm == "ds_shfl_idx_b32 $vdst, $src0, $idx, $src1"
    assert [p.render() for p in inst.patterns] == ["(set i32:$vdst, (shflidx i32:$src0, i32:$idx, i32:$src1))"]


def test_dslike_defm_expands_multiclass_in_place():
    t = load_target("dslike")
    names = list(t.instructions)
    assert names.index("DS_PERMUTE_B32") == names.index("DS_SHFL_BFLY_B32") + 1
    inst = t.instructions["DS_BPERMUTE_B32"]
    assert inst.defm is not None and inst.defm.name == "DS_BPERMUTE"
    assert inst.patterns[0].render() == "(set i32:$vdst, (int_dslike_ds_bpermute i32:$addr, i32:$src0))"
    assert inst.asm.startswith("ds_bpermute_b32 ")


def test_selection_patterns_order_and_complexity():
    t = load_target("amdgpu")
    sps = t.selection_patterns()
    assert [s.order for s in sps] == list(range(len(sps)))
    by = {s.record: s for s in sps if s.instruction == s.record}
    assert by["S_LSHL_B32"].added_complexity == 1 and by["S_ADD_I32"].added_complexity == 0
    s = by["S_ADD_I32"]
    assert s.src.render() == "(UniformBinFrag<add> i32:$src0, i32:$src1)"
    assert s.dst.render() == "(S_ADD_I32 SReg_32:$src0, SReg_32:$src1)"
    assert [r.render() for r in s.results] == ["i32:$sdst"]
    pats = [x for x in sps if x.instruction == "V_LSHLREV_B32_e64" and x.record != x.instruction]
    assert pats and pats[0].dst.render() == "(V_LSHLREV_B32_e64 $src1, $src0)"
    # instruction patterns come before Pat records
    first_pat = min(x.order for x in sps if x.record.startswith("anonymous_"))
    assert all(x.order < first_pat for x in sps if x.record == x.instruction)


def test_patfrags_include_divergence_instances():
    t = load_target("amdgpu")
    f = t.patfrags["UniformBinFrag<add>"]
    assert f.divergence == "uniform" and f.wraps == "add" and f.dag.render() == "(add node:$src0, node:$src1)"
    assert t.patfrags["DivergentUnaryFrag<not>"].divergence == "divergent"
    assert t.patfrags["not"].builtin and t.patfrags["not"].divergence is None
    assert t.sdnodes["add"].opcode == "ISD::ADD"


def test_class_inheritance_defaults_and_overrides():
    base = InstrClass("B", fields=[InstrField("k", "int", 3), InstrField("name", "string", Ref("n"))],
                      params=[Param("n", "string")],
                      lets={"outs": "(outs R:$d)", "ins": "(ins)", "asm": "{n} $d"})
    sub = InstrClass("S", params=[Param("m", "string")], parent=base, parent_args=[Ref("m")], lets={"k": 5})
    rc = RegisterClass("R", "scalar", [i32], ["R0"])
    t = Target("t", "T", "t", register_classes=[rc], classes=[base, sub],
               defs=[Instruction("I1", sub, ["hello"]), Instruction("I2", base, ["x"], lets={"k": 7})])
    i1, i2 = t.instructions["I1"], t.instructions["I2"]
    assert i1.field("k") == 5 and i1.field("name") == "hello" and i1.asm == "hello $d"
    assert i2.field("k") == 7 and i2.field("name") == "x"
    assert dict(i1.field_types)["k"] == "int"


def test_loading_twice_gives_equal_targets():
    from tdgen import spec

    a = load_target("dslike")
    spec.clear_cache()
    b = load_target("dslike")
    assert a is not b and a == b and hash(a) == hash(b)
    assert [x.render() for x in (s.src for s in a.selection_patterns())] == [
        x.render() for x in (s.src for s in b.selection_patterns())
    ]


def test_overloaded_intrinsic_types():
    t = load_target("amdgpu")
    rl = t.intrinsics_by_name["int_amdgcn_readlane"]
    assert rl.results == (llvm_any_ty,) and rl.params[0] == LLVMMatchType(0) and rl.is_overloaded
    assert rl.divergence is DivergenceKind.ALWAYS_UNIFORM


def test_implicit_registers_inherit_and_override():
    t = load_target("amdgpu")
    ins = t.instructions
    assert ins["S_ADD_I32"].implicit_defs == ("SCC",) and ins["S_MUL_I32"].implicit_defs == ()
    assert ins["V_ADD_U32_e64"].implicit_uses == ("EXEC",)  # from class VOP3_32
    assert ins["V_READLANE_B32"].implicit_uses == ()
    base = InstrClass("B", lets={"outs": "(outs)", "ins": "(ins)"}, implicit_uses=["X"])
    t2 = Target("t", "T", "t", physical_registers=["X"], classes=[base],
                defs=[Instruction("I", base), Instruction("J", base, implicit_uses=[])])
    assert t2.instructions["I"].implicit_uses == ("X",) and t2.instructions["J"].implicit_uses == ()


def test_null_frag_patterns_are_dropped_like_tablegen():
    from tdgen.model import Defm, Multiclass, Pat

    rc = RegisterClass("R", "scalar", [i32], ["R0"])
    mc = Multiclass("M", [Param("node", "SDPatternOperator")], [
        Instruction("_X", None, [], outs="(outs R:$d)", ins="(ins R:$a)", asm="x",
                    pattern="(set i32:$d, (node i32:$a))"),
    ])
    t = Target("t", "T", "t", register_classes=[rc], multiclasses=[mc],
               defs=[Defm("A", mc, ["ineg"]), Defm("B", mc, ["null_frag"])],
               patterns=[Pat("(null_frag i32:$a)", "(A_X $a)")])
    from tdgen.check import check_target

    check_target(t)
    assert [s.record for s in t.selection_patterns()] == ["A_X"]
    assert list(t.instructions) == ["A_X", "B_X"]


def test_register_tuples_and_subregister_checks():
    from tdgen.check import check_target
    from tdgen.errors import TdgenError
    from tdgen.model import reg_names, reg_tuples
    from tdgen.types import i64

    names, parts = reg_tuples(reg_names("S", 4), 2, 2)
    assert names == ("S0_S1", "S2_S3") and parts == (("S0", "S1"), ("S2", "S3"))
    s32 = RegisterClass("S32", "scalar", [i32], reg_names("S", 4))
    s64 = RegisterClass("S64", "scalar", [i64], names, subreg_indices=["sub0", "sub1"], subregs=parts)
    assert s64.size == 64
    check_target(Target("t", "T", "t", register_classes=[s32, s64]))
    bad = RegisterClass("B64", "scalar", [i64], ("X0_X1",), subreg_indices=["sub0", "sub1"], subregs=[("X0", "X1")])
    with pytest.raises(TdgenError) as info:
        check_target(Target("t", "T", "t", register_classes=[s32, bad]))
    assert info.value.message == "expected registers of the target, found 'X0'"


def test_pat_added_complexity_reaches_selection_patterns():
    rc = RegisterClass("R", "vector", [i32], ["R0"])
    base = InstrClass("B", lets={"outs": "(outs R:$d)", "ins": "(ins R:$a, R:$b)", "asm": "op $d"})
    t = Target(
        "t", "T", "t", register_classes=[rc], classes=[base],
        defs=[Instruction("ADD", base, pattern="(set i32:$d, (add i32:$a, i32:$b))")],
        patterns=[Pat("(sub i32:$x, i32:$y)", "(ADD $x, $y)", added_complexity=7),
                  Pat("(xor i32:$x, i32:$y)", "(ADD $y, $x)")],
    )
    sps = t.selection_patterns()
    assert [(s.record, s.added_complexity) for s in sps] == [("ADD", 0), ("anonymous_0", 7), ("anonymous_1", 0)]
    assert sps[1].src.render() == "(sub i32:$x, i32:$y)" and sps[2].dst.render() == "(ADD $y, $x)"


# --- construction errors: raised at once outside loading, collected inside --------------

from tdgen.errors import ErrorList, SpecError  # noqa: E402
from tdgen.model import PatFrag, SDNode  # noqa: E402
from tdgen.model.record import collecting_construction_errors, is_invalid  # noqa: E402
from tdgen.types import i32, llvm_i32_ty  # noqa: E402


def test_malformed_record_raises_outside_a_loading_context():
    with pytest.raises(SpecError) as info:
        Intrinsic("int_t_x", [llvm_i32_ty], [i32])
    assert (info.value.record, info.value.field) == ("int_t_x", "params")
    assert info.value.message == "expected a list of (IntrinsicType), found ValueType i32 (item 0)"
    with pytest.raises(ErrorList) as many:  # every wrong field of the record, together
        RegisterClass("R", 3, ["i32"], ["R0"])
    assert [e.field for e in many.value.errors] == ["file", "types"]


def test_malformed_records_are_collected_and_marked_invalid_inside_one():
    with collecting_construction_errors() as errs:
        bad = Intrinsic("int_t_x", [llvm_i32_ty], ["llvm_i32_ty"])
        good = Intrinsic("int_t_y", [llvm_i32_ty], [llvm_i32_ty])
        node = SDNode("tnode", "TISD::N", 2)
        wrapped = uniform(42)
    assert [(e.record, e.field) for e in errs] == [
        ("int_t_x", "params"), ("tnode", "profile"), ("uniform(...)", "op")]
    assert errs[2].message == "expected an SDNode, PatFrag or Intrinsic to wrap, found int 42"
    assert is_invalid(bad) and is_invalid(node) and is_invalid(wrapped) and not is_invalid(good)
    # the context ends with the block: constructors raise again
    with pytest.raises(SpecError):
        uniform(42)
    with pytest.raises(SpecError):
        Intrinsic("int_t_x", [llvm_i32_ty], ["llvm_i32_ty"])


@pytest.mark.parametrize("make, found", [
    (lambda: RegisterClass("R", "vector", ["i32"], ["R0"]), "'i32' (item 0; use the object tdgen.types.i32, not its name)"),
    (lambda: Intrinsic("int_t_x", ["llvm_i32_ty"]), "'llvm_i32_ty' (item 0; use the object tdgen.types.llvm_i32_ty, not its name)"),
    (lambda: Intrinsic("int_t_x", ["f32"]), "'f32' (item 0; use the intrinsic type tdgen.types.llvm_float_ty)"),
    (lambda: Intrinsic("int_t_x", ["llvm_i33_ty"]), "'llvm_i33_ty' (item 0; no such type in tdgen.types, nearest: llvm_i32_ty)"),
    (lambda: Intrinsic("int_t_x", [llvm_i32_ty, 7]), "int 7 (item 1)"),
    (lambda: Intrinsic("int_t_x", "llvm_i32_ty"), "'llvm_i32_ty'"),
])
def test_a_type_written_as_its_name_gets_a_hint(make, found):
    with pytest.raises(SpecError) as info:
        make()
    assert info.value.message.endswith("found " + found), info.value.message


def test_constructor_argument_mistakes_are_spec_errors():
    with pytest.raises(SpecError) as info:
        PatFrag("f", ["a"], "(ineg node:$a)", predicate="return true;")
    assert (info.value.record, info.value.field) == ("f", "predicate")
    assert info.value.message.endswith("found 'predicate' (nearest: 'predicate_code')")
    with pytest.raises(SpecError) as info:
        Intrinsic("int_t_x", [], [], [], DivergenceKind.SOURCE, None, "", False, 3)
    assert info.value.message == ("expected at most 8 positional arguments (name, results, params, properties, "
                                  "divergence, clang_builtin, doc, default_attrs), found 9")
    with pytest.raises(SpecError) as info:
        Intrinsic("int_t_x", name="int_t_y")
    assert (info.value.record, info.value.field) == ("int_t_y", "name")
    with collecting_construction_errors() as errs:
        frag = PatFrag("g", ["a"], wraps="add", bogus=1)
    assert [(e.record, e.field) for e in errs] == [("g", "bogus"), ("g", "fragment")]
    assert is_invalid(frag) and frag.wraps == "add" and frag.fragment is None
    # well-formed calls, dataclasses.replace and keyword spans are untouched
    ok = PatFrag("h", ["a"], "(ineg node:$a)")
    assert dataclasses.replace(ok, name="h2").name == "h2" and not is_invalid(ok)

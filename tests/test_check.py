"""Checks on small in-memory targets: each problem found, named by record and field,
with the position inside the pattern string; all problems of a target reported together."""

from __future__ import annotations

import pytest

from tdgen.check import check_target
from tdgen.errors import ErrorList, SpecError, TdgenError
from tdgen.model import (
    ImmArg,
    Instruction,
    Intrinsic,
    IntrNoMem,
    Pat,
    PatFrag,
    RegisterClass,
    SDNode,
    SDTCisSameAs,
    SDTCisVT,
    SDTypeProfile,
    Target,
)
from tdgen.typeinfer import infer
from tdgen.types import LLVMMatchType, f32, i32, i64, llvm_any_ty, llvm_i32_ty

R = RegisterClass("R", "vector", [i32, f32], ["R0", "R1"])
F = RegisterClass("F", "vector", [f32], ["F0"])


def inst(name, pattern=None, outs="(outs R:$d)", ins="(ins R:$a, R:$b)", **lets):
    return Instruction(name, None, [], outs=outs, ins=ins, asm=name.lower(), pattern=pattern,
                       lets={"Namespace": "T", **lets})


def target(**kw) -> Target:
    base = dict(register_classes=[R, F])
    base.update(kw)
    return Target("t", "T", "t", isd_namespace="TISD", **base)


def errors(t: Target) -> list[TdgenError]:
    try:
        check_target(t)
    except ErrorList as e:
        return e.errors
    except TdgenError as e:
        return [e]
    return []


def one(t: Target) -> SpecError:
    errs = errors(t)
    assert len(errs) == 1, [e.format() for e in errs]
    return errs[0]


def test_a_valid_target_passes():
    assert errors(target(defs=[inst("ADD", "(set i32:$d, (add i32:$a, i32:$b))")])) == []


def test_position_inside_pattern_string():
    add = Instruction("ADD", None, [], outs="(outs R:$d)", ins="(ins R:$a, R:$b)", asm="add", lets={"Namespace": "T"},
                      pattern="(set i32:$d, (add i32:$a, i32:$q))")
    e = one(target(defs=[add]))
    assert (e.record, e.field) == ("ADD", "pattern")
    assert e.message == "expected an operand of ADD (d, a, b), found '$q'"
    # the span is the `i32:$q` inside the literal on the `inst(...)` line above
    line = open(__file__).read().splitlines()[e.span.line - 1]
    assert line[e.span.col - 1 :].startswith("i32:$q")


def test_input_operand_missing_from_pattern():
    e = one(target(defs=[inst("NEG", "(set i32:$d, (ineg i32:$a))")]))
    assert e.message == "expected input operand '$b' used in the pattern, found it missing"


def test_set_destination_must_be_an_output():
    e = one(target(defs=[inst("ADD", "(set i32:$a, (add i32:$a, i32:$b))")]))
    assert e.message.startswith("expected an output operand of ADD (d), found '$a'")


def test_builtin_fragment_expansion_types():
    # `not` is (xor node:$in, -1): its input must have the result's type
    e = one(target(defs=[inst("NOT", "(set i32:$d, (not f32:$a))", ins="(ins R:$a)")]))
    assert "f32" in e.message and e.field == "pattern"
    assert errors(target(defs=[inst("NOT", "(set i32:$d, (not i32:$a))", ins="(ins R:$a)")])) == []


def test_overloaded_intrinsic_match_type_conflict():
    rl = Intrinsic("int_t_rl", [llvm_any_ty], [LLVMMatchType(0), llvm_i32_ty], [IntrNoMem])
    good = inst("RL", "(set i32:$d, (int_t_rl i32:$a, i32:$b))")
    assert errors(target(intrinsics=[rl], defs=[good])) == []
    e = one(target(intrinsics=[rl], defs=[inst("RL", "(set i32:$d, (int_t_rl f32:$a, i32:$b))")]))
    assert e.message == "expected f32 (type of the value assigned by 'set'), found i32"
    e = one(target(intrinsics=[rl], defs=[inst("RL", "(set f32:$d, (int_t_rl f32:$a, f32:$b))")]))
    assert e.message == "expected i32 (llvm_i32_ty in 'int_t_rl'), found f32"


def test_intrinsic_declaration_checks():
    bad = Intrinsic("int_t_x", [llvm_i32_ty], [LLVMMatchType(0)], [ImmArg(3)])
    msgs = sorted(e.message for e in errors(target(intrinsics=[bad])))
    assert msgs == [
        "expected LLVMMatchType<N> with N < 0 (overloaded types so far), found LLVMMatchType<0>",
        "expected an argument index below 1, found ImmArg<ArgIndex<3>>",
    ]
    e = one(target(intrinsics=[Intrinsic("int_q_x", [llvm_i32_ty], [])]))
    assert e.message == "expected a name starting with 'int_t_', found 'int_q_x'"


def test_target_node_profile_and_opcode():
    prof = SDTypeProfile(1, 2, [SDTCisVT(0, i32), SDTCisSameAs(0, 1), SDTCisVT(2, i64)])
    node = SDNode("mynode", "TISD::MY", prof)
    D = RegisterClass("D", "vector", [i64], ["D0"])
    ok = inst("MY", "(set i32:$d, (mynode i32:$a, i64:$b))", ins="(ins R:$a, D:$b)")
    assert errors(target(register_classes=[R, D], nodes=[node], defs=[ok])) == []
    bad = inst("MY", "(set i32:$d, (mynode i32:$a, i32:$b))")
    e = one(target(nodes=[node], defs=[bad]))
    assert e.message == "expected i64 (SDTCisVT<2, i64> of 'mynode'), found i32"
    e = one(target(nodes=[SDNode("n2", "ISD::ADD", prof)]))
    assert (e.record, e.field) == ("n2", "opcode")


def test_pat_result_types_follow_instruction_operands():
    f_inst = inst("FADDI", None, outs="(outs F:$d)", ins="(ins F:$a, F:$b)")
    e = one(target(defs=[f_inst], patterns=[Pat("(add i32:$x, i32:$y)", "(FADDI $x, $y)")]))
    assert e.field == "dst" and e.message == "expected f32 (operand $a of 'FADDI' is F), found i32"


def test_pat_arity_and_binding():
    add = inst("ADD")
    msgs = [e.message for e in errors(target(defs=[add], patterns=[
        Pat("(add i32:$x, i32:$y)", "(ADD $x)"),
        Pat("(add i32:$x, i32:$y)", "(ADD $x, $z)"),
        Pat("(addd i32:$x, i32:$y)", "(ADD $x, $y)"),
    ]))]
    assert msgs == [
        "expected 2 operands for 'ADD' (a, b), found 1",
        "expected a variable bound in the source (x, y), found '$z'",
        "expected a known SDNode, PatFrag or intrinsic, found 'addd'",
    ]


def test_fragment_checks():
    unused = PatFrag("f1", ["a", "b"], "(add node:$a, node:$a)")
    unknown = PatFrag("f2", ["a"], "(add node:$a, node:$c)")
    broken = PatFrag("f3", ["a"], "(add node:$a")
    msgs = sorted(e.message for e in errors(target(frags=[unused, unknown, broken])))
    assert msgs == [
        "expected ')' or ',', found end of pattern",
        "expected one of the fragment's ops (a), found '$c'",
        "expected operand 'node:$b' used in the fragment, found it unused",
    ]


def test_names_clash_with_builtins_and_each_other():
    clash = PatFrag("not", ["a"], "(xor node:$a, -1)")
    msgs = [e.message for e in errors(target(frags=[clash], defs=[inst("A"), inst("A")]))]
    assert "expected a name not taken by a builtin SDNode or PatFrag, found 'not'" in msgs
    assert any(m.startswith("expected a unique record name, found a second definition") for m in msgs)


def test_unknown_leaves_and_fields():
    msgs = sorted(e.message for e in errors(target(defs=[
        inst("A", "(set i32:$d, (add Q:$a, i32:$b))"),
        inst("B", "(set i32:$d, (add bogus, i32:$b))", ins="(ins R:$b)"),
        inst("C", Latency=3),
    ])))
    assert msgs == [
        "expected a field declared by the instruction's classes, found 'Latency'",
        "expected a known leaf record, found 'bogus'",
        "expected a value type, register class, operand kind, leaf node or leaf fragment (ImmLeaf, PatLeaf), "
        "found 'Q'",
    ]


def test_all_errors_reported_together_and_sorted():
    errs = errors(target(defs=[inst("A", "(set i32:$d, (add i32:$a))"), inst("B", "(set i32:$d, (sub i32:$a, i32:$zz))")]))
    assert len(errs) == 2
    assert errs == sorted(errs, key=lambda e: e.sort_key())


def test_infer_returns_variable_types():
    t = target(defs=[inst("ADD")])
    from tdgen.dag_parse import parse_dag

    types = infer(t, parse_dag("(add $x, (i32 imm):$y)"), record="r", field="f")
    assert types == {"x": frozenset({"i32"}), "y": frozenset({"i32"})}


@pytest.mark.parametrize("name", ["amdgpu", "dslike"])
def test_shipped_targets_check_clean(name):
    from tdgen.spec import load_target

    t = load_target(name)
    assert errors(t) == []


# -- robustness: any pattern text gives a clean error or passes, never a crash -------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_tokens = st.sampled_from(
    ["(", ")", ",", "set", "add", "xor", "not", "ineg", "imm", "i32:$d", "i32:$a", "R:$b", "$a", "$zz",
     "f32:$a", "-1", "7", "node:$a", "(i32", "UniformBinFrag<add>", "ADD", "srcvalue", ":$n", "<", ">"]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_tokens, min_size=1, max_size=14))
def test_random_patterns_never_crash(tokens):
    text = " ".join(tokens)
    t = target(defs=[inst("ADD", text)], patterns=[Pat(text, "(ADD $a, $b)")])
    for e in errors(t):
        assert isinstance(e, TdgenError) and e.message.startswith("expected ")


def test_implicit_registers_must_exist():
    e = one(target(physical_registers=["SCC"], defs=[
        Instruction("A", None, [], outs="(outs R:$d)", ins="(ins)", asm="a", lets={"Namespace": "T"},
                    implicit_defs=["SCC"], implicit_uses=["EXEC"]),
    ]))
    assert (e.record, e.field) == ("A", "implicit_uses")
    assert e.message == "expected a register of the target (physical_registers or a register class), found 'EXEC'"


# --- wave facts and PatFrag.uses_operands (issue 2) ---------------------------------------

from tdgen.hw import WaveModel  # noqa: E402


@pytest.mark.parametrize("wave, fields", [
    (WaveModel(sizes=(32, 64), default_size=32, bpermute_wave64="half"), []),
    (WaveModel(sizes=(64,), default_size=64, bpermute_wave64="full"), []),
    (WaveModel(sizes=(), default_size=64), ["wave.sizes"]),
    (WaveModel(sizes=(16,), default_size=16), ["wave.default_size", "wave.sizes"]),
    (WaveModel(sizes=(32,), default_size=64), ["wave.default_size"]),
    (WaveModel(sizes=(32, 64, 128), default_size=32), ["wave.sizes"]),
    (WaveModel(sizes=(True,), default_size=32), ["wave.sizes"]),
    (WaveModel(bpermute_wave64="Full"), ["wave.bpermute_wave64"]),
])
def test_wave_facts_checked(wave, fields):
    errs = errors(target(wave=wave))
    assert sorted(e.field for e in errs) == fields, [e.format() for e in errs]
    assert all(e.record == "t" for e in errs)


def test_wave_must_be_a_wave_model():
    with pytest.raises(SpecError) as info:
        target(wave=(32, 64))
    assert info.value.field == "wave" and info.value.message == "expected WaveModel, found a list of (int)"


@pytest.mark.parametrize("code, uses, bad", [
    ("return !Operands[0]->isDivergent();", False, True),
    ("return !Operands [1]->isDivergent();", False, True),
    ("return !Operands[0]->isDivergent();", True, False),
    ("return N->hasOneUse();", False, False),
    ("return MyOperands[0] != nullptr;", False, False),  # another identifier
    (None, False, False),
])
def test_predicate_reading_operands_needs_uses_operands(code, uses, bad):
    f = PatFrag("f", ["a", "b"], "(add node:$a, node:$b)", predicate_code=code, uses_operands=uses)
    errs = errors(target(frags=[f]))
    assert [(e.record, e.field) for e in errs] == ([("f", "uses_operands")] if bad else []), [e.format() for e in errs]

"""Lints over pattern sets (patterns/select/lint.py): each finding kind on a target built to have it,
and none on a target without it."""

from __future__ import annotations

import dataclasses

from tdgen.model import Instruction, Pat, RegisterClass, Target

from test_isel_engine import _uniformity, mini_target


def _codes(findings, level=None):
    return sorted({(f.code, f.record) for f in findings if level is None or f.level == level})


def test_clean_target_has_no_errors():
    from patterns.select.lint import lint_target

    assert not [f for f in lint_target(mini_target()) if f.level == "error"]


def test_scalar_result_without_uniform_predicate_is_an_error():
    from patterns.select.lint import lint_target

    found = lint_target(mini_target(sadd_pred=""))
    assert ("scalar-result-divergent-root", "S_ADD_I32") in _codes(found, "error")
    msg = next(f.format() for f in found if f.record == "S_ADD_I32")
    assert "SReg_32" in msg and "no uniform predicate" in msg and ".py:" in msg  # points into the spec


def test_shadowed_pattern_is_reported():
    from patterns.select.lint import lint_target

    # a plain (add a, b) with AddedComplexity 10 is tried before S_ADD_I32's uniform pattern
    t = mini_target(extra_pats=(Pat("(add i32:$a, i32:$b)", "(V_ADD_U32_e64 $a, $b)", added_complexity=10),))
    found = lint_target(t)
    shadowed = [f for f in found if f.code == "shadowed"]
    assert {f.record for f in shadowed} >= {"S_ADD_I32", "V_ADD_U32_e64"}
    assert all(f.level == "warning" for f in shadowed)


def test_missing_divergent_pattern_is_reported():
    from patterns.select.lint import lint_target

    base = mini_target()
    defs = tuple(d for d in base.defs if d.name != "V_MUL_LO_U32_e64")
    t = Target("mini2", "MINI", "mini", register_classes=base.register_classes, frag_classes=base.frag_classes,
               defs=defs, patterns=base.patterns, uniformity=_uniformity())
    found = lint_target(t)
    gaps = [f.message for f in found if f.code == "no-pattern"]
    assert gaps == ["no pattern selects a divergent i32 ISD::MUL with arbitrary operands"]


def test_convergent_intrinsic_needs_convergent_instruction():
    from patterns.select.lint import lint_target
    from tdgen.spec import load_target

    amd = load_target("amdgpu")
    bperm = amd.intrinsics_by_ir_name["llvm.amdgcn.ds.bpermute"]
    v32 = RegisterClass("VGPR_32", "vector", amd.register_classes_by_name["VGPR_32"].types, ("VGPR0",))
    good = Instruction("PERM_OK", outs="(outs VGPR_32:$d)", ins="(ins VGPR_32:$a, VGPR_32:$b)", asm="perm $d",
                       pattern="(set i32:$d, (int_amdgcn_ds_bpermute i32:$a, i32:$b))", lets={"isConvergent": 1})
    bad = Instruction("PERM_BAD", outs="(outs VGPR_32:$d)", ins="(ins VGPR_32:$a, VGPR_32:$b)", asm="perm $d",
                      pattern="(set i32:$d, (int_amdgcn_ds_bpermute i32:$b, i32:$a))")
    t = Target("conv", "CONV", "amdgcn", intrinsics=(bperm,), register_classes=(v32,), defs=(good, bad),
               uniformity=_uniformity())
    found = lint_target(t)
    assert _codes(found, "error") == [("convergent", "PERM_BAD")]


def test_custom_select_steps_are_linted():
    """A CustomSelect whose model puts a divergent node in a scalar register is an error
    the probe finds; a root with no table fallback is a warning; the good step is clean."""
    from patterns.select.lint import lint_target

    from test_isel_engine import _MAD_MODEL, custom_target

    assert not [f for f in lint_target(custom_target()) if f.code.startswith("custom-select")]
    bad = _MAD_MODEL.replace("    if not N.divergent:\n        return None\n", "")
    bad = bad.replace('cur.machine_node("V_MAD_U32", m.ops[0], m.ops[1], N.ops[1])',
                      'cur.machine_node("S_ADD_I32", m.ops[0], N.ops[1])')
    found = lint_target(custom_target(bad, emits=("V_MAD_U32", "S_ADD_I32")))
    (err,) = [f for f in found if f.level == "error"]
    assert err.code == "custom-select-divergent-scalar" and err.record == "SelectMad"
    assert "probe (add (mul %div" in err.message and "S_ADD_I32 writing scalar class SReg_32" in err.message
    # sra has no pattern in the mini target: when the step declines, nothing selects it
    found = lint_target(custom_target(opcodes=("add", "sra")))
    gaps = sorted(f.message for f in found if f.code == "custom-select-fallback")
    assert gaps == [f"when SelectMad declines a {d} i32 ISD::SRA, no table pattern selects it with arbitrary operands"
                    for d in ("divergent", "uniform")]


def test_amdgpu_bfe_step_is_covered_and_probed_clean():
    """The amdgpu SelectS_BFE step: every root it handles has a table fallback for both
    divergences, and the probe finds no scalar result for a divergent node."""
    from patterns.select.lint import lint_target
    from tdgen.spec import load_target

    amd = load_target("amdgpu")
    assert [cs.name for cs in amd.custom_selects] == ["SelectS_BFE"]
    assert lint_target(amd) == []
    # the probe reaches the model: a step that always picks the SALU is caught
    (cs,) = amd.custom_selects
    model = cs.model.replace("if val.divergent:", "if False:")
    assert model != cs.model
    t = dataclasses.replace(amd, custom_selects=(dataclasses.replace(cs, model=model),))
    errs = [f for f in lint_target(t) if f.level == "error"]
    assert [f.code for f in errs] == ["custom-select-divergent-scalar"] and "S_BFE_" in errs[0].message


def test_predicate_code_the_model_cannot_run_is_reported():
    """An immediate predicate outside the forms the model executes is a warning naming the
    predicate (isel treats it as failing); one it can execute is not reported."""
    import dataclasses

    from patterns.select.lint import lint_target
    from tdgen.model import ImmLeaf
    from tdgen.types import i32

    base = mini_target()
    frags = (ImmLeaf("simm8", i32, "return isInt<8>(Imm);"),
             ImmLeaf("subtarget_imm", i32, "return Subtarget->hasFoo() && Imm > 0;"))
    addk = Instruction("S_ADDK_I32", outs="(outs SReg_32:$sdst)", ins="(ins SReg_32:$src0, i32imm:$imm)",
                       asm="s_addk_i32 $sdst, $imm")
    pats = (Pat("(UniformBinFrag<add> i32:$a, simm8:$c)", "(S_ADDK_I32 $a, (i32 imm:$c))"),
            Pat("(UniformBinFrag<add> i32:$a, subtarget_imm:$c)", "(S_ADDK_I32 $a, (i32 imm:$c))"))
    t = dataclasses.replace(base, frags=frags, defs=base.defs + (addk,), patterns=base.patterns + pats)
    found = [f for f in lint_target(t) if f.code == "opaque-predicate"]
    assert len(found) == 1 and found[0].level == "warning"
    assert "subtarget_imm (return Subtarget->hasFoo() && Imm > 0;)" in found[0].message

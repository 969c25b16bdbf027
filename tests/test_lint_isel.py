"""Lints over pattern sets (patterns/lint.py): each finding kind on a target built to have it,
and none on a target without it."""

from __future__ import annotations

from tdgen.model import Instruction, Pat, RegisterClass, Target

from test_isel_engine import _uniformity, mini_target


def _codes(findings, level=None):
    return sorted({(f.code, f.record) for f in findings if level is None or f.level == level})


def test_clean_target_has_no_errors():
    from patterns.lint import lint_target

    assert not [f for f in lint_target(mini_target()) if f.level == "error"]


def test_scalar_result_without_uniform_predicate_is_an_error():
    from patterns.lint import lint_target

    found = lint_target(mini_target(sadd_pred=""))
    assert ("scalar-result-divergent-root", "S_ADD_I32") in _codes(found, "error")
    msg = next(f.format() for f in found if f.record == "S_ADD_I32")
    assert "SReg_32" in msg and "no uniform predicate" in msg and ".py:" in msg  # points into the spec


def test_shadowed_pattern_is_reported():
    from patterns.lint import lint_target

    # a plain (add a, b) with AddedComplexity 10 is tried before S_ADD_I32's uniform pattern
    t = mini_target(extra_pats=(Pat("(add i32:$a, i32:$b)", "(V_ADD_U32_e64 $a, $b)", added_complexity=10),))
    found = lint_target(t)
    shadowed = [f for f in found if f.code == "shadowed"]
    assert {f.record for f in shadowed} >= {"S_ADD_I32", "V_ADD_U32_e64"}
    assert all(f.level == "warning" for f in shadowed)


def test_missing_divergent_pattern_is_reported():
    from patterns.lint import lint_target

    base = mini_target()
    defs = tuple(d for d in base.defs if d.name != "V_MUL_LO_U32_e64")
    t = Target("mini2", "MINI", "mini", register_classes=base.register_classes, frag_classes=base.frag_classes,
               defs=defs, patterns=base.patterns, uniformity=_uniformity())
    found = lint_target(t)
    gaps = [f.message for f in found if f.code == "no-pattern"]
    assert gaps == ["no pattern selects a divergent i32 ISD::MUL with arbitrary operands"]


def test_convergent_intrinsic_needs_convergent_instruction():
    from patterns.lint import lint_target
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

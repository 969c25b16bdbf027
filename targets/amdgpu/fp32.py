"""32-bit floating-point VALU arithmetic (gfx900): fadd, fsub and fmul of f32.

VOP3 forms as llc-19 -mcpu=gfx900 selects them at finalize-isel (VOP3Inst of
VOP2Instructions.td): ``V_ADD_F32_e64 src0_modifiers, src0, src1_modifiers, src1,
clamp, omod`` reading MODE (the float mode register) and EXEC. f32 has no SALU
arithmetic on gfx900, so a uniform operation is a VALU one too (its SGPR operands read
through the constant bus, ``select.legalize_constant_bus``).

Where this stops: the source modifiers are always 0 (LLVM's VOP3Mods ComplexPattern
folds fneg/fabs into them; an fneg or fabs here is not modelled and stays a separate
node); the _e32 shrinking happens after finalize-isel and is not the selector's; fma/fmad,
min/max, compares and conversions are not here. Their wave semantics
(targets/amdgpu/semantics.py) apply the source modifiers and take clamp and omod as 0.
"""

from tdgen.model import InstrClass, Instruction, Param, Pat, Ref

from .formats import InstSI

VOP3_F32 = InstrClass("VOP3_F32", parent=InstSI, params=[Param("opName", "string")], implicit_uses=["MODE", "EXEC"],
                      lets={
    "VALU": 1, "VOP3": 1, "Size": 8, "Mnemonic": Ref("opName"),
    "outs": "(outs VGPR_32:$vdst)",
    "ins": "(ins FP32InputMods:$src0_modifiers, VGPR_32:$src0, FP32InputMods:$src1_modifiers, VGPR_32:$src1, "
           "clampmod0:$clamp, omod0:$omod)",
    "asm": "{opName} $vdst, $src0, $src1$clamp$omod",
})

CLASSES = (VOP3_F32,)

DEFS = (
    Instruction("V_ADD_F32_e64", VOP3_F32, ["v_add_f32"]),
    Instruction("V_SUB_F32_e64", VOP3_F32, ["v_sub_f32"]),
    Instruction("V_MUL_F32_e64", VOP3_F32, ["v_mul_f32"]),
)

PATTERNS = (
    Pat("(fadd f32:$src0, f32:$src1)", "(V_ADD_F32_e64 0, $src0, 0, $src1, 0, 0)"),
    Pat("(fsub f32:$src0, f32:$src1)", "(V_SUB_F32_e64 0, $src0, 0, $src1, 0, 0)"),
    Pat("(fmul f32:$src0, f32:$src1)", "(V_MUL_F32_e64 0, $src0, 0, $src1, 0, 0)"),
)

"""32-bit integer ALU: SALU (uniform) and VALU (divergent) selections as on gfx900.

Patterns mirror LLVM 19's SOPInstructions.td / VOP2/VOP3Instructions.td:
SALU patterns use UniformBinFrag/UniformUnaryFrag; the shifts and s_mul_i32 carry
AddedComplexity = 1 so they win over the VALU forms. VALU add/sub/shift patterns are
standalone Pats over DivergentBinFrag (the *REV shifts take the shift amount first);
v_and/v_or/v_xor carry plain-node patterns, v_mul_lo_u32 a DivergentBinFrag one.
On gfx900 there is no v_xnor_b32 (DL instructions arrive with gfx906): a divergent xnor
selects v_xor_b32_e64 + v_not_b32_e32. Checked with llc-19 -mcpu=gfx900.

Simplification: LLVM's clamped shift fragments (cshl_32 ...) are plain shl/srl/sra here.

An add of a constant in [-64, -17] selects as a sub of its negation, an inline constant
(16 < C <= 64): NegSubInlineConst32 matches the constant and its NegateImm transform
gives the sub's operand -- s_sub_i32 when the add is uniform, v_sub_u32_e64 when it is
divergent (gfx900 has the carry-less VALU sub), as LLVM 19 selects them. Those two
patterns are in misc_opt.py: LLVM 19 defines them late in SIInstructions.td, after the
VOP3 three-operand and mad patterns, which win over them at equal complexity.
"""

from tdgen.model import DivergenceFrag, ImmLeaf, Instruction, Pat, PatFrag, SDNodeXForm
from tdgen.types import i32

from .formats import SOP1_32, SOP2_32, VOP1_32, VOP3_32, VOP3_32_Clamp

UniformBinFrag = DivergenceFrag("UniformBinFrag", "uniform", 2)
DivergentBinFrag = DivergenceFrag("DivergentBinFrag", "divergent", 2)
UniformUnaryFrag = DivergenceFrag("UniformUnaryFrag", "uniform", 1)
DivergentUnaryFrag = DivergenceFrag("DivergentUnaryFrag", "divergent", 1)

FRAG_CLASSES = (UniformBinFrag, DivergentBinFrag, UniformUnaryFrag, DivergentUnaryFrag)

xor_oneuse = PatFrag("xor_oneuse", ["src0", "src1"], "(xor node:$src0, node:$src1)", has_one_use=True)

# the constant's negation, as the (target) constant operand of the sub
NegateImm = SDNodeXForm(
    "NegateImm", "imm",
    "return CurDAG->getTargetConstant(-N->getSExtValue(), SDLoc(N), MVT::i32);",
    doc="the negated constant (an add of -C becomes a sub of C)",
)

# i32 constants whose negation is an inline constant larger than 16: -64 ... -17
NegSubInlineConst32 = ImmLeaf("NegSubInlineConst32", i32, "return Imm >= -64 && Imm <= -17;", NegateImm)

XFORMS = (NegateImm,)
FRAGS = (xor_oneuse, NegSubInlineConst32)

_AC1 = {"AddedComplexity": 1}
_SCC = ["SCC"]  # SALU ALU ops write the scalar condition code

DEFS = (
    # --- SALU -----------------------------------------------------------------
    Instruction("S_ADD_I32", SOP2_32, ["s_add_i32"],
                pattern="(set i32:$sdst, (UniformBinFrag<add> i32:$src0, i32:$src1))",
                lets={"isCommutable": 1}, implicit_defs=_SCC),
    Instruction("S_SUB_I32", SOP2_32, ["s_sub_i32"],
                pattern="(set i32:$sdst, (UniformBinFrag<sub> i32:$src0, i32:$src1))", implicit_defs=_SCC),
    Instruction("S_AND_B32", SOP2_32, ["s_and_b32"],
                pattern="(set i32:$sdst, (UniformBinFrag<and> i32:$src0, i32:$src1))",
                lets={"isCommutable": 1}, implicit_defs=_SCC),
    Instruction("S_OR_B32", SOP2_32, ["s_or_b32"],
                pattern="(set i32:$sdst, (UniformBinFrag<or> i32:$src0, i32:$src1))",
                lets={"isCommutable": 1}, implicit_defs=_SCC),
    Instruction("S_XOR_B32", SOP2_32, ["s_xor_b32"],
                pattern="(set i32:$sdst, (UniformBinFrag<xor> i32:$src0, i32:$src1))",
                lets={"isCommutable": 1}, implicit_defs=_SCC),
    Instruction("S_XNOR_B32", SOP2_32, ["s_xnor_b32"],
                pattern="(set i32:$sdst, (UniformUnaryFrag<not> (xor_oneuse i32:$src0, i32:$src1)))",
                lets={"isCommutable": 1}, implicit_defs=_SCC),
    Instruction("S_NOT_B32", SOP1_32, ["s_not_b32"],
                pattern="(set i32:$sdst, (UniformUnaryFrag<not> i32:$src0))", implicit_defs=_SCC),
    Instruction("S_LSHL_B32", SOP2_32, ["s_lshl_b32"],
                pattern="(set i32:$sdst, (UniformBinFrag<shl> i32:$src0, i32:$src1))", lets=_AC1, implicit_defs=_SCC),
    Instruction("S_LSHR_B32", SOP2_32, ["s_lshr_b32"],
                pattern="(set i32:$sdst, (UniformBinFrag<srl> i32:$src0, i32:$src1))", lets=_AC1, implicit_defs=_SCC),
    Instruction("S_ASHR_I32", SOP2_32, ["s_ashr_i32"],
                pattern="(set i32:$sdst, (UniformBinFrag<sra> i32:$src0, i32:$src1))", lets=_AC1, implicit_defs=_SCC),
    Instruction("S_MUL_I32", SOP2_32, ["s_mul_i32"],
                pattern="(set i32:$sdst, (UniformBinFrag<mul> i32:$src0, i32:$src1))",
                lets={"AddedComplexity": 1, "isCommutable": 1}),
    # --- VALU -----------------------------------------------------------------
    Instruction("V_ADD_U32_e64", VOP3_32_Clamp, ["v_add_u32"], lets={"isCommutable": 1}),
    Instruction("V_SUB_U32_e64", VOP3_32_Clamp, ["v_sub_u32"]),
    Instruction("V_MUL_LO_U32_e64", VOP3_32, ["v_mul_lo_u32"],
                pattern="(set i32:$vdst, (DivergentBinFrag<mul> i32:$src0, i32:$src1))",
                lets={"isCommutable": 1}),
    Instruction("V_AND_B32_e64", VOP3_32, ["v_and_b32"],
                pattern="(set i32:$vdst, (and i32:$src0, i32:$src1))", lets={"isCommutable": 1}),
    Instruction("V_OR_B32_e64", VOP3_32, ["v_or_b32"],
                pattern="(set i32:$vdst, (or i32:$src0, i32:$src1))", lets={"isCommutable": 1}),
    Instruction("V_XOR_B32_e64", VOP3_32, ["v_xor_b32"],
                pattern="(set i32:$vdst, (xor i32:$src0, i32:$src1))", lets={"isCommutable": 1}),
    Instruction("V_NOT_B32_e32", VOP1_32, ["v_not_b32"]),
    Instruction("V_LSHLREV_B32_e64", VOP3_32, ["v_lshlrev_b32"]),
    Instruction("V_LSHRREV_B32_e64", VOP3_32, ["v_lshrrev_b32"]),
    Instruction("V_ASHRREV_I32_e64", VOP3_32, ["v_ashrrev_i32"]),
)

PATTERNS = (
    Pat("(DivergentBinFrag<add> i32:$src0, i32:$src1)", "(V_ADD_U32_e64 $src0, $src1, 0)"),
    Pat("(DivergentBinFrag<sub> i32:$src0, i32:$src1)", "(V_SUB_U32_e64 $src0, $src1, 0)"),
    Pat("(DivergentBinFrag<shl> i32:$src0, i32:$src1)", "(V_LSHLREV_B32_e64 $src1, $src0)"),
    Pat("(DivergentBinFrag<srl> i32:$src0, i32:$src1)", "(V_LSHRREV_B32_e64 $src1, $src0)"),
    Pat("(DivergentBinFrag<sra> i32:$src0, i32:$src1)", "(V_ASHRREV_I32_e64 $src1, $src0)"),
    Pat("(i32 (DivergentUnaryFrag<not> i32:$src0))", "(V_NOT_B32_e32 $src0)"),
    # VOPBinOpClampPat: an unsigned saturating add/sub is the VALU add/sub with the clamp
    # bit set, for a uniform node too (no divergence predicate; the DAG forms usubsat from
    # (add (umax x, C), -C))
    Pat("(uaddsat i32:$src0, i32:$src1)", "(V_ADD_U32_e64 $src0, $src1, -1)"),
    Pat("(usubsat i32:$src0, i32:$src1)", "(V_SUB_U32_e64 $src0, $src1, -1)"),
)

"""SIInstructions.td's "Miscellaneous Optimization Patterns" that matter here: an add of a
constant in [-64, -17] selected as a sub of its negation (an inline constant), s_sub_i32
when the add is uniform, v_sub_u32_e64 when it is divergent (NegSubInlineConst32 and its
NegateImm transform are defined in alu.py).

Where these patterns sit matters. Their complexity is 8 (the add with its divergence
predicate, 4, plus the immediate with its predicate, 4), the same as the gfx9 three-operand
patterns of vop3.py (v_xad_u32, v_lshl_add_u32, v_add3_u32, v_mad_u64_u32 for
``add (mul x, y), z``) and as the 24-bit multiply-adds of mul24.py (complexity 6 plus
AddedComplexity 2). At equal complexity and equal result cost the pattern defined first
wins; LLVM 19 defines these at the end of SIInstructions.td, after VOP3Instructions.td
(included at its top) and the Mad24 patterns, so a divergent ``add (xor x, y), -35`` whose
three-operand form passes the constant-bus check becomes v_xad_u32 with a literal -35, and
``add (mul_u24 x, 5), -35`` v_mad_u32_u24, not a sub of 35 (checked with llc-19 -mcpu=gfx900,
tests/test_isel_llc.py). This module is therefore the last of spec.MODULE_NAMES.

A divergent ``add (mul x, y), C`` is v_mad_u64_u32 in llc because of vop3.py's immediate-
addend form (complexity 11); its register form (complexity 8, but four result
instructions with the REG_SEQUENCE/IMPLICIT_DEF/EXTRACT_SUBREG) sorts after these.
"""

from tdgen.model import Pat

from .alu import NegSubInlineConst32  # noqa: F401  (named in the patterns below)

PATTERNS = (
    Pat("(UniformBinFrag<add> i32:$src0, (i32 NegSubInlineConst32:$src1))",
        "(S_SUB_I32 $src0, NegSubInlineConst32:$src1)"),
    Pat("(DivergentBinFrag<add> i32:$src0, (i32 NegSubInlineConst32:$src1))",
        "(V_SUB_U32_e64 $src0, NegSubInlineConst32:$src1, 0)"),
)

"""The selection of the vector nodes the vector legalizer leaves for 64-bit vectors
(patterns.dag.legalize_vectors unrolls v2i32 arithmetic into i32 lanes): reading a lane at
a constant index is a sub-register of the pair (SIInstructions.td's extract patterns,
``EXTRACT_SUBREG $vec, sub0|sub1``), and a BUILD_VECTOR of two i32 lanes is a
REG_SEQUENCE of SReg_64 (AMDGPUDAGToDAGISel::SelectBuildVector picks the scalar class
for either divergence; SIFixSGPRCopies moves a divergent one to VReg_64 after selection,
as llc's ``-stop-after=amdgpu-isel`` MIR shows: ``%r:sreg_64 = REG_SEQUENCE %v0(vgpr_32),
%subreg.sub0, ...``).

An extract at a variable index never reaches selection: SITargetLowering's
performExtractVectorEltCombine expands it into selects of the lanes on ``index == i``
(V_CMP_EQ_U32 + V_CNDMASK_B32 / S_CMP_EQ_U32 + S_CSELECT_B32 in llc's MIR) when
shouldExpandVectorDynExt says so -- ``should_expand_dynamic_extract``, the target's
``TargetHooks.expand_dynamic_extract`` (gfx900: VGPR index mode, no movrel)."""

from tdgen.model import Pat


def should_expand_dynamic_extract(elt_bits: int, count: int, divergent_index: bool) -> bool:
    """SITargetLowering::shouldExpandVectorDynExt on gfx900 (LLVM 19)."""
    if elt_bits * count <= 64 and elt_bits < 32:
        return False  # (sub-dword vectors of two dwords or less have a better lowering)
    if elt_bits < 32 or divergent_index:
        return True
    compares, cndmasks = count, ((elt_bits + 31) // 32) * count
    return compares + cndmasks <= 16  # (VGPR index mode: gfx9 has no movrel)

PATTERNS = (
    Pat("(i32 (extractelt v2i32:$vec, (i32 0)))", "(EXTRACT_SUBREG $vec, sub0)"),
    Pat("(i32 (extractelt v2i32:$vec, (i32 1)))", "(EXTRACT_SUBREG $vec, sub1)"),
    Pat("(v2i32 (build_vector i32:$lo, i32:$hi))", "(REG_SEQUENCE SReg_64, $lo, sub0, $hi, sub1)"),
)

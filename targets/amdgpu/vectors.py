"""The selection of the vector nodes the vector legalizer leaves for 64-bit vectors
(patterns.dag.legalize_vectors unrolls v2i32 arithmetic into i32 lanes): reading a lane at
a constant index is a sub-register of the pair (SIInstructions.td's extract patterns,
``EXTRACT_SUBREG $vec, sub0|sub1``), and a BUILD_VECTOR of two i32 lanes is a
REG_SEQUENCE of SReg_64 (AMDGPUDAGToDAGISel::SelectBuildVector picks the scalar class
for either divergence; SIFixSGPRCopies moves a divergent one to VReg_64 after selection,
as llc's ``-stop-after=amdgpu-isel`` MIR shows: ``%r:sreg_64 = REG_SEQUENCE %v0(vgpr_32),
%subreg.sub0, ...``)."""

from tdgen.model import Pat

PATTERNS = (
    Pat("(i32 (extractelt v2i32:$vec, (i32 0)))", "(EXTRACT_SUBREG $vec, sub0)"),
    Pat("(i32 (extractelt v2i32:$vec, (i32 1)))", "(EXTRACT_SUBREG $vec, sub1)"),
    Pat("(v2i32 (build_vector i32:$lo, i32:$hi))", "(REG_SEQUENCE SReg_64, $lo, sub0, $hi, sub1)"),
)

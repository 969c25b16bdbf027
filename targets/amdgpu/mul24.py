"""24-bit multiplies (gfx900): v_mul_u32_u24 / v_mul_i32_i24 and their multiply-add forms.

A divergent 32-bit multiply whose operands both fit in 24 bits (unsigned, or signed) is
done by the 24-bit VALU multiplier. LLVM forms it twice: on the IR, AMDGPUCodeGenPrepare's
replaceMulWithMul24 rewrites such a ``mul`` into ``llvm.amdgcn.mul.u24``/``.i24``
(lowered to AMDGPUISD::MUL_U24/MUL_I24), and on the DAG AMDGPUTargetLowering's
performMulCombine does the same for a divergent ISD::MUL (patterns.llc and
patterns.dag.combine model both; operand widths from known bits). Selection as LLVM 19's
VOP2/VOP3 definitions have it: the node to v_mul_*24 (no divergence predicate), and an add
of it -- in either operand order, the multiply may have other users -- to v_mad_*24
(AMDGPUmad_u24/i24's ``(add (AMDGPUmul_u24 a, b), c)`` alternative, in LLVM 19's UMad24Pat/
IMad24Pat with AddedComplexity = 2: complexity 8, so it wins over the sub-of-an-inline-
constant pattern for ``add (mul_u24 x, 5), -35`` and over a commuted v_xad_u32 for
``add (mul_u24 x, y), (xor a, b)``). Checked with
llc-19 -mcpu=gfx900 in tests/test_combine_llc.py (mul24 kernels).
"""

from tdgen.hw import DivergenceKind
from tdgen.model import Instruction, Intrinsic, IntrNoMem, IntrSpeculatable, Lowering, Pat, SDNode, SDTCisSameAs, \
    SDTCisVT, SDTypeProfile
from tdgen.types import VALUE_TYPES, llvm_anyint_ty, llvm_i32_ty

from .formats import VOP3_32, VOP3_32_Clamp

i32 = VALUE_TYPES["i32"]

SDTIntBinOp32 = SDTypeProfile(1, 2, [SDTCisVT(0, i32), SDTCisSameAs(0, 1), SDTCisSameAs(0, 2)], name="SDTIntBinOp32")
AMDGPUmul_u24 = SDNode("AMDGPUmul_u24", "AMDGPUISD::MUL_U24", SDTIntBinOp32, properties=("SDNPCommutative",))
AMDGPUmul_i24 = SDNode("AMDGPUmul_i24", "AMDGPUISD::MUL_I24", SDTIntBinOp32, properties=("SDNPCommutative",))

PROFILES = (SDTIntBinOp32,)
NODES = (AMDGPUmul_u24, AMDGPUmul_i24)

int_amdgcn_mul_u24 = Intrinsic(
    "int_amdgcn_mul_u24", [llvm_anyint_ty], [llvm_i32_ty, llvm_i32_ty], [IntrNoMem, IntrSpeculatable],
    divergence=DivergenceKind.FOLLOWS_OPERANDS, default_attrs=True,
)
int_amdgcn_mul_i24 = Intrinsic(
    "int_amdgcn_mul_i24", [llvm_anyint_ty], [llvm_i32_ty, llvm_i32_ty], [IntrNoMem, IntrSpeculatable],
    divergence=DivergenceKind.FOLLOWS_OPERANDS, default_attrs=True,
)
INTRINSICS = (int_amdgcn_mul_u24, int_amdgcn_mul_i24)
LOWERINGS = (Lowering(int_amdgcn_mul_u24, AMDGPUmul_u24), Lowering(int_amdgcn_mul_i24, AMDGPUmul_i24))

_MAD_INS = "(ins VGPR_32:$src0, VGPR_32:$src1, VGPR_32:$src2, clampmod0:$clamp)"

DEFS = (
    Instruction("V_MUL_U32_U24_e64", VOP3_32_Clamp, ["v_mul_u32_u24"], lets={"isCommutable": 1}),
    Instruction("V_MUL_I32_I24_e64", VOP3_32_Clamp, ["v_mul_i32_i24"], lets={"isCommutable": 1}),
    Instruction("V_MAD_U32_U24_e64", VOP3_32, ["v_mad_u32_u24"], ins=_MAD_INS,
                asm="v_mad_u32_u24 $vdst, $src0, $src1, $src2$clamp"),
    Instruction("V_MAD_I32_I24_e64", VOP3_32, ["v_mad_i32_i24"], ins=_MAD_INS,
                asm="v_mad_i32_i24 $vdst, $src0, $src1, $src2$clamp"),
)

PATTERNS = (
    Pat("(i32 (add (AMDGPUmul_u24 i32:$src0, i32:$src1), i32:$src2))", "(V_MAD_U32_U24_e64 $src0, $src1, $src2, 0)",
        added_complexity=2),
    Pat("(i32 (add (AMDGPUmul_i24 i32:$src0, i32:$src1), i32:$src2))", "(V_MAD_I32_I24_e64 $src0, $src1, $src2, 0)",
        added_complexity=2),
    Pat("(i32 (AMDGPUmul_u24 i32:$src0, i32:$src1))", "(V_MUL_U32_U24_e64 $src0, $src1, 0)"),
    Pat("(i32 (AMDGPUmul_i24 i32:$src0, i32:$src1))", "(V_MUL_I32_I24_e64 $src0, $src1, 0)"),
)

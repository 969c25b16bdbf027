"""Lane-reading VALU instructions: v_readlane_b32, v_readfirstlane_b32 (results in an
SGPR, always uniform) and v_mbcnt_lo/hi_u32_b32 (the lane-count idiom, sources of
divergence). Patterns as LLVM 19 declares them on the instructions."""

from tdgen.model import Instruction

from .formats import VOP3_32, VOP_ReadLane

DEFS = (
    Instruction(
        "V_READLANE_B32", VOP_ReadLane, ["v_readlane_b32"],
        ins="(ins VGPR_32:$src0, SReg_32:$src1)",
        asm="v_readlane_b32 $vdst, $src0, $src1",
        pattern="(set i32:$vdst, (int_amdgcn_readlane i32:$src0, i32:$src1))",
    ),
    Instruction(
        "V_READFIRSTLANE_B32", VOP_ReadLane, ["v_readfirstlane_b32"],
        ins="(ins VGPR_32:$src0)",
        asm="v_readfirstlane_b32 $vdst, $src0",
        pattern="(set i32:$vdst, (int_amdgcn_readfirstlane i32:$src0))",
        implicit_uses=["EXEC"],
    ),
    Instruction(
        "V_MBCNT_LO_U32_B32_e64", VOP3_32, ["v_mbcnt_lo_u32_b32"],
        pattern="(set i32:$vdst, (int_amdgcn_mbcnt_lo i32:$src0, i32:$src1))",
    ),
    Instruction(
        "V_MBCNT_HI_U32_B32_e64", VOP3_32, ["v_mbcnt_hi_u32_b32"],
        pattern="(set i32:$vdst, (int_amdgcn_mbcnt_hi i32:$src0, i32:$src1))",
    ),
)

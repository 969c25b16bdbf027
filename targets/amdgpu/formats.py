"""Instruction classes of the AMDGPU subset, shaped like LLVM's SOP/VOP/DS pseudos.

Implicit registers follow llc-19's MIR parser (tests/test_check_oracles.py): VALU and DS
instructions read EXEC (class-level ``implicit_uses``); which SALU ops write SCC is set
per def (s_mul_i32 does not, the ALU ops here do).

The hierarchy is a flattened version of LLVM's (InstSI -> SOP2_Pseudo -> SOP2_32, ...):
the encoding-family bits (SALU, VALU, DS, VOP1, VOP3) and the operand lists are the
parts the selector and the lints need.
"""

from tdgen.model import InstrClass, InstrField, Param, Ref

_op = Param("opName", "string")

InstSI = InstrClass(
    "InstSI",
    fields=[
        InstrField("SALU", "bit", 0),
        InstrField("VALU", "bit", 0),
        InstrField("DS", "bit", 0),
        InstrField("VOP1", "bit", 0),
        InstrField("VOP3", "bit", 0),
        InstrField("Mnemonic", "string", ""),
    ],
    lets={"Namespace": "AMDGPU", "hasSideEffects": 0, "mayLoad": 0, "mayStore": 0, "Size": 4},
)

# s_<op>_b32 sdst, src0, src1  (SOP2, writes SCC for the ALU ops modeled here)
SOP2_32 = InstrClass(
    "SOP2_32",
    params=[_op],
    parent=InstSI,
    lets={
        "SALU": 1,
        "Mnemonic": Ref("opName"),
        "outs": "(outs SReg_32:$sdst)",
        "ins": "(ins SReg_32:$src0, SReg_32:$src1)",
        "asm": "{opName} $sdst, $src0, $src1",
    },
)

# s_<op>_b32 sdst, src0  (SOP1)
SOP1_32 = InstrClass(
    "SOP1_32",
    params=[_op],
    parent=InstSI,
    lets={
        "SALU": 1,
        "Mnemonic": Ref("opName"),
        "outs": "(outs SReg_32:$sdst)",
        "ins": "(ins SReg_32:$src0)",
        "asm": "{opName} $sdst, $src0",
    },
)

# v_<op> vdst, src0, src1 in the VOP3 (_e64) encoding without modifiers.
VOP3_32 = InstrClass(
    "VOP3_32",
    implicit_uses=["EXEC"],
    params=[_op],
    parent=InstSI,
    lets={
        "VALU": 1,
        "VOP3": 1,
        "Size": 8,
        "Mnemonic": Ref("opName"),
        "outs": "(outs VGPR_32:$vdst)",
        "ins": "(ins VGPR_32:$src0, VGPR_32:$src1)",
        "asm": "{opName} $vdst, $src0, $src1",
    },
)

# VOP3 integer add/sub with the clamp bit (V_ADD_U32_e64 vdst, src0, src1, clamp).
VOP3_32_Clamp = InstrClass(
    "VOP3_32_Clamp",
    params=[_op],
    parent=VOP3_32,
    parent_args=[Ref("opName")],
    lets={
        "ins": "(ins VGPR_32:$src0, VGPR_32:$src1, clampmod0:$clamp)",
        "asm": "{opName} $vdst, $src0, $src1$clamp",
    },
)

# v_<op> vdst, src0 in the VOP1 (_e32) encoding.
VOP1_32 = InstrClass(
    "VOP1_32",
    implicit_uses=["EXEC"],
    params=[_op],
    parent=InstSI,
    lets={
        "VALU": 1,
        "VOP1": 1,
        "Mnemonic": Ref("opName"),
        "outs": "(outs VGPR_32:$vdst)",
        "ins": "(ins VGPR_32:$src0)",
        "asm": "{opName} $vdst, $src0",
    },
)

# Cross-lane VALU reads whose result is one scalar value for the whole wave.
VOP_ReadLane = InstrClass(
    "VOP_ReadLane",
    params=[_op],
    parent=InstSI,
    lets={
        "VALU": 1,
        "isConvergent": 1,
        "Mnemonic": Ref("opName"),
        "outs": "(outs SReg_32:$vdst)",
    },
)

# LDS-unit instructions (DS encoding, 8 bytes).
DS_Pseudo = InstrClass(
    "DS_Pseudo",
    implicit_uses=["EXEC"],
    params=[_op],
    parent=InstSI,
    fields=[
        InstrField("has_vdst", "bit", 1),
        InstrField("has_addr", "bit", 1),
        InstrField("has_data0", "bit", 1),
        InstrField("has_gds", "bit", 1),
    ],
    lets={"DS": 1, "Size": 8, "Mnemonic": Ref("opName"), "mayLoad": 1, "mayStore": 1},
)

# ds_permute_b32 / ds_bpermute_b32: a lane permute through the LDS crossbar that does
# not touch LDS memory (mayLoad = mayStore = 0, convergent).
DS_1A1D_PERMUTE = InstrClass(
    "DS_1A1D_PERMUTE",
    params=[_op],
    parent=DS_Pseudo,
    parent_args=[Ref("opName")],
    lets={
        "mayLoad": 0,
        "mayStore": 0,
        "isConvergent": 1,
        "has_gds": 0,
        "outs": "(outs VGPR_32:$vdst)",
        "ins": "(ins VGPR_32:$addr, VGPR_32:$data0, Offset:$offset)",
        "asm": "{opName} $vdst, $addr, $data0$offset",
    },
)

# ds_swizzle_b32: lane swizzle selected by the offset field; no LDS access.
DS_1A_SWIZZLE = InstrClass(
    "DS_1A_SWIZZLE",
    params=[_op],
    parent=DS_Pseudo,
    parent_args=[Ref("opName")],
    lets={
        "mayLoad": 0,
        "mayStore": 0,
        "isConvergent": 1,
        "has_data0": 0,
        "outs": "(outs VGPR_32:$vdst)",
        "ins": "(ins VGPR_32:$addr, Swizzle:$offset, GDS:$gds)",
        "asm": "{opName} $vdst, $addr$offset$gds",
    },
)

CLASSES = (
    InstSI, SOP2_32, SOP1_32, VOP3_32, VOP3_32_Clamp, VOP1_32, VOP_ReadLane, DS_Pseudo,
    DS_1A1D_PERMUTE, DS_1A_SWIZZLE,
)

"""AMDGPU register classes and immediate operand kinds used by the subset.

Names follow LLVM's SIRegisterInfo.td / SIInstrInfo.td. The selected values are all
i32 (SReg_32 / VGPR_32); the 64-bit pair classes SReg_64 and VReg_64 (sub-registers
sub0 = low half, sub1 = high half) exist for instructions with 64-bit operands, such as
v_mad_u64_u32's result, carry-out and addend (see vop3.py).
"""

from tdgen.model import OperandKind, RegisterClass, reg_names, reg_tuples
from tdgen.types import VALUE_TYPES, f32, f64, i1, i16, i32, i64, v2f16, v2i16, v2i32, v4i32

v8i32 = VALUE_TYPES["v8i32"]

# Scalar file: s0..s101 are allocatable on GFX9 (s102/s103 hold VCC).
SReg_32 = RegisterClass(
    "SReg_32", "scalar", [i32, f32, i16, v2i16, v2f16], reg_names("SGPR", 102), size=32
)
# Vector file: 256 VGPRs per lane.
VGPR_32 = RegisterClass(
    "VGPR_32", "vector", [i32, f32, i16, v2i16, v2f16], reg_names("VGPR", 256), size=32
)

# 64-bit pairs. Scalar pairs start at an even SGPR (s[0:1], s[2:3], ...); on gfx900 a
# vector pair may start at any VGPR (v[1:2] is legal; even alignment is gfx90a's rule).
_SGPR_PAIRS, _SGPR_PARTS = reg_tuples(SReg_32.registers, 2, 2)
SReg_64 = RegisterClass(
    "SReg_64", "scalar", [i64, f64, v2i32], _SGPR_PAIRS, size=64, alignment=32,
    subreg_indices=("sub0", "sub1"), subregs=_SGPR_PARTS,
)
_VGPR_PAIRS, _VGPR_PARTS = reg_tuples(VGPR_32.registers, 2, 1)
VReg_64 = RegisterClass(
    "VReg_64", "vector", [i64, f64, v2i32], _VGPR_PAIRS, size=64, alignment=32,
    subreg_indices=("sub0", "sub1"), subregs=_VGPR_PARTS,
)

# The classes llc-19 gives the results of the control-flow, compare and memory
# instructions (SIRegisterInfo.td): SReg_32_XM0_XEXEC (s_load_dword's result: no M0,
# no EXEC halves), SReg_64_XEXEC (a lane mask, s_load_dwordx2's result: no EXEC pair),
# SGPR_64 (the kernarg segment pointer's live-in pair). Listed after the four above:
# selection picks the first class of a file holding a type, which stays SReg_32/SReg_64.
SReg_32_XM0_XEXEC = RegisterClass(
    "SReg_32_XM0_XEXEC", "scalar", [i32, f32, i16, v2i16, v2f16], SReg_32.registers, size=32
)
SReg_64_XEXEC = RegisterClass(
    "SReg_64_XEXEC", "scalar", [i64, f64, v2i32, i1], _SGPR_PAIRS, size=64, alignment=32,
    subreg_indices=("sub0", "sub1"), subregs=_SGPR_PARTS,
)
SGPR_64 = RegisterClass(
    "SGPR_64", "scalar", [i64, f64, v2i32], _SGPR_PAIRS, size=64, alignment=32,
    subreg_indices=("sub0", "sub1"), subregs=_SGPR_PARTS,
)

# 128- and 256-bit SGPR tuples (s_load_dwordx4 / x8 results: merged kernel arguments)
_SGPR_QUADS, _SGPR_QUAD_PARTS = reg_tuples(SReg_32.registers, 4, 4)
SGPR_128 = RegisterClass(
    "SGPR_128", "scalar", [v4i32], _SGPR_QUADS, size=128, alignment=32,
    subreg_indices=("sub0", "sub1", "sub2", "sub3"), subregs=_SGPR_QUAD_PARTS,
)
_SGPR_OCTS, _SGPR_OCT_PARTS = reg_tuples(SReg_32.registers, 8, 4)
SGPR_256 = RegisterClass(
    "SGPR_256", "scalar", [v8i32], _SGPR_OCTS, size=256, alignment=32,
    subreg_indices=tuple(f"sub{k}" for k in range(8)), subregs=_SGPR_OCT_PARTS,
)

REGISTER_CLASSES = (SReg_32, VGPR_32, SReg_64, VReg_64, SReg_32_XM0_XEXEC, SReg_64_XEXEC, SGPR_64, SGPR_128,
                    SGPR_256)

# Registers used implicitly: the scalar condition code, the exec mask, VCC and the float
# mode register (read by the VALU's float instructions).
PHYSICAL_REGISTERS = ("SCC", "EXEC", "VCC", "MODE")

# DS instruction offset field (16 bits) and the gds bit.
Offset = OperandKind("Offset", i16)
GDS = OperandKind("GDS", i1)
# ds_swizzle's pattern operand. LLVM types it i16 and converts the intrinsic's i32
# immediate with an SDNodeXForm; this subset types it i32 so no transform is needed.
Swizzle = OperandKind("Swizzle", i32)
# VOP3 clamp bit of integer adds/subs.
clampmod0 = OperandKind("clampmod0", i1)
# the VOP3 float operands' source modifiers (neg/abs bits) and output modifier
FP32InputMods = OperandKind("FP32InputMods", i32)
omod0 = OperandKind("omod0", i32)

# a branch's target block (SOPP's simm16 label operand)
sopp_brtarget = OperandKind("sopp_brtarget", i16, "OPERAND_PCREL")
# SMEM/FLAT cache-policy bits and the memory instructions' immediate offsets
CPol = OperandKind("CPol", i32)
smem_offset = OperandKind("smem_offset", i32)
flat_offset = OperandKind("flat_offset", i16)

OPERANDS = (Offset, GDS, Swizzle, clampmod0, FP32InputMods, omod0, sopp_brtarget, CPol, smem_offset, flat_offset)

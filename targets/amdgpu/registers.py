"""AMDGPU register classes and immediate operand kinds used by the subset.

Names follow LLVM's SIRegisterInfo.td / SIInstrInfo.td. Only the 32-bit classes are
modeled: every modeled pattern is on i32 values.
"""

from tdgen.model import OperandKind, RegisterClass, reg_names
from tdgen.types import f32, i1, i16, i32, v2f16, v2i16

# Scalar file: s0..s101 are allocatable on GFX9 (s102/s103 hold VCC).
SReg_32 = RegisterClass(
    "SReg_32", "scalar", [i32, f32, i16, v2i16, v2f16], reg_names("SGPR", 102), size=32
)
# Vector file: 256 VGPRs per lane.
VGPR_32 = RegisterClass(
    "VGPR_32", "vector", [i32, f32, i16, v2i16, v2f16], reg_names("VGPR", 256), size=32
)

REGISTER_CLASSES = (SReg_32, VGPR_32)

# Registers used implicitly: the scalar condition code and the exec mask.
PHYSICAL_REGISTERS = ("SCC", "EXEC")

# DS instruction offset field (16 bits) and the gds bit.
Offset = OperandKind("Offset", i16)
GDS = OperandKind("GDS", i1)
# ds_swizzle's pattern operand. LLVM types it i16 and converts the intrinsic's i32
# immediate with an SDNodeXForm; this subset types it i32 so no transform is needed.
Swizzle = OperandKind("Swizzle", i32)
# VOP3 clamp bit of integer adds/subs.
clampmod0 = OperandKind("clampmod0", i1)

OPERANDS = (Offset, GDS, Swizzle, clampmod0)

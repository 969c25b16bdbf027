"""DS cross-lane instructions: ds_permute_b32, ds_bpermute_b32, ds_swizzle_b32.

Operands as llc-19 -mcpu=gfx900 prints them after finalize-isel:
DS_PERMUTE_B32 addr, data0, offset; DS_SWIZZLE_B32 addr, offset, gds. LLVM folds a
constant address offset with a ComplexPattern; this subset always selects offset 0.
"""

from tdgen.model import Instruction, Pat

from .formats import DS_1A1D_PERMUTE, DS_1A_SWIZZLE

DEFS = (
    Instruction("DS_PERMUTE_B32", DS_1A1D_PERMUTE, ["ds_permute_b32"]),
    Instruction("DS_BPERMUTE_B32", DS_1A1D_PERMUTE, ["ds_bpermute_b32"]),
    Instruction("DS_SWIZZLE_B32", DS_1A_SWIZZLE, ["ds_swizzle_b32"]),
)

PATTERNS = (
    Pat("(int_amdgcn_ds_permute i32:$addr, i32:$data0)", "(DS_PERMUTE_B32 $addr, $data0, 0)"),
    Pat("(int_amdgcn_ds_bpermute i32:$addr, i32:$data0)", "(DS_BPERMUTE_B32 $addr, $data0, 0)"),
    Pat("(int_amdgcn_ds_swizzle i32:$src, timm:$offset)", "(DS_SWIZZLE_B32 $src, Swizzle:$offset, 0)"),
)

"""AMDGPU intrinsics of the subset, with LLVM 19's names, types and properties
(IntrinsicsAMDGPU.td) and the divergence class LLVM's uniformity analysis gives them
(checked with `opt-19 -passes='print<uniformity>'`: ds.swizzle and mbcnt.lo/hi are
sources of divergence, readlane/readfirstlane always uniform, ds.permute/bpermute
follow their operands)."""

from tdgen.hw import DivergenceKind
from tdgen.model import (
    ImmArg,
    Intrinsic,
    IntrConvergent,
    IntrNoCallback,
    IntrNoFree,
    IntrNoMem,
    IntrSpeculatable,
    IntrWillReturn,
    NoUndef,
)
from tdgen.types import LLVMMatchType, llvm_any_ty, llvm_i32_ty

_CROSS_LANE = [IntrNoMem, IntrConvergent, IntrWillReturn, IntrNoCallback, IntrNoFree]

int_amdgcn_workitem_id_x = Intrinsic(
    "int_amdgcn_workitem_id_x", [llvm_i32_ty], [], [NoUndef(), IntrNoMem, IntrSpeculatable],
    divergence=DivergenceKind.SOURCE, default_attrs=True,
)
int_amdgcn_ds_permute = Intrinsic(
    "int_amdgcn_ds_permute", [llvm_i32_ty], [llvm_i32_ty, llvm_i32_ty], _CROSS_LANE,
    divergence=DivergenceKind.FOLLOWS_OPERANDS, clang_builtin="__builtin_amdgcn_ds_permute",
)
int_amdgcn_ds_bpermute = Intrinsic(
    "int_amdgcn_ds_bpermute", [llvm_i32_ty], [llvm_i32_ty, llvm_i32_ty], _CROSS_LANE,
    divergence=DivergenceKind.FOLLOWS_OPERANDS, clang_builtin="__builtin_amdgcn_ds_bpermute",
)
int_amdgcn_ds_swizzle = Intrinsic(
    "int_amdgcn_ds_swizzle", [llvm_i32_ty], [llvm_i32_ty, llvm_i32_ty], _CROSS_LANE + [ImmArg(1)],
    divergence=DivergenceKind.SOURCE, clang_builtin="__builtin_amdgcn_ds_swizzle",
)
int_amdgcn_readfirstlane = Intrinsic(
    "int_amdgcn_readfirstlane", [llvm_any_ty], [LLVMMatchType(0)], _CROSS_LANE,
    divergence=DivergenceKind.ALWAYS_UNIFORM,
)
int_amdgcn_readlane = Intrinsic(
    "int_amdgcn_readlane", [llvm_any_ty], [LLVMMatchType(0), llvm_i32_ty], _CROSS_LANE,
    divergence=DivergenceKind.ALWAYS_UNIFORM,
)
int_amdgcn_mbcnt_lo = Intrinsic(
    "int_amdgcn_mbcnt_lo", [llvm_i32_ty], [llvm_i32_ty, llvm_i32_ty], [IntrNoMem],
    divergence=DivergenceKind.SOURCE, default_attrs=True, clang_builtin="__builtin_amdgcn_mbcnt_lo",
)
int_amdgcn_mbcnt_hi = Intrinsic(
    "int_amdgcn_mbcnt_hi", [llvm_i32_ty], [llvm_i32_ty, llvm_i32_ty], [IntrNoMem],
    divergence=DivergenceKind.SOURCE, default_attrs=True, clang_builtin="__builtin_amdgcn_mbcnt_hi",
)

INTRINSICS = (
    int_amdgcn_workitem_id_x,
    int_amdgcn_ds_permute,
    int_amdgcn_ds_bpermute,
    int_amdgcn_ds_swizzle,
    int_amdgcn_readfirstlane,
    int_amdgcn_readlane,
    int_amdgcn_mbcnt_lo,
    int_amdgcn_mbcnt_hi,
)

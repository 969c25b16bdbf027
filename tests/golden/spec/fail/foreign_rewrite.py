# Rewrites of foreign intrinsics LLVM 19 does not have, or whose signature does not
# fit the target intrinsic they are rewritten to.
from tdgen.model import Const, Intrinsic, IntrConvergent, IntrNoMem, Rewrite
from tdgen.types import llvm_float_ty, llvm_i32_ty

from ._base import tiny

I32 = [llvm_i32_ty]
shfl = Intrinsic("int_tiny_shfl", I32, [llvm_i32_ty, llvm_i32_ty], [IntrNoMem, IntrConvergent])
loose = Intrinsic("int_tiny_loose", I32, [llvm_i32_ty, llvm_i32_ty], [IntrNoMem])
fshfl = Intrinsic("int_tiny_fshfl", [llvm_float_ty], [llvm_float_ty, llvm_i32_ty], [IntrNoMem, IntrConvergent])

TARGET = tiny(
    intrinsics=(shfl, loose, fshfl),
    rewrites=(
        Rewrite("llvm.nvvm.shfl.sync.idx.i64", shfl, [1, 2], foreign_params=4),
        Rewrite("llvm.nvvm.shfl.sync.index.i32", shfl, [1, 2]),
        Rewrite("llvm.nvvm.shfl.sync.up.i32", shfl, [1, 2], foreign_params=3),
        Rewrite("llvm.nvvm.shfl.sync.down.f32", shfl, [1, 2]),
        Rewrite("llvm.nvvm.shfl.sync.bfly.i32p", shfl, [1, 2]),
        Rewrite("llvm.nvvm.shfl.sync.idx.i32", loose, [1, 2]),
        Rewrite("llvm.nvvm.shfl.idx.f32", fshfl, [0, Const(31, "i64")]),
    ),
)

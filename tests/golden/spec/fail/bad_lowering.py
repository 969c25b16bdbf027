# Lowering/rewrite operand maps that do not fit the node and intrinsics.
from tdgen.hw import DivergenceKind
from tdgen.model import (
    Intrinsic, IntrConvergent, IntrNoMem, Lowering, Rewrite, SDNode, SDTCisSameAs, SDTCisVT,
    SDTypeProfile,
)
from tdgen.types import i32, llvm_i32_ty

from ._base import tiny

shfl = Intrinsic("int_tiny_shfl", [llvm_i32_ty], [llvm_i32_ty, llvm_i32_ty],
                 [IntrNoMem, IntrConvergent], divergence=DivergenceKind.FOLLOWS_OPERANDS)
wrong = Intrinsic("int_other_thing", [llvm_i32_ty], [])
prof = SDTypeProfile(1, 2, [SDTCisVT(0, i32), SDTCisSameAs(0, 3)], name="SDT_Shfl")
node = SDNode("tinyshfl", "OtherISD::SHFL", prof)

TARGET = tiny(
    intrinsics=(shfl, wrong),
    profiles=(prof,),
    nodes=(node,),
    lowerings=(Lowering(shfl, node, [0, 1, 2]),),
    rewrites=(Rewrite("llvm.nvvm.shfl.sync.idx.i32", shfl, [1, 5], foreign_params=4),),
)

# Lowerings whose SDNode does not carry the chain the intrinsic has (or has one the
# intrinsic lacks), one whose node returns a different number of values, one whose
# intrinsic types break the node's profile.
from tdgen.model import (
    Intrinsic, IntrConvergent, IntrHasSideEffects, IntrInaccessibleMemOnly, IntrNoMem,
    Lowering, SDNode, SDTCisSameAs, SDTCisVT, SDTypeProfile,
)
from tdgen.types import i32, llvm_f32_ty, llvm_i32_ty

from ._base import tiny

I32 = [llvm_i32_ty]
swap = Intrinsic("int_tiny_swap", I32, I32, [IntrInaccessibleMemOnly, IntrConvergent])
probe = Intrinsic("int_tiny_probe", I32, I32, [IntrNoMem, IntrHasSideEffects])
pure = Intrinsic("int_tiny_pure", I32, I32, [IntrNoMem])
pair = Intrinsic("int_tiny_pair", I32, I32, [IntrNoMem])
fpure = Intrinsic("int_tiny_fpure", I32, [llvm_f32_ty], [IntrNoMem])

unary = SDTypeProfile(1, 1, [SDTCisVT(0, i32), SDTCisSameAs(0, 1)], name="SDT_TinyUnary")
two = SDTypeProfile(2, 1, [SDTCisVT(0, i32), SDTCisSameAs(0, 1), SDTCisSameAs(0, 2)], name="SDT_TinyTwo")
plain = SDNode("tinyplain", "TinyISD::PLAIN", unary)
chained = SDNode("tinychained", "TinyISD::CHAINED", unary, ["SDNPHasChain"])
split = SDNode("tinysplit", "TinyISD::SPLIT", two)

TARGET = tiny(
    intrinsics=(swap, probe, pure, pair, fpure),
    profiles=(unary, two),
    nodes=(plain, chained, split),
    lowerings=(
        Lowering(swap, plain),
        Lowering(probe, plain),
        Lowering(pure, chained),
        Lowering(pair, split),
        Lowering(fpure, plain),
    ),
)

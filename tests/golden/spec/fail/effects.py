# Instructions whose mayLoad/mayStore/hasSideEffects deny what their patterns do
# (llvm-tblgen-19: "Pattern doesn't match mayLoad = 0").
from tdgen.model import (
    Instruction, Intrinsic, IntrInaccessibleMemOnly, IntrReadMem, Pat, SDNode, SDTCisVT,
    SDTypeProfile,
)
from tdgen.types import i32, llvm_i32_ty

from ._base import ALU, tiny

peek = Intrinsic("int_tiny_peek", [llvm_i32_ty], [llvm_i32_ty, llvm_i32_ty], [IntrReadMem])
swap = Intrinsic("int_tiny_swap", [llvm_i32_ty], [llvm_i32_ty, llvm_i32_ty], [IntrInaccessibleMemOnly])
prof = SDTypeProfile(1, 2, [SDTCisVT(0, i32), SDTCisVT(1, i32), SDTCisVT(2, i32)], name="SDT_TinyFence")
fence = SDNode("tinyfence", "TinyISD::FENCE", prof, ["SDNPHasChain", "SDNPSideEffect"])

TARGET = tiny(
    intrinsics=(peek, swap),
    profiles=(prof,),
    nodes=(fence,),
    defs=[
        Instruction("V_PEEK", ALU, ["v_peek"], lets={"Unit": "valu"},
                    pattern="(set i32:$dst, (int_tiny_peek i32:$src0, i32:$src1))"),
        Instruction("V_SWAP", ALU, ["v_swap"], lets={"Unit": "valu", "mayLoad": 1}),
        Instruction("V_STORE", ALU, ["v_store"], lets={"Unit": "valu", "mayStore": 1},
                    pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
    ],
    patterns=[
        Pat("(int_tiny_swap i32:$a, i32:$b)", "(V_SWAP $a, $b)"),
        Pat("(tinyfence i32:$a, i32:$b)", "(V_PEEK $a, $b)"),
    ],
)

# An intrinsic declared ALWAYS_UNIFORM that a SOURCE rule also matches: two answers.
from tdgen.hw import DivergenceKind, DivergenceRule, UniformityModel
from tdgen.model import Instruction, Intrinsic, IntrNoMem, Target
from tdgen.types import llvm_i32_ty

from ._base import ALU, SReg, VReg

int_tiny_read = Intrinsic("int_tiny_read", [llvm_i32_ty], [llvm_i32_ty], [IntrNoMem],
                          divergence=DivergenceKind.ALWAYS_UNIFORM)
int_tiny_id = Intrinsic("int_tiny_id", [llvm_i32_ty], [], [IntrNoMem], divergence=DivergenceKind.SOURCE)

TARGET = Target(
    "tiny", namespace="Tiny", target_prefix="tiny", register_classes=(SReg, VReg), classes=(ALU,),
    intrinsics=(int_tiny_read, int_tiny_id),
    uniformity=UniformityModel(rules=(DivergenceRule("llvm.tiny.*", DivergenceKind.SOURCE),)),
    defs=[Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"},
                      pattern="(set i32:$dst, (add i32:$src0, i32:$src1))")],
)

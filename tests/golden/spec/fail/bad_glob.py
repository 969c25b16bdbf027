# Divergence globs LLVM 19's GlobPattern::create rejects (the generated C++ would drop
# the rule while the model matched it): an unmatched '[', a stray '\', a reversed range.
from tdgen.hw import DivergenceKind, DivergenceRule, UniformityModel
from tdgen.model import Instruction, Target

from ._base import ALU, SReg, VReg

TARGET = Target(
    "tiny", namespace="Tiny", target_prefix="tiny", register_classes=(SReg, VReg), classes=(ALU,),
    uniformity=UniformityModel(rules=(
        DivergenceRule("llvm.x.lane.[id", DivergenceKind.SOURCE),
        DivergenceRule("llvm.x.ok.*", DivergenceKind.SOURCE),
        DivergenceRule("llvm.x.tail\\", DivergenceKind.ALWAYS_UNIFORM),
        DivergenceRule("llvm.x.[z-a]", DivergenceKind.SOURCE),
    )),
    defs=[Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"},
                      pattern="(set i32:$dst, (add i32:$src0, i32:$src1))")],
)

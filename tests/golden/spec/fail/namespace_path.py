# A namespace that is a path would write files outside --out.
from tdgen.model import Instruction, Target

from ._base import ALU, SReg, VReg

TARGET = Target(
    "tiny", namespace="/tmp/abs", target_prefix="tiny", register_classes=(SReg, VReg), classes=(ALU,),
    defs=[Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"},
                      pattern="(set i32:$dst, (add i32:$src0, i32:$src1))")],
)

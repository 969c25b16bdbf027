# 'add' takes two operands (SDTIntBinOp); the pattern gives three.
from tdgen.model import Instruction

from ._base import ALU, tiny

TARGET = tiny(defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"},
                pattern="(set i32:$dst, (add i32:$src0, i32:$src1, 7))"),
])

# The pattern uses a fragment that is not defined anywhere.
from tdgen.model import Instruction

from ._base import ALU, tiny

TARGET = tiny(defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"},
                pattern="(set i32:$dst, (divergent_add i32:$src0, i32:$src1))"),
])

# A list inside Target's list of defs: said as a nested list, not as a contradiction.
from tdgen.model import Instruction

from ._base import ALU, tiny

ADDS = [Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"},
                    pattern="(set i32:$dst, (add i32:$src0, i32:$src1))")]

TARGET = tiny(defs=[ADDS])

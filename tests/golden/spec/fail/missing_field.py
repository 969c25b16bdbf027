# Class ALU declares field 'Unit' without a default; this def never sets it.
from tdgen.model import Instruction

from ._base import ALU, tiny

TARGET = tiny(defs=[
    Instruction("V_SUB", ALU, ["v_sub"],
                pattern="(set i32:$dst, (sub i32:$src0, i32:$src1))"),
])

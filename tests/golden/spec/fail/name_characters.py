# A NUL byte and a newline in a record name: printed escaped, one line per error.
from tdgen.model import Instruction

from ._base import ALU, tiny

TARGET = tiny(defs=[
    Instruction("V_A\x00DD", ALU, ["v_add"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
    Instruction("V_SUB\nV_X", ALU, ["v_sub"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (sub i32:$src0, i32:$src1))"),
])

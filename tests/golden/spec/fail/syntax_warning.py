# Python warns of the invalid escape '\d' when it compiles the spec; only tdgen's
# error is printed.
from tdgen.model import Instruction

from ._base import ALU, tiny

NOTE = "lanes \d"

TARGET = tiny(defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (add i32:$src0, i32:$srcX))"),
])

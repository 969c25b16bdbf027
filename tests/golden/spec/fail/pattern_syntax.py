# A pattern string that does not parse: the inner DAG is not closed.
from tdgen.model import Instruction

from ._base import ALU, tiny

TARGET = tiny(defs=[
    Instruction("V_OR", ALU, ["v_or"], lets={"Unit": "valu"},
                pattern="(set i32:$dst, (or i32:$src0, i32:$src1)"),
])

# More registers than the 16-bit HWEncoding numbers.
from tdgen.model import Instruction, RegisterClass, reg_names
from tdgen.types import i32

from ._base import ALU, SReg, VReg, tiny

Huge = RegisterClass("Huge", "vector", [i32], reg_names("H", 70000))

TARGET = tiny(register_classes=(SReg, VReg, Huge), defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
])

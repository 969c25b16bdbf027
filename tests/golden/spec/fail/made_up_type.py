# A register class typed by a ValueType made up in the spec (not one of tdgen.types') is
# reported, and the patterns over it are not type-checked against it (found by the spec
# fuzz: the type inference crashed on the unknown name).
from tdgen.model import Instruction, RegisterClass, reg_names
from tdgen.types import ValueType

from ._base import ALU, SReg, tiny

VReg = RegisterClass("VReg", "vector", [ValueType("i32i32", "int", 32)], reg_names("V", 8))

TARGET = tiny(register_classes=(SReg, VReg), defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
])

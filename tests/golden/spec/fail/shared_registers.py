# A vector class made with the scalar prefix shares SReg's registers across register
# files; a class overlapping VReg without holding it (or being held) is no sub-class.
from tdgen.model import Instruction, RegisterClass, reg_names
from tdgen.types import i32

from ._base import ALU, SReg, VReg, tiny

VBad = RegisterClass("VBad", "vector", [i32], reg_names("S", 8))
VOverlap = RegisterClass("VOverlap", "vector", [i32], reg_names("V", 4, start=6))
VLow = RegisterClass("VLow", "vector", [i32], reg_names("V", 4))  # a sub-class of VReg: fine

TARGET = tiny(register_classes=(SReg, VReg, VBad, VOverlap, VLow), defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"},
                pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
])

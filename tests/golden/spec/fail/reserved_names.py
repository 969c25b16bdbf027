# Record names are TableGen identifiers, not reserved words; instruction and register
# names become C++ enumerators, so no C++ keywords either.
from tdgen.model import Instruction, RegisterClass
from tdgen.types import i32

from ._base import ALU, SReg, VReg, tiny

KReg = RegisterClass("KReg", "vector", [i32], ["K0", "delete"])
foreach = RegisterClass("foreach", "vector", [i32], ["F0"])

TARGET = tiny(register_classes=(SReg, VReg, KReg, foreach), defs=[
    Instruction("def", ALU, ["v_add"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
    Instruction("new", ALU, ["v_sub"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (sub i32:$src0, i32:$src1))"),
    Instruction("V-OR", ALU, ["v_or"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (or i32:$src0, i32:$src1))"),
])

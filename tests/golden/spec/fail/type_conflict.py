# SDTIntBinOp requires both operands of 'and' to have the result's type.
from tdgen.model import Instruction, RegisterClass, reg_names
from tdgen.types import f32, i32

from ._base import ALU, SReg, tiny

FReg = RegisterClass("FReg", "vector", [i32, f32], reg_names("F", 4))

TARGET = tiny(
    register_classes=(SReg, FReg),
    defs=[
        Instruction("V_AND", ALU, ["v_and"], lets={"Unit": "valu"},
                    outs="(outs FReg:$dst)", ins="(ins FReg:$src0, FReg:$src1)",
                    pattern="(set i32:$dst, (and i32:$src0, f32:$src1))"),
    ],
)

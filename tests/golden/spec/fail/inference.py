# Patterns llvm-tblgen cannot type: a value left with two legal types, and an
# instruction pattern whose top-level form yields a value outside 'set'.
from tdgen.model import Instruction, RegisterClass
from tdgen.types import f32, i32

from ._base import ALU, SReg, VReg, tiny

WReg = RegisterClass("WReg", "vector", [i32, f32], ["W0", "W1"])

TARGET = tiny(register_classes=(SReg, VReg, WReg), defs=[
    Instruction("V_CAST", ALU, ["v_cast"], lets={"Unit": "valu", "ins": "(ins WReg:$src0)", "asm": "v_cast $dst, $src0",
                                                 "outs": "(outs WReg:$dst)"},
                pattern="(set WReg:$dst, (bitconvert WReg:$src0))"),
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"},
                pattern="(add i32:$src0, i32:$src1)"),
])

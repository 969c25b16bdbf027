# Strings written into .td: a '"' in a clang builtin name, control characters in an asm
# string and in a register name.
from tdgen.model import Instruction, Intrinsic, IntrNoMem, RegisterClass
from tdgen.types import i32, llvm_i32_ty

from ._base import ALU, SReg, VReg, tiny

int_tiny_x = Intrinsic("int_tiny_x", [llvm_i32_ty], [], [IntrNoMem], clang_builtin='__builtin_"x')
QReg = RegisterClass("QReg", "vector", [i32], ["Q\x01", "Q2"])

TARGET = tiny(intrinsics=(int_tiny_x,), register_classes=(SReg, VReg, QReg), defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"}, asm="v_add $dst,\t$src0\x07, $src1",
                pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
])

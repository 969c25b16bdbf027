# A register class typed by a ValueType made up in the spec (not one of tdgen.types'), or
# an intrinsic by a made-up intrinsic type, is reported, and the patterns over them are
# not type-checked against it (found by the spec fuzz: the type inference crashed on
# the unknown name, and on a number where a value type belongs).
from tdgen.model import Instruction, Intrinsic, IntrNoMem, Pat, RegisterClass, reg_names
from tdgen.types import IntrinsicType, ValueType, llvm_i32_ty

from ._base import ALU, SReg, tiny

VReg = RegisterClass("VReg", "vector", [ValueType("i32i32", "int", 32)], reg_names("V", 8))
odd = Intrinsic("int_tiny_odd", [IntrinsicType("llvm_any_ty", 15, "any")], [llvm_i32_ty, llvm_i32_ty], [IntrNoMem])

TARGET = tiny(register_classes=(SReg, VReg), intrinsics=(odd,), defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
], patterns=[Pat("(int_tiny_odd i32:$a, i32:$b)", "(V_ADD $a, $b)")])

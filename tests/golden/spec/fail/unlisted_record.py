# An ImmLeaf and an intrinsic the spec defines but does not list in Target(...): the
# message says where to list them.
from tdgen.model import ImmLeaf, Instruction, Intrinsic, IntrNoMem
from tdgen.types import i32, llvm_i32_ty

from ._base import ALU, tiny

simm8 = ImmLeaf("simm8", i32, "return isInt<8>(Imm);")
int_tiny_id = Intrinsic("int_tiny_id", [llvm_i32_ty], [], [IntrNoMem])

TARGET = tiny(defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (add i32:$src0, simm8:$src1))"),
    Instruction("V_ID", ALU, ["v_id"], lets={"Unit": "valu", "ins": "(ins)", "asm": "v_id $dst"},
                pattern="(set i32:$dst, (int_tiny_id))"),
])

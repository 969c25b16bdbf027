# A result's bare names are registers, register classes or sub-register indices (an
# operand kind there crashes llvm-tblgen-19's matcher generator), and each name the
# source binds once is used by the result (llvm-tblgen-19: "Pattern has dead named
# input"). Found by the spec fuzz.
from tdgen.model import Instruction, OperandKind, Pat
from tdgen.types import i16

from ._base import ALU, tiny

offset = OperandKind("offset16", i16)

TARGET = tiny(operands=(offset,), defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"}),
], patterns=[
    Pat("(add i32:$a, i32:$b)", "(V_ADD $a, offset16)"),
    Pat("(sub i32:$a, i32:$b)", "(V_ADD $a, $a)"),
    Pat("(or i32:$a, i32:$a)", "(V_ADD VReg, SReg)"),
])

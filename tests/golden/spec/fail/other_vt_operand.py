# sign_extend_inreg's width (SDTCisVTSmallerThanOp<2, 1>) is a VT operand, not a value:
# like llvm-tblgen ("expects a VT operand"), only a value-type leaf written in place may
# stand there -- not a variable, a typed value, a constant, a DAG or a fragment operand.
from tdgen.model import Instruction, Pat, PatFrag

from ._base import ALU, tiny

sext_by = PatFrag("sext_by", ["src", "vt"], "(sext_inreg node:$src, node:$vt)")
sext_i8 = PatFrag("sext_i8", ["src"], "(sext_inreg node:$src, i8)")

TARGET = tiny(frags=(sext_by, sext_i8), defs=[
    Instruction("V_SEXT", ALU, ["v_sext"], lets={"Unit": "valu", "ins": "(ins VReg:$src0)", "asm": "v_sext $dst, $src0"}),
], patterns=[
    Pat("(sext_inreg i32:$src, i8)", "(V_SEXT $src)"),
    Pat("(sext_i8 i32:$src)", "(V_SEXT $src)"),
    Pat("(sext_inreg i32:$src, $x)", "(V_SEXT $src)"),
    Pat("(sext_inreg i32:$src, i32:$w)", "(V_SEXT $src)"),
    Pat("(sext_inreg i32:$src, 8)", "(V_SEXT $src)"),
    Pat("(sext_inreg i32:$src, (add i32:$a, i32:$b))", "(V_SEXT $src)"),
])

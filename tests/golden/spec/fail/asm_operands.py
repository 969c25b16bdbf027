# Asm placeholders: '{opNam}' names no template argument (it would be written literally
# into AsmString) and '$foo' / '${bar:mod}' name no operand (llvm-tblgen's asm writer
# rejects them); '$$' is a literal '$'.
from tdgen.model import InstrClass, Instruction

from ._base import ALU, tiny

A2 = InstrClass("A2", parent=ALU, parent_args=["v_add"],
                lets={"asm": "{opNam} $dst, $src0, $foo, ${bar:mod}, $$"})

TARGET = tiny(classes=(ALU, A2), defs=[
    Instruction("V_ADD", A2, lets={"Unit": "valu"}, pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
])

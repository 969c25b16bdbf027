# Names llvm/Target/Target.td (included by every generated .td) already gives a def or a
# class: a value type, TableGen's Pattern class, a target-independent instruction, as a
# record name or a register name (found by the spec fuzz: llvm-tblgen-19 reports "def
# already exists" / "Class 'Pattern' already defined").
from tdgen.model import InstrClass, Instruction, RegisterClass
from tdgen.types import i32

from ._base import ALU, SReg, VReg, tiny

Pattern = InstrClass("Pattern", parent=ALU, parent_args=["v_pat"])
Copies = RegisterClass("Copies", "vector", [i32], ["C0", "COPY"])

TARGET = tiny(register_classes=(SReg, VReg, Copies), classes=(ALU, Pattern), defs=[
    Instruction("i32", ALU, ["v_add"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
    Instruction("V_SUB", Pattern, [], lets={"Unit": "valu"}),
])

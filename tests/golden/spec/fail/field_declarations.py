# Field and template-argument declarations llvm-tblgen-19 rejects or crashes on: an
# empty type, a name that is no type, bits<-1>, a field named like one of Instruction's
# own ('Pattern'), a reserved word as a field name.
from tdgen.model import InstrClass, InstrField, Instruction, Param

from ._base import ALU, tiny

A3 = InstrClass("A3", parent=ALU, parent_args=["v_add"],
                params=[Param("width", "")],
                fields=[InstrField("foo", "", 0), InstrField("bar", "Banana", 0),
                        InstrField("enc", "bits<-1>", 0), InstrField("Pattern", "string", ""),
                        InstrField("let", "int", 0)])

TARGET = tiny(classes=(ALU, A3), defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
])

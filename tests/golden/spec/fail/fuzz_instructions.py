# Instruction holes the spec fuzz found (each accepted before, then refused by
# llvm-tblgen-19): a field initialised with a template argument of a type it cannot
# take; a set destination typed by a node (llvm-tblgen-19: "set destination should be a
# register"); Size left unset (its backends read it as an int); a multiclass def named
# by a reserved word.
from tdgen.model import Defm, InstrClass, InstrField, Instruction, Multiclass, Param, Ref

from ._base import ALU, tiny

Named = InstrClass("Named", parent=ALU, parent_args=[Ref("opName")], params=[Param("opName", "string")],
                   fields=[InstrField("Mnemonic", "dag", Ref("opName"))])
Wide = InstrClass("Wide", parent=ALU, parent_args=[Ref("opName")], params=[Param("opName", "string"),
                  Param("w", "bits<8>")], fields=[InstrField("Width", "bits<4>", Ref("w"))])
Words = Multiclass("Words", params=[Param("opName", "string")], defs=[
    Instruction("class", ALU, [Ref("opName")], lets={"Unit": "valu"}),
])

TARGET = tiny(classes=(ALU, Named, Wide), multiclasses=(Words,), defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"}, pattern="(set imm:$dst, (add i32:$src0, i32:$src1))"),
    Instruction("V_SUB", ALU, ["v_sub"], lets={"Unit": "valu", "Size": None}),
    Defm("V_RES", Words, ["v_res"]),
])

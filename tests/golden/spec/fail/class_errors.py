# Mistakes inside class declarations: a let of a field no class declares, a field
# default of the wrong type, a parent given too many template arguments.
from tdgen.model import InstrClass, InstrField, Instruction, Param, Ref

from ._base import ALU, tiny

VOP = InstrClass("VOP", params=[Param("opName", "string")], parent=ALU, parent_args=[Ref("opName"), "x"],
                 fields=[InstrField("Lanes", "bits<2>", 7)], lets={"Unit": "valu", "Latency": 4})

TARGET = tiny(classes=(ALU, VOP), defs=[
    Instruction("V_ADD", VOP, ["v_add"], pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
    Instruction("V_SUB", VOP, ["v_sub"], pattern="(set i32:$dst, (sub i32:$src0, i32:$src1))"),
])

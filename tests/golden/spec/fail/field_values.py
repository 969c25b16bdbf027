# Values that do not fit their field's TableGen type, also in a class no def uses: a
# non-integer bit, a bit tblgen reads as out of range, a string for mayStore.
from tdgen.model import InstrClass, InstrField, Instruction

from ._base import ALU, tiny

Unused = InstrClass("Unused", parent=ALU, parent_args=["v_add"],
                    fields=[InstrField("isRTN", "bit", 1.5), InstrField("big", "bit", 10 ** 30)],
                    lets={"mayStore": "yes"})

TARGET = tiny(classes=(ALU, Unused), defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
])

# Found by the spec fuzz (accepted, then refused by llvm-tblgen-19): a defm of a
# multiclass the target does not list ("Couldn't find multiclass"), and an instruction
# in another namespace than the target's (-gen-instr-info: "No instructions defined!").
from tdgen.model import Defm, Instruction, Multiclass, Param, Ref

from ._base import ALU, tiny

Pair = Multiclass("Pair", params=[Param("opName", "string")], defs=[
    Instruction("_E32", ALU, [Ref("opName")], lets={"Unit": "valu"}),
])

TARGET = tiny(defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu", "Namespace": ""}),
    Instruction("V_SUB", ALU, ["v_sub"], lets={"Unit": "valu", "Namespace": "Other"}),
    Defm("V_PAIR", Pair, ["v_pair"]),
])

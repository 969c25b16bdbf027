# Wrong template arguments: too many for the class, a Ref to no parameter, bad operand kind.
from tdgen.model import InstrClass, Instruction, Param, Ref

from ._base import ALU, tiny

Unary = InstrClass(
    "Unary",
    params=[Param("opName", "string")],
    lets={"Namespace": "Tiny", "outs": "(outs VReg:$dst)", "ins": "(ins VRegs:$src0)",
          "asm": "{opName} $dst, $src0"},
)

TARGET = tiny(
    classes=(ALU, Unary),
    defs=[
        Instruction("V_ADD", ALU, ["v_add", "extra"], lets={"Unit": "valu"}),
        Instruction("V_NOT", Unary, [Ref("name")]),
    ],
)

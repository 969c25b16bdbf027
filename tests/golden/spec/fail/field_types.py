# Field values and template arguments must fit their declared TableGen types.
from tdgen.model import InstrClass, InstrField, Instruction, Param

from ._base import VReg, tiny

Shfl = InstrClass(
    "Shfl",
    params=[Param("opName", "string"), Param("rc", "RegisterClass")],
    fields=[InstrField("isRTN", "bit", 0), InstrField("Encoding", "bits<4>", 0)],
    lets={"Namespace": "Tiny", "outs": "(outs rc:$vdst)", "ins": "(ins rc:$src0)", "asm": "{opName} $vdst, $src0"},
)

TARGET = tiny(
    classes=(Shfl,),
    defs=[
        Instruction("SHFL_A", Shfl, ["shfl_a", VReg], lets={"isRTN": 2, "Encoding": 16}),
        Instruction("SHFL_B", Shfl, ["shfl_b", 32]),
    ],
)

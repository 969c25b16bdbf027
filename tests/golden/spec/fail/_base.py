"""Shared pieces of the bad-spec corpus: a tiny valid target to break one thing at a time."""

from tdgen.model import InstrClass, InstrField, Param, RegisterClass, Target, reg_names
from tdgen.types import i32

SReg = RegisterClass("SReg", "scalar", [i32], reg_names("S", 8))
VReg = RegisterClass("VReg", "vector", [i32], reg_names("V", 8))

ALU = InstrClass(
    "ALU",
    params=[Param("opName", "string")],
    fields=[InstrField("Unit", "string")],  # no default: every def must set it
    lets={
        "Namespace": "Tiny", "Size": 4, "mayLoad": 0, "mayStore": 0, "hasSideEffects": 0,
        "outs": "(outs VReg:$dst)",
        "ins": "(ins VReg:$src0, VReg:$src1)",
        "asm": "{opName} $dst, $src0, $src1",
    },
)


def tiny(**kw):
    """A Target named 'tiny' with the shared registers and class plus ``kw``."""
    base = dict(
        namespace="Tiny", target_prefix="tiny", isd_namespace="TinyISD",
        register_classes=(SReg, VReg), classes=(ALU,),
    )
    base.update(kw)
    return Target("tiny", **base)

# A namespace becomes file names (<NS>.td) and a C++ namespace: a space, a path and a
# C++ keyword are not identifiers of both.
from tdgen.model import Instruction, Target

from ._base import ALU, SReg, VReg

TARGET = Target(
    "tiny", namespace="My GPU", target_prefix="tiny", isd_namespace="../esc",
    register_classes=(SReg, VReg), classes=(ALU,),
    defs=[Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"},
                      pattern="(set i32:$dst, (add i32:$src0, i32:$src1))")],
)

# A small valid spec: a class with a required field, a def, a Pat and a wrapper frag.
from tdgen.builtins import BUILTIN_NODES
from tdgen.model import InstrClass, InstrField, Instruction, Param, Pat, RegisterClass, Target, divergent, reg_names
from tdgen.types import i32

VReg = RegisterClass("VReg", "vector", [i32], reg_names("V", 8))
ALU = InstrClass(
    "ALU",
    params=[Param("opName", "string")],
    fields=[InstrField("Unit", "string")],
    lets={"Namespace": "Tiny", "outs": "(outs VReg:$dst)", "ins": "(ins VReg:$src0, VReg:$src1)",
          "asm": "{opName} $dst, $src0, $src1", "mayLoad": 0, "mayStore": 0, "hasSideEffects": 0},
)
div_sub = divergent(BUILTIN_NODES["sub"], "div_sub")

TARGET = Target(
    "tiny",
    namespace="Tiny",
    target_prefix="tiny",
    isd_namespace="TinyISD",
    register_classes=(VReg,),
    frags=(div_sub,),
    classes=(ALU,),
    defs=[
        Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"},
                    pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
        Instruction("V_SUB", ALU, ["v_sub"], lets={"Unit": "valu"}),
    ],
    patterns=[Pat("(div_sub i32:$a, i32:$b)", "(V_SUB $a, $b)", added_complexity=2)],
)

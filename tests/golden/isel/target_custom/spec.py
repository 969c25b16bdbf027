"""A small target whose CustomSelect step has a bug, for the isel golden-error corpus.

``SelectShl`` (a C++ Select case modeled before the table) picks the scalar shift for
every node, so a divergent shl is a spec error at the step's ``model`` field; the
uniform shl it selects correctly.
"""

from tdgen.hw import DivergenceKind, DivergenceRule, UniformityModel
from tdgen.model import CustomSelect, DivergenceFrag, Instruction, RegisterClass, Target
from tdgen.types import VALUE_TYPES

i32 = VALUE_TYPES["i32"]

SReg = RegisterClass("SReg", "scalar", (i32,), ("S0", "S1", "S2", "S3"))
VReg = RegisterClass("VReg", "vector", (i32,), ("V0", "V1", "V2", "V3"))
Uni = DivergenceFrag("Uni", "uniform", 2)
Div = DivergenceFrag("Div", "divergent", 2)

DEFS = (
    Instruction("S_XOR", outs="(outs SReg:$d)", ins="(ins SReg:$a, SReg:$b)", asm="s_xor $d, $a, $b",
                pattern="(set i32:$d, (Uni<xor> i32:$a, i32:$b))"),
    Instruction("V_XOR", outs="(outs VReg:$d)", ins="(ins VReg:$a, VReg:$b)", asm="v_xor $d, $a, $b",
                pattern="(set i32:$d, (Div<xor> i32:$a, i32:$b))"),
    Instruction("S_SHL", outs="(outs SReg:$d)", ins="(ins SReg:$a, SReg:$b)", asm="s_shl $d, $a, $b",
                pattern="(set i32:$d, (Uni<shl> i32:$a, i32:$b))"),
    Instruction("V_SHL", outs="(outs VReg:$d)", ins="(ins VReg:$a, VReg:$b)", asm="v_shl $d, $a, $b",
                pattern="(set i32:$d, (Div<shl> i32:$a, i32:$b))"),
)

SELECT_SHL = CustomSelect(
    "SelectShl", opcodes=("shl",), emits=("S_SHL", "V_SHL"),
    model="""
def select(N, cur):
    # bug: ignores N.divergent
    return cur.machine_node("S_SHL", N.ops[0], N.ops[1])
""")

TARGET = Target(
    "iselcustom", namespace="ISELCUSTOM", target_prefix="iselcustom",
    register_classes=(SReg, VReg), frag_classes=(Uni, Div), defs=DEFS, custom_selects=(SELECT_SHL,),
    uniformity=UniformityModel(
        rules=(DivergenceRule("llvm.amdgcn.workitem.id.*", DivergenceKind.SOURCE, "lane id"),),
        uniform_arg_ccs=frozenset({"amdgpu_kernel"})),
)

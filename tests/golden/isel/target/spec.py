"""A small, stable target for the isel golden-error corpus (tests/golden/isel/fail).

32-bit add and xor on the scalar file for uniform nodes and the vector file for divergent
ones; ``not`` only on the scalar side. Kept tiny so the expected error texts, which name
the closest patterns with their spec locations, do not move when the reference targets
grow.
"""

from tdgen.hw import DivergenceKind, DivergenceRule, UniformityModel
from tdgen.model import DivergenceFrag, Instruction, Pat, RegisterClass, Target
from tdgen.types import VALUE_TYPES

i32 = VALUE_TYPES["i32"]

SReg = RegisterClass("SReg", "scalar", (i32,), ("S0", "S1", "S2", "S3"))
VReg = RegisterClass("VReg", "vector", (i32,), ("V0", "V1", "V2", "V3"))
Uni = DivergenceFrag("Uni", "uniform", 2)
Div = DivergenceFrag("Div", "divergent", 2)

DEFS = (
    Instruction("S_ADD", outs="(outs SReg:$d)", ins="(ins SReg:$a, SReg:$b)", asm="s_add $d, $a, $b",
                pattern="(set i32:$d, (Uni<add> i32:$a, i32:$b))"),
    Instruction("V_ADD", outs="(outs VReg:$d)", ins="(ins VReg:$a, VReg:$b)", asm="v_add $d, $a, $b",
                pattern="(set i32:$d, (Div<add> i32:$a, i32:$b))"),
    Instruction("S_XOR", outs="(outs SReg:$d)", ins="(ins SReg:$a, SReg:$b)", asm="s_xor $d, $a, $b",
                pattern="(set i32:$d, (Uni<xor> i32:$a, i32:$b))"),
    Instruction("V_XOR", outs="(outs VReg:$d)", ins="(ins VReg:$a, VReg:$b)", asm="v_xor $d, $a, $b",
                pattern="(set i32:$d, (Div<xor> i32:$a, i32:$b))"),
    Instruction("S_NOT", outs="(outs SReg:$d)", ins="(ins SReg:$a)", asm="s_not $d, $a"),
)

PATTERNS = (Pat("(Uni<xor> i32:$a, -1)", "(S_NOT $a)", name="s_not_pat"),)

TARGET = Target(
    "iseltest", namespace="ISELTEST", target_prefix="iseltest",
    register_classes=(SReg, VReg), frag_classes=(Uni, Div), defs=DEFS, patterns=PATTERNS,
    uniformity=UniformityModel(
        rules=(DivergenceRule("llvm.amdgcn.workitem.id.*", DivergenceKind.SOURCE, "lane id"),),
        uniform_arg_ccs=frozenset({"amdgpu_kernel"})),
)

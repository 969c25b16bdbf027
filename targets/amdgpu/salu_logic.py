"""SALU logic ops with a built-in NOT (gfx900), selected for uniform and/or/xor trees.

s_andn2_b32 a & ~b, s_orn2_b32 a | ~b, s_nand_b32 ~(a & b), s_nor_b32 ~(a | b):
each pattern is uniform-only (UniformBinFrag/UniformUnaryFrag), so a divergent tree
still selects v_and/v_or/v_not. The NAND/NOR forms need the inner node to have one use
(as LLVM's and_oneuse/or_oneuse). Checked with llc-19 -mcpu=gfx900 -stop-after=amdgpu-isel.
"""

from tdgen.model import Instruction, PatFrag

from .formats import SOP2_32

and_oneuse = PatFrag("and_oneuse", ["src0", "src1"], "(and node:$src0, node:$src1)", has_one_use=True)
or_oneuse = PatFrag("or_oneuse", ["src0", "src1"], "(or node:$src0, node:$src1)", has_one_use=True)

FRAGS = (and_oneuse, or_oneuse)

_SCC = ["SCC"]  # these SALU ops write the scalar condition code

DEFS = (
    Instruction("S_ANDN2_B32", SOP2_32, ["s_andn2_b32"],
                pattern="(set i32:$sdst, (UniformBinFrag<and> i32:$src0, (UniformUnaryFrag<not> i32:$src1)))",
                implicit_defs=_SCC),
    Instruction("S_ORN2_B32", SOP2_32, ["s_orn2_b32"],
                pattern="(set i32:$sdst, (UniformBinFrag<or> i32:$src0, (UniformUnaryFrag<not> i32:$src1)))",
                implicit_defs=_SCC),
    Instruction("S_NAND_B32", SOP2_32, ["s_nand_b32"],
                pattern="(set i32:$sdst, (UniformUnaryFrag<not> (and_oneuse i32:$src0, i32:$src1)))",
                lets={"isCommutable": 1}, implicit_defs=_SCC),
    Instruction("S_NOR_B32", SOP2_32, ["s_nor_b32"],
                pattern="(set i32:$sdst, (UniformUnaryFrag<not> (or_oneuse i32:$src0, i32:$src1)))",
                lets={"isCommutable": 1}, implicit_defs=_SCC),
)

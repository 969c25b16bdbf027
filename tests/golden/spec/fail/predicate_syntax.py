# Predicate and transform C++ that does not parse is an error (not only a lint warning).
from tdgen.model import ImmLeaf, Instruction, PatLeaf, SDNodeXForm
from tdgen.types import i32

from ._base import ALU, tiny

Neg = SDNodeXForm("Neg", "imm", "return CurDAG->getTargetConstant(-N->getSExtValue(), SDLoc(N), MVT::i32)")
simm8 = ImmLeaf("simm8", i32, "return Imm > (;")
pimm = PatLeaf("pimm", "(imm)", 'return N->getName() == "x;')

TARGET = tiny(frags=(simm8, pimm), xforms=(Neg,), defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"},
                pattern="(set i32:$dst, (add i32:$src0, simm8:$src1))"),
    Instruction("V_SUB", ALU, ["v_sub"], lets={"Unit": "valu"},
                pattern="(set i32:$dst, (sub i32:$src0, pimm:$src1))"),
])

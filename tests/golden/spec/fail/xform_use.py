# SDNodeXForms in patterns: applied to a register value, given two operands, matched in a
# source, and a leaf fragment in a result that names no operand.
from tdgen.model import ImmLeaf, Instruction, Pat, SDNodeXForm
from tdgen.types import i32

from ._base import ALU, tiny

Neg = SDNodeXForm("Neg", "imm", "return CurDAG->getTargetConstant(-N->getSExtValue(), SDLoc(N), MVT::i32);")
NegSmall = ImmLeaf("NegSmall", i32, "return Imm >= -8 && Imm <= -2;", Neg)

TARGET = tiny(xforms=[Neg], frags=[NegSmall], defs=[
    Instruction("V_SUB", ALU, ["v_sub"], lets={"Unit": "valu"}),
], patterns=[
    Pat("(add i32:$a, i32:$b)", "(V_SUB $a, (Neg $b))"),
    Pat("(add i32:$a, (i32 imm:$b))", "(V_SUB $a, (Neg $a, $b))"),
    Pat("(Neg i32:$a)", "(V_SUB $a, $a)"),
    Pat("(add i32:$a, NegSmall:$b)", "(V_SUB $a, NegSmall)"),
    Pat("(sub i32:$a, i32:$b)", "(V_SUB $a, NegSmall:$b)"),
])

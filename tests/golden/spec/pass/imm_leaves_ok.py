# A valid spec with constant leaves: an ImmLeaf with an operand transform, a TImmLeaf,
# a PatLeaf over the node, an SDNodeXForm tdgen executes and one given by a model.
from tdgen.model import ImmLeaf, Instruction, InstrClass, Pat, PatLeaf, RegisterClass, SDNodeXForm, Target, reg_names
from tdgen.types import i32

VReg = RegisterClass("VReg", "vector", [i32], reg_names("V", 8))
ALU = InstrClass("ALU", lets={"Namespace": "Tiny", "outs": "(outs VReg:$dst)", "ins": "(ins VReg:$src0, VReg:$src1)",
                              "asm": "alu $dst, $src0, $src1", "mayLoad": 0, "mayStore": 0, "hasSideEffects": 0})

Neg = SDNodeXForm("Neg", "imm", "return CurDAG->getTargetConstant(-N->getSExtValue(), SDLoc(N), MVT::i32);")
Low4 = SDNodeXForm("Low4", "imm", "uint64_t V = N->getZExtValue();\nreturn CurDAG->getTargetConstant(V & 15, SDLoc(N), MVT::i32);",
                   model="def transform(N, cur):\n    return cur.target_constant(N.value & 15, 'i32')\n")
NegSmall = ImmLeaf("NegSmall", i32, "return Imm >= -8 && Imm <= -2;", Neg)
TSmall = ImmLeaf("TSmall", i32, "return isUInt<4>(Imm);", node="timm")
High = PatLeaf("High", "(imm)", "return N->getZExtValue() >= 0x80000000u;")

TARGET = Target(
    "tiny", namespace="Tiny", target_prefix="tiny", isd_namespace="TinyISD",
    register_classes=(VReg,), classes=(ALU,), xforms=(Neg, Low4), frags=(NegSmall, TSmall, High),
    defs=[Instruction("V_ADD", ALU), Instruction("V_SUB", ALU)],
    patterns=[
        Pat("(add i32:$a, (i32 NegSmall:$b))", "(V_SUB $a, NegSmall:$b)"),
        Pat("(xor i32:$a, (i32 High:$b))", "(V_SUB $a, (Low4 $b))"),
        Pat("(add i32:$a, i32:$b)", "(V_ADD $a, $b)"),
    ],
)

# Malformed ImmLeaf / PatLeaf records: a non-integer type, a node that is not a constant,
# code written for the other C++ context, an xform the target does not list, a type
# given by name.
from tdgen.model import ImmLeaf, PatLeaf, SDNodeXForm
from tdgen.types import f32, i32

from ._base import tiny

Neg = SDNodeXForm("Neg", "imm", "return CurDAG->getTargetConstant(-N->getSExtValue(), SDLoc(N), MVT::i32);")

TARGET = tiny(frags=[
    ImmLeaf("fimm", f32, "return Imm > 0;"),
    ImmLeaf("fpleaf", i32, "return Imm > 0;", node="fpimm"),
    ImmLeaf("over_node", i32, "return N->getSExtValue() > 0;"),
    PatLeaf("over_imm", "(imm)", "return Imm > 0;"),
    ImmLeaf("unlisted", i32, "return Imm > 0;", Neg),
    ImmLeaf("named_type", "i32", "return Imm > 0;"),
])

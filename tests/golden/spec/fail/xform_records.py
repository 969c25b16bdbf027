# Malformed SDNodeXForm records: an unknown node, code tdgen cannot execute without a
# model, a model that does not parse, a model without transform().
from tdgen.model import SDNodeXForm

from ._base import tiny

TARGET = tiny(xforms=[
    SDNodeXForm("NoNode", "immediate", "return CurDAG->getTargetConstant(0, SDLoc(N), MVT::i32);"),
    SDNodeXForm("TwoStatements", "imm",
                "int64_t V = N->getSExtValue();\nreturn CurDAG->getTargetConstant(-V, SDLoc(N), MVT::i32);"),
    SDNodeXForm("BadModel", "imm", "return foo(N);", model="def transform(N, cur)\n    return 0\n"),
    SDNodeXForm("NoTransform", "imm", "return foo(N);", model="def select(N, cur):\n    return 0\n"),
    SDNodeXForm("Empty", "imm", "  "),
])

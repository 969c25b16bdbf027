# A lowering table (Target.legality) with an unknown ISD opcode, an opcode spelled with
# its namespace, an unknown action, promote_to on an Expand entry, a type its register
# class does not hold, an unknown load extension and unknown boolean contents.
from tdgen.model import Legality, LoadExtAction, OperationAction, RegisterFor
from tdgen.types import i1, i32, i64

from ._base import tiny, VReg

TARGET = tiny(legality=Legality(
    register_classes=(RegisterFor(i32, VReg), RegisterFor(i64, VReg)),
    operations=(
        OperationAction(("ADD", "FROB"), (i32,), "Legal"),
        OperationAction(("ISD::SUB",), (i32,), "Expand"),
        OperationAction(("MUL",), (i32,), "Lower"),
        OperationAction(("SHL",), (i32,), "Expand", promote_to=i32),
    ),
    load_ext=(LoadExtAction(("SIGNLOAD",), (i32,), (i1,), "Expand"),),
    boolean_contents="ZeroOrOne",
))

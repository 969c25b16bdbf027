# Three records built with malformed values (a type name given as a string, a register
# class listing a string for a value type, a node whose profile is a number) and one
# ordinary check error in a well-formed record: loading goes on past each bad
# constructor and reports all four together, sorted. The lowering built on the bad
# intrinsic is skipped rather than reported again.
from tdgen.model import Instruction, Intrinsic, IntrNoMem, Lowering, RegisterClass, SDNode
from tdgen.types import llvm_i32_ty

from ._base import ALU, tiny

lane = Intrinsic("int_tiny_lane", [llvm_i32_ty], ["llvm_i33_ty"], [IntrNoMem])
WReg = RegisterClass("WReg", "vector", ["i32"], ["W0", "W1"])
lanenode = SDNode("tinylane", "TinyISD::LANE", 2)
TARGET = tiny(
    intrinsics=(lane,),
    register_classes=(WReg,) + tiny().register_classes,
    nodes=(lanenode,),
    defs=[Instruction("V_OR", ALU, ["v_or"], lets={"Unit": "valu"}, pattern="(set i32:$dst, (or i32:$src0))")],
    lowerings=(Lowering(lane, lanenode),),
)

# Instruction semantics (tdgen.model.semantics) that do not fit their instructions: an
# operand the instruction does not have, operands of different widths, a scalar (wave)
# instruction reading a vector operand, a result never written, an unknown operation,
# an implicit register written that is not among the implicit defs.
from tdgen.model import Instruction, Sem
from tdgen.model.semantics import Apply, Operand

from ._base import ALU, tiny

TARGET = tiny(defs=[
    Instruction("V_ADD", ALU, ["v_add"], lets={"Unit": "valu"},
                pattern="(set i32:$dst, (add i32:$src0, i32:$src1))",
                semantics=Sem.lane(dst=Sem.add("src0", "src2"))),
    Instruction("V_WIDE", ALU, ["v_wide"], lets={"Unit": "valu"},
                semantics=Sem.lane(dst=Sem.add("src0", Sem.zext("src1", bits=64)))),
    Instruction("S_READV", ALU, ["s_readv"], lets={"Unit": "salu"},
                semantics=Sem.wave(dst=Sem.xor("src0", "src1"))),
    Instruction("V_NOWRITE", ALU, ["v_nowrite"], lets={"Unit": "valu"},
                semantics=Sem.lane(Sem.store("global", Sem.zext("src0", bits=64), "src1"))),
    Instruction("V_FROB", ALU, ["v_frob"], lets={"Unit": "valu"},
                semantics=Sem.lane(dst=Apply("frob", (Operand("src0"),)))),
    Instruction("V_SCC", ALU, ["v_scc"], lets={"Unit": "valu"},
                semantics=Sem.lane(dst="src0", SCC=1)),
])

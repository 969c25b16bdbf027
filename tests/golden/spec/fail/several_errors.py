# Several independent problems: all are reported together, in file order.
from tdgen.model import Instruction, Pat

from ._base import ALU, tiny

TARGET = tiny(
    defs=[
        Instruction("V_XOR", ALU, ["v_xor"], lets={"Unit": "valu"},
                    pattern="(set i32:$dst, (xor i32:$src0))"),
        Instruction("V_MUL", ALU, ["v_mul"], lets={"Unit": "valu", "Latency": 4},
                    pattern="(set i32:$dst, (mul i32:$src0, i32:$src1))"),
    ],
    patterns=[
        Pat("(sub i32:$a, i32:$b)", "(V_SUB $a, $b)"),
        Pat("(sub i32:$a, i32:$b)", "(V_MUL $a, $c)"),
    ],
)

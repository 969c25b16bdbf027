# Operand constraints llvm-tblgen-19 rejects (found by the spec fuzz: a blank
# Constraints string gave "Unrecognized constraint ' '"): a blank, a tie without blanks
# around '=', an @earlyclobber of no operand; a tie may name the output on either side
# ('$src0 = $dst'), and '@earlyclobber $dst' and commas alone are fine
# (tests/test_check_constraints.py has the verdicts of tblgen itself).
from tdgen.model import Instruction

from ._base import ALU, tiny

TARGET = tiny(classes=(ALU,), defs=[
    Instruction("V_A", ALU, ["v_a"], lets={"Unit": "valu", "Constraints": " "}, pattern="(set i32:$dst, (add i32:$src0, i32:$src1))"),
    Instruction("V_B", ALU, ["v_b"], lets={"Unit": "valu", "Constraints": "$dst=$src0"}, pattern="(set i32:$dst, (sub i32:$src0, i32:$src1))"),
    Instruction("V_C", ALU, ["v_c"], lets={"Unit": "valu", "Constraints": "$src0 = $dst,@earlyclobber $nope"},
                pattern="(set i32:$dst, (xor i32:$src0, i32:$src1))"),
    Instruction("V_D", ALU, ["v_d"], lets={"Unit": "valu", "Constraints": "@earlyclobber $dst,,"},
                pattern="(set i32:$dst, (or i32:$src0, i32:$src1))"),
])

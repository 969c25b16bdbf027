# Predicate code that reads the matched operands needs uses_operands=True (TableGen's
# PredicateCodeUsesOperands; without it llvm-tblgen declares no 'Operands' there).
from tdgen.model import PatFrag

from ._base import tiny

TwoOps = PatFrag("add_both_uniform", ["a", "b"], "(add node:$a, node:$b)",
                 predicate_code="return !Operands[0]->isDivergent() && !Operands[1]->isDivergent();")
Declared = PatFrag("add_first_uniform", ["a", "b"], "(add node:$a, node:$b)",
                   predicate_code="return !Operands[0]->isDivergent();", uses_operands=True)
Plain = PatFrag("add_one_use", ["a", "b"], "(add node:$a, node:$b)",
                predicate_code="return N->hasOneUse();", uses_operands=False)
TARGET = tiny(frags=(TwoOps, Declared, Plain))

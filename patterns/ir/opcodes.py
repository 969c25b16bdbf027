"""The IR's opcode and predicate tables: one definition each, read by the readers, the passes and the DAG builder.

Orders are LLVM's where LLVM has one (the ``icmp`` predicates as ``CmpInst::Predicate``
lists them, the binary operators and casts as ``Instruction.def``), so a message or a
regular expression built from a table reads as the grammar (``ir.lark``) does;
tests/test_ir.py checks the grammar's alternations against these tuples.
"""

from __future__ import annotations

from typing import Final

INT_BINOPS: Final = ("add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor")
FP_BINOPS: Final = ("fadd", "fsub", "fmul", "fdiv", "frem")
BINOPS: Final = INT_BINOPS + FP_BINOPS
# the casts between integers and pointers, and those that involve floating point
INT_CASTS: Final = ("trunc", "zext", "sext", "ptrtoint", "inttoptr", "addrspacecast", "bitcast")
FP_CASTS: Final = ("fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp")
CASTS: Final = ("trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
                "ptrtoint", "inttoptr", "bitcast", "addrspacecast")
# the binary operators whose operands may be swapped (Instruction::isCommutative)
COMMUTATIVE_BINOPS: Final = frozenset({"add", "mul", "and", "or", "xor"})

# icmp predicates, in LLVM's order; the swapped (operands exchanged) and inverse
# (negated) predicate of each
INT_PREDICATE_ORDER: Final = ("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle")
SIGNED_PREDICATES: Final = frozenset({"slt", "sle", "sgt", "sge"})
SWAPPED_PREDICATE: Final = {"eq": "eq", "ne": "ne", "slt": "sgt", "sgt": "slt", "sle": "sge", "sge": "sle",
                            "ult": "ugt", "ugt": "ult", "ule": "uge", "uge": "ule"}
INVERSE_PREDICATE: Final = {"eq": "ne", "ne": "eq", "slt": "sge", "sge": "slt", "sgt": "sle", "sle": "sgt",
                            "ult": "uge", "uge": "ult", "ugt": "ule", "ule": "ugt"}


def alternation(words: tuple) -> str:
    """``words`` as a regular-expression alternation, in order: ``a|b|c``."""
    return "|".join(words)

"""The SSA dominance verifier of parsed modules (the rules of LLVM's verifier the analyses rely on).

Stage job: a linked ``Module`` -> nothing, or every violation as one ``file:line:col``
error each (``ErrorList``). ``patterns.ir.reader.parse_module`` runs it on every module
it reads. A compiled module (``patterns.native.MODULES``).
"""

from __future__ import annotations

from tdgen.errors import Diagnostics, ParseError, expected

from patterns.ir.core import Module
from patterns.ir.dominators import DomTree
from patterns.ir.function import Instruction


def verify_dominance(mod: Module) -> None:
    """The SSA rules LLVM's verifier enforces and the analyses rely on: every use of an
    instruction is dominated by its definition (for a phi: the end of the incoming block
    is), and a phi's incoming blocks are predecessors of its block. All violations of a
    module are reported together. One pass over the instructions; the dominator tree is
    built only for functions with uses that cross blocks."""
    errors = Diagnostics()
    for fn in mod.functions:
        if not fn.blocks:
            continue
        tree = None
        for blk in fn.blocks:
            seen = set()
            for inst in blk.instructions:
                if inst.opcode == "phi":
                    preds = blk.predecessors
                    for v, inc in inst.incoming:
                        if inc not in preds:
                            errors.add(ParseError(inst.span, expected(
                                f"a predecessor of {blk.ref} as incoming block", inc.ref)))
                        elif type(v) is Instruction and v.block is not inc:
                            if tree is None:
                                tree = DomTree(fn.blocks[0], lambda b: b.successors)
                            if not tree.dominates(v.block, inc):
                                errors.add(ParseError(inst.span, expected(
                                    f"a value available at the end of {inc.ref}",
                                    f"{v.ref}, defined in {v.block.ref} which does not dominate it")))
                else:
                    for v in inst.operands:
                        if type(v) is not Instruction:
                            continue
                        if v.block is blk:
                            if v not in seen:
                                errors.add(ParseError(inst.span, expected(
                                    "a value defined before its use", f"{v.ref} used before its definition")))
                            continue
                        if tree is None:
                            tree = DomTree(fn.blocks[0], lambda b: b.successors)
                        if not tree.dominates(v.block, blk):
                            errors.add(ParseError(inst.span, expected(
                                "a value whose definition dominates its use",
                                f"{v.ref}, defined in {v.block.ref} which does not dominate {blk.ref}")))
                seen.add(inst)
    errors.check()

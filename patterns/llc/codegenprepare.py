"""CodeGenPrepare's parts modeled here: the sinking of a bit-field extract's shift into
the blocks that read it (``sink_extract_bits``) and the folding of branches on constants
(``fold_constant_branches``, ConstantFoldTerminator, on switches too:
patterns/llc/cgp_switch.py), which leaves blocks for UnreachableBlockElim.
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import Constant
from patterns.ir.function import Function, Instruction
from patterns.llc.cgp_switch import fold_switch
from patterns.llc.instsimplify_query import const_value
from patterns.llc.naming import number_unnamed
from patterns.llc.unreachable import (
    detach_block, reachable_blocks, remove_predecessor, replace_phis, resolve_replacement,
)


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction


_EXTRACT_SHIFTS: Final = frozenset({"lshr", "ashr"})


def sink_extract_bits(fn: Function, erased=()) -> bool:
    """CodeGenPrepare's OptimizeExtractBits (run for a target with a bit-field extract):
    an ``lshr``/``ashr`` by a constant read in another block by a ``trunc``, or by an
    ``and`` with a low-bit mask constant (``m & (m + 1) == 0``) as its second operand, is
    copied to the top of that block (after its phis; one copy per block, a later shift's
    copy above an earlier one's) and the read goes to the copy, so the block's DAG sees
    the whole extract (v_bfe/s_bfe). Phis and other readers keep the shift (one left
    without readers is erased by CodeGenPrepare: patterns.dag.builder's model of the dead code
    llc keeps drops it). Shifts in program order. ``erased``: instructions LLVM has
    deleted by now that our passes leave in place (replaced by EarlyCSE): not readers.
    Not modeled: a ``trunc`` in the shift's own block to an illegal type
    (SinkShiftAndTruncate). Returns whether the function changed."""
    found: dict = {}  # shift -> its readers to redirect, in program order
    order: dict = {}  # shift -> position in program order
    shifts = _EXTRACT_SHIFTS
    k = 0
    for b in fn.blocks:
        for u in b.instructions:
            opc = u.opcode
            if opc in shifts:
                order[u] = k
                k += 1
            elif opc == "and" or opc == "trunc":
                sh = u.operands[0]
                if type(sh) is not _INSTRUCTION or sh.opcode not in shifts or sh.block is b or u in erased:
                    continue
                c = sh.operands[1] if len(sh.operands) == 2 else None
                if type(c) is not _CONSTANT or const_value(c) is None or not _extract_bits_reader(u, sh):
                    continue
                lst = found.get(sh)
                if lst is None:
                    found[sh] = [u]
                else:
                    lst.append(u)
    if not found:
        return False
    for sh in sorted(found, key=lambda x: order.get(x, -1)):
        copies: dict = {}
        for u in found[sh]:
            blk = u.block
            cp = copies.get(blk)
            if cp is None:
                a, c = sh.operands
                c2 = Constant(c.type, c.text, c.kind, c.value)
                cp = copies[blk] = Instruction(sh.opcode, None, sh.type, [a, c2], blk)
                # (made after llc's last EarlyCSE: the CSE of patterns.dag.builder's prepasses,
                # which stands for that pass, leaves it alone)
                setattr(cp, "cgp_copy", True)
                insts = blk.instructions
                j = 0
                while j < len(insts) and insts[j].opcode == "phi":
                    j += 1
                insts.insert(j, cp)
            u.operands = [cp if o is sh else o for o in u.operands]
            u._text = None
    number_unnamed(fn, True)  # (the copies are unnamed)
    fn.uses = None
    return True


def _extract_bits_reader(u, sh) -> bool:
    """isExtractBitsCandidateUse: a trunc, or ``and sh, m`` with m a low-bit mask."""
    if u.opcode == "trunc":
        return True
    if u.opcode != "and" or len(u.operands) != 2 or u.operands[0] is not sh:
        return False
    m = const_value(u.operands[1])
    return m is not None and not (m & (m + 1)) & ((1 << u.type.bits) - 1)


def fold_constant_branches(fn) -> bool:
    """``fold_constant_branches_into`` with the phis it replaces rewritten."""
    gone: dict = {}
    changed = fold_constant_branches_into(fn, gone)
    replace_phis(fn, gone)
    return changed


def fold_constant_branches_into(fn: Function, rep: dict) -> bool:
    """What llc's CodeGenPrepare does to branches (its branch optimizations, on at -O2):
    every conditional ``br`` on a constant, or to the same block twice, becomes an
    unconditional ``br`` (ConstantFoldTerminator; the block left is told it lost a
    predecessor), blocks left without predecessors are deleted with the blocks only they
    reached (DeleteDeadBlock, a worklist taken from the back), and then, as something
    changed, each block (in function order, the entry aside) whose one predecessor ends
    in an unconditional ``br`` to it is merged into that predecessor
    (eliminateFallThrough / MergeBlockIntoPredecessor: its phis, one incoming value each,
    replaced by that value; a block with a phi reading itself is left). A block losing a
    predecessor loses that phi entry, and a phi then merging one value only (itself
    aside) is replaced by it (BasicBlock::removePredecessor). Returns whether the
    function changed. A ``switch`` is folded as ``patterns.llc.cgp_switch.fold_switch``
    says (its cases to the default removed, one destination left: a ``br``, one case: a
    compare and a conditional ``br``). Not modeled: the rest of CodeGenPrepare (sinking, mostly-empty blocks, ...). EarlyCSE leaves a branch on a
    constant when InstSimplify folded its compare (``icmp sgt %x, %x``). ``rep`` gets
    each phi replaced -> the value replacing it (``replace_phis`` rewrites them)."""
    blocks = fn.blocks
    if len(blocks) < 2:
        return False
    work: list = []  # blocks without predecessors (a set vector: each once)
    changed = False
    for b in list(blocks):
        t = b.instructions[-1] if b.instructions else None
        if t is not None and t.opcode == "switch":
            succs = fold_switch(fn, b, rep)
            if succs is not None:
                changed = True
                for s in succs:
                    if not s.predecessors and s is not blocks[0] and s not in work:
                        work.append(s)
            continue
        if t is None or t.opcode != "br" or len(t.targets) != 2:
            continue
        t0, t1 = t.targets
        c = t.operands[0] if t.operands else None
        if t0 is t1:
            keep, drop = t0, t0
        else:
            cv = const_value(c) if c is not None and type(c) is _CONSTANT else None
            if cv is None:
                continue
            keep, drop = (t0, t1) if cv else (t1, t0)
        changed = True
        t.operands = []
        t.targets = [keep]
        t._text = None
        b.successors = [keep]
        remove_predecessor(drop, b, rep, drop is not keep)
        if not drop.predecessors and drop is not blocks[0] and drop not in work:
            work.append(drop)
    if not changed:
        return False
    dead: set = set()
    while work:
        d = work.pop()
        succs = list(dict.fromkeys(d.successors))
        detach_block(d, d.successors, rep)
        dead.add(d)
        d.successors = []
        for sc in succs:
            if not sc.predecessors and sc is not blocks[0] and sc not in dead and sc not in work:
                work.append(sc)
    if dead:
        fn.blocks = blocks = [b for b in blocks if b not in dead]
        for d in dead:
            for i in d.instructions:  # (their uses elsewhere are in dead blocks too)
                i.block = None
    # eliminateFallThrough (blocks the entry does not reach -- a loop whose way in was
    # deleted -- are passed over)
    reach = reachable_blocks(blocks[0])
    for bb in list(blocks[1:]):
        preds = bb.predecessors
        if len(preds) != 1 or bb not in reach:
            continue
        pred = preds[0]
        if pred is bb:
            continue
        t = pred.instructions[-1]
        if t.opcode != "br" or len(t.targets) != 1:
            continue
        phis = [i for i in bb.instructions if i.opcode == "phi"]
        if any(v is i for i in phis for v, _b in i.incoming):
            continue
        for i in phis:  # FoldSingleEntryPHINodes
            rep[i] = resolve_replacement(rep, i.incoming[0][0])
            i.block = None
        pred.instructions.pop()
        for i in bb.instructions:
            if i.opcode != "phi":
                i.block = pred
                pred.instructions.append(i)
        pred.successors = bb.successors
        for sc in dict.fromkeys(bb.successors):
            sc.predecessors = [pred if p is bb else p for p in sc.predecessors]
            for i in sc.instructions:
                if i.opcode != "phi":
                    break
                i.incoming = [(v, pred if pb is bb else pb) for v, pb in i.incoming]
                i._text = None
        blocks.remove(bb)
        bb.instructions = []
    fn.blocks = blocks
    for k, b in enumerate(blocks):
        b.index = k
    fn.uses = None
    return True

"""UnreachableBlockElim (``remove_unreachable_blocks``): the blocks the entry no longer
reaches are deleted, their edges taken out of the phis of the blocks they branched to
(``replace_phis`` rewrites the phis that are left with one value).
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import Constant
from patterns.ir.function import Function
from patterns.llc.instsimplify_query import same_value
from patterns.llc.replace import rewrite_uses


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant


def remove_unreachable_blocks(fn) -> bool:
    """``remove_unreachable_blocks_into`` with the phis it replaces rewritten."""
    gone: dict = {}
    changed = remove_unreachable_blocks_into(fn, gone)
    replace_phis(fn, gone)
    return changed


def replace_phis(fn: Function, rep: dict) -> None:
    """Every use of a phi of ``rep`` reads what replaces it; the phis are erased."""
    if not rep:
        return
    rewrite_uses(fn, {i: resolve_replacement(rep, v) for i, v in rep.items()})
    for i in rep:
        if i.block is not None:
            i.block.instructions.remove(i)
            i.block = None


def remove_unreachable_blocks_into(fn: Function, rep: dict) -> bool:
    """llc's UnreachableBlockElim (EliminateUnreachableBlocks): the blocks the entry does
    not reach are deleted; each reachable block they branch to loses those predecessors
    (``remove_predecessor``, the phis updated as there; ``rep`` gets the phis replaced).
    Returns whether any block was deleted."""
    blocks = fn.blocks
    if not blocks:
        return False
    reach = reachable_blocks(blocks[0])
    if len(reach) == len(blocks):
        return False
    dead = [b for b in blocks if b not in reach]
    for d in dead:
        detach_block(d, [sc for sc in d.successors if sc in reach], rep)
    for d in dead:
        for i in d.instructions:
            i.block = None
        d.successors = []
        d.predecessors = []
    fn.blocks = [b for b in blocks if b in reach]
    for k, b in enumerate(fn.blocks):
        b.index = k
    for b in fn.blocks:  # (a reachable block's predecessors are reachable)
        if any(p not in reach for p in b.predecessors):
            b.predecessors = [p for p in b.predecessors if p in reach]
    fn.uses = None
    return True


def reachable_blocks(entry) -> set:
    """The blocks reachable from ``entry``."""
    reach = {entry}
    stack = [entry]
    while stack:
        for sc in stack.pop().successors:
            if sc not in reach:
                reach.add(sc)
                stack.append(sc)
    return reach


def resolve_replacement(rep: dict, v):
    while v in rep:
        v = rep[v]
    return v


def detach_block(d, succs: list, rep: dict) -> None:
    """Each edge of the deleted block ``d`` to a block of ``succs`` (one per entry) is
    removed as ``remove_predecessor`` does, ``d`` leaving the predecessor list with its
    last edge."""
    left: dict = {}
    for sc in succs:
        left[sc] = left.get(sc, 0) + 1
    for sc in succs:
        left[sc] -= 1
        remove_predecessor(sc, d, rep, not left[sc])


def remove_predecessor(b, pred, rep: dict, last: bool) -> None:
    """BasicBlock::removePredecessor(pred): one edge from ``pred`` gone (``last``: its
    only one, so ``pred`` leaves ``b``'s predecessor list, which holds each block once);
    each phi of ``b`` loses its first entry for ``pred`` and, when the phis had more than
    one entry, a phi merging one value only (itself aside) is replaced by it (recorded in
    ``rep``; a phi left without entries by poison)."""
    if last:
        preds = b.predecessors
        for k, p in enumerate(preds):
            if p is pred:
                del preds[k]
                break
    n_before = None  # (the phis' entries before: one per edge into ``b``)
    for i in b.instructions:
        if i.opcode != "phi":
            break
        if i in rep:
            continue
        inc = i.incoming
        if n_before is None:
            n_before = len(inc)
        for k, (_v, pb) in enumerate(inc):
            if pb is pred:
                del inc[k]
                break
        i.operands = [v for v, _pb in inc]
        i._text = None
        if not inc:
            rep[i] = Constant(i.type, "poison", "poison")
            continue
        if n_before == 1:
            continue
        common = None
        for v, _pb in inc:
            v = resolve_replacement(rep, v)
            if v is i:
                continue
            if common is None:
                common = v
            elif not (same_value(v, common) or (type(v) is _CONSTANT and type(common) is _CONSTANT
                                           and v.type == common.type and v.text == common.text)):
                common = False  # (constants are one value in LLVM when their type and text are)
                break
        if common is False:
            continue
        rep[i] = Constant(i.type, "poison", "poison") if common is None else common

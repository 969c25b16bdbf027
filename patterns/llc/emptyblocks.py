"""CodeGenPrepare's eliminateMostlyEmptyBlocks: a block holding only phis and an unconditional branch is folded into its successor.

llc runs it first in CodeGenPrepare (before its instruction step). Facts of LLVM 19's
pass, written anew: every block but the entry, in function order, first loses its phis
without users (DeleteDeadPHIs); then each block whose instructions are phis and a
``br label %dest`` (``dest`` not itself) is merged into ``dest`` when

- its phis are read only by phis of ``dest`` that take them on the edge from it;
- where it and ``dest`` share a predecessor, ``dest``'s phis agree on that edge with
  what would flow through the block;
- it is not a loop preheader whose predecessor branches elsewhere too (that would make
  a critical edge into the loop).

The merge: when ``dest``'s one predecessor is the block, ``dest`` is merged into it
(MergeBlockIntoPredecessor); otherwise each phi of ``dest`` takes, instead of its entry
for the block, one entry per predecessor of the block (the block's phi's values, or the
value itself for every such edge), and the block's predecessors branch to ``dest``.
The predecessor walk uses the block's first phi's incoming blocks when it has phis, as
LLVM does; a predecessor that reaches the block by several edges (a ``switch``) gives
one entry per edge, and a ``switch`` has its cases retargeted with its destinations.

A block with no phis whose one predecessor is a ``switch`` is kept when ``dest`` has
phis and the switch reaches it rarely (isMergingEmptyBlockProfitable): unless the
switch also branches to ``dest`` with the same phi values, the block is merged only
when the switch's frequency is at most twice the block's, counted together with the
other such blocks of that switch bringing the same values to ``dest``. The frequencies
are the branch probabilities of a switch without weights: each edge equally likely
(BranchProbabilityInfo's estimates for edges into loops or to unreachable code, and
BlockFrequencyInfo's rounding at a tie, are not modelled).
"""

from __future__ import annotations

from patterns.ir.function import Function


def eliminate_mostly_empty_blocks(fn: Function) -> bool:
    blocks = fn.blocks
    if len(blocks) < 2:
        return False
    changed = False
    for b in blocks[1:]:
        if _delete_dead_phis(fn, b):
            changed = True
    pre = _preheaders(fn)
    for b in list(blocks[1:]):
        if b not in blocks:
            continue
        dest = _dest(fn, b)
        if dest is None:
            continue
        if b in pre:
            preds = list(b.predecessors)
            if not (len(preds) == 1 and len(preds[0].successors) == 1):
                continue
        if not _profitable_after_switch(fn, b, dest):
            continue
        _eliminate(fn, b, dest)
        changed = True
    if changed:
        for k, b in enumerate(blocks):
            b.index = k
        fn.uses = None
    return changed


def _edges(p, b) -> int:
    t = p.instructions[-1] if p.instructions else None
    return sum(1 for s in t.targets if s is b) if t is not None and t.targets else 0


def _profitable_after_switch(fn, b, dest) -> bool:
    """isMergingEmptyBlockProfitable's test for a block reached from a ``switch``
    (module docstring)."""
    preds = list(b.predecessors)
    if len(preds) != 1:
        return True
    pred = preds[0]
    t = pred.instructions[-1]
    if t.opcode != "switch" or len(b.instructions) != 1:
        return True
    phis = [i for i in dest.instructions if i.opcode == "phi"]
    if not phis:
        return True
    same = [p for p in dest.predecessors if p is not b and
            all(_same(_incoming(phi, p), _incoming(phi, b)) for phi in phis)]
    if pred in same:
        return True
    count = _edges(pred, b)
    for sb in same:
        if list(sb.predecessors) == [pred] and _dest(fn, sb) is dest:
            count += _edges(pred, sb)
    return len(t.targets) <= 2 * count


def _users(fn, v) -> list:
    return [i for b in fn.blocks for i in b.instructions if any(o is v for o in i.operands)]


def _delete_dead_phis(fn, b) -> bool:
    out = False
    for i in list(b.instructions):
        if i.opcode != "phi":
            break
        if not _users(fn, i):
            b.instructions.remove(i)
            i.block = None
            out = True
    return out


def _dest(fn, b):
    t = b.instructions[-1] if b.instructions else None
    if t is None or t.opcode != "br" or len(t.targets) != 1:
        return None
    if any(i.opcode != "phi" for i in b.instructions[:-1]):
        return None
    dest = t.targets[0]
    if dest is b or not _can_merge(fn, b, dest):
        return None
    return dest


def _can_merge(fn, b, dest) -> bool:
    for phi in b.instructions:
        if phi.opcode != "phi":
            break
        for u in _users(fn, phi):
            if u.block is not dest or u.opcode != "phi":
                return False
            for v, p in u.incoming:
                if getattr(v, "block", None) is b and p is not b:
                    return False
    first = dest.instructions[0] if dest.instructions and dest.instructions[0].opcode == "phi" else None
    if first is None:
        return True
    bfirst = b.instructions[0] if b.instructions[0].opcode == "phi" else None
    bpreds = {p for _v, p in bfirst.incoming} if bfirst is not None else set(b.predecessors)
    for _v, p in first.incoming:
        if p in bpreds:
            for phi in dest.instructions:
                if phi.opcode != "phi":
                    break
                v1 = _incoming(phi, p)
                v2 = _incoming(phi, b)
                if getattr(v2, "opcode", None) == "phi" and v2.block is b:
                    v2 = _incoming(v2, p)
                if not _same(v1, v2):
                    return False
    return True


def _incoming(phi, blk):
    return next((v for v, p in phi.incoming if p is blk), None)


def _same(a, b) -> bool:
    from patterns.ir.function import Instruction

    return a is b or (not isinstance(a, Instruction) and not isinstance(b, Instruction) and a == b)


def _eliminate(fn, b, dest) -> None:
    if list(dest.predecessors) == [b]:
        _merge_into_pred(fn, dest, b)
        return
    bfirst = b.instructions[0] if b.instructions[0].opcode == "phi" else None
    bpreds = [p for _v, p in bfirst.incoming] if bfirst is not None else \
        [p for p in b.predecessors for _e in range(_edges(p, b))]
    for phi in dest.instructions:
        if phi.opcode != "phi":
            break
        k = next(k for k, (_v, p) in enumerate(phi.incoming) if p is b)
        inc = list(phi.incoming)
        v = inc.pop(k)[0]
        if getattr(v, "opcode", None) == "phi" and v.block is b:
            inc += list(v.incoming)
        else:
            inc += [(v, p) for p in bpreds]
        phi.incoming = inc
        phi.operands = [x for x, _p in inc]
        phi._text = None
    for p in list(b.predecessors):  # (BB->replaceAllUsesWith(DestBB))
        t = p.instructions[-1]
        t.targets = [dest if x is b else x for x in t.targets]
        if t.opcode == "switch":
            t.cases = [(c, dest if x is b else x) for c, x in t.cases]
        t._text = None
    fn.blocks.remove(b)
    _relink(fn)


def _merge_into_pred(fn, dest, b) -> None:
    """MergeBlockIntoPredecessor(dest): ``dest``'s phis (one entry, from ``b``) replaced
    by their values, its instructions after ``b``'s (whose branch goes), ``b`` taking its
    name's place in the CFG."""
    from patterns.llc.replace import rewrite_uses

    rep = {}
    for phi in list(dest.instructions):
        if phi.opcode != "phi":
            break
        rep[phi] = phi.incoming[0][0]
        dest.instructions.remove(phi)
    b.instructions.pop()
    for i in dest.instructions:
        i.block = b
    b.instructions.extend(dest.instructions)
    dest.instructions = []
    for s in fn.blocks:  # (phis of dest's successors now see b)
        for i in s.instructions:
            if i.opcode != "phi":
                break
            if any(p is dest for _v, p in i.incoming):
                i.incoming = [(v, b if p is dest else p) for v, p in i.incoming]
                i._text = None
    fn.blocks.remove(dest)
    if rep:
        rewrite_uses(fn, rep)
    _relink(fn)


def _relink(fn) -> None:
    for b in fn.blocks:
        t = b.instructions[-1] if b.instructions else None
        b.successors = list(t.targets) if t is not None and t.targets else []
        b.predecessors = []
    for b in fn.blocks:
        for s in b.successors:
            if b not in s.predecessors:
                s.predecessors.append(b)


def _preheaders(fn) -> set:
    """The loop preheaders: the one predecessor outside the loop of a loop header, when
    it branches only to the header."""
    from patterns.ir.dominators import immediate_dominators

    idom = immediate_dominators(fn)

    def dominates(a, x) -> bool:
        while True:
            if x is a:
                return True
            p = idom.get(x)
            if p is None or p is x:
                return False
            x = p

    out = set()
    for h in fn.blocks:
        latches = [p for p in h.predecessors if dominates(h, p)]
        if not latches:
            continue
        outside = [p for p in h.predecessors if p not in latches]
        if len(outside) == 1 and list(outside[0].successors) == [h]:
            out.add(outside[0])
    return out


__all__ = ["eliminate_mostly_empty_blocks"]

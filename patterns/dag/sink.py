"""llc's IR "Code sinking" pass (Sink.cpp) as it changes what a block's DAG sees: pure
instructions are moved to the block where their uses are (``sink_placement``, ``sink``),
with the dominator-tree and loop facts its choice of a target block reads (``SinkTree``,
shared with the fused prepasses of ``patterns.dag.prepare``)."""

from __future__ import annotations

from typing import Any, Final

from patterns.dag.isd import ISD_OF_BINOP, ISD_OF_CAST
from patterns.ir.dominators import immediate_dominators
from patterns.ir.effects import pure_intrinsic

# (``reversed`` through a name mypyc does not know: mypyc 2.4 stops with an internal
# error on ``for x in reversed(lst)`` over an untyped list in a compiled build)
_rev: Final[Any] = reversed


SINKABLE: Final = frozenset(ISD_OF_BINOP) | frozenset(ISD_OF_CAST) | {"icmp", "select", "getelementptr"}


def sinkable_call(ins) -> bool:
    """A call Sink may move: one of the integer intrinsics without memory effects that
    are not convergent (patterns.ir.effects.PURE_INTRINSICS: ctpop, ctlz, umin ...)."""
    return pure_intrinsic(ins) is not None


def sink_placement(fn, live: set, rep: dict | None = None) -> dict:
    """See ``sink``: block -> its instructions in order."""
    return sink(fn, live, rep)[0]


class SinkTree:
    """What Sink's choice of a target block reads, shared by ``sink`` and ``prepare``:
    the dominator tree (``idom``; ``pre``/``post``, the DFS intervals of the reachable
    blocks in it, a dominating b iff b's interval nests in a's; ``depth``), each block's
    innermost natural loop (``loop_of``: back edge t -> h with h dominating t; the
    header of the smallest body holding the block) and ``through``: the blocks
    CodeGenPrepare deletes before Sink runs (nothing but an unconditional branch), so
    that a phi use through one counts in its predecessor. Modeled for a block with one
    predecessor that is not also a predecessor of the successor (no phi conflict), not
    the entry, not a loop preheader (CodeGenPrepare keeps those when deleting them makes
    a critical edge)."""

    __slots__ = ("idom", "pre", "post", "depth", "loop_of", "through", "bodies")

    def __init__(self, idom: dict, pre: dict, post: dict, depth: dict, blocks: list) -> None:
        self.idom, self.pre, self.post, self.depth = idom, pre, post, depth
        bodies: dict = {}
        for b in blocks:
            if b not in pre:
                continue
            for h in b.successors:
                if h in pre and pre[h] <= pre[b] and post[b] <= post[h]:
                    body = bodies.get(h)
                    if body is None:
                        body = bodies[h] = {h}
                    stack = [b]
                    while stack:
                        x = stack.pop()
                        if x in body:
                            continue
                        body.add(x)
                        stack.extend(p for p in x.predecessors if p in pre)
        self.bodies = bodies  # loop header -> the blocks of its natural loop
        loop_of: dict = {}
        self.loop_of = loop_of
        for h in sorted(bodies, key=lambda h: len(bodies[h]), reverse=True):
            for x in bodies[h]:
                loop_of[x] = h  # smaller bodies overwrite: innermost wins
        through: dict = {}
        self.through = through
        for b in blocks[1:]:
            insts = b.instructions
            if len(insts) != 1 or insts[0].opcode != "br" or len(b.successors) != 1:
                continue
            d = b.successors[0]
            preds = list(dict.fromkeys(b.predecessors))
            if d is b or len(preds) != 1 or preds[0] in d.predecessors:
                continue
            if d in bodies and len(preds[0].successors) != 1:
                continue
            through[b] = preds[0]

    def dominates(self, a, b) -> bool:
        pre, post = self.pre, self.post
        return pre[a] <= pre[b] and post[b] <= post[a]

    def nca(self, a, b):
        """The nearest common dominator of two reachable blocks."""
        pre, post, depth, idom = self.pre, self.post, self.depth, self.idom
        if pre[a] <= pre[b] and post[b] <= post[a]:
            return a
        if pre[b] <= pre[a] and post[a] <= post[b]:
            return b
        while depth[a] > depth[b]:
            a = idom[a]
        while depth[b] > depth[a]:
            b = idom[b]
        while a is not b:
            a, b = idom[a], idom[b]
        return a

    def acceptable(self, bb, succ) -> bool:
        """Sink's IsAcceptableTarget for a block dominated by ``bb``: its unique
        successor, or a block it dominates in the same loop."""
        preds = succ.predecessors
        if not (len(set(preds)) == 1 and preds[0] is bb):
            if not self.dominates(bb, succ):
                return False
            loop_of = self.loop_of
            if loop_of.get(succ) is not None and loop_of.get(succ) is not loop_of.get(bb):
                return False
        return True

    def target(self, bb, user_blocks, phi_blocks):
        """Where Sink moves an instruction of ``bb`` whose users sit in ``user_blocks``
        (non-phi uses) and ``phi_blocks`` (the incoming blocks of its phi uses), or None:
        the nearest common dominator of those blocks, visited in any order -- it only
        climbs, so once ``bb`` does not dominate it, it never will -- then up the
        dominator tree until acceptable."""
        pre, post = self.pre, self.post
        to = tp = tq = None  # (the candidate and its dominator-tree interval)
        bp = bq = None
        for group in (user_blocks, phi_blocks):
            for ub in group:
                if ub is bb:
                    # the common dominator of bb and anything is bb or above it, which
                    # either ends as bb or fails the dominance test: no move
                    return None
                p = pre.get(ub)
                if p is None:
                    continue
                q = post[ub]
                if to is None:
                    to, tp, tq = ub, p, q
                    bp, bq = pre[bb], post[bb]
                elif tp <= p and q <= tq:  # (self.nca written out where one dominates the other)
                    pass
                elif p <= tp and tq <= q:
                    to, tp, tq = ub, p, q
                else:
                    to = self.nca(to, ub)
                    tp, tq = pre[to], post[to]
                if not (bp <= tp and tq <= bq):  # (self.dominates(bb, to))
                    return None
        if to is None:
            return None
        idom = self.idom
        while to is not bb and not self.acceptable(bb, to):
            to = idom[to]
        return None if to is bb else to


def sink(fn, live: set, rep: dict | None = None, idom: dict | None = None, *,
          incremental: bool = True) -> tuple[dict, dict]:
    """Where llc's IR "Code sinking" pass (Sink.cpp, run late in llc's IR pipeline) leaves
    each live instruction: block -> its instructions in order.

    The pass, as LLVM 19 runs it: repeat until nothing moves: for every block in function
    order, walk its instructions bottom-up; an instruction free of side effects (here the
    pure ALU ops, compares, selects, casts, GEPs and calls of the integer intrinsics
    without memory effects -- loads and other calls are not moved)
    goes to the nearest common dominator of its uses (a phi use counts in the incoming
    block) when that block is dominated by the instruction's block; a candidate that is
    not the block's own unique successor must be dominated by it and must not lie in
    another loop (else its immediate dominator is tried, up to the instruction's block).
    A moved instruction is put at the top of the target block (after the phis). This
    changes what one block's DAG sees: e.g. an add whose only user sits after a loop is
    selected next to that user (and may fold into v_add3_u32 there).

    Returns (block -> instructions, instruction -> block). ``idom`` is
    ``immediate_dominators(fn)`` when the caller has it. ``incremental=False``
    re-evaluates every instruction in every sweep (the literal pass; same answer, slower:
    the tests compare the two)."""
    v: Any
    rep = rep or {}
    blocks = list(fn.blocks)
    place = {b: [i for i in b.instructions if i in live] for b in blocks}
    if len(blocks) < 2:
        return place, {i: b for b in blocks for i in place[b]}
    entry = blocks[0]
    if idom is None:
        idom = immediate_dominators(fn)
    reach = set(idom)
    depth: dict = {}
    depth[entry] = 0
    for b in blocks:  # idom chain lengths (memoized: each block's depth is its idom's + 1)
        if b not in reach or b in depth:
            continue
        chain: list = []
        x = b
        while x not in depth:
            chain.append(x)
            x = idom[x]
        d = depth[x]
        for y in chain[::-1]:
            d += 1
            depth[y] = d

    kids: dict = {}
    for b in blocks:
        if b in reach and b is not entry:
            kids.setdefault(idom[b], []).append(b)
    pre: dict = {}
    post: dict = {}
    clock = 0
    work = [(entry, False)]
    while work:  # dominator-tree DFS numbering: a dominates b iff b's interval nests in a's
        x, done = work.pop()
        if done:
            post[x] = clock
            clock += 1
            continue
        pre[x] = clock
        clock += 1
        work.append((x, True))
        work.extend((k, False) for k in kids.get(x, ()))

    tree = SinkTree(idom, pre, post, depth, blocks)
    through = tree.through
    home = {i: b for b in blocks for i in place[b]}
    # users of each placed instruction: the instructions using it (``iusers``) and the
    # incoming blocks of the phis using it (``pusers``). Only instructions are keys of
    # ``rep``: other operands (constants, arguments) are skipped by their class.
    inst_classes = {type(i) for i in home}
    iusers: dict = {}
    pusers: dict = {}
    for b in blocks:
        for u in place[b]:
            if u.opcode == "phi":
                for v, pb in u.incoming:
                    if type(v) not in inst_classes:
                        continue
                    v = rep.get(v, v)
                    if v in home:
                        while pb in through:
                            pb = through[pb]
                        us = pusers.get(v)
                        if us is None:
                            pusers[v] = [pb]
                        else:
                            us.append(pb)
            else:
                for v in u.operands:
                    if type(v) not in inst_classes:
                        continue
                    v = rep.get(v, v)
                    us = iusers.get(v)
                    if us is None:
                        if v in home:
                            iusers[v] = [u]
                    else:
                        us.append(u)

    def target(ins):
        return tree.target(home[ins], (home[u] for u in iusers.get(ins, ())), pusers.get(ins, ()))

    # The sweeps repeat until nothing moves. ``target(ins)`` depends only on where ``ins``
    # and its users are, so a sweep re-evaluates just the instructions whose own place or
    # a user's place changed since their last evaluation (``dirty``); the others would
    # stay put again. Sweep order is unchanged, so the result is the same as re-evaluating
    # everything.
    dirty = set(home)
    sinkable = SINKABLE
    changed = True
    while changed:
        changed = False
        for b in blocks:
            if b not in reach:
                continue
            for ins in _rev(list(place[b])):
                if ins not in dirty and incremental:
                    continue
                dirty.discard(ins)
                if (ins.opcode not in sinkable and (ins.opcode != "call" or not sinkable_call(ins))) \
                        or ins in rep:
                    continue
                us = iusers.get(ins)
                if us is not None and home[us[0]] is b:
                    continue  # a user in its own block: target() answers None
                to = target(ins)
                if to is None:
                    continue
                place[b].remove(ins)
                lst = place[to]
                k = 0
                while k < len(lst) and lst[k].opcode == "phi":
                    k += 1
                lst.insert(k, ins)
                home[ins] = to
                dirty.add(ins)
                for v in ins.operands:  # their users' places changed
                    if type(v) in inst_classes:
                        dirty.add(rep.get(v, v))
                changed = True
    return place, home

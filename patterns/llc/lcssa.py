"""LLVM 19's LCSSA pass: every value defined in a loop and used outside it reaches those uses through a phi in a loop exit.

``form_lcssa(fn)`` puts the function in loop-closed SSA form, in place, as
``formLCSSARecursively`` does (facts of LLVM's LCSSA.cpp, written anew): the loops of
LoopInfo (``patterns.llc.analyses.loop_forest``) inner ones first; for each loop, the
instructions of its own blocks that dominate an exit (found up the dominator tree from
the exits; the values of the last block found first, each block's from its end) whose
uses lie outside their innermost loop -- a phi's use counts in its incoming block -- get a phi ``<name>.lcssa`` at the top of each exit block of
that loop which their block dominates, with the value once per predecessor (LLVM's
predecessor order, ``EditableCFG.preds``); then each outside use is rewritten: a use in
an exit block reads that block's new phi, a single new phi serves every use, and
otherwise SSAUpdater places the phis between (``patterns.llc.ssaupdate``); an exit
phi's entry for a predecessor outside the loop is rewritten the same way. New phis that
end up unused are erased; a new phi in an exit block that belongs to an enclosing loop
is looked at again for that loop. Token values are skipped.

Why it matters for selection: a GPU target keeps a value that is uniform inside a loop
in a scalar register, but lanes leave a divergently exiting loop in different
iterations, so the value seen after the loop differs per lane (temporal divergence). The
exit phi is divergent, and the copy into its (vector) register is made in the loop, on
each iteration's active lanes. AMDGPU's pass configuration runs this pass last before
selection, after StructurizeCFG.

Where this stops: the CFG is not changed (no loop-simplify: dedicated exits are not
made); ScalarEvolution is not told (there is none).
"""

from __future__ import annotations

from patterns.ir.core import VOID
from patterns.ir.function import Instruction
from patterns.llc.analyses import dom_tree, loop_forest
from patterns.llc.cfgedit import EditableCFG
from patterns.llc.ssaupdate import SSAUpdater


def form_lcssa(fn) -> bool:
    """Put ``fn`` in loop-closed SSA form; True when it changed."""
    if getattr(fn, "is_declaration", False) or not fn.blocks:
        return False
    from patterns.ir.cfg import reverse_post_order
    from patterns.ir.dominators import immediate_dominators

    idom = immediate_dominators(fn)
    dom = dom_tree(fn, idom)
    forest = loop_forest(fn, dom)
    if forest is None:
        return False
    order, bodies, _kids, innermost = forest
    rpo = {b: k for k, b in enumerate(reverse_post_order(fn))}
    _ks, pre, post = dom
    state = _State(fn, EditableCFG(fn, idom), bodies, innermost, pre, post, rpo)
    for h in order:  # (sub-loops before the loops around them)
        work = [i for b in state.blocks_dominating_exits(h, idom) if innermost.get(b) is h
                for i in b.instructions if i.type is not VOID]
        state.run(work)
    if state.changed:
        state.cfg.finish()
    return state.changed


class _State:
    def __init__(self, fn, cfg: EditableCFG, bodies: dict, innermost: dict, pre: dict, post: dict,
                 rpo: dict) -> None:
        self.fn = fn
        self.rpo = rpo
        self.cfg = cfg
        self.bodies = bodies
        self.innermost = innermost
        self.pre = pre
        self.post = post
        self.changed = False
        self.exits: dict = {}
        self.uses: dict = {}  # value -> [(user, operand index)] (entries checked when read)
        for b in fn.blocks:
            for u in b.instructions:
                for k, o in enumerate(u.operands):
                    if isinstance(o, Instruction):
                        self.uses.setdefault(o, []).append((u, k))

    def users(self, v) -> list:
        out, seen = [], set()
        for u, k in self.uses.get(v, ()):
            if u.block is not None and k < len(u.operands) and u.operands[k] is v and (id(u), k) not in seen:
                seen.add((id(u), k))
                out.append((u, k))
        return out

    def set_operand(self, u, k: int, v) -> None:
        self.cfg.set_operand(u, k, v)
        if isinstance(v, Instruction):
            self.uses.setdefault(v, []).append((u, k))

    def raw_exits(self, h) -> list:
        """Loop.getExitBlocks: each out-of-loop successor of each block, in the loop's
        block order, repeats kept."""
        body = self.bodies[h]
        return [s for b in sorted(body, key=self.rpo.__getitem__) for s in self.cfg.succs(b) if s not in body]

    def blocks_dominating_exits(self, h, idom: dict) -> list:
        """The loop's blocks that dominate one of its exits, in the order LCSSA finds
        them: up the dominator tree from each exit (the last first), to the header."""
        body = self.bodies[h]
        work = self.raw_exits(h)
        found: list = []
        seen: set = set()
        while work:
            b = work.pop()
            if b is h:
                continue
            d = idom.get(b)
            if d is None or d is b or d not in body or d in seen:
                continue
            seen.add(d)
            found.append(d)
            work.append(d)
        return found

    def exit_blocks(self, h) -> list:
        got = self.exits.get(h)
        if got is None:
            body = self.bodies[h]
            got, seen = [], set()
            for b in sorted(body, key=self.rpo.__getitem__):  # (the loop's block order)
                for s in self.cfg.succs(b):
                    if s not in body and s not in seen:
                        seen.add(s)
                        got.append(s)
            self.exits[h] = got
        return got

    def dominates(self, a, b) -> bool:
        pa, pb = self.pre.get(a), self.pre.get(b)
        return pa is not None and pb is not None and pa <= pb and self.post[b] <= self.post[a]

    def run(self, work: list) -> None:
        cfg = self.cfg
        while work:  # (the last first: each new phi goes first in its block)
            i = work.pop()
            if i.block is None or _is_token(i):
                continue
            h = self.innermost.get(i.block)
            if h is None:
                continue
            body = self.bodies[h]
            rewrite = []
            for u, k in self.users(i):
                ub = u.incoming[k][1] if u.opcode == "phi" else u.block
                if ub is not i.block and ub not in body:
                    rewrite.append((u, k))
            if not rewrite:
                continue
            exits = self.exit_blocks(h)
            up = SSAUpdater(cfg, i.type)
            added: list = []
            later: list = []
            for eb in exits:
                if not self.dominates(i.block, eb) or up.has(eb):
                    continue
                phi = cfg.new_phi(eb, i.type)  # (first in the block; numbered unless named below)
                if i.name and not i.name.isdigit():
                    phi.name = cfg.unique_name(f"{i.name}.lcssa")
                for p in cfg.preds(eb):
                    phi.incoming.append((i, p))
                    phi.operands.append(i)
                    self.uses.setdefault(i, []).append((phi, len(phi.operands) - 1))
                    if p not in body:
                        rewrite.append((phi, len(phi.operands) - 1))
                added.append(phi)
                up.add(eb, phi)
                other = self.innermost.get(eb)
                if other is not None and other not in body:
                    later.append(phi)
            if not added:
                continue
            self.changed = True
            exit_set = set(exits)
            for u, k in rewrite:
                ub = u.incoming[k][1] if u.opcode == "phi" else u.block
                if ub in exit_set and ub.instructions and ub.instructions[0].opcode == "phi":
                    self.set_operand(u, k, ub.instructions[0])
                elif len(added) == 1:
                    self.set_operand(u, k, added[0])
                else:
                    v = up.at_end(ub) if u.opcode == "phi" else up.in_middle(ub)
                    self.set_operand(u, k, v)
            for phi in up.inserted:
                if i.name and not i.name.isdigit():  # (SSAUpdater names its phis after the value)
                    phi.name = cfg.unique_name(i.name)
                for k, o in enumerate(phi.operands):
                    if isinstance(o, Instruction):
                        self.uses.setdefault(o, []).append((phi, k))
            for phi in added:
                if not self.users(phi):
                    cfg.erase(phi)
            work.extend(p for p in later if p.block is not None and self.users(p))


def _is_token(i) -> bool:
    return str(i.type) == "token"


__all__ = ["form_lcssa"]

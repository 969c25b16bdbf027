"""A function's CFG while a pass rewires it: LLVM's predecessor order, an updatable dominator tree, and the edits StructurizeCFG makes.

``EditableCFG`` holds what LLVM keeps on the IR objects themselves and the engine's IR
does not: each block's predecessors in LLVM's use-list order (the newest edge first:
after parsing, the reverse of the order the branches are written; a new branch's edges
go first), which decides the operand order of the phis an SSA update makes; and the
dominator tree as LLVM's incremental updates leave it (``set_idom``: a pass may ask
about dominance while some blocks have no terminator yet). Its edits: new blocks (names
made unique as LLVM's symbol table does: ``Flow``, ``Flow1``, ``Flow2`` ... with one
counter per function), branches made and killed, phi entries, instructions inserted,
replaced (``replace_all_uses``) and erased. ``finish`` writes the CFG back to the IR
(successor and predecessor lists, block indices, numbered names).
"""

from __future__ import annotations

from patterns.ir.core import VOID, Constant, IntType
from patterns.ir.function import BasicBlock, Instruction

I1 = IntType(1)
TRUE = Constant(I1, "true", "int", 1)
FALSE = Constant(I1, "false", "int", 0)


class EditableCFG:
    def __init__(self, fn, idom: dict) -> None:
        self.fn = fn
        self.entry = fn.blocks[0]
        self.idom = dict(idom)
        self._preds: dict = {b: [] for b in fn.blocks}
        for b in fn.blocks:  # (source order: each edge goes first, so the list ends reversed)
            t = b.instructions[-1] if b.instructions else None
            if t is not None and t.targets:
                for s in _operand_order(t):
                    self._preds[s].insert(0, b)
        self.names: set = {a.name for a in fn.args} | {b.name for b in fn.blocks}
        for b in fn.blocks:
            for i in b.instructions:
                if i.name is not None:
                    self.names.add(i.name)
        self._last_unique = 0
        self._numbered = 0

    # -- the CFG
    def preds(self, b) -> list:
        return list(self._preds.get(b, ()))

    def succs(self, b) -> list:
        t = b.instructions[-1] if b.instructions else None
        if t is None or t.opcode not in ("br", "switch", "callbr"):
            return []
        return list(t.targets)

    def dominates(self, a, b) -> bool:
        """Block dominance in the tree as updated so far."""
        idom = self.idom
        x = b
        while True:
            if x is a:
                return True
            p = idom.get(x)
            if p is None or p is x:
                return False
            x = p

    def common_dominator(self, a, b):
        seen = set()
        x = a
        while True:
            seen.add(x)
            p = self.idom.get(x)
            if p is None or p is x:
                break
            x = p
        y = b
        while y not in seen:
            p = self.idom.get(y)
            if p is None or p is y:
                return None
            y = p
        return y

    def set_idom(self, b, d) -> None:
        self.idom[b] = d

    def inst_dominates(self, d, user, via=None) -> bool:
        """LLVM's DominatorTree::dominates(def, user instruction)."""
        if not isinstance(d, Instruction):
            return True
        ub, db = user.block, d.block
        if ub not in self.idom:  # (a use in an unreachable block is dominated)
            return True
        if db not in self.idom:
            return False
        if d is user:
            return False
        if user.opcode == "phi" or d.opcode in ("invoke", "callbr"):
            return db is not ub and self.dominates(db, ub)
        if db is not ub:
            return self.dominates(db, ub)
        ins = ub.instructions
        return ins.index(d) < ins.index(user)

    # -- edits
    def unique_name(self, base: str) -> str:
        name = base
        while name in self.names:
            self._last_unique += 1
            name = f"{base}{self._last_unique}"
        self.names.add(name)
        return name

    def new_block(self, name: str, before) -> BasicBlock:
        b = BasicBlock(self.unique_name(name), [], self.fn)
        blocks = self.fn.blocks
        at = len(blocks) if before is None else next(k for k, x in enumerate(blocks) if x is before)
        blocks.insert(at, b)
        self._preds[b] = []
        return b

    def make_branch(self, b, targets: list, cond=None, dbg=None, span=None) -> Instruction:
        """A new ``br`` ending ``b``; ``dbg``: its ``!dbg`` attachment (the one of the
        branch it replaces), or None; ``span``: where errors about it point (the
        replaced branch's line)."""
        t = Instruction("br", None, VOID, [cond] if cond is not None else [], b, span)
        t.targets = list(targets)
        if dbg is not None:
            t.metadata = [dbg]
        b.instructions.append(t)
        for s in _operand_order(t):
            self._preds[s].insert(0, b)
        return t

    def kill_terminator(self, b) -> Instruction | None:
        t = b.instructions[-1] if b.instructions else None
        if t is None or not t.is_terminator:
            return None
        for s in t.targets:
            self._drop_edge(s, b)
        b.instructions.pop()
        t.block = None
        return t

    def retarget(self, t, old, new) -> None:
        """``t``'s edges to ``old`` go to ``new`` (replaceUsesOfWith on a branch: nothing
        at all when they are the same block, the edges keeping their place)."""
        if old is new:
            return
        tg = t.targets
        for k, s in enumerate(tg):
            if s is old:
                tg[k] = new
                self._drop_edge(old, t.block)
                self._preds[new].insert(0, t.block)
        t.targets = tg
        t._text = None

    def _drop_edge(self, s, b) -> None:
        lst = self._preds[s]
        for k, p in enumerate(lst):
            if p is b:
                del lst[k]
                return

    def merge_into_predecessor(self, b, p) -> None:
        """``b``'s instructions appended to ``p`` (whose branch to ``b`` goes), ``b``
        deleted; ``b``'s successors see ``p`` as their predecessor (phis: the caller)."""
        self.kill_terminator(p)
        for i in b.instructions:
            i.block = p
        p.instructions.extend(b.instructions)
        for s in self.succs(p):
            self._preds[s] = [p if x is b else x for x in self._preds[s]]
        b.instructions = []
        self.fn.blocks.remove(b)

    def undef(self, ty) -> Constant:
        return Constant(ty, "undef", "undef")

    def poison(self, ty) -> Constant:
        return Constant(ty, "poison", "poison")

    def new_phi(self, b, ty) -> Instruction:
        self._numbered += 1
        phi = Instruction("phi", f"{10**9 + self._numbered}", ty, [], b)
        phi.incoming = []
        b.instructions.insert(0, phi)
        return phi

    def insert_after(self, anchor, inst) -> None:
        b = anchor.block
        ins = b.instructions
        at = next(k for k, x in enumerate(ins) if x is anchor) + 1
        if anchor.opcode == "phi":
            while at < len(ins) and ins[at].opcode == "phi":
                at += 1
        ins.insert(at, inst)
        inst.block = b

    def insert_first(self, b, inst) -> None:
        ins = b.instructions
        at = 0
        while at < len(ins) and ins[at].opcode == "phi":
            at += 1
        ins.insert(at, inst)
        inst.block = b

    def users(self, v) -> list:
        """(user, operand index) of every use of ``v``, newest first as LLVM's use
        lists hold them (here: the reverse of program order)."""
        out = []
        for b in self.fn.blocks:
            for i in b.instructions:
                for k, o in enumerate(i.operands):
                    if o is v:
                        out.append((i, k))
        out.reverse()
        return out

    def set_operand(self, user, k: int, v) -> None:
        user.operands[k] = v
        if user.opcode == "phi":
            inc = list(user.incoming)
            inc[k] = (v, inc[k][1])
            user.incoming = inc
        user._text = None

    def replace_all_uses(self, old, new) -> None:
        for u, k in self.users(old):
            self.set_operand(u, k, new)

    def erase(self, inst) -> None:
        if inst.name is not None:  # (its name is free again; the uniquing counter is not reset)
            self.names.discard(inst.name)
        b = inst.block
        if b is not None:
            ins = b.instructions
            for k, x in enumerate(ins):
                if x is inst:
                    del ins[k]
                    break
        inst.block = None

    def simplify_phi(self, phi, can_use_undef: bool = True, with_dom: bool = True):
        """InstSimplify's answer for a phi: the one value it merges (itself and poison
        aside; undef too when ``can_use_undef``), provided that value dominates the phi
        when something was set aside (without the dominator tree, ``with_dom`` False:
        when it is an argument, a constant or in the entry block); else None."""
        common = None
        skipped = False
        for v, _b in phi.incoming:
            if v is phi:
                continue
            if isinstance(v, Constant) and (v.kind == "poison" or (can_use_undef and v.kind == "undef")):
                skipped = True
                continue
            if common is not None and not (v is common or (not isinstance(v, Instruction) and v == common)):
                return None
            common = v
        if common is None:
            if not skipped:
                return None
            kinds = {v.kind for v, _b in phi.incoming if isinstance(v, Constant)}
            return self.undef(phi.type) if "undef" in kinds else Constant(phi.type, "poison", "poison")
        if skipped and isinstance(common, Instruction):
            ok = self.inst_dominates(common, phi) if with_dom else \
                (common.block is self.entry and common.opcode not in ("invoke", "callbr"))
            if not ok:
                return None
        return common

    def finish(self) -> None:
        """Write the CFG back onto the IR objects."""
        blocks = self.fn.blocks
        for k, b in enumerate(blocks):
            b.index = k
            b.successors = self.succs(b)
            b.predecessors = []
        for b in blocks:
            for s in b.successors:
                if b not in s.predecessors:
                    s.predecessors.append(b)
        # numbered values renumbered in order: arguments, then each block and its
        # instructions (the new phis are numbered here too)
        k = 0
        for a in self.fn.args:
            if a.name.isdigit():
                a.name = str(k)
                k += 1
        for b in blocks:
            if b.name.isdigit():
                b.name = str(k)
                k += 1
            for i in b.instructions:
                i._text = None
                if i.type is not VOID and (i.name is None or i.name.isdigit()):
                    i.name = str(k)
                    k += 1
        from patterns.ir.parser_body import assign_slots

        assign_slots(self.fn)
        self.fn.uses = None


def _operand_order(t) -> list:
    """The blocks of terminator ``t`` in the order LLVM creates their uses (a
    conditional branch: false then true)."""
    tg = list(t.targets)
    if t.opcode == "br" and len(tg) == 2:
        return [tg[1], tg[0]]
    return tg


def is_not(v):
    """``X`` when ``v`` is ``xor X, true`` (either operand order), else None."""
    if isinstance(v, Instruction) and v.opcode == "xor" and len(v.operands) == 2:
        a, b = v.operands
        if _all_ones(b):
            return a
        if _all_ones(a):
            return b
    return None


def _all_ones(v) -> bool:
    return isinstance(v, Constant) and (v.text == "true" or (v.kind == "int" and v.value == -1))


__all__ = ["EditableCFG", "TRUE", "FALSE", "I1", "is_not"]

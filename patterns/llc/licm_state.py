"""One function's LICM state (``LicmState``): the live use lists (built when a
reassociation first asks), the names new instructions get (as the ValueSymbolTable gives
them), the IR edits the reassociations make (new instructions, operand rewrites,
erasure, replaceAllUsesWith), what was moved or created, and the divergence of what is
new.
"""

from __future__ import annotations

from typing import Any, Final

from patterns.ir.core import Constant
from patterns.ir.function import Instruction
from patterns.llc.instsimplify import new_simplify_query
from patterns.llc.instsimplify_query import const_value, SimplifyQuery


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction


class LicmState:
    """One function's LICM: the live use lists (built when a reassociation first asks),
    names, and what was moved or created."""

    def __init__(self, fn, ua, target, grew=None):
        self.fn = fn
        self.ua = ua
        self.target = target
        self.grew = grew
        self.lists_ok = grew is not None  # (see ``run_licm``)
        self.forest: Any = None  # (the loop forest, for LSR; set by ``run_licm``)
        self.ph: Any = None  # (the preheader of the loop ``hoist_region`` works on)
        self.full: dict | None = None  # (else: every instruction's users, from one scan)
        self.extra: dict = {}  # instruction -> users this pass gave it
        self.dead: dict = {}  # instruction -> whether LLVM has deleted it (``is_dead``)
        self.names: set | None = None
        self.last_unique = 0
        self.erased_names: list = []  # (the names of the instructions ``erase`` removed)
        self.named: list = []  # (the instructions ``new`` gave a name of its caller's)
        self.analysis: SimplifyQuery | None = None
        self.moved: list = []  # hoisted, created or rewritten, in order
        self.recheck: list = []  # new or rewritten: their divergence, in order
        self.call_kinds: dict = {}

    def result(self) -> list:
        """What moved, was created or rewritten, each once, in order (erased ones not)."""
        return [i for i in dict.fromkeys(self.moved) if i.block is not None]

    # --- use lists, names, new instructions ------------------------------------------
    def raw_users(self, v) -> list:
        """The instructions in the function that read ``v`` now, each once: from the
        parser's user lists and the users EarlyCSE's rewrite gave ``v`` (``grew``) when
        those lists were current, else from one scan of the function; plus the users
        this pass gave it; kept when they still read ``v``."""
        res = []
        for u in dict.fromkeys(self._candidates(v)):
            if u.block is not None:
                for o in u.operands:
                    if o is v:
                        res.append(u)
                        break
        return res

    def _candidates(self, v) -> list:
        """Instructions that may read ``v`` (see ``raw_users``), possibly repeated."""
        if self.lists_ok:
            us = v._users
            out = [] if us is None else [us] if type(us) is not list else list(us)
            g = self.grew.get(v) if self.grew else None
            if g:
                out.extend(g)
        else:
            full = self.full
            if full is None:
                full = self.full = {}
                Inst = Instruction
                for b in self.fn.blocks:
                    for i in b.instructions:
                        for o in i.operands:
                            if type(o) is Inst:
                                lst = full.get(o)
                                if lst is None:
                                    full[o] = [i]
                                elif lst[-1] is not i:
                                    lst.append(i)
            out = list(full.get(v, ()))
        e = self.extra.get(v)
        if e:
            out.extend(e)
        return out

    def is_dead(self, x) -> bool:
        """Whether LLVM has deleted ``x`` by the time LICM looks at it though it is still
        in our blocks: an instruction without side effects whose every reader is dead
        (none at all: EarlyCSE's replaced instructions, which ``rewrite_uses`` leaves without
        readers, and trivially dead code), repeatedly; a cycle of readers keeps its
        members alive. Asked on demand (a walk over the readers of ``x``, remembered):
        the few instructions the reassociations ask about, not the whole function.
        LICM's own rewrites never make an instruction dead, so what is remembered stays
        true."""
        memo = self.dead
        r = memo.get(x)
        if r is not None:
            return r
        from patterns.ir.effects import has_side_effect

        def may_die(v) -> bool:
            return v.name is not None and v.block is not None and not has_side_effect(v)

        if not may_die(x):
            memo[x] = False
            return False
        readers = self.raw_users
        active = {x}
        stack = [(x, iter(readers(x)))]
        while stack:
            v, it = stack[-1]
            live = False
            for u in it:
                d = memo.get(u)
                if d is None:
                    if u in active:  # (a cycle)
                        live = True
                        break
                    if not may_die(u):
                        memo[u] = False
                        live = True
                        break
                    active.add(u)
                    stack.append((u, iter(readers(u))))
                    break
                if not d:
                    live = True
                    break
            else:
                memo[v] = True  # (every reader dead)
                active.discard(v)
                stack.pop()
                continue
            if live:  # (a live reader: ``v`` and every reader chain below it on the stack live)
                for w, _it in stack:
                    memo[w] = False
                return False
        return memo[x]

    def one_use(self, v) -> bool:
        """hasOneUse among the live instructions (a user reading ``v`` twice uses it
        twice)."""
        if type(v) is not _INSTRUCTION:
            return False
        n = 0
        for u in self.raw_users(v):
            if self.is_dead(u):
                continue
            for o in u.operands:
                if o is v:
                    n += 1
            if n > 1:
                return False
        return n == 1

    def add_user(self, v, u) -> None:
        if type(v) is _INSTRUCTION:
            lst = self.extra.get(v)
            if lst is None:
                self.extra[v] = [u]
            else:
                lst.append(u)

    def unique_name(self, base: str) -> str:
        """The name LLVM's ValueSymbolTable gives a new value called ``base``: ``base``
        when free, else ``base`` followed by the function's next unused number."""
        names = self.names
        if names is None:
            i: Instruction
            fn = self.fn
            names = self.names = set()
            blocks: list = fn.blocks
            for b in blocks:
                insts: list = b.instructions
                for i in insts:
                    names.add(i.name)
            names.update(a.name for a in fn.args)
            names.update(b.name for b in blocks)
        name = base
        while name in names:
            self.last_unique += 1
            name = f"{base}{self.last_unique}"
        names.add(name)
        return name

    def new(self, opcode: str, base: str, type, operands: list, block, where: Any = None, name: Any = None, **fields):
        """A new instruction named after ``base`` (or exactly ``name``), in ``block``
        before ``where`` (at the preheader's end when None), its uses recorded."""
        i = Instruction(opcode, name if name is not None else self.unique_name(base), type, operands, block,
                        **fields)
        if name is not None:
            self.named.append(i)
        if where is None:
            insts = self.ph.instructions
            insts.insert(len(insts) - 1, i)
        else:
            insts = block.instructions
            insts.insert(insts.index(where), i)
        for o in operands:
            self.add_user(o, i)
        self.moved.append(i)
        self.recheck.append(i)
        return i

    def binop(self, opc: str, a, b, base: str, ph, flags=frozenset()):
        """IRBuilder's CreateBinOp in the preheader: two constants fold."""
        ca, cb = const_value(a), const_value(b)
        if ca is not None and cb is not None and opc in ("add", "sub", "mul"):
            r = ca + cb if opc == "add" else ca - cb if opc == "sub" else ca * cb
            return self.analyses().const(r, a)
        i = self.new(opc, base, a.type, [a, b], ph)
        if flags:
            i.flags = frozenset(flags)
        return i

    def set_operands(self, i, ops: list) -> None:
        for o in ops:
            self.add_user(o, i)
        i.operands = ops
        i._text = None

    def erase(self, i) -> None:
        """eraseFromParent; the instructions still reading ``i`` (dead ones: the live
        readers were given the replacement) go too, as LLVM had deleted them, so no
        instruction left in our blocks reads an erased one."""
        work = [i]
        while work:
            x = work.pop()
            if x.block is None:
                continue
            work.extend(self.raw_users(x))
            x.block.instructions.remove(x)
            x.block = None
            self.erased_names.append(x.name)

    def names_now(self) -> "set | None":
        """The names the function's values and blocks have now (None when ``unique_name``
        was never asked): its set, less the names of the erased instructions that no
        instruction left has (one ``new`` named after an erased one keeps it; other
        names are each one value's). Hands the set over (LSR's, see
        ``patterns.llc.lsr.loop_strength_reduce``): a scan of the function would give the
        same."""
        names = self.names
        if names is None:
            return None
        names.discard(None)  # (unnamed values)
        kept = {i.name for i in self.named if i.block is not None}
        for n in self.erased_names:
            if n not in kept:
                names.discard(n)
        self.names = None
        return names

    def replace_all_uses(self, old, new) -> None:
        """replaceAllUsesWith (the dead instructions reading ``old`` too: they stay in our
        blocks and must not read an erased instruction)."""
        for u in self.raw_users(old):
            u.operands = [new if o is old else o for o in u.operands]
            if u.opcode == "phi":
                u.incoming = [(new if v is old else v, blk) for v, blk in u.incoming]
            u._text = None
            self.add_user(new, u)
            if not self.is_dead(u):
                self.moved.append(u)

    def analyses(self) -> "SimplifyQuery":
        p = self.analysis
        if p is None:
            p = self.analysis = new_simplify_query(self.fn, None, {})
        return p

    # --- divergence of what changed --------------------------------------------------
    def note_divergence(self) -> None:
        """The uniformity analysis's verdict for each new or rewritten instruction, as
        llc's rerun before selection gives it: divergent when an operand is, or is read
        outside a cycle with a divergent exit that holds it (temporal divergence).
        Recorded in ``ua`` (a data step from that operand)."""
        ua = self.ua
        try:
            fu = ua.function(self.fn)
        except (KeyError, AttributeError):
            return
        table = getattr(ua, "_divergent", None)
        cycles = [c.block_set for c in getattr(ua, "cycles_with_divergent_exit", ())]
        Inst = Instruction
        for i in self.recheck:
            if i.block is None or ua.is_divergent(i):
                continue
            cause = None
            for o in i.operands:
                if type(o) is _CONSTANT:
                    continue
                if ua.is_divergent(o):
                    cause = o
                    break
                if cycles and type(o) is Inst and o.block is not None:
                    for c in cycles:
                        if o.block in c and i.block not in c:
                            cause = o
                            break
                    if cause is not None:
                        break
            if cause is not None:
                fu.divergent[i] = cause
                if table is not None and table is not fu.divergent:
                    table.add(i)

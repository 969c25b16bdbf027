"""Which loops and uses the modeled case of LoopStrengthReduce takes (``claim``, see
``patterns.llc.lsr``): the loops LoopInfo gives LSR (``lsr_loops``), IVUsers' interesting
values and their readers (``Claim``), the readers that pin a value in place, and the use
lists of the live code (``users_of``, ``live_users``, ``dead_code``).
"""

from __future__ import annotations

from typing import Any, Final

from patterns.ir.core import Constant, I32
from patterns.ir.function import Function, Instruction
from patterns.llc.lsr_scev import ashr_by_constant, invariant_atom, is_const, opaque, Scev


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction
# (``reversed`` called through an untyped name: mypyc 2.4 stops with an internal error on
# ``for x in reversed(lst)`` over a list it cannot type; see patterns/dag/builder.py)
_rev: Final[Any] = reversed


def _plain_user(u, v, body, sc) -> bool:
    """``u``, reading the interesting ``v``, is not interesting itself: SCEV sees it as
    opaque (and, or without ``disjoint``, xor but with -1, shifts of ``v`` by a
    variable amount or to the right by a constant not over an add or shl, a shift by
    ``v``), a multiply whose other operand is neither a constant nor a loop-invariant
    scale of a bare recurrence, or an ordered compare."""
    if type(u) is not _INSTRUCTION or u.block not in body or len(u.operands) != 2:
        return False
    a, b = u.operands
    other = b if a is v else a
    if a is v and b is v:
        return False
    op = u.opcode
    if op == "icmp":
        return u.predicate not in ("eq", "ne")
    if op in ("and", "or", "xor"):
        if "disjoint" in u.flags:
            return False
        return not (op == "xor" and is_const(other) and other.value == -1)
    if op in ("lshr", "ashr", "shl"):
        if b is v:
            return True  # (a shift by v)
        if not is_const(b):
            return True
        return op != "shl" and not (op == "ashr" and v.opcode in ("add", "shl"))
    if op == "mul":
        # (a product is an affine recurrence only when v's SCEV is one and the other
        # factor is loop-invariant)
        if is_const(other):
            return False
        oe = sc.of(other)
        if oe is None:
            return sc.varies(other)
        if oe[3] != 0 or oe[0]:
            return True
        e = sc.of(v)
        return bool(e and e[0])
    return False


def users_of(fn: Function) -> dict:
    """Each instruction's readers in program order (one entry per operand read), for the
    instructions read at all."""
    us: dict = {}
    Inst = Instruction
    for b in fn.blocks:
        for i in b.instructions:
            for o in i.operands:
                if type(o) is Inst:
                    lst: list | None = us.get(o)
                    if lst is None:
                        us[o] = [i]
                    else:
                        lst.append(i)
    return us


def lsr_loops(fn, idom=None, dom=None, forest=...) -> tuple:
    """((header, body) of each innermost natural loop, in LLVM's loop pass manager
    order: a post-order walk of the loop forest, top-level loops in reverse program
    order; block -> loop depth; header -> body of every loop). ``forest``: the
    ``loop_forest`` of ``fn`` when the caller has it."""
    from patterns.llc.analyses import dom_tree, loop_forest

    if forest is ...:
        if dom is None:
            if idom is None:
                from patterns.ir.dominators import immediate_dominators

                idom = immediate_dominators(fn)
            dom = dom_tree(fn, idom)
        forest = loop_forest(fn, dom)
    if forest is None:
        return [], {}, {}
    order, bodies, kids, _innermost = forest
    depth: dict = {}
    for body in bodies.values():
        for x in body:
            depth[x] = depth.get(x, 0) + 1
    return [(h, bodies[h]) for h in order if not kids[h]], depth, bodies


class Claim:
    """One loop of the modeled class: what the rewrite needs. ``dead``: the interesting
    instructions the rewrite leaves unread (LSR deletes them)."""

    def __init__(self, header, pre, latch, iv, inext, cmp, start, uses, chain):
        self.header, self.pre, self.latch, self.cmp = header, pre, latch, cmp
        self.iv, self.inext = iv, inext
        self.start, self.uses, self.chain = start, uses, chain
        # set by ``claim`` once the loop is taken
        self.split: Any = None
        self.compares: list = []
        self.sc: Any = None
        self.body: Any = None
        self.users: Any = None
        self.fn_blocks: list = []
        self.pinned_readers: set = set()
        # memos: ``_reader_pins``, ``found_values``, ``computed``
        self.pins: dict = {}
        self.sums: dict | None = None
        self.computed: set | None = None


def _phi_reader_ok(u, v, sc, body, dom) -> bool:
    """``u``, a phi of a loop block other than the header reading the interesting ``v``,
    is an IV use the model can rewrite: SCEV sees it as opaque (not all incoming values
    equal -- simplifyInstruction -- and, with two incoming values, not a select-like
    phi: createNodeFromSelectLikePHI needs the SCEVs of both incoming values to
    properly dominate the phi's block, so some loop-variant atom of one of them must
    not), and every block it reads ``v`` from ends in an unconditional branch
    (RewriteForPHI splits a critical edge)."""
    ins = u.incoming
    if len(ins) < 2 or all(x is ins[0][0] for x, _b in ins) or dom is None:
        return False
    for x, blk in ins:
        if x is v and len(blk.successors) != 1:
            return False
    _kids, pre, post = dom
    pb = u.block

    def properly_dominates(b):
        return b is not pb and pre[b] <= pre[pb] and post[pb] <= post[b]

    if len(ins) == 2:
        atoms = []
        for x, _b in ins:
            e = sc.of(x)
            if e is not None:
                atoms.extend(e[0])
        if all(properly_dominates(a.block) for a in atoms):
            return False  # (a select-like phi could have a SCEV of its own)
    return True


def claim(fn, header, body, users: Any = None, dom=None) -> "Claim | None":
    """The loop's parts when it is of the modeled class (module docstring), else None.
    ``users``: each live instruction's live readers (``live_users``); ``dom``: the
    dominator tree (``patterns.llc.analyses.dom_tree``), without which no phi reader of
    an interesting value is taken."""
    if users is None:
        users = live_users(fn)
    outside = [p for p in dict.fromkeys(header.predecessors) if p not in body]
    inside = [p for p in dict.fromkeys(header.predecessors) if p in body]
    if len(outside) != 1 or len(inside) != 1 or len(outside[0].successors) != 1:
        return None
    pre, latch = outside[0], inside[0]
    for b in body:
        if b is not latch and any(s not in body for s in b.successors):
            return None  # another exiting block
    br = latch.terminator
    if br is None or br.opcode != "br" or len(br.operands) != 1 or len(latch.successors) != 2:
        return None
    cmp = br.operands[0]
    if (type(cmp) is not _INSTRUCTION or cmp.opcode != "icmp" or cmp.block is not latch
            or cmp.predicate in ("eq", "ne") or users.get(cmp) != [br]):
        return None
    inext, bound = cmp.operands
    if type(bound) is _INSTRUCTION and bound.block in body:
        return None
    if type(inext) is not _INSTRUCTION or inext.opcode != "add" or inext.block not in body or inext.type != I32:
        return None
    iv, one = inext.operands
    if not (is_const(one) and one.value == 1) or type(iv) is not _INSTRUCTION or iv.opcode != "phi":
        return None
    if iv.block is not header or len(iv.incoming) != 2 or inext.flags:
        return None
    inc = dict((blk, v) for v, blk in iv.incoming)
    start: Any = inc.get(pre)
    if inc.get(latch) is not inext or not (is_const(start) and start.value == 0):
        return None
    if sorted(map(id, users.get(inext, []))) != sorted((id(iv), id(cmp))):
        return None
    for p in header.instructions:
        if p.opcode != "phi":
            break
        if p is iv:
            continue
        lv = dict((blk, v) for v, blk in p.incoming).get(latch)
        if lv is None or not opaque(lv, body) or lv.opcode == "phi":
            return None
    # IVUsers: from %i through the users whose SCEV is interesting (it holds {0,+,k});
    # a reader that is not interesting is a use of the value it reads
    sc = Scev(body, iv)
    uses = []
    chain = []
    seen = {iv, inext}

    def visit(v) -> bool:
        # each value's readers in use-list order (most recent first: as a parsed
        # module's use lists are), depth first, as IVUsers walks them
        for u in _rev(list(dict.fromkeys(users.get(v, [])))):
            if u is inext or u is iv or (v is inext and u is cmp):
                continue
            if u.block not in body:
                return False
            if u.opcode == "phi":
                # (an opaque phi of the loop: a use, rewritten in its incoming blocks)
                if u.block is header or not _phi_reader_ok(u, v, sc, body, dom):
                    return False
                uses.append((u, v))
                continue
            e = sc.of(u) if u.opcode in ("add", "sub", "xor") else None
            if e is not None and e[3] != 0:
                if u in seen:
                    # (IVUsers records a processed value reached again as a user of the
                    # value: a use of its own, which dies with the processed value when
                    # every use counts down by a step below -1 -- ``%x - %i - %i`` --;
                    # elsewhere the model declines)
                    rereached.append((u, v))
                    continue
                seen.add(u)
                chain.append(u)
                if not visit(u):
                    return False
                continue
            if u.opcode == "icmp" and u.predicate in ("eq", "ne") and v is iv:
                other = u.operands[1] if u.operands[0] is iv else u.operands[0]
                if other is iv:
                    return False
                if invariant_atom(other, body):
                    zero.append(u)  # (an ICmpZero use: N - {0,+,1} == 0)
                else:
                    oe = sc.of(other)
                    if is_const(other) or oe is None or oe[3] != 0 or not oe[0]:
                        return False  # (a constant, or a value the model cannot place)
                    basic.append(u)
                continue
            if not _plain_user(u, v, body, sc):
                return False  # (interesting in a form the model does not follow)
            uses.append((u, v))
        return True

    zero: list = []
    basic: list = []
    rereached: list = []
    if not visit(iv):
        return None
    for u, v in uses:
        if u.opcode == "phi" and any(x is not v and x in seen for x, _b in u.incoming):
            return None  # (a phi reading two interesting values: IVUsers records one)
    nontrivial = []
    for u, v in uses:
        if v is iv:
            continue
        if users.get(v, []).count(u) != 1:
            return None  # (a reader of the value twice: two fixups)
        e = sc.of(v)
        var, inv, const, step = e
        if step == 0 or step > 1 or step < -8 or any(c not in (1, -1) for c in list(var.values()) + list(inv.values())):
            return None
        if step == 1 and not (inv or const or var):
            return None
        nontrivial.append((u, v, e))
    if not nontrivial and not zero and not any(u.operands[1] is iv for u in basic):
        return None
    # LSR rewrites use by use (uses with equal SCEVs are one, in order of first
    # appearance), each use's fixups in order
    first: dict = {}
    for k, (_u, _v, e) in enumerate(nontrivial):
        first.setdefault((frozenset(e[0].items()), frozenset(e[1].items()), e[2], e[3]), k)
    nontrivial.sort(key=lambda t: first[(frozenset(t[2][0].items()), frozenset(t[2][1].items()), t[2][2], t[2][3])])
    if len({e[3] for _u, _v, e in nontrivial}) > 1 and any(e[3] < -1 for _u, _v, e in nontrivial):
        return None  # (a down-counting step other than -1 beside other steps: the solver decides)
    if rereached and not (nontrivial and all(e[3] < -1 for _u, _v, e in nontrivial)):
        return None  # (IVUsers' use of a processed value: followed only below)
    neg_starts = {(frozenset(e[1].items()), e[2]) for _u, _v, e in nontrivial if e[3] < 0}
    split = False
    if len(neg_starts) > 1:
        # two down-counting starts, 0 and an invariant part I without a constant: one
        # new IV from 0 and I in a register of its own (fewer registers than any other
        # formula; verified against llc). Other mixes: LSR's solver decides.
        if len(neg_starts) != 2 or (frozenset(), 0) not in neg_starts or any(k for _i, k in neg_starts):
            return None
        if any(e[3] == 1 and e[1] for _u, _v, e in nontrivial):
            return None  # (an up-counting invariant part beside them: not modeled)
        split = True
    if len({(frozenset(e[0].items()), frozenset(e[1].items()), e[2]) for _u, _v, e in nontrivial
            if e[3] == 1 and e[2]}) > 1:
        # (two up-counting uses with constants: GenerateCrossUseConstantOffsets offers
        # them a new IV {c,+,1}, which llc's solver takes over %i with the immediates)
        return None
    if len({(frozenset(e[1].items()), e[2]) for _u, _v, e in nontrivial if e[3] == 1 and e[1]}) > 1:
        return None  # (up-counting uses with different invariant parts: the solver may share registers)
    neg = [e for _u, _v, e in nontrivial if e[3] < 0]
    if neg and zero:
        return None  # (a down-counting IV the compares could share: the solver decides)
    start = ({}, 0) if split else (neg[0][1], neg[0][2]) if neg else None
    c = Claim(header, pre, latch, iv, inext, cmp, start, nontrivial, chain)
    c.split = split
    c.compares = [(u, True) for u in zero] + [(u, False) for u in basic]
    c.sc, c.body, c.users = sc, body, users
    c.fn_blocks = fn.blocks
    return c


def _reader_pins(u, x, sc) -> "bool | None":
    """Whether ``u``, read in a block the loop header dominates, gives the loop-invariant
    ``x`` a use of LSR's own (CollectLoopInvariantFixupsAndFormulae: a reader whose SCEV
    is opaque, or that SCEV cannot describe -- no integer result --, other than a
    compare with a recurrence of the loop); None where the model cannot tell (a no-op,
    a mask, a select or phi SCEV may see through, ...)."""
    t = u.type
    if t is None or not (t.is_int or t.is_ptr):
        return True  # (a store, a branch: not SCEVable)
    op, ops = u.opcode, u.operands
    if op in ("add", "sub", "mul", "udiv", "urem", "trunc", "zext", "sext"):
        return False  # (a sum, product, quotient or cast: ignored)
    if op == "icmp":
        if len(ops) != 2 or ops[0] is ops[1]:
            return None
        other = ops[1] if ops[0] is x else ops[0]
        if type(other) is _CONSTANT or type(other) is not _INSTRUCTION or other.block not in sc.body:
            return True
        e = sc.of(other)
        if e is None:
            return None
        return not (e[3] != 0 and not e[0])  # (a recurrence of the loop: the IV use has it)
    if len(ops) != 2 or ops[0] is ops[1]:
        return None
    a, b = ops
    if op in ("shl", "lshr", "ashr"):
        if b is x or not is_const(b):
            return True
        if not isinstance(b.value, int) or not 1 <= b.value <= 31:
            return None
        if op == "ashr":
            return True if ashr_by_constant(u) else None
        return False  # (a multiple or a quotient)
    if op in ("and", "or", "xor"):
        if "disjoint" in u.flags:
            return False
        if is_const(a) or is_const(b):
            return False if op == "xor" and (b.value if is_const(b) else a.value) == -1 else None
        return True
    return None


def pinned_by(c, x, dom) -> "bool | None":
    """LSR gives the loop-invariant ``x`` (an argument or an instruction outside the
    loop) a use of its own, so a formula reading reg(x) costs no register: some reader
    of ``x`` in a block the loop header dominates (for a phi, the block the value comes
    from) ``_reader_pins`` it. None where some reader cannot be placed."""
    memo = c.pins
    if x in memo:
        return memo[x]
    _kids, pre, post = dom
    h = c.header
    dead = getattr(c.users, "dead", ())
    r: Any = False
    for b in c.fn_blocks:
        for u in b.instructions:
            if not any(o is x for o in u.operands):
                continue
            if u.opcode == "phi":
                for v, blk in u.incoming:
                    if v is x and pre[h] <= pre[blk] and post[blk] <= post[h]:
                        r = None  # (a phi reading it: SCEV may see a select through it)
                continue
            if not (pre[h] <= pre[b] and post[b] <= post[h]):
                continue
            if u in dead:
                continue
            k = _reader_pins(u, x, c.sc)
            if k is True:
                memo[x] = True
                return True
            if k is None:
                r = None
    memo[x] = r
    return r


def found_values(c, var: dict) -> list:
    """The instructions of ``c``'s loop whose SCEV is the loop-variant sum ``var``
    (SCEVExpander's expand looks an expression up in ScalarEvolution's ExprValueMap
    before building it: FindValueInExprValueMap; never for a single value)."""
    if len(var) < 2 and all(k == 1 for k in var.values()):
        return []
    sums = c.sums
    if sums is None:
        sums = c.sums = {}
        for b in c.body:
            for x in b.instructions:
                if x.opcode in ("add", "sub", "xor", "mul") and c.users.get(x) is not None:
                    e = c.sc.of(x)
                    if e is not None and not e[1] and not e[2] and not e[3] and e[0]:
                        sums.setdefault(frozenset(e[0].items()), []).append(x)
    return sums.get(frozenset(var.items()), [])


def computed(c) -> set:
    """The values whose SCEV IVUsers has certainly computed by the time LSR expands:
    the interesting values and, through the sums SCEV looks into, their operands."""
    done = c.computed
    if done is None:
        done = c.computed = set()
        work = list(c.chain)
        while work:
            x = work.pop()
            if x in done:
                continue
            done.add(x)
            if x.opcode in ("add", "sub") or (x.opcode == "xor" and is_const(x.operands[1])):
                work.extend(o for o in x.operands if type(o) is _INSTRUCTION and o.block in c.body)
    return done


def dead_code(fn, users: dict) -> set:
    """The instructions LLVM has deleted by now or would delete: no side effects and
    read only by such instructions (our earlier passes leave replaced code in place)."""
    from patterns.ir.effects import has_side_effect

    # (``users`` has an entry, never empty, for each instruction read at all; the reads
    # by dead instructions are counted off in ``gone``, for the few instructions they read)
    work = [i for b in fn.blocks for i in b.instructions
            if i not in users and not has_side_effect(i) and not i.is_terminator]
    dead: set = set()
    gone: dict = {}
    while work:
        d = work.pop()
        if d in dead:
            continue
        dead.add(d)
        for o in d.operands:
            if type(o) is _INSTRUCTION and o not in dead:
                n = gone[o] = gone.get(o, 0) + 1
                if n == len(users[o]) and not has_side_effect(o) and not o.is_terminator:
                    work.append(o)
    return dead


class LiveUsers:
    """Each live instruction's live readers, filtered when first asked (``get``)."""

    def __init__(self, users: dict, dead: set):
        self.users, self.dead = users, dead
        self.memo: dict = {}

    def get(self, v, default=None):
        r = self.memo.get(v)
        if r is None:
            us = self.users.get(v)
            if us is None or v in self.dead:
                return default
            r = self.memo[v] = [u for u in us if u not in self.dead]
        return r


def live_users(fn) -> "LiveUsers":
    """Each live instruction's live readers."""
    users = users_of(fn)
    return LiveUsers(users, dead_code(fn, users))

"""The IR prepasses llc's pipeline has run before SelectionDAGISel builds a block, fused into
one walk (``prepare``): EarlyCSE (``patterns.dag.cse``), aggressive dead-code removal with
llc's survivors (``patterns.dag.deadcode``) and Sink (``patterns.dag.sink``), plus the values
used outside their block; ``prepare_plain`` gives the same answer from the separate passes
(any ``dce`` mode, and the reference the tests compare ``prepare`` with).

The fused form keeps the cost per instruction close to flat as kernels grow past the CPU
caches: one dominator-tree numbering, one walk over the instructions for CSE, one marking
walk from the side effects that also records the uses Sink needs, and Sink sweeps that
evaluate only values with no user in their own block. Few passes and few function-sized
maps; operands are told apart by their class (cached per class) before any dictionary
lookup, so constants are never hashed; a constant operand's value is looked up by its text
per type. The IR passes and the prepasses share one dominator tree
(``patterns.ir.dominators.shared_dominators``)."""

from __future__ import annotations

from typing import Any, Final

from patterns.dag.cse import common_subexpressions, CSE_OPS, value_kind, KINDS
from patterns.ir.opcodes import COMMUTATIVE_BINOPS
from patterns.dag.deadcode import drop_unselected, live_instructions, survivors_at_sink, llc_survivors
from patterns.dag.sink import sink, SINKABLE, sinkable_call, SinkTree
from patterns.ir.dominators import immediate_dominators
from patterns.ir.effects import has_side_effect, SIDE_EFFECTS
from patterns.ir.function import Function, Instruction

# (``reversed`` through a name mypyc does not know: mypyc 2.4 stops with an internal
# error on ``for x in reversed(lst)`` over an untyped list in a compiled build)
_rev: Final[Any] = reversed


class _Prepared:
    """What the function-wide prepasses leave for the block builder (see ``prepare``)."""

    __slots__ = ("rep", "live", "placed", "moved", "used_outside")

    def __init__(self, rep, live, placed, moved, used_outside):
        self.rep = rep                    # CSE'd instruction -> its representative
        self.live = live                  # instructions that survive dead-code removal
        self.placed = placed              # block -> its live instructions in order, after Sink
        self.moved = moved                # instruction Sink moved -> its new block
        self.used_outside = used_outside  # values read outside their final block or by a phi


def _cse_operand_key(v, rep: dict, type_text: dict):
    """An operand's part of a CSE key (``prepare``): an instruction's representative or
    an argument itself (both compare by identity), ``(text, type text)`` for a constant,
    the ``id`` of anything else (globals compare by identity, as in ``_cse_key``)."""
    k = KINDS.get(type(v)) or value_kind(type(v))
    if k == "I":
        return rep.get(v, v)
    if k == "A":
        return v
    if k == "C":
        t = v.type
        tt = type_text.get(id(t))
        if tt is None:
            tt = type_text[id(t)] = (t, str(t))
        return (v.text, tt[1])
    return id(v)


def _cse_swapped(x, y) -> bool:
    """Whether the operand keys ``x, y`` of a commutative instruction go in the other
    order: constants first (by text), then everything else by identity. Any fixed order
    does; EarlyCSE only needs ``a op b`` and ``b op a`` to get one key."""
    tx = type(x) is tuple
    ty = type(y) is tuple
    if tx or ty:
        return y < x if tx and ty else ty
    return (x if type(x) is int else id(x)) > (y if type(y) is int else id(y))


def prepare(fn: Function) -> _Prepared:
    """EarlyCSE, aggressive dead-code removal and Sink in one go: the answers of
    ``common_subexpressions``, ``live_instructions(fn, "aggressive", rep)`` and ``sink``
    (tests/test_sdag_prepass.py compares them), plus the values used outside their block.

    Those functions each walk every instruction and keep function-sized maps; at 50k
    instructions the maps and the instructions no longer fit the CPU caches, and every
    extra walk costs more per instruction than on a small kernel. Here:

    - one dominator-tree numbering serves the CSE walk (its preorder) and Sink's
      dominance tests. The CSE table is not scoped: an entry counts only when its block
      dominates the current one (in preorder, every block between an entry's block and
      the current one lies in the entry's subtree, so a dominating entry is never
      replaced and a non-dominating one is one a scoped table would have dropped);
    - the CSE walk collects the roots of dead-code removal, and the marking walk from
      them, which meets every live use once, records what Sink needs: per value the
      number of users in its own block (``local``), its other users (``iusers``, one
      entry per use) and the blocks of its phi uses (``pusers``; a phi use counted in the
      value's own block pins it for good);
    - a Sink sweep evaluates only candidates -- sinkable values with no user in their
      own block and not pinned -- since ``target`` answers None for every other value.
      Candidates are kept per block and visited bottom-up as the pass walks the block.
      A move updates its operands' counts; an operand whose answer may have changed
      becomes a candidate again (exactly those ``sink`` marks dirty and can move);
    - only moved instructions get an entry (``moved``), and a block's list is copied
      only when something leaves or enters it or it holds dead instructions.

    An instruction's block is read from ``ins.block``, which the IR keeps equal to the
    block whose list holds it (passes that move instructions update both)."""
    hit: Instruction | None
    ins: Instruction
    i: Instruction
    w: Instruction
    v: Any
    x: Any
    y: Any
    key: Any
    blocks = fn.blocks
    rep: dict = {}
    live: set = set()
    if not blocks:
        return _Prepared(rep, live, {}, {}, set())
    entry = blocks[0]
    idom = immediate_dominators(fn)
    kids: dict = {}
    for b in blocks:  # in source order: the CSE walk visits children in it
        p = idom.get(b)
        if p is not None and p is not b:
            lst = kids.get(p)
            if lst is None:
                kids[p] = [b]
            else:
                lst.append(b)
    # dominator-tree DFS: preorder, intervals (a dominates b iff b's nests in a's), depths
    pre: dict = {}
    post: dict = {}
    depth: dict = {entry: 0}
    preorder = []
    clock = 0
    work: list = [(entry, False)]
    while work:
        x, done = work.pop()
        if done:
            post[x] = clock
            clock += 1
            continue
        pre[x] = clock
        clock += 1
        preorder.append(x)
        work.append((x, True))
        ks = kids.get(x)
        if ks:
            d = depth[x] + 1
            for k in _rev(ks):
                depth[k] = d
                work.append((k, False))

    # -- EarlyCSE and the roots of dead-code removal. An instruction's key is one flat
    # tuple (opcode, type, predicate, operand keys..., flags); its length tells the
    # operand count apart. Operand keys as in _cse_operand_key; the operands of a
    # commutative instruction are ordered as _cse_swapped orders them (two objects by
    # identity, written out for the common case).
    kinds = KINDS
    table: dict = {}
    type_canon: dict = {}
    canon: dict = {}
    type_text: dict = {}
    cse_ops = CSE_OPS
    commutative = COMMUTATIVE_BINOPS
    side = SIDE_EFFECTS
    roots = []
    last_t = tcid = None  # (the type of the previous instruction and its canonical id)
    for b in preorder:
        insts: list = b.instructions
        for ins in insts:
            opc = ins.opcode
            if opc not in cse_ops or ins.name is None:
                if opc in side or (opc == "call" or opc == "load") and has_side_effect(ins):
                    roots.append(ins)
                continue
            t = ins.type
            if t is not last_t:
                tc = type_canon.get(id(t))
                if tc is None:
                    tc = type_canon[id(t)] = (t, id(canon.setdefault(t, t)))
                last_t, tcid = t, tc[1]
            operands = ins.operands
            if len(operands) == 2:
                x, y = operands
                kx = kinds.get(type(x))
                if kx == "I":
                    x = rep.get(x, x)
                elif kx != "A":
                    x = _cse_operand_key(x, rep, type_text)
                    kx = None
                ky = kinds.get(type(y))
                if ky == "I":
                    y = rep.get(y, y)
                elif ky == "C" and kx is not None:
                    # (_cse_operand_key and _cse_swapped written out for the common
                    # ``x op constant``: a constant goes first)
                    ct = y.type
                    tt = type_text.get(id(ct))
                    if tt is None:
                        tt = type_text[id(ct)] = (ct, str(ct))
                    y = (y.text, tt[1])
                    if opc in commutative:
                        key = (opc, tcid, ins.predicate, y, x, ins.flags)
                    else:
                        key = (opc, tcid, ins.predicate, x, y, ins.flags)
                    hit = table.get(key)
                    if hit is not None:
                        hb = hit.block
                        if hb is b or pre[hb] <= pre[b] and post[b] <= post[hb]:
                            if not ins.cgp_copy:  # (see irpasses.sink_extract_bits)
                                rep[ins] = hit
                            continue
                    table[key] = ins
                    continue
                elif ky != "A":
                    y = _cse_operand_key(y, rep, type_text)
                    ky = None
                if opc in commutative and (id(x) > id(y) if kx is not None and ky is not None
                                           else _cse_swapped(x, y)):
                    key = (opc, tcid, ins.predicate, y, x, ins.flags)
                else:
                    key = (opc, tcid, ins.predicate, x, y, ins.flags)
            else:
                ks = [_cse_operand_key(v, rep, type_text) for v in operands]
                if opc in commutative and len(ks) >= 2 and _cse_swapped(ks[0], ks[1]):
                    ks[0], ks[1] = ks[1], ks[0]
                key = (opc, tcid, ins.predicate, *ks, ins.flags)
            hit = table.get(key)
            if hit is not None:
                hb = hit.block
                if hb is b or pre[hb] <= pre[b] and post[b] <= post[hb]:
                    if not ins.cgp_copy:
                        rep[ins] = hit
                    continue
            table[key] = ins
    for b in blocks:  # side effects in unreachable blocks are roots too
        if b not in pre:
            for ins in b.instructions:
                opc = ins.opcode
                if opc in side or (opc == "call" or opc == "load") and has_side_effect(ins):
                    roots.append(ins)

    # -- natural loops and the blocks CodeGenPrepare folds away (as in sink)
    tree = SinkTree(idom, pre, post, depth, blocks)
    through = tree.through

    # -- dead-code removal (marking from the roots), recording the uses Sink needs
    local: dict = {}     # value -> number of non-phi uses in its own block
    iusers: dict = {}    # value -> the other non-phi users, one entry per use
    pusers: dict = {}    # value -> blocks its phi uses count in (not its own block)
    pinned: set = set()  # values with a phi use counted in their own block
    phi_args: set = set()
    stack = roots
    pop, push = stack.pop, stack.append
    while stack:
        i = pop()
        if i in live:
            continue
        live.add(i)
        if i.opcode == "phi":
            inc: list = i.incoming
            for v, pb in inc:
                k = kinds.get(type(v)) or value_kind(type(v))
                if k != "I":
                    if k == "A":
                        phi_args.add(v)
                    continue
                w = rep.get(v, v)
                while pb in through:
                    pb = through[pb]
                if pb is w.block:
                    pinned.add(w)
                else:
                    lst = pusers.get(w)
                    if lst is None:
                        pusers[w] = [pb]
                    else:
                        lst.append(pb)
                if w not in live:
                    push(w)
            continue
        bi = i.block
        ic = type(i)  # (an operand of the same class is an instruction too)
        iops: list = i.operands
        for v in iops:
            if type(v) is not ic:
                k = kinds.get(type(v))
                if k != "I" and (k is not None or value_kind(type(v)) != "I"):
                    continue
            w = rep.get(v, v)
            if w.block is bi:
                local[w] = local.get(w, 0) + 1
            else:
                lst = iusers.get(w)
                if lst is None:
                    iusers[w] = [i]
                else:
                    lst.append(i)
            if w not in live:
                push(w)

    # -- dead instructions llc has not deleted by the time Sink runs: their uses count
    ndead = sum(len(b.instructions) for b in blocks) - len(live)
    survivors = None
    if ndead > len(rep):  # (dead instructions other than the CSE'd ones)
        survivors = survivors_at_sink(blocks, live, rep, kids, tree)
        if survivors:
            _record_survivor_uses(blocks, survivors, rep, through, local, iusers, pusers, pinned, phi_args)
            live.update(survivors)
            ndead -= len(survivors)

    # -- the blocks' instruction lists: shared with the IR until something changes them
    place: dict = {}
    if ndead:
        # dead instructions are the CSE'd ones (never marked: their uses read the
        # representative) unless the count says there are others
        for b in ({x.block for x in rep} if ndead == len(rep) else blocks):
            place[b] = [i for i in b.instructions if i in live]
    moved: dict = {}
    if len(blocks) >= 2:
        _sink_candidates(blocks, rep, local, iusers, pusers, pinned, place, moved, tree)
    used_outside = set(phi_args)
    used_outside.update(pinned)
    used_outside.update(pusers)
    for v, us in iusers.items():
        if us:
            used_outside.add(v)
    if survivors:
        drop_unselected(survivors, used_outside, rep, live, place, moved)
    placed = {b: place.get(b, b.instructions) for b in blocks}
    return _Prepared(rep, live, placed, moved, used_outside)


def _record_survivor_uses(blocks, survivors: set, rep, through, local, iusers, pusers, pinned, phi_args) -> None:
    """The uses of ``survivors_at_sink``'s instructions, recorded as ``prepare``'s marking
    walk records the live ones (Sink counts every user; FunctionLoweringInfo exports a
    value any instruction of another block, or any phi, reads)."""
    v: Any
    for i in [i for b in blocks for i in b.instructions if i in survivors]:
        if i.opcode == "phi":
            for v, pb in i.incoming:
                k = KINDS.get(type(v)) or value_kind(type(v))
                if k != "I":
                    if k == "A":
                        phi_args.add(v)
                    continue
                v = rep.get(v, v)
                while pb in through:
                    pb = through[pb]
                if pb is v.block:
                    pinned.add(v)
                else:
                    pusers.setdefault(v, []).append(pb)
            continue
        bi = i.block
        for v in i.operands:
            if (KINDS.get(type(v)) or value_kind(type(v))) != "I":
                continue
            v = rep.get(v, v)
            if v.block is bi:
                local[v] = local.get(v, 0) + 1
            else:
                iusers.setdefault(v, []).append(i)


def _sink_candidates(blocks, rep, local, iusers, pusers, pinned, place, moved, tree: "SinkTree") -> None:
    """The sweeps of ``prepare``'s Sink (``sink``'s pass, evaluating candidates only);
    updates ``place`` (copying a block's list before changing it), ``moved`` and the use
    records."""
    kinds = KINDS
    sinkable = SINKABLE
    pre = tree.pre
    cand: dict = {}
    for d in (iusers, pusers):
        for v in d:
            if v in pinned or local.get(v) or (v.opcode not in sinkable
                                                 and (v.opcode != "call" or not sinkable_call(v))):
                continue
            b = v.block
            if b not in pre:
                continue
            cs = cand.get(b)
            if cs is None:
                cand[b] = {v}
            else:
                cs.add(v)
    if not cand:
        return

    def target(ins, bb):
        return tree.target(bb, (moved.get(u) or u.block for u in iusers.get(ins, ())), pusers.get(ins, ()))

    def own(b) -> list:
        c: Any
        v: Any
        lst = place.get(b)
        if lst is None or lst is b.instructions:
            lst = place[b] = list(b.instructions)
        return lst

    changed = True
    while changed:
        changed = False
        for b in blocks:
            cs = cand.get(b)
            if not cs:
                continue
            lst = place.get(b)
            for ins in _rev(b.instructions if lst is None else list(lst)):
                if ins not in cs:
                    continue
                cs.discard(ins)
                to = target(ins, b)
                if to is None:
                    continue
                changed = True
                own(b).remove(ins)
                dst = own(to)
                k = 0
                while k < len(dst) and dst[k].opcode == "phi":
                    k += 1
                dst.insert(k, ins)
                moved[ins] = to
                # its users in ``to`` are now local ones
                us = iusers.get(ins)
                n = 0
                if us:
                    keep = [u for u in us if (moved.get(u) or u.block) is not to]
                    n = len(us) - len(keep)
                    iusers[ins] = keep
                local[ins] = n
                ps = pusers.get(ins)
                if ps and to in ps:
                    pinned.add(ins)
                elif not n:
                    c = cand.get(to)
                    if c is None:
                        cand[to] = {ins}
                    else:
                        c.add(ins)
                # its operands lost a user in ``b``; their answers may change
                for v in ins.operands:
                    if kinds.get(type(v)) != "I":
                        continue
                    v = rep.get(v, v)
                    hv = moved.get(v) or v.block
                    if hv is b:
                        n = local[v] - 1
                        local[v] = n
                        us = iusers.get(v)
                        if us is None:
                            iusers[v] = [ins]
                        else:
                            us.append(ins)
                        if n:
                            continue
                    elif local.get(v):
                        continue
                    if v in pinned or hv not in pre or (v.opcode not in sinkable
                                                        and (v.opcode != "call" or not sinkable_call(v))):
                        continue
                    c = cand.get(hv)
                    if c is None:
                        cand[hv] = {v}
                    else:
                        c.add(v)


def prepare_plain(fn, dce: str = "aggressive") -> _Prepared:
    """``prepare`` from the separate passes (``common_subexpressions``,
    ``live_instructions(fn, dce, rep)``, ``sink``): any ``dce`` mode, and the reference
    the tests compare ``prepare`` with."""
    v: Any
    idom = immediate_dominators(fn) if fn.blocks else None
    rep = common_subexpressions(fn, idom)
    live = live_instructions(fn, dce, rep)
    survivors = None
    if dce == "aggressive" and fn.blocks:
        survivors = llc_survivors(fn, live, rep, idom)
        live = live | survivors
    placed, home = sink(fn, live, rep, idom)
    used_outside: set = set()
    for b in fn.blocks:
        for ins in placed[b]:
            if ins.opcode == "phi":
                for v, _blk in ins.incoming:
                    k = value_kind(type(v))
                    if k == "I":
                        used_outside.add(rep.get(v, v))
                    elif k == "A":
                        used_outside.add(v)
                continue
            for v in ins.operands:
                if value_kind(type(v)) == "I":
                    v = rep.get(v, v)
                    if home.get(v, v.block) is not b:
                        used_outside.add(v)
    moved = {i: b for i, b in home.items() if b is not i.block}
    if survivors:
        drop_unselected(survivors, used_outside, rep, live, placed, moved)
    return _Prepared(rep, live, placed, moved, used_outside)

"""What survives llc's IR-level dead-code removal: the instructions a side effect needs
(``live_instructions``), the dead ones llc has not deleted yet when Sink runs
(``llc_survivors``: EarlyCSE erases only what is dead when its walk reaches it, LICM and
CodeGenPrepare some more), and of those the ones SelectionDAG keeps (``drop_unselected``)."""

from __future__ import annotations

from typing import Any, Final

from patterns.dag.cse import value_kind, KINDS
from patterns.dag.isd import const_int
from patterns.dag.sink import SinkTree
from patterns.ir.effects import has_side_effect, SIDE_EFFECTS

# (``reversed`` through a name mypyc does not know: mypyc 2.4 stops with an internal
# error on ``for x in reversed(lst)`` over an untyped list in a compiled build)
_rev: Final[Any] = reversed


def live_instructions(fn, mode: str = "trivial", rep: dict | None = None) -> set:
    """Instructions that survive llc's IR-level dead-code removal.

    ``"aggressive"`` (what the DAG builder uses): only what a side effect (store, branch,
    return, call, volatile load) transitively needs, dead phi cycles included -- llc's
    EarlyCSE deletes unused instructions and LSR deletes dead loop phis, and none of
    them reaches instruction selection. ``"trivial"``: repeatedly drop instructions
    without users and without side effects (dead phi cycles stay). ``"all"``: keep
    everything. ``rep`` maps CSE'd instructions to their representatives."""
    insts = [i for b in fn.blocks for i in b.instructions]
    if mode == "all":
        return set(insts)
    users: dict = dict.fromkeys(insts, 0)

    rep = rep or {}

    def ops_of(i):
        v: Any
        if i.opcode == "phi":
            return [rep.get(v, v) for v, _b in i.incoming]
        return [rep.get(v, v) for v in i.operands]

    if mode == "aggressive":
        # Only instructions of ``fn`` can be in ``users`` (and only they are keys of
        # ``rep``): other operands (constants, arguments) are skipped by their class.
        inst_classes = {type(i) for i in insts}
        live = set()
        side, maybe = SIDE_EFFECTS, ("call", "load")  # (has_side_effect answers False for the rest)
        work = [i for i in insts if i.opcode in side or i.opcode in maybe and has_side_effect(i)]
        while work:
            i = work.pop()
            if i in live:
                continue
            live.add(i)
            for v in (i.operands if i.opcode != "phi" else [v for v, _b in i.incoming]):
                if type(v) in inst_classes:
                    v = rep.get(v, v)
                    if v in users and v not in live:
                        work.append(v)
        return live

    for i in insts:
        for v in ops_of(i):
            if v in users:
                users[v] += 1
    live = set(insts)
    work = [i for i in insts if users[i] == 0 and not has_side_effect(i)]
    while work:
        i = work.pop()
        if i not in live:
            continue
        live.discard(i)
        for v in ops_of(i):
            if v in users and v in live:
                users[v] -= 1
                if users[v] == 0 and not has_side_effect(v):
                    work.append(v)
    return live


def _llvm_dom_preorder(blocks, kids: dict) -> list:
    """The dominator tree's blocks in the preorder LLVM's passes walk it (EarlyCSE): a
    node's children in the order a depth-first walk of the CFG from the entry, taking
    successors in order, first reaches them (the order DominatorTree construction
    attaches them in)."""
    from patterns.ir.cfg import dom_tree_numbering

    num = {b: i for i, b in enumerate(dom_tree_numbering(blocks[0]))}
    out = []
    stack = [blocks[0]]
    while stack:
        b = stack.pop()
        out.append(b)
        ks = kids.get(b)
        if ks:
            stack.extend(sorted(ks, key=num.__getitem__, reverse=True))
    return out


def llc_survivors(fn, live: set, rep: dict, idom) -> set:
    """``survivors_at_sink`` from scratch: the dead instructions (not in ``live``, the
    aggressive dead-code removal's answer on top of ``rep``) llc still has at Sink."""
    kids: dict = {}
    for b in fn.blocks:
        p = idom.get(b)
        if p is not None and p is not b:
            kids.setdefault(p, []).append(b)
    pre: dict = {}
    post: dict = {}
    depth = {fn.blocks[0]: 0}
    clock = 0
    work = [(fn.blocks[0], False)]
    while work:
        x, done = work.pop()
        if done:
            post[x] = clock
        else:
            pre[x] = clock
            work.append((x, True))
            for k in _rev(kids.get(x, ())):
                depth[k] = depth[x] + 1
                work.append((k, False))
        clock += 1
    return survivors_at_sink(fn.blocks, live, rep, kids, SinkTree(idom, pre, post, depth, fn.blocks))


def survivors_at_sink(blocks, live: set, rep: dict, kids: dict, tree: "SinkTree") -> set:
    """The dead instructions (not in ``live``) llc still has when its Sink pass runs.

    llc deletes dead code only as its passes meet it: each of its three EarlyCSE runs
    walks the dominator tree in preorder (``_llvm_dom_preorder``) and erases an
    instruction that has no users when the walk reaches it (isInstructionTriviallyDead),
    or that it replaces; the operands of an erased instruction, visited before it, are
    not looked at again in that run, so a dead chain loses one instruction per run from
    its end. Between the second and third run LICM's sinkRegion erases every trivially
    dead instruction of a loop (its blocks children first, each bottom-up, a subloop's
    blocks with the subloop: innermost loops first), and after the third CodeGenPrepare
    erases a dead ``lshr``/``ashr`` by a constant (OptimizeExtractBits nukes a shift
    left without uses). The walks run on the IR as the modeled passes leave it
    (``patterns.llc``), taken as the state before llc's first EarlyCSE: a
    replaced instruction (it no longer has users there; or a key of ``rep``) is
    erased when the first run reaches it, as EarlyCSE erases what it simplifies or
    CSEs. Users are counted among the dead instructions only (a live instruction reads
    only live values). Not modeled: when the passes between the runs (NaryReassociate,
    LSR, mul24) made an instruction dead, and LCSSA phis (CodeGenPrepare folds them)."""
    v: Any
    by_block: dict = {}
    dead = []
    for b in blocks:
        ds = [i for i in b.instructions if i not in live]
        if ds:
            by_block[b] = ds
            dead.extend(ds)
    cnt = dict.fromkeys(dead, 0)
    ops: dict = {}  # dead instruction -> its operands that are dead instructions (read through rep)
    for u in dead:
        lst = []
        for v in u.operands:  # (a phi's incoming values are its operands)
            v = rep.get(v, v) if type(v) is type(u) else v
            if v in cnt:
                cnt[v] += 1
                lst.append(v)
        ops[u] = lst
    gone: set = set()

    def erase(i) -> None:
        gone.add(i)
        for v in ops[i]:
            cnt[v] -= 1

    order = _llvm_dom_preorder(blocks, kids)
    walk = [i for b in order for i in by_block.get(b, ())]
    for i in walk:  # first EarlyCSE run
        if i in rep or not cnt[i]:
            erase(i)
    for i in walk:  # second
        if i not in gone and not cnt[i]:
            erase(i)
    bodies = tree.bodies
    if bodies:  # LICM's sinkRegion, innermost loops first
        loop_of = tree.loop_of
        pos = {b: k for k, b in enumerate(order)}
        for h in sorted(bodies, key=lambda h: (len(bodies[h]), pos.get(h, 0))):
            body = bodies[h]
            bfs = [h]
            for b in bfs:
                bfs.extend(k for k in kids.get(b, ()) if k in body)
            for b in _rev(bfs):
                if loop_of.get(b) is not h:
                    continue  # (a subloop's block: done with the subloop)
                for i in _rev(by_block.get(b, ())):
                    if i not in gone and not cnt[i]:
                        erase(i)
    for i in walk:  # third
        if i not in gone and not cnt[i]:
            erase(i)
    for i in dead:  # CodeGenPrepare (blocks in function order)
        if (i.opcode == "lshr" or i.opcode == "ashr") and i not in gone and not cnt[i] \
                and const_int(i.operands[1]) is not None:
            erase(i)
    return {i for i in dead if i not in gone}


def drop_unselected(survivors: set, used_outside: set, rep, live: set, place: dict, moved: dict) -> None:
    """Leave in ``live`` and the block lists only the survivors SelectionDAG keeps: those
    read outside their block (their CopyToReg is a root) and what they read in their own
    block, transitively; the others make nodes nothing uses, which the DAG drops."""
    v: Any
    need = set()
    work = [i for i in survivors if i in used_outside]
    while work:
        i = work.pop()
        if i in need:
            continue
        need.add(i)
        if i.opcode == "phi":
            continue
        bi = moved.get(i) or i.block
        for v in i.operands:
            if (KINDS.get(type(v)) or value_kind(type(v))) != "I":
                continue
            v = rep.get(v, v)
            if v in survivors and v not in need and (moved.get(v) or v.block) is bi:
                work.append(v)
    drop = survivors - need
    if not drop:
        return
    live.difference_update(drop)
    for b in {moved.get(i) or i.block for i in drop}:
        lst = place.get(b)
        if lst is None:
            lst = b.instructions
        place[b] = [i for i in lst if i not in drop]

"""EarlyCSE as llc runs it, with InstSimplify (``patterns.llc.instsimplify``) simplifying every
instruction it visits, and the CSE of what LICM hoisted (``cse_moved``).


llc runs a short IR pipeline before its SelectionDAG (``llc-19 -debug-pass=Structure``):
for the GPU target at -O2 it includes EarlyCSE three times (around SLSR / NaryReassociate and
after LSR), and EarlyCSE simplifies every instruction it visits with InstSimplify
(``simplifyInstruction``) before it looks the instruction up in its table of available
values. Both act on the whole function: a value computed in one block folds with an
operand defined in another, which a per-block DAG combine cannot see.

``early_cse(fn, idom)`` models that pass (``EarlyCSE::processNode``): blocks in dominator
tree preorder, each instruction first simplified (its operands read through the
replacements made so far, as LLVM's replaceAllUsesWith leaves them), then, if it did not
simplify, replaced by an equal instruction available in a dominating position (same
opcode, type, predicate and operands; commutative operands and swapped compares match).
It answers ``instruction -> replacement`` (an instruction, argument or constant), which
``apply_early_cse`` applies to the IR. What llc's later EarlyCSE runs add -- a phi visited
before a value it reads over a back edge was replaced -- comes from simplifying those phis
again, and the users of what they became (``_resimplify``), rather than from repeating
the walk.
"""

from __future__ import annotations

from typing import Any, Final

from patterns.ir.core import Constant, IntType
from patterns.ir.effects import pure_intrinsic
from patterns.ir.function import Argument, Function, Instruction
from patterns.llc.analyses import dom_tree
from patterns.llc.instsimplify import new_simplify_query, simplify_instruction, simplify_phi
from patterns.llc.instsimplify_query import (
    BINOPS, const_value, RECURSION_LIMIT, SimplifyQuery,
)
from patterns.ir.opcodes import COMMUTATIVE_BINOPS as COMMUTATIVE, SWAPPED_PREDICATE as SWAP
from patterns.llc.replace import candidate_users, rewrite_uses


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction


CSE_OPS: Final = BINOPS | {"icmp", "select", "zext", "sext", "trunc", "getelementptr", "freeze", "call",
                           "udiv", "sdiv", "urem", "srem"}


def _trivially_dead(fn: Function) -> set:
    """Instructions without users and without side effects in the input (EarlyCSE
    deletes them when it reaches them, so they never become a CSE representative).
    The scan for a function whose ``_users`` lists are not known to be current
    (``_run`` reads those lists when ``fn.uses`` says they are)."""
    from patterns.ir.effects import has_side_effect

    used: set = set()
    add = used.add
    for b in fn.blocks:
        for i in b.instructions:
            for v in i.operands:  # (a phi's incoming values are its operands)
                if type(v) is _INSTRUCTION:
                    add(v)
    return {i for b in fn.blocks for i in b.instructions
            if i.name is not None and i not in used and not has_side_effect(i)}


def cse_key(i, ops):
    """EarlyCSE's SimpleValue identity of ``i`` with resolved operands ``ops``
    (commutative operands and swapped compares unified)."""
    const = Constant
    if len(ops) == 2:
        x, y = ops
        kx = (0, const_value(x), x.type, x.text) if type(x) is const else (1, id(x), None, "")
        ky = (0, const_value(y), y.type, y.text) if type(y) is const else (1, id(y), None, "")
        pred = i.predicate
        opc = i.opcode
        if (kx[0], kx[1]) > (ky[0], ky[1]):
            if opc in COMMUTATIVE:
                kx, ky = ky, kx
            elif opc == "icmp":
                kx, ky = ky, kx
                pred = SWAP.get(pred, pred)
        return (opc, i.type, pred, kx, ky, tuple(i.indices) if i.indices else ())
    ks = tuple((0, const_value(o), o.type, o.text) if type(o) is const else (1, id(o), None, "") for o in ops)
    return (i.opcode, i.type, i.predicate, ks, tuple(i.indices) if i.indices else (), i.callee)


def cse_keys():
    """A function ``(instruction, resolved operands) -> key`` whose keys are equal exactly
    when ``cse_key``'s are, built cheaper for the common shape, a binary operator or
    compare with at most one constant operand: a non-constant operand is itself (an
    instruction or argument, which compare by identity) or its ``id``, a constant is
    (value, type, spelling), and a type is the number of the first equal type seen (so
    no dataclass is hashed per instruction). Other shapes use ``cse_key``."""
    tids: dict = {}
    canon: dict = {}
    keep: list = []  # (the numbered type objects stay alive: their ids stay theirs)
    Inst, Arg, Const = Instruction, Argument, Constant
    comm, swap, binops = COMMUTATIVE, SWAP, BINOPS

    def tkey(t):
        k = tids.get(id(t))
        if k is None:
            k = canon.get(t)
            if k is None:
                k = canon[t] = len(canon)
            tids[id(t)] = k
            keep.append(t)
        return k

    def key(i, ops):
        opc = i.opcode
        if len(ops) != 2 or (opc not in binops and opc != "icmp"):
            return cse_key(i, ops)
        x, y = ops
        xc, yc = type(x), type(y)
        if xc is Const:
            if yc is Const:
                return cse_key(i, ops)
            kx = (const_value(x), tkey(x.type), x.text)
            ky = y if yc is Inst or yc is Arg else id(y)
            swapped = False  # (a constant sorts first)
        elif yc is Const:
            kx = x if xc is Inst or xc is Arg else id(x)
            ky = (const_value(y), tkey(y.type), y.text)
            swapped = True
        else:
            swapped = id(x) > id(y)
            kx = x if xc is Inst or xc is Arg else id(x)
            ky = y if yc is Inst or yc is Arg else id(y)
        t = tkey(i.type)
        if opc == "icmp":
            pred = i.predicate
            if swapped:
                return (opc, t, swap.get(pred, pred), ky, kx)
            return (opc, t, pred, kx, ky)
        if swapped and opc in comm:
            return (opc, t, ky, kx)
        return (opc, t, kx, ky)

    return key


def simplify_function(fn, idom: dict, rep: dict | None = None) -> dict:
    """One EarlyCSE run over ``fn`` on top of ``rep`` (updated and returned)."""
    rep = {} if rep is None else rep
    if fn.blocks:
        _run(new_simplify_query(fn, idom, rep), fn)
    return rep


def _run(p: SimplifyQuery, fn) -> None:
    """The EarlyCSE walk: blocks in dominator-tree preorder, each live instruction
    simplified first (a binary operator straight through its opcode's simplifier), then
    looked up among the available values. A visited instruction's ``binop`` entry is
    recorded as it is visited (its operands are final by then: the tuple ``binop``
    would build on the first query).

    The table of available values is one dictionary for the whole walk: an entry is
    available to an instruction when its block dominates the instruction's (an earlier
    instruction of the same block does), which is what EarlyCSE's scoped table holds
    (an equal instruction in a dominating position would itself have been replaced, so
    at most one entry of a key dominates). A key seen in two blocks that do not dominate
    each other keeps a list."""
    from patterns.ir.effects import has_side_effect

    i: Instruction
    rep = p.rep
    seeded = bool(rep)  # (a replacement made before this walk: skip the instruction)
    # dead: no users (the parser's user lists, when fn.uses says they are current)
    use_users = fn.uses is not None
    dead: Any = None if use_users else _trivially_dead(fn)
    table: dict = {}
    bo = p.bo
    r = p.r
    simplify = simplify_instruction
    phi = simplify_phi
    key_of = cse_keys()
    handlers = p.h
    kids = p.kids
    pre, post = p.pre, p.post
    Inst, Int, Arg, Const = Instruction, IntType, Argument, Constant
    binops, cse_ops, simplified, comm = BINOPS, CSE_OPS, _SIMPLIFIED, COMMUTATIVE
    limit = RECURSION_LIMIT
    work: list = [fn.blocks[0]]
    while work:
        blk = work.pop()
        for i in blk.instructions:
            if i.name is None or (seeded and i in rep):
                continue
            if use_users:
                if i._users is None and not has_side_effect(i):
                    continue
            elif i in dead:
                continue
            opc = i.opcode
            if opc in binops:
                x, y = i.operands
                if type(x) is Inst and x in rep:
                    x = r(x)
                if type(y) is Inst and y in rep:
                    y = r(y)
                if type(i.type) is Int:
                    v = handlers[opc](p, x, y, limit, i)
                    if v is not None and v is not i:
                        rep[i] = v
                        continue
                t = (opc, x, y)
                k: Any
                bo[i] = t if i.block is not None else False
                # the key: the parser checked that every operand has the instruction's
                # type, so a key with a value operand needs no type of its own
                xc, yc = type(x), type(y)
                if xc is Inst or xc is Arg:
                    if yc is Inst or yc is Arg:
                        k = (opc, y, x) if opc in comm and id(x) > id(y) else t
                    elif yc is Const:
                        k = (opc, x, const_value(y), y.text)
                    else:
                        k = key_of(i, (x, y))
                elif xc is Const and (yc is Inst or yc is Arg):
                    k = (opc, y, const_value(x), x.text) if opc in comm else (opc, const_value(x), x.text, y)
                else:
                    k = key_of(i, (x, y))
            else:
                ops = None
                if opc == "phi":
                    v = phi(p, i)
                    if v is not None and v is not i:
                        rep[i] = v
                        continue
                elif opc in simplified:
                    ops = [o if type(o) is not Inst or o not in rep else r(o) for o in i.operands]
                    v = simplify(p, i, ops)
                    if v is not None and v is not i:
                        rep[i] = v
                        continue
                bo[i] = False
                if opc not in cse_ops or (opc == "call" and pure_intrinsic(i) is None):
                    continue
                if ops is None:
                    ops = [o if type(o) is not Inst or o not in rep else r(o) for o in i.operands]
                k = key_of(i, ops)
            hit = table.get(k)
            if hit is None:
                table[k] = i
                continue
            cands: Any
            if type(hit) is list:
                cands = hit
            else:
                cands = (hit,)
            for h in cands:
                hb = h.block
                if hb is blk or (pre[hb] <= pre[blk] and post[blk] <= post[hb]):
                    rep[i] = h
                    break
            else:
                if type(hit) is list:
                    hit.append(i)
                else:
                    table[k] = [hit, i]
        ks = kids.get(blk)
        if ks:
            for c in reversed(ks):
                work.append(c)


_SIMPLIFIED: Final = BINOPS | {"phi", "icmp", "select", "call"}


def _resimplify(p: SimplifyQuery, fn, users_ok: bool = False) -> None:
    """What llc's next EarlyCSE run adds: a phi visited before a value it reads over a
    back edge was replaced is simplified again, and so (transitively) are the users of
    every value replaced that way. (Every other instruction was visited after its
    operands, so it already saw their replacements.) ``users_ok``: the parser's user
    lists are current, so the phis reading a replaced value are found among its users
    rather than by a scan of the function."""
    rep = p.rep
    users: dict | None = None
    Inst = Instruction
    if users_ok:
        cand = set()
        for r in rep:
            us = r._users
            if us is None:
                continue
            for u in (us if type(us) is list else (us,)):
                if u.opcode == "phi" and u not in rep:
                    cand.add(u)
        work = []
        if cand:  # (in program order, as the scan finds them)
            pos = {b: k for k, b in enumerate(fn.blocks)}
            work = sorted(cand, key=lambda u: (pos[u.block], u.block.instructions.index(u)))
    else:
        work = []
        for b in fn.blocks:
            for i in b.instructions:
                if i.opcode == "phi" and i not in rep:
                    for v in i.operands:
                        if type(v) is Inst and v in rep:
                            work.append(i)
                            break
    budget = 4 * len(work) + 64
    while work and budget:
        budget -= 1
        i = work.pop()
        if i in rep or i.opcode not in _SIMPLIFIED or i not in p.bo:
            continue
        p.bo[i] = None
        v = simplify_instruction(p, i)
        if v is None or v is i:
            continue
        rep[i] = v
        if users is None:
            users = {}
            for blk in fn.blocks:
                for u in blk.instructions:
                    for x in u.operands:
                        if type(x) is Inst:
                            users.setdefault(x, []).append(u)
        for u in users.get(i, ()):
            if u in p.bo:
                p.bo[u] = None
            work.append(u)


def early_cse(fn, idom: dict | None = None, dom: tuple | None = None) -> dict:
    """EarlyCSE with InstSimplify as llc runs it (see the module docstring):
    instruction -> the value that replaces it (chains resolved). ``dom``: the
    ``dom_tree`` of ``idom`` when the caller has it."""
    if not fn.blocks:
        return {}
    if idom is None:
        from patterns.ir.dominators import immediate_dominators

        idom = immediate_dominators(fn)
    users_ok = fn.uses is not None
    p = new_simplify_query(fn, idom, {}, dom)
    _run(p, fn)
    if p.rep:
        _resimplify(p, fn, users_ok)
    return {i: p.r(v) for i, v in p.rep.items()}


def apply_early_cse(fn, idom: dict | None = None, dom: tuple | None = None, grew: dict | None = None,
                    keep_uses: bool = False) -> dict:
    """Run ``early_cse`` on ``fn`` and leave the IR as the pass leaves it: every use of a
    replaced instruction (operands, phi incoming values) reads its replacement, as
    LLVM's replaceAllUsesWith does. The replaced instructions stay in their blocks
    without users (dead-code removal, ``patterns.dag.builder``, drops them); the function's
    derived user lists are reset, or with ``keep_uses``, when they were current, made
    current again (``move_users``). Returns the replacement map. ``grew``: see
    ``rewrite_uses``."""
    if getattr(fn, "is_declaration", False) or not fn.blocks:
        return {}
    uses = fn.uses  # (read before the pass: rewrite_uses resets it)
    rep = early_cse(fn, idom, dom)
    if rep:
        rewrite_uses(fn, rep, candidate_users(rep, None) if uses is not None else None, grew)
        if keep_uses and uses is not None:
            move_users(fn, rep)
            fn.uses = uses  # (no instruction or block added, removed or changed opcode)
    return rep


def move_users(fn, rep: dict) -> None:
    """The user lists (``_users``, see ``Function.uses``) after ``rewrite_uses`` of ``rep`` on
    a function whose lists were current before: as the uniformity analysis's scan would
    make them. Only a replaced value and its replacement change: a reader of the
    replaced one reads the replacement now (unless it read it as a call's callee or
    bundle operand, which the rewrite leaves), in program order, each once."""
    from patterns.uniformity.analysis import operand_values

    Inst, Arg = Instruction, Argument
    gained: dict = {}  # replacement -> the readers it gained
    for r, w in rep.items():
        us = r._users
        if us is None:
            continue
        if type(us) is not list:
            us = [us]
        keep = [u for u in us if any(x is r for x in operand_values(u))]
        r._users = None if not keep else keep[0] if len(keep) == 1 else keep
        if type(w) is Inst or type(w) is Arg:
            new = [u for u in us if any(x is w for x in operand_values(u))]
            if new:
                g = gained.get(w)
                if g is None:
                    gained[w] = new
                else:
                    g.extend(new)
    if not gained:
        return
    bpos = {b: k for k, b in enumerate(fn.blocks)}

    def pos(u):
        b = u.block
        return bpos[b], b.instructions.index(u)

    from bisect import bisect_left

    for w, new in gained.items():
        us = w._users
        lst = [] if us is None else [us] if type(us) is not list else list(us)
        for u in new:  # (into the list in program order: a value may have thousands)
            k = bisect_left(lst, pos(u), key=pos)
            if k == len(lst) or lst[k] is not u:
                lst.insert(k, u)
        w._users = lst[0] if len(lst) == 1 else lst


def cse_moved(fn: Function, moved: list, idom: dict, dom: tuple | None = None, grew: dict | None = None,
              readers: dict | None = None) -> dict:
    """What llc's EarlyCSE after its loop passes finds for code LICM hoisted: a hoisted
    instruction equal to one that now dominates it (same key as EarlyCSE's) is replaced
    by it (every use rewritten). Only the hoisted instructions can have a new dominating
    equal (the rest kept their places), and only in the preheaders' dominator chains.
    ``grew``: from the earlier rewrite (see ``rewrite_uses``), None when the parser's user
    lists were not current. ``readers``: else, when LSR made it, LSR's map of the
    instructions that may read each one (``patterns.llc.lsr.loop_strength_reduce``)."""
    key_of = cse_keys()
    wanted: dict = {}
    for i in moved:
        if i.opcode in CSE_OPS and (i.opcode != "call" or pure_intrinsic(i) is not None):
            wanted.setdefault(key_of(i, i.operands), []).append(i)
    if not wanted:
        return {}
    _kids, pre, post = dom if dom is not None else dom_tree(fn, idom)
    chain: set = set()
    for ph in {i.block for i in moved}:
        x = ph
        while x not in chain:
            chain.add(x)
            nx = idom.get(x)
            if nx is None or nx is x:
                break
            x = nx
    opcodes = {i.opcode for i in moved}
    # an instruction with the key of a hoisted one reads only values that one reads
    # (equal keys name the same non-constant operands)
    reads = set()
    for lst in wanted.values():
        for i in lst:
            for o in i.operands:
                if type(o) is not _CONSTANT:
                    reads.add(o)
    Const = Constant
    rep: dict = {}
    for b in fn.blocks:
        if b not in chain:
            continue
        insts = b.instructions
        for k, j in enumerate(insts):
            if j.opcode not in opcodes or j.name is None or j in rep:
                continue
            for o in j.operands:
                if type(o) is not Const and o not in reads:
                    break
            else:
                o = None
            if o is not None:
                continue
            cands = wanted.get(key_of(j, j.operands))
            if not cands:
                continue
            for i in cands:
                if i is j or i in rep:
                    continue
                if j.block is i.block:
                    if k < insts.index(i):
                        rep[i] = j
                else:
                    a, c = j.block, i.block
                    if a in pre and c in pre and pre[a] <= pre[c] and post[c] <= post[a]:
                        rep[i] = j
    if rep:
        if grew is not None:
            cands = candidate_users(rep, grew)
        elif readers is not None:
            # (a superset of the readers: the rewrite picks those reading a replaced
            # instruction, whatever the order; the deleted ones are left alone, as a
            # scan of the function leaves them)
            cands = list(dict.fromkeys(u for i in rep for u in readers.get(i, ()) if u.block is not None))
        else:
            cands = None
        rewrite_uses(fn, rep, cands)
    return rep

"""The blocks of a function body the direct IR builder reads: a label's block, and the end of the body.

Stage job: for ``patterns/ir/direct_body.py``, the work done once per block or once per
function rather than once per line: the block a label line opens (``labeled_block``),
and at the closing ``}`` (``finish_body``) the checks and links the line loop leaves
for the end: every name defined once, the uses before the definition bound, branch
targets with successors and predecessors, phi incoming values, SSA dominance against
one dominator tree, and the users recorded late. Any violation raises ``Bail``: the
exact path then parses the file and words the error (``patterns/ir/verify.py``'s rules
for dominance).
"""

from __future__ import annotations

from typing import Any

from patterns.ir.dominators import DomTree
from patterns.ir.direct_syntax import LABEL_LINE, ODD_TYPES, plain_types
from patterns.ir.direct_values import Bail, new_span
from patterns.ir.function import BasicBlock, Function, Instruction


def labeled_block(s: str, k: int, f: Function, path: str, blocks: list, block_names: dict, next_slot: int,
                  n_slot: int) -> tuple[BasicBlock, int, int, bool]:
    """The block opened by the label line ``s`` (line ``k``) of ``f``, added to ``blocks``
    and ``block_names``, and the numbering after it: (block, the next value number, the
    next printed slot, whether the label is a number)."""
    m = LABEL_LINE.match(s)
    if m is None:
        raise Bail
    name = m.group(1)
    numbered = False
    if name.isdigit():
        if int(name) < next_slot:
            raise Bail
        next_slot = int(name) + 1
        slot = str(n_slot)
        n_slot += 1
        numbered = True
    else:
        if name[0].isdigit():
            raise Bail  # digits then letters: quoted when printed
        slot = name
    if name in block_names:
        raise Bail
    # the span as ``line << 20 | column``, made on first read (BasicBlock.span)
    col = m.start(1) + 1
    cur = BasicBlock(name, [], f, [], [], k << 20 | col if col < 0x100000 else new_span(path, k, col),
                     slot, len(blocks))
    block_names[name] = cur
    blocks.append(cur)
    return cur, next_slot, n_slot, numbered


def finish_body(f: Function, blocks: list, block_names: dict, vals: dict, n_void: int, pending: list, terms: list,
                phis: list, checks: list, late_uses: list, seeds: list, numbered: bool, const: Any) -> None:
    """The end of ``f``'s body (see ``direct_body.read_body`` for the lists): names
    checked, forward uses, branches and phis bound, dominance checked, ``f.blocks`` and
    ``f.uses`` set. ``const(token, type, None)`` makes a phi's constant operand."""
    n_inst = _check_names(f, blocks, block_names, vals, n_void)
    pairs = _bind_forward_uses(pending, vals)
    once = _link_branches(terms, block_names)
    _bind_phis(phis, vals, block_names, pairs, numbered, const)
    if numbered:  # opt renumbers: print every line (see ODD_TYPES)
        inst: Instruction
        for b in blocks:
            for inst in b.instructions:
                inst._text = None
    if checks or pairs:
        _check_dominance(blocks, checks, pairs)
    f.blocks = blocks
    _add_late_users(late_uses, vals)
    f.uses = (True, seeds, [b.instructions[-1] for b in blocks], n_inst, once)


def _check_names(f: Function, blocks: list, block_names: dict, vals: dict, n_void: int) -> int:
    """The number of instructions of ``blocks``, once every name is known to be defined once."""
    n_inst = 0
    for b in blocks:
        n_inst += len(b.instructions)
    # every argument and value-producing instruction (all but the terminators,
    # stores and void calls) has its own name: otherwise one was defined twice
    if len(vals) != len(f.args) + n_inst - len(blocks) - n_void:
        raise Bail
    if not block_names.keys().isdisjoint(vals.keys()):
        raise Bail  # a label with the name of a value
    return n_inst


def _bind_forward_uses(pending: list, vals: dict) -> list:
    """Bind the uses before the definition; the (index of the block that must dominate,
    index of the using block) pairs they need."""
    late = []
    inst: Instruction
    for inst, idx, name, ty in pending:
        v = vals.get(name)
        if v is None or (v.type is not ty and v.type != ty):
            raise Bail
        inst.operands[idx] = v
        if type(v) is Instruction:  # a use before the definition: fine only across blocks
            if v.block is inst.block:
                raise Bail
            late.append((v.block.index, inst.block.index))
    return late


def _link_branches(terms: list, block_names: dict) -> bool:
    """Branch targets, successors (terminator order) and predecessors (each once, in
    block order: ``terms`` is in block order); whether no branch names a block twice
    (see ``Function.uses``)."""
    get_block = block_names.get
    once = True
    inst: Instruction
    for inst, name0, name1 in terms:
        b = inst.block
        t0 = get_block(name0)
        if t0 is None:
            raise Bail
        p = t0.predecessors
        if not p or p[-1] is not b:
            p.append(b)
        if name1 is None:
            inst.targets = [t0]
            b.successors = [t0]
            continue
        t1 = get_block(name1)
        if t1 is None:
            raise Bail
        inst.targets = [t0, t1]
        b.successors = [t0, t1]
        p = t1.predecessors
        if not p or p[-1] is not b:
            p.append(b)
        else:
            once = False
    return once


def _bind_phis(phis: list, vals: dict, block_names: dict, pairs: list, numbered: bool, const: Any) -> None:
    """Phi incoming values; with SSA dominance, by the rules of
    ``verify.verify_dominance`` (which words the errors when the exact path parses the
    file again): each incoming block is a predecessor, and a value from another block
    must dominate the end of the incoming block (added to ``pairs``)."""
    get_block = block_names.get
    inst: Instruction
    ops: list
    j: int
    for inst, incoming, text in phis:
        ty = inst.type
        ops = inst.operands
        preds = inst.block.predecessors
        inc = []
        j = 0
        for loc, cst, bname in incoming:
            b = get_block(bname)
            if b is None or b not in preds:
                raise Bail
            if loc:
                v = vals.get(loc)
                if v is None or (v.type is not ty and v.type != ty):
                    raise Bail
                if type(v) is Instruction and v.block is not b:
                    pairs.append((v.block.index, b.index))
            else:
                v = const(cst, ty, None)
                if v.text != cst:
                    text = None
            ops[j] = v
            j += 1
            inc.append((v, b))
        inst.incoming = inc
        if text is not None and not numbered and (not ODD_TYPES or plain_types(text)):
            inst._text = text


def _check_dominance(blocks: list, checks: list, pairs: list) -> None:
    """Every block of ``checks``' lists dominates its using block, and every first
    block of ``pairs`` the second (by index), on the DFS intervals of one dominator tree."""
    i: int
    j: int
    pre, post = DomTree.for_blocks(blocks).by_index
    for blk, defs in checks:
        j = blk.index
        pb = pre[j]
        if pb < 0:  # everything dominates an unreachable block
            continue
        qb = post[j]
        for d in defs:  # (a block may repeat: testing it again is cheaper than a set)
            i = d.index
            pa = pre[i]
            if pa < 0 or pa > pb or qb > post[i]:
                raise Bail
    for a, b in pairs:
        pb = pre[b]
        if pb >= 0:  # everything dominates an unreachable block
            pa = pre[a]
            if pa < 0 or pa > pb or post[b] > post[a]:
                raise Bail


def _add_late_users(late_uses: list, vals: dict) -> None:
    """Put the users recorded late (uses before the definition, phi incoming values
    defined later) before the value's other users, each once."""
    late_users: dict = {}
    for u, name in late_uses:
        v = vals[name]
        lu = late_users.get(v)
        if lu is None:
            late_users[v] = [u]
        elif lu[-1] is not u:
            lu.append(u)
    for v, lu in late_users.items():
        e = v._users
        if e is None:
            v._users = lu[0] if len(lu) == 1 else lu
        else:
            v._users = lu + e if type(e) is list else lu + [e]

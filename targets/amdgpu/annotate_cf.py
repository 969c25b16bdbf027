"""SIAnnotateControlFlow's decisions on the structurized IR: which divergent branch opens an if, which is an else, which closes a loop, and where each SI_END_CF goes.

llc-19 runs SIAnnotateControlFlow after StructurizeCFG: a depth-first walk of the CFG
from the entry (successors in order, a block visited when first reached) with a stack
of open regions (the block that closes each, and the mask to restore there). For each
block, as LLVM 19 does it (facts of the pass, written anew):

- a block without a conditional branch closes the region on top of the stack when it is
  that region's block;
- a conditional branch whose second successor was visited before closes the top region
  if it is this block's, and, when that successor dominates the block (a back edge),
  closes a loop (``loop``: SI_IF_BREAK / SI_LOOP), pushing the first successor;
- else, when this block closes the top region and its branch is divergent on a phi of
  this block that reads ``true`` from its immediate dominator and ``false`` from every
  other predecessor (StructurizeCFG's else condition), the branch is an ``else``
  (SI_ELSE of the popped mask; the phi is deleted), pushing the second successor;
  otherwise the top region is closed and a divergent branch opens an ``if`` (SI_IF),
  pushing its second successor.

Uniform branches open nothing. Closing a region puts SI_END_CF first in its block (after
the phis). Not modelled (an error at the branch): closing a region in a loop header
(the pass splits the header's entry edges, ``endcf.split``) or where the mask's block
does not dominate the closing block (it splits the edge).
"""

from __future__ import annotations

from patterns.ir.core import Constant
from tdgen.errors import VerifyError, expected


class Plan:
    """``branch``: block -> ("if",) | ("else", phi, opener block) | ("loop",); the
    opener of a mask is the block whose branch made it. ``end_cf``: block -> the opener
    blocks whose masks it restores, in order."""

    def __init__(self) -> None:
        self.branch: dict = {}
        self.end_cf: dict = {}


def plan(fn, ua) -> Plan:
    from patterns.ir.dominators import immediate_dominators

    idom = immediate_dominators(fn)

    def dominates(a, b) -> bool:
        x = b
        while True:
            if x is a:
                return True
            p = idom.get(x)
            if p is None or p is x:
                return False
            x = p

    headers = {s for b in fn.blocks for s in b.successors if dominates(s, b)}
    out = Plan()
    stack: list = []  # (closing block, opener block)

    def close(b, term) -> None:
        blk, opener = stack.pop()
        if b in headers:
            raise VerifyError(term.span if term is not None else None, expected(
                f"a region of @{fn.name} SIAnnotateControlFlow closes outside a loop header",
                f"its SI_END_CF due in the loop header %{b.name} (the endcf.split block: not modelled)"))
        if not dominates(opener, b):
            raise VerifyError(term.span if term is not None else None, expected(
                f"a region of @{fn.name} whose opening block dominates its end",
                f"%{opener.name} not dominating %{b.name} (the edge split: not modelled)"))
        out.end_cf.setdefault(b, []).append(opener)

    def top_is(b) -> bool:
        return bool(stack) and stack[-1][0] is b

    visited = {fn.blocks[0]}
    walk = [(fn.blocks[0], 0)]
    _visit(fn.blocks[0], visited, out, stack, close, top_is, dominates, ua, idom)
    while walk:
        b, k = walk[-1]
        succ = b.successors
        while k < len(succ) and succ[k] in visited:
            k += 1
        if k < len(succ):
            walk[-1] = (b, k + 1)
            s = succ[k]
            visited.add(s)
            walk.append((s, 0))
            _visit(s, visited, out, stack, close, top_is, dominates, ua, idom)
        else:
            walk.pop()
    return out


def _visit(b, visited, out, stack, close, top_is, dominates, ua, idom) -> None:
    t = b.instructions[-1] if b.instructions else None
    if t is None or t.opcode != "br" or len(t.targets) != 2:
        if top_is(b):
            close(b, t)
        return
    s1 = t.targets[1]
    if s1 in visited:
        if top_is(b):
            close(b, t)
        if dominates(s1, b) and not ua.is_uniform(t):
            out.branch[b] = ("loop",)
            stack.append((t.targets[0], b))
        return
    if top_is(b):
        c = t.operands[0] if t.operands else None
        if c is not None and getattr(c, "opcode", None) == "phi" and c.block is b and _is_else(c, idom) \
                and not ua.is_uniform(t):
            _blk, opener = stack.pop()
            out.branch[b] = ("else", c, opener)
            stack.append((s1, b))
            return
        close(b, t)
    if not ua.is_uniform(t):
        out.branch[b] = ("if",)
        stack.append((s1, b))


def _is_else(phi, idom) -> bool:
    d = idom.get(phi.block)
    for v, p in phi.incoming:
        want = "true" if p is d else "false"
        if not (isinstance(v, Constant) and v.text == want):
            return False
    return True


__all__ = ["Plan", "plan"]

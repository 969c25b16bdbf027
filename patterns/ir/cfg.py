"""CFG helpers over a parsed function: orders and reachability of basic blocks.

Stage job: given an ``ir.Function`` (whose blocks already carry ``successors`` and
``predecessors``), compute deterministic block orders for the analyses: reverse
post-order from the entry, post-order, reachable blocks, and the reverse CFG's
post-order (exits first) for post-dominance-style walks. Everything is iterative (no
recursion limit on 50k-block kernels) and ordered by successor order, never by hashes.
"""

from __future__ import annotations

from patterns.ir.function import BasicBlock, Function


def successors(b: BasicBlock) -> list[BasicBlock]:
    return b.successors


def predecessors(b: BasicBlock) -> list[BasicBlock]:
    return b.predecessors


def post_order(f: Function) -> list[BasicBlock]:
    """Blocks reachable from the entry, in DFS post-order (successors in terminator order)."""
    if not f.blocks:
        return []
    out: list[BasicBlock] = []
    entry = f.blocks[0]
    # (blocks hash by identity, as their ``id`` would: the set holds them directly)
    seen: set[BasicBlock] = {entry}
    # the DFS stack: a block and the index of its next successor to look at
    stack: list[BasicBlock] = [entry]
    nexts: list[int] = [0]
    while stack:
        top = len(stack) - 1
        b = stack[top]
        succ = b.successors
        k = nexts[top]
        n = len(succ)
        while k < n:
            s = succ[k]
            k += 1
            if s not in seen:
                seen.add(s)
                nexts[top] = k
                stack.append(s)
                nexts.append(0)
                break
        else:
            stack.pop()
            nexts.pop()
            out.append(b)
    return out


def dom_tree_order(f: Function) -> list[BasicBlock]:
    """Blocks reachable from the entry in the order LLVM's dominator tree construction
    numbers them (SemiNCA's runDFS: a stack, a block numbered when first popped, its
    successors pushed last to first so the first successor is explored first). The tree
    creates each block's node in this order, so a block's dominator-tree children (the
    order EarlyCSE's walk and LICM's sinkRegion visit them) are in it: after a diamond's
    first arm comes the join, before the second arm."""
    return dom_tree_numbering(f.blocks[0]) if f.blocks else []


def dom_tree_numbering(entry: BasicBlock) -> list[BasicBlock]:
    """``dom_tree_order`` from the entry block ``entry``."""
    seen: set[BasicBlock] = set()
    order: list[BasicBlock] = []
    work: list[BasicBlock] = [entry]
    while work:
        b = work.pop()
        if b in seen:
            continue
        seen.add(b)
        order.append(b)
        succ = b.successors
        for i in range(len(succ) - 1, -1, -1):
            s = succ[i]
            if s not in seen:
                work.append(s)
    return order


def reverse_post_order(f: Function) -> list[BasicBlock]:
    """Blocks reachable from the entry in reverse post-order (entry first)."""
    po = post_order(f)
    po.reverse()
    return po


def reachable(f: Function) -> set[int]:
    """``id()`` of every block reachable from the entry."""
    return {id(b) for b in post_order(f)}


def exits(f: Function) -> list[BasicBlock]:
    """Blocks without successors (ret / unreachable), in source order."""
    return [b for b in f.blocks if not b.successors]


def reverse_post_order_backward(f: Function) -> list[BasicBlock]:
    """Reverse post-order of the reverse CFG, starting from the exits (source order).

    Blocks that cannot reach an exit (infinite loops) are not included."""
    out: list[BasicBlock] = []
    seen: set[int] = set()
    for root in exits(f):
        if id(root) in seen:
            continue
        seen.add(id(root))
        stack = [(root, iter(root.predecessors))]
        while stack:
            b, it = stack[-1]
            for p in it:
                if id(p) not in seen:
                    seen.add(id(p))
                    stack.append((p, iter(p.predecessors)))
                    break
            else:
                stack.pop()
                out.append(b)
    out.reverse()
    return out


def rpo_index(f: Function) -> dict[int, int]:
    """``id(block)`` -> position in ``reverse_post_order(f)``."""
    return {id(b): i for i, b in enumerate(reverse_post_order(f))}


__all__ = ["successors", "predecessors", "post_order", "reverse_post_order", "reachable",
           "exits", "reverse_post_order_backward", "rpo_index"]

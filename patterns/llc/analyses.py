"""The analyses llc's IR passes share, built once per ``run_ir_passes``: the dominator
tree in the order EarlyCSE walks it (``dom_tree``) and the natural loops as LoopInfo
holds them (``loop_forest``, for LICM and LoopStrengthReduce).
"""

from __future__ import annotations

from patterns.ir.function import Function


def dom_tree(fn: Function, idom: dict) -> tuple[dict, dict, dict]:
    """The dominator tree of ``idom`` as (children lists in LLVM's order, preorder and
    postorder clock of each reachable block): ``a`` dominates ``b`` when
    ``pre[a] <= pre[b] and post[b] <= post[a]``. A block's children are in the order
    the tree construction numbers blocks (``cfg.dom_tree_order``), which EarlyCSE's walk
    follows. Built once per ``run_ir_passes`` and shared by its passes (none of them
    changes the CFG)."""
    from patterns.ir.cfg import dom_tree_order

    kids: dict = {}
    for b in dom_tree_order(fn):
        p = idom.get(b)
        if p is not None and p is not b:
            lst = kids.get(p)
            if lst is None:
                kids[p] = [b]
            else:
                lst.append(b)
    pre: dict = {}
    post: dict = {}
    clock = 0
    work = [(fn.blocks[0], False)]
    while work:
        x, done = work.pop()
        if done:
            post[x] = clock
            clock += 1
            continue
        pre[x] = clock
        clock += 1
        work.append((x, True))
        ks = kids.get(x)
        if ks:
            for k in reversed(ks):
                work.append((k, False))
    return kids, pre, post


def loop_forest(fn: Function, dom: tuple):
    """The natural loops of ``fn`` (``dom``: its ``dom_tree``) as LoopInfo holds them:
    (headers in LLVM's loop pass manager order, header -> body, header -> the headers
    of its sub-loops, block -> the header of its innermost loop); None without loops.

    A back edge b -> h has h dominating b; the body is h and what reaches b backwards
    without passing h. The forest: an enclosing loop is larger, so taken first, and a
    block's owner is its innermost loop. The order: a post-order walk of the forest, the
    top-level loops in reverse program order and the loops inside one in program order
    (LoopInfo keeps top-level loops in post-order of a depth-first walk of the CFG and
    sub-loops in reverse post-order; the pass manager's queue is a stack)."""
    _kids, pre, post = dom
    bodies: dict = {}
    for b in fn.blocks:
        pb = pre.get(b)
        if pb is None:
            continue
        qb = post[b]
        for h in b.successors:
            ph = pre.get(h)
            if ph is not None and ph <= pb and qb <= post[h]:  # a back edge b -> h
                body = bodies.get(h)
                if body is None:
                    body = bodies[h] = {h}
                stack = [b]
                while stack:
                    x = stack.pop()
                    if x in body or x not in pre:
                        continue
                    body.add(x)
                    stack.extend(x.predecessors)
    if not bodies:
        return None
    from patterns.ir.cfg import reverse_post_order

    rpo = {b: k for k, b in enumerate(reverse_post_order(fn))}
    innermost: dict = {}
    kids: dict = {h: [] for h in bodies}
    roots: list = []
    for h in sorted(bodies, key=lambda h: (-len(bodies[h]), rpo[h])):
        parent = innermost.get(h)
        (kids[parent] if parent is not None else roots).append(h)
        for b in bodies[h]:
            innermost[b] = h
    loops = []
    work = [(h, False) for h in sorted(roots, key=rpo.__getitem__)]  # (popped last first)
    while work:
        h, done = work.pop()
        if done:
            loops.append(h)
            continue
        work.append((h, True))
        work.extend((k, False) for k in sorted(kids[h], key=rpo.__getitem__, reverse=True))
    return loops, bodies, kids, innermost

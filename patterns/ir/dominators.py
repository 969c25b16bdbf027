"""Dominance: the one dominator-tree algorithm (``DomTree``: dominator or post-dominator
tree, Cooper-Harvey-Kennedy, with O(1) ancestor queries through DFS intervals), the
immediate dominators of a function's blocks (``immediate_dominators``), and one tree
shared by the passes that ask for it in turn while the CFG is unchanged (``with
shared_dominators(fn):``: the llc IR passes and the DAG builder's prepasses)."""

from __future__ import annotations

from typing import Any, Callable, Final, Hashable, Iterable, Sequence

from patterns.ir.function import Function


# [(function, its CFG as _cfg_shape saw it, its idom)] while build_function_dags runs
_SHARED_IDOM: Final[list] = []


def _cfg_shape(fn: Function) -> list:
    """The blocks' successor lists, copied: equal while the CFG is unchanged."""
    return [tuple(b.successors) for b in fn.blocks]


class shared_dominators:
    """``with shared_dominators(fn):`` -- inside, ``immediate_dominators(fn)`` returns the
    one built on entry as long as the CFG is unchanged (the IR passes and the prepasses
    of ``build_function_dags`` ask for it in turn)."""

    def __init__(self, fn):
        self.fn = fn

    def __enter__(self):
        fn = self.fn
        if fn.blocks:
            _SHARED_IDOM.append((fn, _cfg_shape(fn), immediate_dominators(fn)))
            self.pushed = True
        else:
            self.pushed = False
        return self

    def __exit__(self, *exc) -> None:
        if self.pushed:
            _SHARED_IDOM.pop()


def immediate_dominators(fn: Function) -> dict:
    """Block -> immediate dominator for the blocks reachable from the entry (the entry
    maps to itself), from the dominator tree the uniformity analysis uses. While
    ``build_function_dags`` works on ``fn`` (the IR passes of ``patterns.llc`` ask
    for it too), the one it built is returned as long as the CFG is the same, so the
    tree is built once. Callers must not change the dictionary."""
    shared = _SHARED_IDOM
    if shared and shared[-1][0] is fn and shared[-1][1] == _cfg_shape(fn):
        return shared[-1][2]
    entry = fn.blocks[0]
    tree = DomTree(entry, lambda b: b.successors)
    idom: dict = {entry: entry}
    for b in fn.blocks:
        p = tree.parent(b)
        if p is not None:
            idom[b] = p
    return idom


def _no_succs(node: Any) -> list:
    return []


class DomTree:
    """Dominator tree of the graph reachable from ``root`` (give ``succs``; for a
    post-dominator tree give predecessors and a virtual exit as root), with O(1)
    ancestor queries through DFS intervals of the tree.

    Cooper-Harvey-Kennedy's iterative algorithm over reverse post-order indices (the
    same algorithm networkx's ``immediate_dominators`` implements; written out here on
    integer arrays because it runs on every parsed function). The nodes are numbered
    first (``for_blocks``: by their ``index``), so the construction itself hashes no
    node."""

    by_index: tuple  # (``for_blocks`` only)

    def __init__(self, root: Hashable, succs: Callable[[Any], Iterable[Any]],
                 numbered: tuple | None = None) -> None:
        if numbered is not None:  # (``for_blocks``: the nodes and their successors' numbers)
            self._build(numbered[0], numbered[1], 0)
            return
        # number the nodes reachable from the root (DFS preorder), then run the
        # integer version
        nodes: list[Hashable] = [root]
        num = {root: 0}
        succ: list[list[int]] = []
        i = 0
        while i < len(nodes):
            out = []
            for s in succs(nodes[i]):
                j = num.get(s)
                if j is None:
                    j = num[s] = len(nodes)
                    nodes.append(s)
                out.append(j)
            succ.append(out)
            i += 1
        self._build(nodes, succ, 0)

    @classmethod
    def for_blocks(cls, blocks: Sequence) -> "DomTree":
        """``DomTree(blocks[0], lambda b: b.successors)`` for IR blocks whose ``index``
        is their position in ``blocks``, with ``by_index`` set: ``(pre, post)``, the DFS
        intervals of the tree per block index (-1 for unreachable blocks), for
        dominance checks without dictionary lookups."""
        tree = cls(None, _no_succs, (blocks, [[s.index for s in b.successors] for b in blocks]))
        pre, post, po = tree._pre, tree._post, tree._po_of
        if len(pre) == len(blocks):  # every block reachable (the usual case)
            bpre = [pre[i] for i in po]
            bpost = [post[i] for i in po]
        else:
            bpre = [-1] * len(blocks)
            bpost = [-1] * len(blocks)
            for j, i in enumerate(po):
                if i >= 0:
                    bpre[j] = pre[i]
                    bpost[j] = post[i]
        tree.by_index = (bpre, bpost)
        return tree

    def _build(self, nodes: Sequence, succ: list[list[int]], root: int) -> None:
        n_all = len(succ)
        # iterative DFS post-order (successors in the given order)
        po_of = [-1] * n_all  # node index -> post-order number, -1 if unreachable
        seen = bytearray(n_all)
        seen[root] = 1
        order: list[int] = []  # post-order number -> node index
        stack = [(root, iter(succ[root]))]
        # the predecessors of each node (by node index) as post-order numbers, ascending:
        # recorded when a node finishes, when its own number is known
        node_preds: list[list[int]] = [[] for _ in range(n_all)]
        while stack:
            v, it = stack[-1]
            for w in it:
                if not seen[w]:
                    seen[w] = 1
                    stack.append((w, iter(succ[w])))
                    break
            else:
                stack.pop()
                i = po_of[v] = len(order)
                order.append(v)
                for w in succ[v]:
                    node_preds[w].append(i)
        n = len(order)
        preds = [node_preds[v] for v in order]  # by post-order number
        idom = [-1] * n
        root_i = n - 1
        idom[root_i] = root_i
        # The first pass in reverse post-order skips the predecessors not processed
        # yet (retreating edges). When each of them is dominated by its target in the
        # tree that pass builds, adding it to its target's intersection changes nothing
        # (the target's idom already dominates it), so the tree is the fixed point and
        # the usual confirming pass is skipped; otherwise iterate as usual.
        retreating: list | None = []
        changed = True
        passes = 0
        while changed:
            changed = False
            passes += 1
            for b in range(n - 2, -1, -1):  # reverse post-order, root excluded
                new_idom = -1
                for p in preds[b]:
                    if idom[p] == -1:
                        if retreating is not None:
                            retreating.append((p, b))
                        continue
                    if new_idom == -1:
                        new_idom = p
                        continue
                    f1, f2 = p, new_idom
                    while f1 != f2:
                        while f1 < f2:
                            f1 = idom[f1]
                        while f2 < f1:
                            f2 = idom[f2]
                    new_idom = f1
                if idom[b] != new_idom:
                    idom[b] = new_idom
                    changed = True
            if retreating is not None:
                for p, b in retreating:
                    f = p
                    while f < b:
                        f = idom[f]
                    if f != b:
                        break
                else:
                    break  # every retreating edge is a back edge: done
                retreating = None
        # Everything is kept in arrays indexed by post-order number; ``_index`` maps a
        # node to it (made on first use).
        self.root = nodes[root]
        self._nodes = nodes
        self._po_of = po_of
        self._index_map: dict | None = None
        self._order_list = order  # post-order number -> node index (``_order``: the nodes)
        self._idom = idom
        self._root_i = root_i
        self.passes = passes  # (1: the shortcut above was taken)
        # DFS intervals of the tree: ``pre`` numbers the nodes in a preorder that visits
        # the children of a node from the highest post-order number down, ``post`` is
        # one past the last preorder number of a node's subtree, so that a dominates b
        # iff pre[a] <= pre[b] and post[b] <= post[a]. A dominator has a higher post-order
        # number than every node it dominates, so subtree sizes take one upward pass and
        # the preorder one downward pass (each child gets the next free range of its
        # parent), without child lists or a stack.
        size = [1] * n
        for i in range(n - 1):
            size[idom[i]] += size[i]
        pre = [0] * n
        nxt = [1] * n  # next free preorder number inside each node's range
        for i in range(n - 2, -1, -1):
            p = idom[i]
            k = nxt[p]
            pre[i] = k
            nxt[p] = k + size[i]
            nxt[i] = k + 1
        self._pre = pre
        self._post = [k + c for k, c in zip(pre, size)]

    @property
    def _order(self) -> list:
        """Post-order number -> node."""
        nodes = self._nodes
        return [nodes[v] for v in self._order_list]

    @property
    def _index(self) -> dict:
        """Node -> post-order number, for the reachable nodes."""
        m = self._index_map
        if m is None:
            nodes = self._nodes
            m = self._index_map = {nodes[v]: i for v, i in enumerate(self._po_of) if i >= 0}
        return m

    def __len__(self) -> int:
        """Number of nodes reachable from the root (the root included)."""
        return len(self._order_list)

    def reachable(self, n: Hashable) -> bool:
        return n in self._index

    def dominates(self, a: Hashable, b: Hashable) -> bool:
        """LLVM's convention: everything dominates an unreachable block."""
        index = self._index
        ib = index.get(b)
        if ib is None:
            return True
        ia = index.get(a)
        if ia is None:
            return False
        pre = self._pre
        post = self._post
        return pre[ia] <= pre[ib] and post[ib] <= post[ia]

    def properly_dominates(self, a: Hashable, b: Hashable) -> bool:
        return a is not b and self.dominates(a, b)

    def parent(self, n: Hashable) -> Hashable | None:
        """The immediate dominator, None for the root and unreachable nodes."""
        i = self._index.get(n)
        if i is None or i == self._root_i:
            return None
        return self._nodes[self._order_list[self._idom[i]]]

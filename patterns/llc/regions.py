"""LLVM's RegionInfo for one function: the single-entry single-exit regions StructurizeCFG works on.

A region is a pair (entry, exit) of blocks such that the entry dominates every block of
the region, the exit post-dominates them, and no edge enters the region except at the
entry or leaves it except to the exit (exit excluded from the region). Regions found,
as RegionInfo does it (facts of LLVM 19's RegionInfoImpl.h):

- ``scan``: for each block in post-order of the dominator tree, walk up the
  post-dominator tree from it; every candidate exit that makes a region (``is_region``,
  tested on dominance frontiers) gives a region, the smaller one nested in the larger
  one with the same entry; the walk stops at the first candidate the entry does not
  dominate. A region whose entry has one successor, the exit, is trivial (not made);
- ``build``: a walk of the dominator tree from the function's entry hangs each region
  under the innermost region containing its entry and records each block's innermost
  region (``region_for``).

``Region.children`` are in the order of that walk (the dominator tree's child order,
``patterns.ir.cfg.dom_tree_order``), which sets the order StructurizeCFG visits them
(``queue``: the top region's subtree in preorder, processed from the back).
"""

from __future__ import annotations

from patterns.ir.cfg import dom_tree_order
from patterns.ir.dominators import DomTree


class Region:
    """``entry``/``exit`` blocks (``exit`` None for the function's top-level region),
    ``parent``, ``children`` (sub-regions)."""

    __slots__ = ("entry", "exit", "parent", "children", "info")

    def __init__(self, entry, exit_, info) -> None:
        self.entry = entry
        self.exit = exit_
        self.parent = None
        self.children: list = []
        self.info = info

    def is_top(self) -> bool:
        return self.exit is None

    def contains(self, b) -> bool:
        """Whether block ``b`` lies in the region (its exit excluded)."""
        if self.exit is None:
            return True
        dom = self.info.dominates
        return dom(self.entry, b) and not (dom(self.exit, b) and dom(self.entry, self.exit))

    def contains_region(self, r) -> bool:
        if self.exit is None:
            return True
        if r.exit is None:
            return False
        return self.contains(r.entry) and (self.contains(r.exit) or r.exit is self.exit)

    def add_child(self, r) -> None:
        r.parent = self
        self.children.append(r)

    def blocks(self) -> list:
        """The region's blocks, depth first from the entry along successor order
        (Region::blocks)."""
        out, seen, work = [], {self.entry}, [self.entry]
        while work:
            b = work.pop()
            out.append(b)
            for s in reversed(self.info.succs(b)):
                if s not in seen and s is not self.exit:
                    seen.add(s)
                    work.append(s)
        return out

    def __repr__(self) -> str:
        return f"<Region {self.entry.name} => {self.exit.name if self.exit is not None else '<Function Return>'}>"


class RegionInfo:
    """The region tree of a function. ``dominates(a, b)`` and ``succs(b)`` are given by
    the caller (StructurizeCFG keeps the dominator tree up to date as it adds blocks)."""

    def __init__(self, fn, idom: dict, dominates, succs) -> None:
        self.dominates = dominates
        self.succs = succs
        self.region_for: dict = {}
        self.top = Region(fn.blocks[0], None, self)
        self._scan(fn, idom)

    # -- construction
    def _scan(self, fn, idom: dict) -> None:
        blocks = [b for b in dom_tree_order(fn)]
        kids: dict = {}
        for b in blocks:
            p = idom.get(b)
            if p is not None and p is not b:
                kids.setdefault(p, []).append(b)
        self._kids = kids
        # post-dominator tree (a virtual root above the blocks without successors)
        root = object()
        exits = [b for b in fn.blocks if not self.succs(b)]

        def back(x):
            return exits if x is root else x.predecessors

        pdt = DomTree(root, back)
        self._ipdom = {b: pdt.parent(b) for b in blocks if pdt.reachable(b)}
        self._root = root
        self._df = _frontiers(blocks, idom)
        self._by_entry: dict = {}
        self._shortcut: dict = {}
        # the dominator tree in post-order
        post: list = []
        work = [(blocks[0], False)]
        while work:
            x, done = work.pop()
            if done:
                post.append(x)
                continue
            work.append((x, True))
            for k in reversed(kids.get(x, ())):
                work.append((k, False))
        for b in post:
            self._with_entry(b)
        self._build(blocks[0], self.top)

    def _with_entry(self, entry) -> None:
        """findRegionsWithEntry: candidate exits up the post-dominator tree, jumping
        over the largest region found from a block (``_shortcut``) as RegionInfo does:
        the jump decides which candidates are tried."""
        last = None
        last_exit = entry
        n = entry
        succs = self.succs(entry)
        while True:
            cut = self._shortcut.get(n)
            n = self._ipdom.get(n if cut is None else cut)
            if n is None or n is self._root:
                break
            exit_ = n
            if self._is_region(entry, exit_):
                r = None
                if not (len(succs) <= 1 and succs and succs[0] is exit_):  # (not a trivial region)
                    r = Region(entry, exit_, self)
                    self._by_entry.setdefault(entry, r)
                    if last is not None:
                        r.add_child(last)
                last = r
                last_exit = exit_
            if not self.dominates(entry, exit_):
                break
        if last_exit is not entry:
            self._shortcut[entry] = self._shortcut.get(last_exit, last_exit)

    def _is_region(self, entry, exit_) -> bool:
        df = self._df
        entry_df = df.get(entry, ())
        if not self.dominates(entry, exit_):
            return all(s is exit_ or s is entry for s in entry_df)
        exit_df = df.get(exit_, ())
        for s in entry_df:
            if s is exit_ or s is entry:
                continue
            if s not in exit_df:
                return False
            for p in s.predecessors:
                if self.dominates(entry, p) and not self.dominates(exit_, p):
                    return False
        for s in exit_df:
            if s is not exit_ and s is not entry and self.dominates(entry, s):
                return False
        return True

    def _build(self, root, top) -> None:
        work = [(root, top)]
        while work:
            b, region = work.pop()
            while region.exit is not None and b is region.exit:
                region = region.parent
            r = self._by_entry.get(b)
            if r is not None:
                t = r
                while t.parent is not None:
                    t = t.parent
                region.add_child(t)
                region = r
            self.region_for[b] = region
            for k in reversed(self._kids.get(b, ())):
                work.append((k, region))

    # -- queries
    def queue(self) -> list:
        """The regions in the order StructurizeCFG's pass visits them (the last first)."""
        out: list = []
        work = [self.top]
        while work:
            r = work.pop()
            out.append(r)
            work.extend(reversed(r.children))
        return out

    def subregion_node(self, region, b):
        """The child of ``region`` whose entry is ``b`` (a sub-region node), or None
        (``b`` is a block of ``region`` itself)."""
        r = self.region_for.get(b)
        if r is None or r is region:
            return None
        while r.parent is not None and r.parent is not region and region.contains_region(r.parent):
            r = r.parent
        return r if r.entry is b else None


def _frontiers(blocks: list, idom: dict) -> dict:
    """Dominance frontiers (Cytron et al.): block -> set of blocks."""
    df: dict = {}
    for b in blocks:
        preds = [p for p in b.predecessors if p in idom]
        if len(preds) < 2:  # (a block with one predecessor is in no frontier but its own loop's)
            continue
        stop = idom.get(b)
        for p in preds:
            runner = p
            while runner is not None and runner is not stop:
                df.setdefault(runner, set()).add(b)
                nxt = idom.get(runner)
                if nxt is runner:
                    break
                runner = nxt
    return df


__all__ = ["Region", "RegionInfo"]

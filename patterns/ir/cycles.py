"""Control-flow structure for the uniformity analysis: cycles and orders (dominance:
``patterns.ir.dominators``).

- ``CycleInfo``: the cycle forest of a function as LLVM's GenericCycleInfo defines it
  (a cycle is a strongly connected region found from a DFS; its entries are the blocks
  entered from outside; one entry = reducible; irreducible cycles have several). The
  block order inside a cycle follows the same DFS discipline as LLVM so that printed
  cycles (``depth=N: entries(H) B C``) read the same.
- ``modified_post_order``: a post-order in which every cycle's blocks are contiguous and
  its header comes before (in reverse post-order: after) its body; the order the
  divergence propagator walks.

Everything here works on any objects with identity hashing plus a successor function,
so it is independent of the IR classes.
"""

from __future__ import annotations

from typing import Any, Callable, Final, Iterable, Sequence

Block = Any  # (any hashable node: IR blocks here)
_END: Final = object()  # (CycleInfo._dfs: the end of a block's subtree)


class Cycle:
    """One cycle: entries (first = header), blocks (entries and body, LLVM's order)."""

    __slots__ = ("entries", "blocks", "block_set", "parent", "children", "depth")

    def __init__(self, header: Block) -> None:
        self.entries: list[Block] = [header]
        self.blocks: list[Block] = [header]
        self.block_set: set[Block] = {header}
        self.parent: Cycle | None = None
        self.children: list[Cycle] = []
        self.depth = 0

    @property
    def header(self) -> Block:
        return self.entries[0]

    @property
    def reducible(self) -> bool:
        return len(self.entries) == 1

    def contains(self, block: Block) -> bool:
        return block in self.block_set

    def contains_cycle(self, other: "Cycle | None") -> bool:
        """Whether ``other`` is this cycle or nested in it (None = the whole function)."""
        if other is None:
            return False
        c: Cycle | None = other
        while c is not None and c.depth >= self.depth:
            if c is self:
                return True
            c = c.parent
        return False

    def exit_blocks(self, succs: Callable[[Block], Sequence[Block]]) -> list[Block]:
        """Blocks outside the cycle reached by an edge from inside, in first-seen order."""
        out: list[Block] = []
        seen: set[Block] = set()
        inside = self.block_set
        for b in self.blocks:
            for s in succs(b):
                if s not in inside and s not in seen:
                    seen.add(s)
                    out.append(s)
        return out

    def describe(self, name: Callable[[Block], str]) -> str:
        entries = " ".join(name(e) for e in self.entries)
        entry_set = set(self.entries)
        rest = "".join(" " + name(b) for b in self.blocks if b not in entry_set)
        return f"depth={self.depth}: entries({entries}){rest}"


class CycleInfo:
    """The cycle forest of a CFG rooted at ``entry`` (unreachable blocks are in none)."""

    def __init__(
        self,
        entry: Block,
        succs: Callable[[Block], Sequence[Block]],
        preds: Callable[[Block], Sequence[Block]],
    ) -> None:
        self.succs = succs
        self.top_level: list[Cycle] = []
        self.block_cycle: dict[Block, Cycle] = {}  # innermost cycle of each block
        self.preorder: list[Block] = []
        self._compute(entry, preds)

    def _dfs(self, entry: Block) -> tuple[dict[Block, int], dict[Block, int]]:
        # Iterative DFS that pushes all successors and visits the last pushed first,
        # recording preorder numbers and the largest preorder number in each subtree.
        # A visited block leaves itself and _END under its successors: when _END comes
        # back to the top, the block's subtree is done.
        start: dict[Block, int] = {}
        end: dict[Block, int] = {}
        counter = 0
        stack: list = [entry]
        succs = self.succs
        preorder = self.preorder
        end_mark = _END
        while stack:
            b = stack.pop()
            if b is end_mark:
                end[stack.pop()] = counter
            elif b not in start:
                counter += 1
                start[b] = counter
                preorder.append(b)
                stack.append(b)
                stack.append(end_mark)
                stack.extend(succs(b))
        return start, end

    def _compute(self, entry: Block, preds: Callable[[Block], Sequence[Block]]) -> None:
        start, end = self._dfs(entry)

        top_of: dict[Block, Cycle] = {}  # block -> its current outermost cycle
        # the top-level cycles so far, in order of discovery (a dict: merged cycles
        # leave it in O(1))
        top: dict[Cycle, None] = {}
        block_cycle = self.block_cycle
        for cand in reversed(self.preorder):
            # the predecessors that ``cand`` is a DFS ancestor of (back edges); an
            # unreachable predecessor has no start number (-1 here)
            lo = start[cand]
            hi = end[cand]
            ps = preds(cand)
            for p in ps:  # (most blocks have none: no list is made for them)
                if lo <= start.get(p, -1) <= hi:
                    break
            else:
                continue
            work = [p for p in ps if lo <= start.get(p, -1) <= hi]
            cyc = Cycle(cand)
            block_cycle.setdefault(cand, cyc)
            top_of[cand] = cyc

            def process_preds(b: Block) -> None:
                is_entry = False
                for p in preds(b):
                    if lo <= start.get(p, -1) <= hi:  # ``cand`` is a DFS ancestor of ``p``
                        work.append(p)
                    else:
                        # As in LLVM 19, a predecessor that is unreachable from the
                        # entry also makes the block an entry of the cycle.
                        is_entry = True
                if is_entry:
                    cyc.entries.append(b)

            while work:
                b = work.pop()
                if b is cand:
                    continue
                outer = top_of.get(b)
                if outer is not None:
                    # Already in a cycle: pull its outermost cycle into this one.
                    while outer.parent is not None:
                        outer = outer.parent
                    if outer is not cyc:
                        outer.parent = cyc
                        cyc.children.append(outer)
                        del top[outer]
                        for ob in outer.blocks:
                            if ob not in cyc.block_set:
                                cyc.block_set.add(ob)
                                cyc.blocks.append(ob)
                        for e in outer.entries:
                            process_preds(e)
                    continue
                block_cycle[b] = cyc
                top_of[b] = cyc
                cyc.block_set.add(b)
                cyc.blocks.append(b)
                process_preds(b)
            top[cyc] = None
        self.top_level = list(top)

        def set_depth(c: Cycle, d: int) -> None:
            c.depth = d
            for ch in c.children:
                set_depth(ch, d + 1)

        for c in self.top_level:
            c.parent = None
            set_depth(c, 1)

    def cycle(self, block: Block) -> Cycle | None:
        return self.block_cycle.get(block)

    def outermost(self, block: Block) -> Cycle | None:
        c = self.block_cycle.get(block)
        while c is not None and c.parent is not None:
            c = c.parent
        return c

    def has_irreducible(self) -> bool:
        stack = list(self.top_level)
        while stack:
            c = stack.pop()
            if not c.reducible:
                return True
            stack.extend(c.children)
        return False


def modified_post_order(
    entry: Block,
    succs: Callable[[Block], Sequence[Block]],
    ci: CycleInfo,
) -> tuple[list[Block], set[Block]]:
    """LLVM's cycle-aware post-order; also returns the reducible cycle headers."""
    order: list[Block] = []
    reducible_headers: set[Block] = set()
    finalized: set[Block] = set()
    block_cycle = ci.block_cycle
    exits: dict[Cycle, list[Block]] = {}  # each cycle's exit blocks, computed once

    def child_of(cycle: Cycle | None, nested: Cycle | None) -> Cycle | None:
        """The child cycle of ``cycle`` (None = function) that contains ``nested`` (the
        innermost cycle of a block)."""
        if nested is cycle:
            return None
        if cycle is not None and not cycle.contains_cycle(nested):
            return None
        if nested is None:
            return None
        n: Any = nested
        while n.parent is not cycle:
            n = n.parent
        return n

    def stack_po(stack: list[Block], cycle: Cycle | None) -> None:
        inside = cycle.block_set if cycle is not None else None
        while stack:
            nxt = stack[-1]
            if nxt in finalized:
                stack.pop()
                continue
            nested = block_cycle.get(nxt)
            if nested is not None:
                nested = child_of(cycle, nested)
            if nested is not None:
                pushed = False
                ex_list = exits.get(nested)
                if ex_list is None:
                    ex_list = exits[nested] = nested.exit_blocks(succs)
                for ex in ex_list:
                    if inside is not None and ex not in inside:
                        continue
                    if ex in finalized:
                        continue
                    pushed = True
                    stack.append(ex)
                if not pushed:
                    stack.pop()
                    cycle_po(nested)
                continue
            pushed = False
            for s in succs(nxt):
                if inside is not None and s not in inside:
                    continue
                if s in finalized:
                    continue
                pushed = True
                stack.append(s)
            if not pushed:
                stack.pop()
                finalized.add(nxt)
                order.append(nxt)

    def cycle_po(cycle: Cycle) -> None:
        header = cycle.header
        finalized.add(header)
        order.append(header)
        if cycle.reducible:
            reducible_headers.add(header)
        inside = cycle.block_set
        stack = [s for s in succs(header) if s in inside and s is not header and s not in finalized]
        stack_po(stack, cycle)

    stack_po([entry], None)
    return order, reducible_headers


def reachable_from(entry: Block, succs: Callable[[Block], Iterable[Block]]) -> set[Block]:
    seen = {entry}
    stack = [entry]
    while stack:
        b = stack.pop()
        for s in succs(b):
            if s not in seen:
                seen.add(s)
                stack.append(s)
    return seen

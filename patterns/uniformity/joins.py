"""Join blocks and divergent cycle exits of one divergent branch (LLVM's DivergencePropagator).

Labels flow from the successors of a divergent branch in modified reverse post-order; a
block reached by two different labels is a *join* (reached from the branch by two
disjoint paths: its phis become divergent); a reducible cycle header containing the
branch hands its label straight to the cycle's exits; an exit reached by a label is a
divergent cycle exit (temporal divergence). ``JoinPropagator.run`` answers for one
branch; ``patterns.uniformity.analysis`` turns the answer into verdicts.

Joins versus the legacy analysis: LLVM's older DivergenceAnalysis made only the phis in
the immediate post-dominator of a divergent branch divergent. Disjoint-path joins can
lie before it: in ``entry: br %div, A, B; A: br %uni, C, D; B: br C; C: br D`` the
post-dominator of ``entry`` is D, yet C is reached from entry through A and through B
by disjoint paths, so C's phis are divergent too (and D's phis are divergent only if D
is itself a join, which it is here via A->D and C->D). We follow the current analysis
(join blocks), as opt-19 does.

Where we deliberately differ from opt-19 (``llvm19_compat=False``, the default): LLVM 19
stops label propagation early using a "floor" index in the modified post-order: after a
block pushes a label different from the previous one, the floor rises to that block's
lowest successor; when one side of a divergent branch is a chain of blocks whose
post-order indices all lie above the other side's (an if/else whose arms are unmerged
block chains), the floor passes the other side's pending blocks and the loop ends
before the second label reaches the join, so the join's phis stay uniform (LLVM issue
137277; corpus phi_div_branch.ll, phi_div_loop.ll, unstructured-branch.ll). For each
divergent branch we run the propagation twice and take the union: once with LLVM 19's
floor (so we are never less divergent than opt-19, which matters for irreducible
cycles: its exit check compares the labels left by the early stop) and once without
the floor, stopping only once every pending path has merged into one block that lies
in no cycle (beyond it no second label can arrive: at the latest the first
post-dominator of the branch outside every cycle; inside irreducible cycles we do not
stop at all). The result therefore equals opt-19's plus the joins its early stop
misses. ``llvm19_compat=True`` runs only the floor version and reproduces
opt-19 exactly (the differential test checks that on generated kernels).

Cost: each divergent branch's propagation is bounded by its region up to that merge
point (the floor version by LLVM's own bound), with no post-dominator tree to build.
Compiled (patterns/native/__init__.py).
"""

from __future__ import annotations

import heapq
from operator import attrgetter
from typing import Any, Final

from patterns.ir.cycles import Cycle, CycleInfo

_SUCCESSORS: Final = attrgetter("successors")


class JoinPropagator:
    """Join blocks and divergent cycle exits of the divergent branches of one function
    (LLVM's DivergencePropagator: labels flow in modified reverse post-order; a block
    reached by two different labels is a join; a reducible cycle header containing the
    branch hands its label straight to the cycle's exits).

    Made once per function from its structure: ``po`` (the modified post-order),
    ``index`` (block -> position in it), ``ci`` (its cycles), ``headers`` (the
    reducible cycle headers), ``compat`` (stop where LLVM 19 stops) and ``stats`` (the
    function's work counters, ``propagation_steps`` counted here)."""

    # The walk's state lives on the object (one per analysed function, reused for each
    # divergent branch); the helpers below serve the rare paths (cycle exits,
    # irreducible cycles), the hot edge visit is inlined in ``run``.
    __slots__ = ("po", "index", "ci", "headers", "compat", "stats", "exit_lists", "labels", "fresh", "heap",
                 "joins", "join_set", "cycle_exits", "cycle_exit_set", "irreducible")
    po: list[Any]
    index: dict[Any, int]
    ci: CycleInfo
    headers: set[Any]
    compat: bool
    stats: dict[str, int]
    exit_lists: dict[Cycle, list[Any]]
    labels: dict
    fresh: set
    heap: list
    joins: list
    join_set: set
    cycle_exits: list
    cycle_exit_set: set
    irreducible: list

    def __init__(self, po: list[Any], index: dict[Any, int], ci: CycleInfo, headers: set[Any], compat: bool,
                 stats: dict[str, int]) -> None:
        self.po = po
        self.index = index
        self.ci = ci
        self.headers = headers
        self.compat = compat
        self.stats = stats
        self.exit_lists = {}

    def exits(self, c: Cycle) -> list[Any]:
        """The exit blocks of ``c`` (computed once per cycle)."""
        e = self.exit_lists.get(c)
        if e is None:
            e = self.exit_lists[c] = c.exit_blocks(_SUCCESSORS)
        return e

    def mark_fresh(self, b: Any) -> None:
        i = self.index[b]
        if i not in self.fresh:
            self.fresh.add(i)
            heapq.heappush(self.heap, -i)

    def compute_join(self, succ: Any, label: Any) -> bool:
        labels = self.labels
        old = labels.get(succ)
        if old is None:
            labels[succ] = label
            self.mark_fresh(succ)
            return False
        if old is label:
            return False
        if old is not succ:
            self.mark_fresh(succ)
        labels[succ] = succ
        return True

    def visit_edge(self, succ: Any, label: Any) -> bool:
        if not self.compute_join(succ, label):
            return False
        if succ not in self.join_set:
            self.join_set.add(succ)
            self.joins.append(succ)
        return True

    def add_exit(self, ex: Any) -> None:
        if ex not in self.cycle_exit_set:
            self.cycle_exit_set.add(ex)
            self.cycle_exits.append(ex)

    def visit_exit_edge(self, succ: Any, label: Any) -> bool:
        if not self.compute_join(succ, label):
            return False
        self.add_exit(succ)
        return True

    def irreducible_exit_check(self) -> None:
        # An exit of an irreducible cycle around the branch whose label differs from
        # the header's is a divergent exit.
        labels = self.labels
        for cyc in self.irreducible:
            hl = labels.get(cyc.header)
            for ex in self.exits(cyc):
                if labels.get(ex) is not hl:
                    self.add_exit(ex)

    def run(self, div_block: Any) -> tuple[list[Any], list[Any]]:
        """Join blocks and divergent cycle exits of the branch ending ``div_block``.

        Compat mode stops where LLVM 19 stops (its floor rule). Otherwise the same walk
        goes on past that point: LLVM 19's early part is a prefix of it, so its joins
        and header-forwarded exits are found too; only its irreducible-exit check
        depends on where it stopped, so that check is also made at that moment.

        Outside irreducible cycles the walk ends once the only pending block X lies in
        no cycle. The modified post-order numbers every block reachable from such an X
        below X, and blocks are taken highest number first; a labelled block reachable
        from X that is no longer pending would have been taken before X was pushed,
        which needs a path back up the order, i.e. a cycle through X. So nothing
        reachable from X carries a label yet, only X's label can travel on, and no
        further join or exit can appear: the result is the unbounded walk's. (This is
        the first post-dominator of the branch that lies in no cycle, or an earlier
        point where all remaining paths have merged.) Inside irreducible cycles the walk
        is never cut."""
        compat = self.compat
        index = self.index
        blocks_po = self.po
        ci = self.ci
        labels: dict = {}
        fresh: set = set()
        heap: list = []
        joins: list = []
        join_set: set = set()
        cycle_exits: list = []
        self.labels, self.fresh, self.heap, self.joins = labels, fresh, heap, joins
        self.join_set, self.cycle_exits, self.cycle_exit_set = join_set, cycle_exits, set()

        irreducible = []  # irreducible cycles around the branch, innermost first
        div_cycle = ci.block_cycle.get(div_block)
        c = div_cycle
        while c is not None:
            if not c.reducible:
                irreducible.append(c)
            c = c.parent
        self.irreducible = irreducible

        floor_idx = len(blocks_po) - 1
        for s in div_block.successors:
            if div_cycle is not None and s not in div_cycle.block_set:
                self.add_exit(s)
            i = index[s]
            old = labels.get(s)
            if old is None:  # ``visit_edge(s, s)`` for a block without a label yet
                labels[s] = s
                if i not in fresh:
                    fresh.add(i)
                    heapq.heappush(heap, -i)
            elif old is not s:
                self.visit_edge(s, s)
            if i < floor_idx:
                floor_idx = i

        # Outside compat mode and irreducible cycles the walk ends as soon as its only
        # pending block lies in no cycle (see ``run``'s docstring)
        may_stop = not compat and not irreducible
        track_floor = compat or bool(irreducible)
        floor_label = None
        div_idx = index[div_block]
        heappush = heapq.heappush
        headers = self.headers
        block_cycle = ci.block_cycle
        steps = 0
        while heap:
            idx = -heap[0]
            if may_stop and len(heap) == 1 and idx != div_idx and blocks_po[idx] not in block_cycle:
                break
            if track_floor and idx < floor_idx:
                # LLVM 19 stops here.
                if compat:
                    break
                self.irreducible_exit_check()
                track_floor = False
            heapq.heappop(heap)
            fresh.discard(idx)
            steps += 1
            if idx == div_idx:
                continue
            block = blocks_po[idx]
            label = labels[block]
            caused_join = False
            lowered = floor_idx
            cyc = None
            if block in headers:
                c = block_cycle.get(block)
                if c is not None and div_block in c.block_set:
                    cyc = c
            if cyc is not None:
                for ex in self.exits(cyc):
                    caused_join |= self.visit_exit_edge(ex, label)
                    lowered = min(lowered, index[ex])
            else:
                # visit_edge inlined (the hot case: one call per edge)
                for s in block.successors:
                    i = index[s]
                    old = labels.get(s)
                    if old is None:
                        labels[s] = label
                        if i not in fresh:
                            fresh.add(i)
                            heappush(heap, -i)
                    elif old is not label:
                        if old is not s and i not in fresh:
                            fresh.add(i)
                            heappush(heap, -i)
                        labels[s] = s
                        caused_join = True
                        if s not in join_set:
                            join_set.add(s)
                            joins.append(s)
                    if i < lowered:
                        lowered = i
            if caused_join:
                floor_idx = lowered
            elif floor_label is not label:
                floor_idx = lowered
                floor_label = label

        if irreducible:
            self.irreducible_exit_check()
        self.stats["propagation_steps"] += steps
        return joins, cycle_exits

"""The combine driver: DAGCombiner::Run (LLVM 19) run twice per block as llc runs it
(``run``): before legalization (combine1) and after SelectionDAG::Legalize (combine2, with
LegalOperations set), the legalizations between them, and the block's final form for the
selector (re-sorted topologically from the roots, renumbered, use counts and divergence
bits recomputed). The visit of a node is the one of its opcode (``VISITORS``, with the
target's combines: ``dag_target``); see the package's docstring for the worklist rules."""

from __future__ import annotations

from typing import Final

from patterns.dag.combine.arith import visit_ADD, visit_MUL, visit_SUB
from patterns.dag.combine.context import CSE_OTHER, Ctx, DAGTarget, DEAD, DONE, FRESH, set_result, TRACE, WouldChange
from patterns.dag.combine.freeze import get_freeze, visit_FREEZE
from patterns.dag.combine.intrinsics import visit_ABS, visit_COUNT, visit_MINMAX
from patterns.dag.combine.logic import visit_AND, visit_OR, visit_XOR
from patterns.dag.combine.reassoc import commuted_other
from patterns.dag.combine.setcc import visit_other, visit_SIGN_EXTEND_INREG
from patterns.dag.combine.shifts import visit_SHL, visit_SRA, visit_SRL
from patterns.dag.isd import COMMUTATIVE
from patterns.dag.legaltable import legal_table
from patterns.dag.legalize_types import has_illegal_integers, promote_integers
from patterns.dag.legalize_vectors import unroll_vectors
from patterns.dag.nodes import SDNode, SelectionDAG
from tdgen.hooks import target_hooks


VISITORS: Final = {
    "ISD::ADD": visit_ADD, "ISD::SUB": visit_SUB, "ISD::MUL": visit_MUL, "ISD::AND": visit_AND,
    "ISD::OR": visit_OR, "ISD::XOR": visit_XOR, "ISD::SHL": visit_SHL, "ISD::SRL": visit_SRL,
    "ISD::SRA": visit_SRA,
    "ISD::SETCC": visit_other, "ISD::SIGN_EXTEND": visit_other, "ISD::SELECT": visit_other,
    "ISD::ZERO_EXTEND": visit_other, "ISD::ANY_EXTEND": visit_other,
    "ISD::CTLZ": visit_COUNT, "ISD::CTTZ": visit_COUNT, "ISD::CTPOP": visit_COUNT,
    "ISD::CTLZ_ZERO_UNDEF": visit_COUNT, "ISD::CTTZ_ZERO_UNDEF": visit_COUNT, "ISD::BITREVERSE": visit_COUNT,
    "ISD::SMAX": visit_MINMAX,
    "ISD::SMIN": visit_MINMAX, "ISD::UMIN": visit_MINMAX, "ISD::UMAX": visit_MINMAX,
    "ISD::ABS": visit_ABS, "ISD::SIGN_EXTEND_INREG": visit_SIGN_EXTEND_INREG,
    "ISD::FREEZE": visit_FREEZE,
}
for _opc in COMMUTATIVE:  # (every commutative opcode gets at least the commuted-form step)
    VISITORS.setdefault(_opc, commuted_other)

# the opcodes whose visit calls the target's combine itself (DAGCombiner::combine's
# PerformDAGCombine after the generic visit: arith.visit_MUL, logic.visit_AND,
# intrinsics.visit_MINMAX); a target's combine of another opcode follows its whole visit
# (``_then_target``: after the commuted-form step too), or is the visit of an opcode
# without one (a target node)
TARGET_COMBINE_IN_VISIT: Final = frozenset({"ISD::MUL", "ISD::AND", "ISD::SMIN", "ISD::SMAX", "ISD::UMIN", "ISD::UMAX"})

# the opcodes legalization rewrites whatever the target (``_legalize_abs``)
_LEGALIZED: Final = frozenset({"ISD::ABS"})

_TARGETS: Final[dict] = {}  # id(target) -> (target, its DAGTarget)


def dag_target(target) -> DAGTarget:
    """The DAG stage's view of ``target`` (``patterns.dag.combine.context.DAGTarget``),
    made once per target: the root opcodes it has patterns for, and its hooks
    (``tdgen.hooks.target_hooks``) as opcode-keyed tables, the visits with its combines.
    ``None``: no target (nothing legal, no hooks)."""
    hit = _TARGETS.get(id(target))
    if hit is not None and hit[0] is target:
        return hit[1]
    if target is None:
        legal: frozenset = frozenset()
    else:
        from patterns.select.matcher import build_table

        legal = frozenset(build_table(target).by_opcode)
    hooks = target_hooks(target)
    combines = dict(hooks.dag_combine)
    visitors = dict(VISITORS)
    for opc, f in combines.items():
        vis = visitors.get(opc)
        if vis is None:
            visitors[opc] = f  # (a target node: its visit is the target's combine)
        elif opc not in TARGET_COMBINE_IN_VISIT:
            visitors[opc] = _then_target(vis, f)
    lower = dict(hooks.legalize)
    t = DAGTarget(legal, visitors, combines, lower, _LEGALIZED | frozenset(lower), dict(hooks.known_lz),
                  CSE_OTHER | frozenset(hooks.cse_nodes), frozenset(hooks.argument_load_ccs))
    t.expand_dynamic_extract = hooks.expand_dynamic_extract
    _TARGETS[id(target)] = (target, t)
    return t


def _then_target(vis, f):
    """The visit ``vis``, then, when it changed nothing, the target's combine ``f``."""
    def visit_then_target(n: SDNode, ctx: Ctx) -> bool:
        return bool(vis(n, ctx)) or bool(f(n, ctx))
    return visit_then_target


# A run stops after this many visits per node of the block (a guard against two rules
# undoing each other forever; no generated kernel comes near it)
_VISITS_PER_NODE: Final = 64
STATS: Final[dict] = {"visit_limit_hit": 0}


def visit(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::combine: the node's visit (the generic rules, then the target's), then,
    when nothing fired, the commuted form of a commutative binary node if it exists
    already (getNodeIfExists). Whether something changed."""
    vis = ctx.visitors.get(n.opcode)
    return vis is not None and bool(vis(n, ctx))


def _any_change(ctx: Ctx, nodes: list) -> bool:
    """Whether visiting one of ``nodes`` would change the DAG as it is. A visit that
    changes nothing leaves no trace, so when none of them changes anything, combine2
    (visiting them in whatever order) is a run without effect; the first change stops
    the tries before it happens (every change starts with Ctx.get, const or vtnode
    making a node, commit or add)."""
    ctx.dry = True
    try:
        for n in nodes:
            if visit(n, ctx):
                return True
    except WouldChange:
        return True
    finally:
        ctx.dry = False
        ctx.sdb_root = None
    return False


def between_runs(ctx: Ctx) -> list:
    """What happens between combine1 and combine2: RemoveDeadNodes; then the nodes
    combine2 has to visit: those with rules whose surroundings changed since their
    last visit (``stamp``), all of them when RemoveDeadNodes changed something."""
    n: SDNode
    stamp, ops, roots = ctx.stamp, ctx.visit_ops, ctx.roots
    stale = []
    dead = False
    ev = ctx.events
    for group in (ctx.dag.nodes, ctx.created):
        for n in group:
            if n.wlix == DEAD:
                continue
            if not n.uses and n.chain is None and n.opcode != "ISD::EntryToken" and n not in roots:
                dead = True
            if n.opcode in ops and stamp.get(n) != ev:
                stale.append(n)
    if dead:
        ctx.remove_dead_nodes()
        if ctx.events != ev:
            stale = [n for group in (ctx.dag.nodes, ctx.created) for n in group
                     if n.wlix != DEAD and n.opcode in ops]
    return stale


def run(dag: SelectionDAG, target=None) -> None:
    """Combine the block's DAG in place as llc does before selection: DAGCombiner::Run
    before legalization (combine1), SelectionDAG::Legalize's topological re-sort (the
    modeled operations are legal already), DAGCombiner::Run after it (combine2); then
    give the DAG the selector's form: nodes in topological order from the roots,
    numbered, with use counts and divergence bits. First, the vector operations the
    target's lowering table expands are unrolled (``patterns.dag.legalize_vectors``); after
    combine1, when the block has integers of a type without a register class, they are
    promoted (``patterns.dag.legalize_types``) and the block combined again (llc's combine
    after LegalizeTypes)."""
    lg = legal_table(getattr(target, "legality", None)) if target is not None else None
    dt = dag_target(target)
    if lg is not None:
        vts = {n.vt for n in dag.nodes}  # (one pass: most blocks have no vector, no illegal type)
        if any(v[:1] == "v" for v in vts):
            unroll_vectors(dag, lg, dt.expand_dynamic_extract)
    ctx = Ctx(dag, dt)
    _combine_run(ctx)
    if lg is not None and has_illegal_integers(_live(ctx), lg):
        # SelectionDAG::LegalizeTypes after combine1, then the combine of the legal types
        _finish(dag, ctx)
        promote_integers(dag, lg)
        ctx = Ctx(dag, dt)
        _combine_run(ctx)
    _legalize(ctx)
    if ctx.events or ctx.late:
        stale = between_runs(ctx)
        if ctx.late:
            # (combine2-only rules: these nodes' combine1 visits say nothing of combine2's)
            have = set(stale)
            for n in ctx.late:
                if n.wlix != DEAD:
                    ctx.stamp.pop(n, None)
                    if n not in have:
                        have.add(n)
                        stale.append(n)
        if stale:
            ctx.legal_ops = True
            if _any_change(ctx, stale):
                ctx.wl = _topological_order(ctx)  # (each node's wlix set to its position)
                ctx.prune.clear()  # (no node is left without uses)
                _combine_run(ctx, again=True)
    # (otherwise every node's last visit saw the DAG combine2 would see, and changed
    # nothing: combine2 would change nothing either)
    _finish(dag, ctx)


def _live(ctx: Ctx) -> list:
    """The nodes of the block not deleted by the run: its own, then those the run made
    (only the block's own when the run made none and deleted none)."""
    if not ctx.events:
        return ctx.dag.nodes
    return [n for group in (ctx.dag.nodes, ctx.created) for n in group if n.wlix != DEAD]


def _legalize(ctx: Ctx) -> None:
    """The legalizations between the combine runs that change what combine2 and the
    blocks reading a value see: ``_legalize_abs``, then the target's LowerOperation of
    the opcodes it marks Custom (``TargetHooks.legalize``; e.g. AMDGPU's i32 zero-undef
    counts becoming its find-first-bit nodes), called for each live node of such an
    opcode, in AllNodes order."""
    n: SDNode
    legalized = ctx.legalized
    for group in (ctx.dag.nodes, ctx.created):
        for n in group:
            if n.opcode in legalized:
                break
        else:
            continue
        break
    else:
        return  # (nothing to legalize: one pass instead of two)
    _legalize_abs(ctx)
    lower = ctx.lower
    if lower:
        todo = [n for group in (ctx.dag.nodes, ctx.created) for n in group
                if n.opcode in lower and n.wlix != DEAD]
        for n in todo:
            lower[n.opcode](n, ctx)


def _legalize_abs(ctx: Ctx) -> None:
    """Legalization of ``abs``: AMDGPU expands an i32 abs to ``smax x, (sub 0, x)``
    (TargetLowering::expandABS with a legal smax), which combine2 then sees, e.g. as the
    inner max of a v_max3_i32 (llc's MIR shows it for both divergences); selection
    makes a uniform one s_abs_i32 again by a pattern on that smax, a divergent one
    v_max_i32 of v_sub_u32. After legalization the generic smax-of-negation fold back
    to abs no longer applies (abs is not legal). The operand, read twice, is frozen
    first (``get_freeze``): unless it cannot be poison, ``0 - freeze x`` hides x's
    shape from the combines (``visit_FREEZE`` moves the freeze down only through a
    one-use node). Where the model stops: no node carries poison-generating flags
    (nsw/nuw/exact/disjoint), and only the scalar opcodes of this DAG are classified."""
    if "ISD::SMAX" not in ctx.legal:
        return
    todo = [n for group in (ctx.dag.nodes, ctx.created) for n in group
            if n.opcode == "ISD::ABS" and n.wlix != DEAD and n.vt == "i32"]
    for n in todo:
        x = get_freeze(ctx, n.ops[0], n)  # (expandABS freezes its operand, read twice)
        neg = ctx.new("ISD::SUB", n.vt, [ctx.const(0, n.vt), x], like=n)
        set_result(ctx, n, "ISD::SMAX", [x, neg])


def _combine_run(ctx: Ctx, again: bool = False) -> None:
    """DAGCombiner::Run over the worklist ctx holds.

    A node whose last visit changed nothing, with the DAG unchanged since (``stamp``), is
    not visited again (``again``: in combine2): the visit is a function of the DAG, so it
    would change nothing again (combine2's rules are those of combine1 or fewer)."""
    n: SDNode | None
    wl = ctx.wl
    prune = ctx.prune
    stamp = ctx.stamp
    visitors = ctx.visitors
    fresh, done, dead = FRESH, DONE, DEAD
    budget = _VISITS_PER_NODE * len(wl) + 1000
    roots = ctx.roots
    # only a node made during this run can be off the worklist and never combined
    # (every other live node was put on it at the start)
    created = ctx.created
    made = len(created)
    while True:
        # getNextWorklistEntry
        if prune:
            ctx.prune_dangling()
        n = None
        while wl:
            n = wl.pop()
            if n is not None:
                break
        if n is None:
            break
        n.wlix = done
        if not n.uses and n.chain is None and n.opcode != "ISD::EntryToken" and n not in roots:
            ctx.delete_unused(n)  # (not ctx.pinned(n), inline)
            continue
        opc = n.opcode
        ops = n.ops
        vis = visitors.get(opc)
        if vis is None:
            # no rule: only the operands never combined go on the worklist
            if len(created) != made:
                for o in ops:
                    if o.wlix == fresh:
                        o.wlix = len(wl)
                        wl.append(o)
            continue
        # the operands not combined before go on the worklist (those already on it stay
        # where they are) and become candidates for pruning; the candidates matter only
        # when the visit changes the DAG, so they are entered then (``pend``)
        if len(ops) == 2:
            o0, o1 = ops
            s0, s1 = o0.wlix, o1.wlix
            if len(created) != made:
                if s0 == fresh:
                    o0.wlix = len(wl)
                    wl.append(o0)
                if s1 == fresh and o1 is not o0:
                    o1.wlix = len(wl)
                    wl.append(o1)
            pend = None
        else:
            pend = [o for o in ops if o.wlix != done]
            for o in ops:
                if o.wlix == fresh:
                    o.wlix = len(wl)
                    wl.append(o)
        ev = ctx.events
        if again and stamp.get(n) == ev:
            continue
        budget -= 1
        if budget < 0:
            STATS["visit_limit_hit"] += 1
            break
        if TRACE[0] is not None:
            TRACE[0]("visit", n, None)
        vis(n, ctx)  # visit(n, ctx)
        if ctx.events == ev:
            stamp[n] = ev
        else:
            if pend is None:
                pend = [o for o, st in ((o0, s0), (o1, s1)) if st != done]
            first = {o: None for o in pend if o.wlix != dead}
            if first:
                first.update(prune)
                prune.clear()
                prune.update(first)


def _topological_order(ctx: Ctx) -> list:
    """SelectionDAG::AssignTopologicalOrder over the live nodes in AllNodes order (the
    block's nodes, then those the combines made, in order): the nodes without operands
    first, in that order, then each node as soon as its last operand is placed, found by
    walking the placed nodes in order and each one's users in use-list order. A chain
    counts as an operand; a CopyFromReg reads a register node of its own, a leaf made
    just before it (here: the tuple holding the CopyFromReg)."""
    ctx.ensure_users()
    chained: dict = {}
    order: list = []
    for group in (ctx.dag.nodes, ctx.created):
        for n in group:
            if n.wlix == DEAD:
                continue
            d = len(n.ops)
            c = n.chain
            if c is not None:
                d += 1
                u = chained.get(c)
                if u is None:
                    chained[c] = [n]
                else:
                    u.append(n)
            if n.opcode == "ISD::CopyFromReg":
                order.append((n,))  # its register leaf
                d += 1
            if d:
                n.mark = d
            else:
                order.append(n)
    i = 0
    out: list = []
    while i < len(order):
        n = order[i]
        i += 1
        if type(n) is tuple:
            u = n[0]
            d = u.mark - 1
            u.mark = d
            if not d:
                order.append(u)
            continue
        n.wlix = len(out)
        out.append(n)
        users = n.users
        if users:
            for u, k in reversed(users.items()):
                d = u.mark - k
                u.mark = d
                if not d:
                    order.append(u)
        c = chained.get(n)
        if c:
            for u in reversed(c):
                d = u.mark - 1
                u.mark = d
                if not d:
                    order.append(u)
    return out


def _finish(dag: SelectionDAG, ctx: Ctx) -> None:
    """The DAG in the selector's form: the use lists dropped (they would keep the nodes
    in reference cycles) and, when the block changed, re-sorted, renumbered, with use counts and divergence bits."""
    m: SDNode
    changed = ctx.events != 0
    # (an AssertZext is a leaf's only user here: none in the block, nothing to replace)
    if changed and any(m.opcode == "ISD::AssertZext" for group in (dag.nodes, ctx.created) for m in group):
        # SelectionDAGISel replaces an AssertZext by its operand before selecting
        for group in (dag.nodes, ctx.created):
            for m in group:
                if m.wlix != DEAD and m.ops:
                    ops = m.ops
                    for i, o in enumerate(ops):
                        if o.opcode == "ISD::AssertZext":
                            if type(ops) is not list:
                                ops = m.ops = list(ops)
                            ops[i] = o.ops[0]
    if ctx.users_built:
        for group in (dag.nodes, ctx.created):
            for m in group:
                m.users = None
        ctx.users_built = False
    if changed:
        resort(dag)


_MARK: Final = [0]


def resort(dag: SelectionDAG, ctx: Ctx | None = None) -> None:
    """Topological order from the roots (drops unreachable nodes), ids, uses, divergence.

    Iterative DFS post-order over operands, from the roots and the entry token in node
    order; a node's ``mark`` says it was reached in this sort. (A node on the stack
    looks for its next unreached operand from its first one: the operands before it
    are reached already.)"""
    _MARK[0] += 1
    mark = _MARK[0]
    order: list[SDNode] = []
    roots = dag.roots
    if len(roots) == 1:
        r0 = roots[0]
        starts = [r for r in dag.nodes if r is r0 or r.opcode == "ISD::EntryToken"]
    else:
        root_ids = {id(r) for r in roots}
        starts = [r for r in dag.nodes if id(r) in root_ids or r.opcode == "ISD::EntryToken"]
    stack: list[SDNode] = []
    for root in starts:
        if root.mark == mark:
            continue
        root.mark = mark
        stack.append(root)
        while stack:
            node = stack[-1]
            for child in node.ops:
                if child.mark != mark:
                    child.mark = mark
                    stack.append(child)
                    break
            else:
                stack.pop()
                node.uses = 0  # (counted below, by the users: each comes after its operands)
                order.append(node)
    i = 0
    for n in order:
        n.id = i
        i += 1
        ops = n.ops
        src = n.source
        if src == "divergent":
            n.divergent = True
            for o in ops:
                o.uses += 1
        elif src == "uniform":
            n.divergent = False
            for o in ops:
                o.uses += 1
        elif ops:
            d = False
            for o in ops:
                o.uses += 1
                if o.divergent:
                    d = True
            n.divergent = d
    dag.nodes[:] = order

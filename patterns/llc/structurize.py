"""LLVM 19's StructurizeCFG: every region made an if-then / loop nest of single-entry single-exit parts, with Flow blocks.

A target whose branches are executed by masking lanes (AMDGPU) cannot branch two ways
at once; llc runs this pass (``structurize_cfg``) just before instruction selection, and
SIAnnotateControlFlow then brackets the divergent parts with the EXEC-mask intrinsics.
For each region (``patterns.llc.regions``; inner regions first, in the pass queue's
order), as LLVM 19 does it (facts of the pass, written anew):

- *order*: the region's nodes (its blocks and its child regions) in a topological order
  of their graph, each cycle kept contiguous (SCCs, refined inside cycles of more than two
  nodes, from each cycle's entry);
- *predicates*: for each node, the condition under which each earlier node reaches it
  (a conditional branch's condition or its inversion, ``true`` for a straight edge; the
  other arm of an if-then-else reads ``false`` from the else arm and ``true`` from the
  branch), and for back edges the loop's conditions;
- *flow*: the nodes wired in that order: a node entered on a condition gets a Flow block
  that branches to it or skips it (its condition left open), the nodes it dominates
  following it; loops get a Flow block at their end that branches back;
- *conditions*: each open branch condition is the phi network of the predicates
  (``patterns.llc.ssaupdate``), the phis of rewired edges are rebuilt the same way
  (``undef`` where no value flows), inversions of single-use compares are folded into the
  compare, phis the rewiring made trivial are simplified (undef counting as a value), and
  values no longer dominating their uses get phis.

Where this stops: the pass runs on ``br``/``ret``/``unreachable`` CFGs only (a
``switch`` is lowered before it in llc, by LowerSwitch: ``patterns.llc.lowerswitch``;
one reaching this pass is an error); the uniform-region
skipping option (``skip-uniform-regions``, off in llc's AMDGPU pipeline) is not modelled.
The function must be in the state llc leaves before the pass (one exit per divergent
path: AMDGPUUnifyDivergentExitNodes, FixIrreducible and UnifyLoopExits are not
modelled; ``structurize_cfg`` refuses irreducible control flow).
"""

from __future__ import annotations

from patterns.ir.core import Constant
from patterns.ir.function import Instruction
from patterns.llc.cfgedit import FALSE, I1, TRUE, EditableCFG, is_not
from patterns.llc.regions import Region, RegionInfo
from patterns.llc.scc import sccs
from patterns.llc.ssaupdate import SSAUpdater
from tdgen.errors import VerifyError, expected

_INVERSE = {"eq": "ne", "ne": "eq", "ugt": "ule", "uge": "ult", "ult": "uge", "ule": "ugt", "sgt": "sle",
            "sge": "slt", "slt": "sge", "sle": "sgt"}
_FINVERSE = {"oeq": "une", "one": "ueq", "ogt": "ule", "oge": "ult", "olt": "uge", "ole": "ugt", "ord": "uno",
             "ueq": "one", "une": "oeq", "ugt": "ole", "uge": "olt", "ult": "oge", "ule": "ogt", "uno": "ord",
             "true": "false", "false": "true"}


def structurize_cfg(fn) -> bool:
    """Run the pass on ``fn`` in place; True when the IR changed. Raises VerifyError
    (at the terminator) for what is not modelled."""
    if len(fn.blocks) < 2:
        return False
    for b in fn.blocks:
        t = b.instructions[-1] if b.instructions else None
        if t is not None and t.opcode not in ("br", "ret", "unreachable", "callbr"):
            raise VerifyError(t.span, expected(f"a terminator StructurizeCFG handles in @{fn.name} (br, callbr, "
                                               f"ret, unreachable)", f"'{t.opcode}' (not modelled)"))
    from patterns.ir.dominators import immediate_dominators

    cfg = EditableCFG(fn, immediate_dominators(fn))
    _refuse_irreducible(fn, cfg)
    _refuse_endless(fn, cfg)
    ri = RegionInfo(fn, cfg.idom, cfg.dominates, cfg.succs)
    changed = False
    queue = ri.queue()
    while queue:
        r = queue.pop()
        if r.is_top():
            continue
        t = r.entry.instructions[-1] if r.entry.instructions else None
        if t is not None and t.opcode == "callbr":  # (the pass leaves a callbr's region as it is)
            continue
        _Structurizer(cfg, ri, r).run()
        changed = True
    if changed:
        cfg.finish()
    return changed


def _refuse_irreducible(fn, cfg) -> None:
    """A cycle entered other than through a block dominating it (FixIrreducible's job)."""
    from patterns.ir.cfg import post_order

    order = post_order(fn)
    rank = {b: k for k, b in enumerate(order)}
    for b in order:
        for s in cfg.succs(b):
            if rank.get(s, -1) >= rank[b] and not cfg.dominates(s, b):
                t = b.instructions[-1]
                raise VerifyError(t.span, expected(f"reducible control flow in @{fn.name}",
                                                   f"a cycle entered at %{s.name} from %{b.name} without "
                                                   f"passing a block that dominates it (FixIrreducible: not "
                                                   f"modelled)"))


def _is_true(c) -> bool:
    return isinstance(c, Constant) and c.text == "true" and c.type == I1


def _refuse_endless(fn, cfg) -> None:
    """A block no path leads from to a return: the post-dominator tree LLVM builds
    then has extra roots (not modelled)."""
    reach = {b for b in fn.blocks if not cfg.succs(b)}
    work = list(reach)
    while work:
        b = work.pop()
        for p in cfg.preds(b):
            if p not in reach:
                reach.add(p)
                work.append(p)
    for b in fn.blocks:
        if b not in reach and (b is fn.blocks[0] or cfg.preds(b)):
            t = b.instructions[-1]
            raise VerifyError(t.span, expected(f"a function StructurizeCFG can work on in @{fn.name} (every block "
                                               f"leading to a return)", f"%{b.name}, from which no path returns "
                                               f"(the extra post-dominator tree roots of an endless loop: not "
                                               f"modelled)"))


def _entry(n):
    return n.entry if isinstance(n, Region) else n


class _Structurizer:
    def __init__(self, cfg: EditableCFG, ri: RegionInfo, region: Region) -> None:
        self.cfg = cfg
        self.ri = ri
        self.r = region
        self.order: list = []
        self.visited: set = set()
        self.flows: set = set()
        self.affected: list = []
        self.deleted: dict = {}  # block -> {phi: [(block, value)]} (insertion-ordered)
        self.added: dict = {}  # block -> [blocks]
        self.preds: dict = {}  # block -> {block: condition}
        self.loop_preds: dict = {}
        self.conditions: list = []
        self.loop_conds: list = []
        self.loops: dict = {}
        self.prev = None
        self.term_dl: dict = {}  # block -> (the !dbg, the span) of its last killed terminator

    # -- the region's node graph
    def _node(self, b):
        sub = self.ri.subregion_node(self.r, b)
        return sub if sub is not None else b

    def _node_succs(self, n) -> list:
        ex = self.r.exit
        if isinstance(n, Region):
            return [] if n.exit is ex else [self._node(n.exit)]
        return [self._node(s) for s in self.cfg.succs(n) if s is not ex]

    def run(self) -> None:
        self._order_nodes()
        self._collect_infos()
        self._create_flow()
        self._insert_conditions(False)
        self._insert_conditions(True)
        self._set_phi_values()
        self._simplify_conditions()
        self._simplify_affected_phis()
        self._rebuild_ssa()

    def _order_nodes(self) -> None:
        entry = self._node(self.r.entry)
        nodes, seen, work = [], {entry}, [entry]
        while work:
            x = work.pop()
            nodes.append(x)
            for s in self._node_succs(x):
                if s not in seen:
                    seen.add(s)
                    work.append(s)
        order: list = [None] * len(nodes)
        allowed = None
        i, e = 0, len(order)
        pending: list = []
        while True:
            for scc in sccs(entry, self._node_succs, allowed):
                if len(scc) > 2:
                    pending.append((i, i + len(scc)))
                for n in scc:
                    order[i] = n
                    i += 1
            if not pending:
                break
            i, e = pending.pop()
            allowed = set(order[i:e - 1])
            entry = order[e - 1]
        self.order = order

    # -- predicates
    def _invert(self, c):
        if isinstance(c, Constant):
            if c.text == "true":
                return FALSE
            if c.text == "false":
                return TRUE
        x = is_not(c)
        if x is not None:
            return x
        cfg = self.cfg
        if isinstance(c, Instruction):
            parent = c.block
        else:
            parent = cfg.entry
        for u, _k in cfg.users(c):
            if u.block is parent and is_not(u) is c:
                return u
        base = (c.name if isinstance(c, Instruction) and c.name and not c.name.isdigit()
                else getattr(c, "name", "") if not isinstance(c, Instruction) else "")
        inv = Instruction("xor", cfg.unique_name(f"{base}.inv"), I1, [c, TRUE])
        if isinstance(c, Instruction) and c.opcode != "phi":
            cfg.insert_after(c, inv)
        else:
            cfg.insert_first(parent, inv)
        return inv

    def _condition(self, term, idx: int, invert: bool):
        c = term.operands[0]
        return self._invert(c) if idx != int(invert) else c

    def _gather(self, n) -> None:
        cfg, r = self.cfg, self.r
        bb = _entry(n)
        pred = self.preds.setdefault(bb, {})
        lpred = self.loop_preds.setdefault(bb, {})
        for p in cfg.preds(bb):
            if not r.contains(p):
                continue
            rp = self.ri.region_for.get(p)
            if rp is None:
                continue
            if rp is r:
                t = p.instructions[-1]
                if len(t.targets) == 1:
                    if p in self.visited:
                        pred[p] = TRUE
                    else:
                        lpred[p] = FALSE
                else:
                    idx = 0 if t.targets[0] is bb else 1
                    if p in self.visited:
                        other = t.targets[1 - idx]
                        if other in self.visited and other not in self.loops and other not in pred \
                                and p not in pred:
                            pred[other] = FALSE
                            pred[p] = TRUE
                        else:
                            pred[p] = self._condition(t, idx, False)
                    else:
                        lpred[p] = self._condition(t, idx, True)
            else:
                while rp.parent is not r:
                    rp = rp.parent
                if rp is n:
                    continue
                e = rp.entry
                if e in self.visited:
                    pred[e] = TRUE
                else:
                    lpred[e] = FALSE

    def _analyze_loops(self, n) -> None:
        if isinstance(n, Region):
            if n.exit in self.visited:
                self.loops[n.exit] = n.entry
        else:
            for s in self.cfg.succs(n):
                if s in self.visited:
                    self.loops[s] = n

    def _collect_infos(self) -> None:
        for n in reversed(self.order):
            self._gather(n)
            self.visited.add(_entry(n))
            self._analyze_loops(n)

    # -- phis of rewired edges
    def _del_phi_values(self, frm, to) -> None:
        m = self.deleted.setdefault(to, {})
        for phi in to.instructions:
            if phi.opcode != "phi":
                break
            recorded = False
            while any(b is frm for _v, b in phi.incoming):
                inc = list(phi.incoming)
                k = next(k for k, (_v, b) in enumerate(inc) if b is frm)
                v = inc.pop(k)[0]
                phi.incoming = inc
                phi.operands = [x for x, _b in inc]
                phi._text = None
                m.setdefault(phi, []).append((frm, v))
                if not recorded:
                    self.affected.append(phi)
                    recorded = True

    def _add_phi_values(self, frm, to) -> None:
        for phi in to.instructions:
            if phi.opcode != "phi":
                break
            phi.incoming = list(phi.incoming) + [(self.cfg.undef(phi.type), frm)]
            phi.operands = [x for x, _b in phi.incoming]
            phi._text = None
        self.added.setdefault(to, []).append(frm)

    def _kill_terminator(self, b) -> None:
        """The terminator of ``b`` gone, its edges' phi entries recorded; its ``!dbg``
        kept for the branch that replaces it (``self.term_dl``)."""
        t = b.instructions[-1] if b.instructions else None
        if t is None or not t.is_terminator:
            return
        self.term_dl[b] = (next((m for m in (t._metadata or ()) if m[0] == "!dbg"), None), t.span)
        for s in list(t.targets):
            self._del_phi_values(b, s)
        self.cfg.kill_terminator(b)

    # -- wiring
    def _change_exit(self, node, new_exit, include_dom: bool) -> None:
        cfg = self.cfg
        if isinstance(node, Region):
            old = node.exit
            dom = None
            for b in cfg.preds(old):
                if not node.contains(b):
                    continue
                self._del_phi_values(b, old)
                cfg.retarget(b.instructions[-1], old, new_exit)
                self._add_phi_values(b, new_exit)
                if include_dom:
                    dom = b if dom is None else cfg.common_dominator(dom, b)
            if dom is not None:
                cfg.set_idom(new_exit, dom)
            node.exit = new_exit
        else:
            self._kill_terminator(node)
            cfg.make_branch(node, [new_exit], None, *self.term_dl.get(node, (None, None)))
            self._add_phi_values(node, new_exit)
            if include_dom:
                cfg.set_idom(new_exit, node)

    def _next_flow(self, dom):
        before = _entry(self.order[-1]) if self.order else self.r.exit
        flow = self.cfg.new_block("Flow", before)
        self.flows.add(flow)
        # (a Flow block's branch has its dominator's debug location, and its line)
        self.term_dl[flow] = self.term_dl.get(dom, (None, None))
        self.cfg.set_idom(flow, dom)
        self.ri.region_for[flow] = self.r
        return flow

    def _need_prefix(self, need_empty: bool):
        entry = _entry(self.prev)
        if not isinstance(self.prev, Region):
            self._kill_terminator(entry)
            if not need_empty or all(i.opcode == "phi" for i in entry.instructions):
                return entry
        flow = self._next_flow(entry)
        self._change_exit(self.prev, flow, True)
        self.prev = flow
        return flow

    def _need_postfix(self, flow, exit_ok: bool):
        if self.order or not exit_ok:
            return self._next_flow(flow)
        ex = self.r.exit
        self.cfg.set_idom(ex, flow)
        self._add_phi_values(flow, ex)
        return ex

    def _set_prev(self, b) -> None:
        self.prev = b if self.r.contains(b) else None

    def _dominates_predicates(self, b, node) -> bool:
        return all(self.cfg.dominates(b, p) for p in self.preds.get(_entry(node), {}))

    def _predictable_true(self, node) -> bool:
        if self.prev is None:
            return True
        dominated = False
        for b, c in self.preds.get(_entry(node), {}).items():
            if not _is_true(c):
                return False
            if not dominated and self.cfg.dominates(b, _entry(self.prev)):
                dominated = True
        return dominated

    def _wire_flow(self, exit_ok: bool, loop_end) -> None:
        node = self.order.pop()
        entry = _entry(node)
        self.visited.add(entry)
        if self._predictable_true(node):
            if self.prev is not None:
                self._change_exit(self.prev, entry, True)
            self.prev = node
            return
        flow = self._need_prefix(False)
        nxt = self._need_postfix(flow, exit_ok)
        br = self.cfg.make_branch(flow, [entry, nxt], self.cfg.undef(I1), *self.term_dl.get(flow, (None, None)))
        self.conditions.append(br)
        self._add_phi_values(flow, entry)
        self.cfg.set_idom(entry, flow)
        self.prev = node
        while self.order and loop_end not in self.visited and \
                self._dominates_predicates(entry, self.order[-1]):
            self._handle_loops(False, loop_end)
        self._change_exit(self.prev, nxt, False)
        self._set_prev(nxt)

    def _handle_loops(self, exit_ok: bool, loop_end) -> None:
        node = self.order[-1]
        start = _entry(node)
        if start not in self.loops:
            self._wire_flow(exit_ok, loop_end)
            return
        if not self._predictable_true(node):
            start = self._need_prefix(True)
        loop_end = self.loops[_entry(node)]
        self._wire_flow(False, loop_end)
        while loop_end not in self.visited:
            self._handle_loops(False, loop_end)
        loop_end = self._need_prefix(False)
        nxt = self._need_postfix(loop_end, exit_ok)
        br = self.cfg.make_branch(loop_end, [nxt, start], self.cfg.undef(I1),
                                  *self.term_dl.get(loop_end, (None, None)))
        self.loop_conds.append(br)
        self._add_phi_values(loop_end, start)
        self._set_prev(nxt)

    def _create_flow(self) -> None:
        ex = self.r.exit
        exit_ok = self.cfg.dominates(self.r.entry, ex)
        self.visited = set()
        self.prev = None
        while self.order:
            self._handle_loops(exit_ok, None)
        if self.prev is not None:
            self._change_exit(self.prev, ex, exit_ok)

    # -- conditions and phis
    def _insert_conditions(self, loops: bool) -> None:
        cfg = self.cfg
        default = TRUE if loops else FALSE
        for t in (self.loop_conds if loops else self.conditions):
            parent = t.block
            st, sf = t.targets
            up = SSAUpdater(cfg, I1)
            up.add(cfg.entry, default)
            up.add(sf if loops else parent, default)
            preds = self.loop_preds.get(sf, {}) if loops else self.preds.get(st, {})
            ncd, remembered = parent, False
            value = None
            for b, c in preds.items():
                if b is parent:
                    value = c
                    break
                up.add(b, c)
                new = cfg.common_dominator(ncd, b)
                if new is not ncd:
                    remembered = False
                if new is b:
                    remembered = True
                ncd = new
            if value is None:
                if not remembered:
                    up.add(ncd, default)
                value = up.in_middle(parent)
            t.operands = [value]
            t._text = None

    def _undef_blocks(self, to, incomings: set) -> list:
        """The blocks between the phi's old predecessors that no old predecessor's
        value flows through (not a Flow block, not a predecessor): their value is
        undefined for the phi rebuilt in ``to``."""
        cfg = self.cfg
        if to is self.r.exit:
            stack = [p for p in cfg.preds(to) if self.r.contains(p)]
        else:
            stack = cfg.preds(to)
        seen: set = set()
        out: list = []
        while stack:
            b = stack.pop()
            if b in seen:
                continue
            seen.add(b)
            if b in self.flows:
                stack.extend(cfg.preds(b))
            elif b not in incomings:
                out.append(b)
        return out

    def _set_phi_values(self) -> None:
        cfg = self.cfg
        inserted: list = []
        undef_of: dict = {}
        for to in self.added:
            m = self.deleted.get(to)
            if m is None:
                continue
            if m:
                first = next(iter(m.values()))
                undef_of[to] = self._undef_blocks(to, {b for b, _v in first})
            else:
                undef_of[to] = []
        for to, frm in self.added.items():
            m = self.deleted.get(to)
            if m is None:
                continue
            ubs = undef_of[to]
            for phi, inc in m.items():
                u = cfg.undef(phi.type)
                up = SSAUpdater(cfg, phi.type, inserted)
                up.add(cfg.entry, u)
                up.add(to, u)
                consts = []
                for b, v in inc:
                    up.add(b, v)
                    if isinstance(v, Constant):
                        consts.append(b)
                for ub in ubs:
                    if any(cfg.dominates(c, ub) for c in consts) or up.has(ub):
                        continue
                    up.add(ub, u)
                for f in frm:
                    v = up.at_end(f)
                    phi.incoming = [(v if b is f else x, b) for x, b in phi.incoming]
                    phi.operands = [x for x, _b in phi.incoming]
                    phi._text = None
                self.affected.append(phi)
        self.deleted = {}
        self.affected.extend(inserted)

    def _simplify_conditions(self) -> None:
        cfg = self.cfg
        gone: list = []
        for table in (self.preds, self.loop_preds):
            for m in table.values():
                for c in m.values():
                    x = is_not(c)
                    if x is None or not isinstance(x, Instruction) or c.block is None or any(c is g for g in gone):
                        continue
                    if len(cfg.users(x)) != 1 or not cfg.users(c):
                        continue
                    if x.opcode in ("icmp", "fcmp"):
                        x.predicate = _inverse(x.opcode, x.predicate)
                        x._text = None
                        cfg.replace_all_uses(c, x)
                        gone.append(c)
        for c in gone:
            cfg.erase(c)

    def _simplify_affected_phis(self) -> None:
        cfg = self.cfg
        changed = True
        while changed:
            changed = False
            for phi in self.affected:
                if phi.block is None:
                    continue
                v = cfg.simplify_phi(phi, can_use_undef=False)
                if v is not None:
                    cfg.replace_all_uses(phi, v)
                    cfg.erase(phi)
                    changed = True

    def _rebuild_ssa(self) -> None:
        cfg = self.cfg
        for b in self.r.blocks():
            for i in list(b.instructions):
                up = None
                for u, k in cfg.users(i):
                    if u.block is b:
                        continue
                    if u.opcode == "phi" and u.incoming[k][1] is b:
                        continue
                    if cfg.inst_dominates(i, u):
                        continue
                    if up is None:
                        up = SSAUpdater(cfg, i.type)
                        up.add(cfg.entry, cfg.undef(i.type))
                        up.add(b, i)
                    v = up.at_end(u.incoming[k][1]) if u.opcode == "phi" else up.in_middle(u.block)
                    cfg.set_operand(u, k, v)



def _inverse(opcode: str, pred: str) -> str:
    return (_INVERSE if opcode == "icmp" else _FINVERSE)[pred]


__all__ = ["structurize_cfg"]

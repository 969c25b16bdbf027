"""One combine run's state and its DAG mutations (``Ctx``): the worklist, the pruning list, the
CSE map, SelectionDAG::getNode (``Ctx.get``, with the folds it makes itself),
ReplaceAllUsesWith, deletion, the worklist bookkeeping of a rule's result (``Ctx.commit``,
``set``); and the node predicates every rule family reads (``is_c``, ``is_not``,
``is_neg``, ``width``)."""

from __future__ import annotations

from typing import Any, Final

from patterns.dag.isd import COMMUTATIVE
from patterns.dag.nodes import SDNode, SelectionDAG, value_type_node
from patterns.support.intops import wrap_vt


FOLD: Final = {
    "ISD::ADD": lambda a, b: a + b, "ISD::SUB": lambda a, b: a - b, "ISD::MUL": lambda a, b: a * b,
    "ISD::AND": lambda a, b: a & b, "ISD::OR": lambda a, b: a | b, "ISD::XOR": lambda a, b: a ^ b,
    "ISD::SHL": lambda a, b: a << (b & 31), "ISD::SRL": lambda a, b: (a & 0xFFFFFFFF) >> (b & 31),
    "ISD::SRA": lambda a, b: a >> (b & 31),
}


def is_c(n: SDNode) -> bool:
    return n.opcode == "ISD::Constant" and isinstance(n.value, int)


# SDNode.wlix (DAGCombiner's CombinerWorklistIndex): a position on the worklist, or one of
FRESH: Final = -1  # not on the worklist and never combined (a new node, or one taken off)
DONE: Final = -2   # popped and combined, not on the worklist since
DEAD: Final = -3   # deleted from the DAG

# opcodes SelectionDAG's CSE map keeps, besides the binary ops of FOLD (keyed by opcode
# and operands: their type follows from the first operand) and constants (ctx.consts);
# a target adds its own nodes (TargetHooks.cse_nodes: DAGTarget.cse_other)
CSE_OTHER: Final = frozenset({
    "ISD::SETCC", "ISD::SELECT", "ISD::SMIN", "ISD::SMAX", "ISD::UMIN", "ISD::UMAX", "ISD::ABS",
    "ISD::CTLZ", "ISD::CTTZ", "ISD::CTLZ_ZERO_UNDEF", "ISD::CTTZ_ZERO_UNDEF", "ISD::CTPOP",
    "ISD::BITREVERSE", "ISD::BSWAP", "ISD::SIGN_EXTEND_INREG", "ISD::SIGN_EXTEND", "ISD::ZERO_EXTEND",
    "ISD::TRUNCATE", "ISD::AssertZext", "ISD::USUBSAT", "ISD::FREEZE"})


class DAGTarget:
    """What the DAG stage knows of the target, made once per target
    (``patterns.dag.combine.driver.dag_target``): the root opcodes it can select (like
    TLI.isOperationLegal: a rule forms only nodes in ``legal``) and its hooks
    (``tdgen.hooks.TargetHooks``) as opcode-keyed tables. A combine run (``Ctx``) is one
    (it copies the target's, ``share``); the known-bits functions
    (``patterns.dag.combine.known``) are given one, a Ctx or the builder's."""

    legal: frozenset
    visitors: dict      # opcode -> the visit of its nodes, the target's combines included
    visit_ops: frozenset  # the opcodes with a visit
    combines: dict      # opcode -> TargetHooks.dag_combine (PerformDAGCombine)
    lower: dict         # opcode -> TargetHooks.legalize (LowerOperation)
    legalized: frozenset  # the opcodes legalization rewrites (the generic ones, ``lower``'s)
    known_lz: dict      # opcode -> TargetHooks.known_lz (computeKnownBitsForTargetNode)
    cse_other: frozenset  # CSE_OTHER and the target's TargetHooks.cse_nodes
    argument_load_ccs: frozenset  # TargetHooks.argument_load_ccs
    expand_dynamic_extract: Any  # TargetHooks.expand_dynamic_extract (or None)

    def __init__(self, legal: frozenset, visitors: dict, combines: dict, lower: dict, legalized: frozenset,
                 known_lz: dict, cse_other: frozenset, argument_load_ccs: frozenset) -> None:
        self.legal = legal
        self.visitors = visitors
        self.visit_ops = frozenset(visitors)
        self.combines = combines
        self.lower = lower
        self.legalized = legalized
        self.known_lz = known_lz
        self.cse_other = cse_other
        self.argument_load_ccs = argument_load_ccs
        self.expand_dynamic_extract = None

    def share(self, t: DAGTarget) -> None:
        """Take ``t``'s tables (the same objects)."""
        self.legal = t.legal
        self.visitors = t.visitors
        self.visit_ops = t.visit_ops
        self.combines = t.combines
        self.lower = t.lower
        self.legalized = t.legalized
        self.known_lz = t.known_lz
        self.cse_other = t.cse_other
        self.argument_load_ccs = t.argument_load_ccs
        self.expand_dynamic_extract = t.expand_dynamic_extract

    def cse_key(self, opc: str, vt: str, ops, cc=None):
        """The CSE-map key of a node ``opc vt ops`` (None: a node that is not CSE'd here)."""
        if opc in FOLD:
            return (opc, ops[0], ops[1]) if len(ops) == 2 else None
        if opc in self.cse_other:
            return (opc, vt, cc, *ops)
        return None


class Ctx(DAGTarget):
    """One combine run over a block's DAG of the target ``t``: the worklist, the pruning
    list, the CSE map and the DAG mutations with their worklist bookkeeping (see the
    package docstring, patterns.dag.combine)."""

    # (the fields that hold values of several kinds, or are set after ``__init__``)
    consts: Any
    sdb_root: Any
    prune: dict
    wl: list  # (None in a slot emptied by ``remove``)

    def __init__(self, dag: SelectionDAG, t: DAGTarget) -> None:
        self.share(t)
        self.dag = dag
        self.block = dag.block
        self.legal_ops = False   # DAGCombiner's LegalOperations: set for combine2
        self.consts = None       # (value, vt) -> Constant, ("VT", vt) -> VTSDNode (made when needed)
        self.cse: dict = {}      # cse_key -> node
        self.users_built = False  # the use lists are made when first needed (ensure_users)
        self.roots = set(dag.roots)
        self.created: list = []  # every node made in this run
        self.sdb_root = None     # set while SimplifyDemandedBits runs from a visit
        self.events = 0          # nodes made, replaced or deleted (with operands) so far
        self.stamp: dict = {}    # node -> ``events`` when a visit of it last changed nothing
        self.quiet: dict = {}    # node -> _quiet's answer, while ``events`` is quiet_ev
        self.quiet_ev = -1
        self.dry = False         # set while _any_change tries visits
        self.late: list = []     # nodes a combine2-only rule (a target's, when legal_ops) may rewrite
        # the CSE map, and the worklist seeded with every node in creation order, so that
        # users are popped before their operands; the nodes nothing uses are the first
        # candidates for pruning. (The builder's use counts are exact.)
        nodes: list[SDNode] = dag.nodes
        cse = self.cse
        prune = self.prune = {}
        fold, other, roots = FOLD, self.cse_other, self.roots
        i = 0
        for n in nodes:
            n.wlix = i
            i += 1
            opc = n.opcode
            if opc in fold:
                ops = n.ops
                if len(ops) == 2:
                    cse.setdefault((opc, ops[0], ops[1]), n)
            elif opc in other:
                cse.setdefault((opc, n.vt, n.cc, *n.ops), n)
            if not n.uses and n.chain is None and opc != "ISD::EntryToken" and n not in roots:
                prune[n] = None  # (self.pinned, inline)
        self.wl = list(nodes)

    def pinned(self, n: SDNode) -> bool:
        """Kept without value uses: a root, a node on the chain, the entry token (in
        LLVM their chain results are used)."""
        return n.chain is not None or n.opcode == "ISD::EntryToken" or n in self.roots

    def ensure_users(self) -> None:
        """The use lists (user -> number of uses), in creation order of the users, which
        is LLVM's use-list order reversed (a new use goes to the front there)."""
        if self.users_built:
            return
        self.users_built = True
        nodes: list[SDNode] = self.dag.nodes
        created: list[SDNode] = self.created
        live = [n for n in nodes if n.wlix != DEAD]
        live += [n for n in created if n.wlix != DEAD]
        for n in live:
            n.users = {}
        for n in live:
            for o in n.ops:
                u: dict = o.users
                u[n] = u.get(n, 0) + 1

    def remove_dead_nodes(self) -> None:
        """SelectionDAG::RemoveDeadNodes: every node without uses goes, recursively."""
        for group in (self.dag.nodes, self.created):
            for n in group:
                if not n.uses and n.wlix != DEAD and not self.pinned(n):
                    todo = [n]
                    while todo:
                        x = todo.pop()
                        if x.uses or x.wlix == DEAD or self.pinned(x):
                            continue
                        self.remove(x)
                        self.delete(x)
                        todo.extend(x.ops)

    # -- SelectionDAG --------------------------------------------------------------------

    def _inserted(self, n: SDNode) -> None:
        # a node just made: its use list, and WorklistInserter::NodeInserted (a candidate
        # for pruning, not a worklist entry)
        if self.users_built:
            n.users = {}
        self.created.append(n)
        self.prune[n] = None
        self.events += 1

    def _consts(self) -> dict:
        n: SDNode
        consts = self.consts = {}
        for n in self.dag.nodes:
            if n.wlix != DEAD:
                if n.opcode == "ISD::Constant":
                    if type(n.value) is int:
                        consts.setdefault((n.value, n.vt), n)
                elif n.opcode == "ISD::VALUETYPE":
                    consts.setdefault(("VT", n.vt), n)
        return consts

    def const(self, v: int, vt: str) -> SDNode:
        """SelectionDAG::getConstant (one node per value and type)."""
        v = wrap_vt(v, vt)
        key = (v, vt)
        consts = self.consts
        if consts is None:
            consts = self._consts()
        n = consts.get(key)
        if n is None:
            if self.dry:
                raise WouldChange
            n = SDNode(-1, "ISD::Constant", vt, (), value=v, block=self.block)
            n.source = "uniform"
            self.consts[key] = n
            self._inserted(n)
        return n

    def vtnode(self, vt: str) -> SDNode:
        """The VTSDNode operand carrying ``vt`` (e.g. the width of sign_extend_inreg);
        never divergent. See ``patterns.dag.nodes.value_type_node``."""
        key = ("VT", vt)
        consts = self.consts
        if consts is None:
            consts = self._consts()
        n = consts.get(key)
        if n is None:
            if self.dry:
                raise WouldChange
            n = value_type_node(self.block, vt)
            self.consts[key] = n
            self._inserted(n)
        return n

    def get(self, opc: str, vt: str, ops, like: SDNode | None = None, cc=None) -> SDNode:
        """SelectionDAG::getNode: the trivial folds it makes itself (constant folding,
        a constant moved to the right of a commutative op, ``x +|-|^|'|' 0``, ``x & 0``,
        ``x & -1``, a shift of or by 0), then the node from the CSE map if one exists,
        else a new node (divergent when an operand is, as createOperands computes it)."""
        if len(ops) == 2 and opc in FOLD:
            a, b = ops
            ac = a.opcode == "ISD::Constant" and type(a.value) is int
            bc = b.opcode == "ISD::Constant" and type(b.value) is int
            if ac and bc:
                return self.const(FOLD[opc](a.value, b.value), vt)
            if ac and opc in COMMUTATIVE:
                a, b, ac, bc = b, a, False, True
            if bc:
                c = wrap_vt(b.value, vt)
                if c == 0:
                    if opc in _ZERO_ID:
                        return a
                    if opc == "ISD::AND":
                        return b
                elif c == -1 and opc == "ISD::AND":
                    return a
            elif ac and opc in SHIFTS and wrap_vt(a.value, vt) == 0:
                return a
            ops = (a, b)
            key: Any = (opc, a, b)
        else:
            key = self.cse_key(opc, vt, ops, cc)
        if key is not None:
            e = self.cse.get(key)
            if e is not None:
                return e
        if self.dry:
            raise WouldChange
        if not self.users_built:
            self.ensure_users()
        n = SDNode(-1, opc, vt, ops, cc=cc, block=self.block)
        n.users = {}
        if like is not None:
            n.ir, n.intrinsic = like.ir, like.intrinsic
        d = False
        for o in n.ops:
            u = o.users
            u[n] = u.get(n, 0) + 1
            o.uses += 1
            if o.divergent:
                d = True
        n.divergent = d
        if key is not None:
            self.cse[key] = n
        self._inserted(n)
        return n

    def new(self, opcode, vt, ops, like: SDNode | None = None) -> SDNode:
        """A node a rule builds on the way to its result (getNode)."""
        return self.get(opcode, vt, ops, like)

    def existing(self, opc: str, a: SDNode, b: SDNode) -> SDNode | None:
        """SelectionDAG::getNodeIfExists / doesNodeExist: ``opc a, b`` in the CSE map."""
        return self.cse.get((opc, a, b))

    def rauw(self, frm: SDNode, to: SDNode) -> None:
        """SelectionDAG::ReplaceAllUsesWith: each user, in use-list order (the most recent
        use first), leaves the CSE map, reads ``to`` instead and returns to the map, or,
        when an identical node exists already, is replaced by it in turn and deleted
        (AddModifiedNodeToCSEMaps). A changed divergence bit is propagated to the users
        (updateDivergence); known bits memoized on the user and above are dropped."""
        u: SDNode
        if not self.users_built:
            self.ensure_users()
        users = frm.users
        cse = self.cse
        div = frm.divergent != to.divergent
        while users:
            u = next(reversed(users))
            k = users.pop(u)
            uops = u.ops
            key = self.cse_key(u.opcode, u.vt, uops, u.cc)
            if key is not None and cse.get(key) is u:
                del cse[key]
            u.ops = uops = [to if o is frm else o for o in uops]
            frm.uses -= k
            tu = to.users
            tu[u] = tu.pop(u, 0) + k  # (now the most recent use of ``to``)
            to.uses += k
            if u.kbc is not None:
                _invalidate(u)
            if div:
                self.update_divergence(u)
            if key is not None:
                key = self.cse_key(u.opcode, u.vt, uops, u.cc)
                e = cse.get(key)
                if e is None:
                    cse[key] = u
                elif e is not u:
                    self.rauw(u, e)
                    self.remove(u)  # (the listener's NodeDeleted)
                    self.drop(u)
        self.events += 1

    def update_divergence(self, n: SDNode) -> None:
        """SelectionDAG::updateDivergence: recompute the bit from the operands, and the
        users' bits while they change."""
        stack = [n]
        while stack:
            x = stack.pop()
            if x.source is not None:
                continue
            d = False
            for o in x.ops:
                if o.divergent:
                    d = True
                    break
            if d != x.divergent:
                x.divergent = d
                stack.extend(x.users)

    def drop(self, n: SDNode) -> None:
        """The node leaves the DAG: its operands lose its uses (DeleteNodeNotInCSEMaps).
        (Dropping a node without operands changes nothing a rule can see.)"""
        ops = n.ops
        if ops:
            built = self.users_built
            for o in ops:
                if built:
                    u = o.users
                    c = u[n]
                    if c == 1:
                        del u[n]
                    else:
                        u[n] = c - 1
                o.uses -= 1
            self.events += 1
        n.wlix = DEAD

    def delete(self, n: SDNode) -> None:
        """SelectionDAG::DeleteNode: out of the CSE map (constants: the constant map), then
        dropped."""
        opc = n.opcode
        consts = self.consts
        key: Any
        if opc == "ISD::Constant":
            key = (n.value, n.vt)
            if consts is not None and consts.get(key) is n:
                del consts[key]
        elif opc == "ISD::VALUETYPE":
            if consts is not None and consts.get(("VT", n.vt)) is n:
                del consts[("VT", n.vt)]
        else:
            key = self.cse_key(opc, n.vt, n.ops, n.cc)
            if key is not None and self.cse.get(key) is n:
                del self.cse[key]
        self.drop(n)

    # -- DAGCombiner's worklist ----------------------------------------------------------

    def add(self, n: SDNode) -> None:
        """AddToWorklist: a candidate for pruning; pushed unless on the worklist already."""
        if self.dry:
            raise WouldChange
        i = n.wlix
        if i == DEAD:
            return
        self.prune[n] = None
        if i < 0:
            n.wlix = len(self.wl)
            self.wl.append(n)

    def remove(self, n: SDNode) -> None:
        """removeFromWorklist: off the pruning list, its worklist slot emptied."""
        self.prune.pop(n, None)
        i = n.wlix
        if i >= 0:
            self.wl[i] = None
            n.wlix = FRESH

    def delete_unused(self, n: SDNode) -> bool:
        """recursivelyDeleteUnusedNodes: a node without uses is deleted, then each of its
        operands (an ordered set, the last inserted first) is deleted too when that left
        it unused, else put on the worklist (it may combine further now)."""
        if n.uses or self.pinned(n):
            return False
        todo = {n: None}
        while todo:
            x = todo.popitem()[0]
            if not x.uses and not self.pinned(x):
                for o in x.ops:
                    todo[o] = None
                self.remove(x)
                self.delete(x)
            else:
                self.add(x)
        return True

    def prune_dangling(self) -> None:
        """clearAddedDanglingWorklistEntries: pruning candidates left without uses go,
        the last added first."""
        prune = self.prune
        while prune:
            x = prune.popitem()[0]
            if not x.uses and not self.pinned(x):
                self.delete_unused(x)

    def commit(self, old: SDNode, new: SDNode) -> None:
        """A rule's result: DAGCombiner::Run after a visit returned ``new`` for ``old``, and
        CommitTargetLoweringOpt for a SimplifyDemandedBits replacement (which first puts
        the visited node back on the worklist): every use of ``old`` reads ``new``,
        ``new``'s users and then ``new`` go on the worklist, ``old`` is deleted when
        unused (recursively)."""
        if self.dry:
            raise WouldChange
        root = self.sdb_root
        if root is not None:
            self.sdb_root = None
            self.add(root)
        if new is old:
            return
        if TRACE[0] is not None:
            TRACE[0]("commit", old, new)
        self.rauw(old, new)
        for u in reversed(new.users):
            self.add(u)
        self.add(new)
        self.delete_unused(old)

    def replace(self, n: SDNode, m: SDNode) -> None:
        """The rule's result is the existing value ``m``."""
        self.commit(n, m)


def set_result(ctx: Ctx, n: SDNode, opcode: str, ops) -> None:
    """The rule's result is ``opcode ops`` (getNode, so possibly a folded or existing
    node), of ``n``'s type; a setcc keeps its condition."""
    ctx.commit(n, ctx.get(opcode, n.vt, ops, like=n, cc=n.cc if opcode == "ISD::SETCC" else None))


def _invalidate(n: SDNode) -> None:
    """Drop the known bits memoized on ``n`` (whose operands changed) and on the nodes
    whose memoized answers read them: a node holds a memo only while every memo it was
    computed from is held too, so the walk up the users stops at nodes without one."""
    stack = [n]
    while stack:
        x = stack.pop()
        if x.kbc is not None:
            x.kbc = None
            u = x.users
            if u:
                stack.extend(u)


# a callable (event, node, node) told of every visit and replacement (debugging)
TRACE: Final[list] = [None]

_ZERO_ID: Final = frozenset({"ISD::ADD", "ISD::SUB", "ISD::OR", "ISD::XOR", "ISD::SHL", "ISD::SRL", "ISD::SRA"})


def is_not_of(n: SDNode, x: SDNode) -> bool:
    return n.opcode == "ISD::XOR" and len(n.ops) == 2 and n.ops[0] is x and is_c(n.ops[1]) and n.ops[1].value == -1


SHIFTS: Final = frozenset({"ISD::SHL", "ISD::SRL", "ISD::SRA"})


def is_neg(n: SDNode) -> bool:
    """``n`` is ``sub 0, x``."""
    return n.opcode == "ISD::SUB" and is_c(n.ops[0]) and n.ops[0].value == 0


def is_not(n: SDNode) -> bool:
    """``n`` is ``xor x, -1`` (isBitwiseNot)."""
    return n.opcode == "ISD::XOR" and is_c(n.ops[1]) and n.ops[1].value == -1


# --- known bits and demanded bits ----------------------------------------------------------

MAX_DEPTH: Final = 6  # SelectionDAG::MaxRecursionDepth




SDB_LOGIC: Final = frozenset({"ISD::AND", "ISD::OR", "ISD::XOR"})


class WouldChange(Exception):
    """A visit tried in _any_change was about to change the DAG."""

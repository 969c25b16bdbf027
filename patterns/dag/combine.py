"""The DAG combines and legalizations that make our DAG look like llc's before selection.

Each rule is an llc-19 behaviour (DAGCombiner / SITargetLowering combines, AMDGPU
legalization) checked with ``llc-19 -mtriple=amdgcn -mcpu=gfx900 -stop-after=amdgpu-isel``
on small uniform/divergent kernels and by the differential test (tests/test_isel_llc.py):

- ``x | x``, ``x & x`` -> ``x``; ``x ^ x``, ``x - x`` -> 0; ``x + (y - x)`` -> ``y``;
  ``(x + y) - x`` -> ``y``; ``x - (x - y)`` -> ``y``; ``x - (y - z)`` -> ``x + (z - y)``;
  ``(shift (shift x, c1), c2)`` -> ``(shift x, c1+c2)``;
  ``and (srl x, c), 2^w-1`` -> just ``srl x, c`` when c + w >= 32 (bit-field extracts
  themselves are formed at selection time, the target's SelectS_BFE CustomSelect step,
  for both divergences, as llc does: formed here they would hide the ``and`` from an
  ``or`` root's v_and_or_b32);
  ``(srl (shl x, c1), c2)`` -> ``(and (srl|shl x, |c2-c1|), -1 >> c2)`` and
  ``(shl (srl x, c1), c2)`` -> ``(and (shl|srl x, |c2-c1|), (-1 >> c1) << c2)`` (inner
  shift used once or c1 == c2; DAGCombiner);
  ``mul x, -1`` -> ``0 - x``; ``mul x, -2^k`` -> ``0 - (x << k)`` (a divergent
  ``mul x, 2^k+1`` stays a mul: v_lshl_add_u32 is a selection pattern on it,
  targets/amdgpu/vop3.py); ``(mul (shl x, C), y)`` -> ``(shl (mul x, y), C)`` (the shl used
  once; visitMUL);
  ``(shl (add|or x, c1), c2)`` -> ``(add|or (shl x, c2), c1 << c2)``; ``sra`` of a value
  whose sign bit is known zero -> ``srl`` (known leading zeros, ``_known_lz``, which reads
  a CopyFromReg's count recorded in the block that computed the value, see
  ``sdag._Builder.live_lz``); a one-use
  ``sra x, c`` under ``and`` with a mask whose top c bits are clear -> ``srl`` (demanded
  bits);
  ``(x ^ y) | y`` -> ``x | y``;
  ``x - ~y`` -> ``(y + 1) + x`` (the not used once); ``C2 - (x + C1)`` -> ``(C2 - C1) - x``;
  ``x - (y + C)`` -> ``(x - y) + -C`` (the add used once; visitSUB); ``~x + 1`` -> ``0 - x``; ``(0 - x) + y`` -> ``y - x``; ``a - (a & b)`` -> ``a & ~b``;
  ``~(and x, C)`` -> ``~x | ~C`` and ``~(or x, C)`` -> ``~x & ~C`` (the and/or used once;
  visitXOR's De Morgan with a constant); ``~(0 - x)`` -> ``x + -1``; ``~(x + -1)`` -> ``0 - x``; ``(x & ~y) ^ y`` -> ``x | y``; ``(x & y) ^ y`` -> ``~x & y``; absorption ``x | (x & y)`` -> ``x`` (visitORCommutative; visitAND has no ``x & (x | y)`` fold);
- (InstSimplify, which llc's EarlyCSE applies to the IR across blocks, is modeled on the
  IR before the DAGs are built: patterns/llc/irpasses.py); ``sra``/``srl``/``shl`` of 0 and
  ``sra`` of -1 fold to that constant;
- constant folding of a binary op on two constants; constants move to the RHS of
  commutative ops; ``sub x, C`` -> ``add x, -C``; ``mul x, 2^k`` -> ``shl x, k``;
  ``op x, 0`` / ``and x, -1`` / ``mul x, 1`` / ``xor x, x`` identities;
- DAGCombiner's reassociation for add/mul/and/or/xor: ``(op (op x, c1), c2)`` ->
  ``(op x, c1 op c2)``; ``(op (op x, c), y)`` -> ``(op (op x, y), c)`` when the inner node
  has one use and is divergent or ``y`` is uniform (SITargetLowering::isReassocProfitable);
  ``(x ^ y) ^ x`` -> ``y``, ``(x & y) & x`` -> ``x & y`` (and ``|``);
- SITargetLowering's reassociateScalarOps for add/xor: ``(op u, (op v, d))`` with the
  inner node used once -> ``(op (op u, v), d)`` when exactly one operand on each level is
  divergent, so the uniform part stays on the SALU (``xor (xor d, u), -1`` selects
  ``S_NOT`` + ``V_XOR`` on gfx900);
- ``select (setcc a, b, cc), a, b`` -> ``smin/smax/umin/umax``; ``smax x, (sub 0, x)`` ->
  ``abs x``; ``ctlz``/``cttz`` (zero defined) -> ``umin (ctlz_zero_undef x), 32``;
  ``sra (shl x, 32-n), 32-n`` and ``sext (trunc x to i<n>)`` (x of the result type) ->
  ``sign_extend_inreg x, i<n>`` for n = 8, 16, the width a VTSDNode operand (opcode
  ``ISD::VALUETYPE``, never divergent); other widths stay shifts, which the selector's
  SelectS_BFE step turns into bit-field extracts exactly like llc's expanded sext_inreg.

- visitADD / visitADDLike / visitADDLikeCommutative in their order (``_visit_ADD``):
  ``((A - c1) + c2)``, ``((c1 - A) + c2)``, an add-like or with a constant, reassociation
  (also ReassociateAddOr), ``(0 - A) + B``, ``A + (B - A)``, ``(A - B) + (C - A)``,
  ``(A - B) + (B - C)``, ``A + (B - (A + C))``, ``A + ((B - A) +/- C)`` (the adds commutative), ``(A - B) + (C - D)``
  with a constant, ``(umax x, C) + -C`` -> ``usubsat x, C``, SimplifyDemandedBits, ``(~a + b) + 1`` -> ``b - a``, ``(x - y) + -1``,
  ``(mul (add A, CA), CM) + CB``, ``x + (shl (0 - y), n)``, ``(x -/+ C) + y`` hoisting,
  ``(mul x, C) + x``, an add without common bits -> or (haveNoCommonBitsSet: known bits,
  or the masked-merge shape ``(x & ~m)`` beside ``m`` or ``(y & m)``);
- visitSUB in its order (``_visit_SUB``): ``-(x >> 31)`` flips the shift kind, ``-1 - x``,
  ``A - (0 - B)``, ``A - (A - B)``, ``(A + B) - A``, ``C2 - (A + C1)``, ``((A + (B +/- C)) - B)`` (both adds
  commutative, as sd_match's m_Add),
  ``((A - (B - C)) - C)``, ``A - (B - C)``, ``A - (A & B)``, ``A - ((0 - B) * C)``,
  foldSubToUSubSat (``umax(x, y) - y``, ``x - umin(x, y)``, the min/max used once -> ``usubsat``),
  ``y - ~x`` -> ``(y + x) + 1``, constant hoisting, ``x - (srl y, 31)`` -> add of sra (combine1 only),
  ``x - (y << 31)``, ``C - x`` without a possible borrow -> ``x ^ C``;
- visitMUL: ``(mul (shl X, c1), c2)`` -> ``mul X, c2 << c1``; ``(mul (add x, c1), c2)`` ->
  ``(mul x, c2) + c1 * c2`` (the add used once); AMDGPU's performMulCombine: a divergent
  ``mul x, (y + 1)`` -> ``x * y + x`` and a divergent multiply of 24-bit operands ->
  AMDGPUISD::MUL_U24 / MUL_I24 (known bits);
- visitOR's last step: an or without common bits (isADDLike) is given visitADDLike's rules
  (``_visit_ADD`` with ``or_like``), e.g. ``(0 - (x << 3)) | 7`` -> ``7 - (x << 3)``;
- logic: hoistLogicOpWithSameOpcodeHands (``op (sh x, z), (sh y, z)`` -> ``sh (op x, y), z``
  for shifts and and, both hands used once), visitORCommutative (``(X & ~Y) | Y``,
  ``(X ^ Y) | (X and/or Y)``), ``(and (or x, C), D)`` -> ``D``; reassociateOpsCommutative's
  reassociation onto a node that already exists (SelectionDAG::getNodeIfExists);
- visitShiftByConstant: combineShiftOfShiftedLogic and a logic op with a constant pulled
  through a constant shift (a ``not`` stays);
- the integer intrinsic nodes: visitABS (``abs`` of a constant, of an ``abs``, of a value
  whose sign bit is known zero); visitCTLZ / visitCTTZ (a value isKnownNeverZero,
  ``_never_zero``, counts as the zero-undef form, so no ``umin`` with 32 follows);
  visitIMINMAX (the same operand twice; ``umin (smax a, b), c`` -> ``smin`` when the
  sign bits of both operands are known zero; then SimplifyDemandedBits' min/max case:
  an operand whose known bits decide the order is the result); their known bits from
  their operands' (KnownBits::umin/umax/smin/smax/abs, counts bounded by the operand's
  known bits, bitreverse); SITargetLowering's performMinMaxCombine: a min/max of a
  one-use min/max of the same kind is the three-operand node (v_min3/v_max3, VALU for
  either divergence). Not modeled: its MED3 clamp of two constants, visitCTPOP's shift
  look-through, visitBITREVERSE, SimplifyDemandedBits' sign-bit
  OR/AND form of a min/max of all-sign-bit values;
- visitSIGN_EXTEND_INREG (``_visit_SIGN_EXTEND_INREG``): a constant, an input already
  sign extended, nested extensions, a known-zero sign bit (-> and), ``srl`` -> ``sra``;
  its known bits are KnownBits::sextInReg of the operand's;
- TargetLowering::SimplifyDemandedBits / SimplifyMultipleUseDemandedBits for the modeled
  ops (``_sdb``): constants shrunk, and/or/xor operands that contribute no demanded bit
  dropped, xor -> or / not, sra -> srl, shift pairs merged, add/sub/mul demanding only low
  bits, every demanded bit known -> a constant; known bits (``_kb``) from constants,
  the modeled ops, CopyFromReg leading zeros and a workitem id's 22 known-zero high bits
  (AssertZext); the SDB run at the end of each visit where it can change something;
- TargetLowering::SimplifySetCC for eq/ne: ``(X op Y) == (X op Z)``, ``(X + C1) == C2``,
  ``(X ^ C1) == C2``, ``(C1 - X) == C2``, foldSetCCWithBinOp (``(X ^ Y) == Y`` -> ``X == 0``,
  ``(X - Y) == Y`` -> ``X == Y << 1``).

Rules that form a node (sign_extend_inreg, min/max, abs, ctlz_zero_undef) apply
only when the target has patterns rooted at that node (DAGCombiner's isOperationLegal).

The driver is DAGCombiner::Run (LLVM 19), run twice per block as llc runs it: before
legalization (combine1) and after SelectionDAG::Legalize (combine2, with
LegalOperations set: rules LLVM limits to the first run are skipped there).

- The worklist is a stack of nodes. A run starts with every node on it in AllNodes
  order, so the last one created is combined first (users before their operands);
  nodes without uses are the first candidates for pruning. combine1 takes the builder's
  creation order; combine2 the order Legalize's AssignTopologicalOrder gives (nodes
  without operands first, then each node once its operands are placed, walking the
  placed nodes' use lists; a chain counts as an operand, a CopyFromReg reads a register
  leaf of its own). RemoveDeadNodes runs between the two.
- getNextWorklistEntry: candidates for pruning left without uses are deleted (with the
  operands that leaves unused, recursively; operands still used go back on the
  worklist); then the last node is popped and marked combined. A popped node without
  uses is deleted the same way. Its operands never combined go on the worklist (and,
  when the visit changes the DAG, become candidates for pruning).
- The visit (DAGCombiner::combine): the node's rules, one function per opcode
  (``_VISITORS``: ``_visit_ADD`` ... ``_visit_SRA`` for the binary ops, ``_other_rules``
  for the others), then, when none fired, the commuted form of a commutative binary node
  if it exists already (``_commuted``).
- A rule's result (``_set`` builds it with ``_Ctx.get``, ``_Ctx.replace`` names an
  existing value) goes through ``_Ctx.commit``: ReplaceAllUsesWith, then the result's
  users and the result on the worklist (so the result is combined next), then the old
  node deleted if unused (recursively, operands re-queued). A SimplifyDemandedBits
  replacement (CommitTargetLoweringOpt) first puts the visited node back on the
  worklist. Nodes a rule builds on the way (``_Ctx.new``) are candidates for pruning
  only (WorklistInserter); they are reached as never-combined operands of the result,
  or by the worklist pushes some LLVM folds make (De Morgan, the not of
  ``(x & y) ^ y``, foldSetCCWithBinOp's shift).
- SelectionDAG::getNode (``_Ctx.get``): the folds it makes itself (constants, a
  constant moved right, identities with 0 and -1, shifts of or by 0), then the CSE map:
  an identical node is reused. ReplaceAllUsesWith updates each user in use-list order
  (most recent use first) and re-enters it in the CSE map, merging it into an identical
  node when one exists (AddModifiedNodeToCSEMaps); a changed divergence bit is
  propagated to the users (updateDivergence).
- The use counts (``uses``) and use lists (``users``, built when first needed) are
  live, so the rules' one-use tests (``uses == 1``, LLVM's hasOneUse) and user scans see
  every rewrite as it happens.
- A run stops after 64 visits per node of the block, a guard against rules undoing
  each other (``STATS["visit_limit_hit"]`` counts it; no generated kernel reaches it).

(AMDGPU's ``add x, -C`` for C in [17, 64], selected as a sub of the inline constant C,
is the target's NegSubInlineConst32 patterns' business: the DAG keeps the add.)
Then the block's nodes are re-sorted topologically from the roots, renumbered, and use
counts and divergence bits recomputed (sources keep their bits); a block nothing
changed keeps its order.

Exactness shortcuts (each gives the answer of the plain computation):

- known bits, leading zeros and sign bits are memoized per node while a run lasts
  (``kbc``): known bits and leading zeros without a depth limit, with the depth they
  need (the answer at every depth with room for it; when nothing is known, nothing is
  known at any depth), other answers per depth; ``_invalidate`` drops the memos of a
  node whose operands changed and of the nodes above it that read them;
- a visit that changed nothing is not repeated while the DAG stays the same
  (``_Ctx.stamp``): combine2 visits only nodes whose surroundings changed after their
  last combine1 visit; those visits are first tried with every change refused
  (``_any_change``), and when none would change anything combine2 is not run (its
  order, the topological sort, only matters once something changes);
- ``_demanded_root`` passes over roots where SimplifyDemandedBits cannot change
  anything, and ``_sdb`` over operands demanded in full where it cannot
  (``_sdb_inert``; ``_SDB_SHORTCUTS``, tested against running it everywhere). Every
  bit demanded is no reason to stop by itself: SimplifyDemandedBits still looks into
  the operands used once and rewrites them before their own visits (a one-use
  ``xor v, C`` under a ``not`` becomes ``or`` before its user's visit reassociates it),
  so an operand it looks into is followed unless ``_quiet`` proves that no rule
  applies below it (memoized while the DAG stays the same);
- use lists and the constant map are built only when a rule first needs them;
- a visit tests a rule's cheapest precondition (an operand's opcode, a constant) before
  the rest, and leaves out the rules whose opcode test cannot pass for its opcode (the
  rules that can fire, and their order, are those of DAGCombiner's visit).
"""

from __future__ import annotations

from typing import Any, Final

from patterns.support.knownbits import Known, abs_masks, add_carry, add_carry_masks, clz, const_known, count_masks, ctz, mul_known, \
    mul_masks, reverse_masks, shift_known, shift_masks, signed_min_max, smax_masks, smin_masks, umax_masks, umin_masks
from patterns.dag.builder import COMMUTATIVE, SDNode, SelectionDAG, _wrap, value_type_node

__all__ = ["run"]

_FOLD: Final = {
    "ISD::ADD": lambda a, b: a + b, "ISD::SUB": lambda a, b: a - b, "ISD::MUL": lambda a, b: a * b,
    "ISD::AND": lambda a, b: a & b, "ISD::OR": lambda a, b: a | b, "ISD::XOR": lambda a, b: a ^ b,
    "ISD::SHL": lambda a, b: a << (b & 31), "ISD::SRL": lambda a, b: (a & 0xFFFFFFFF) >> (b & 31),
    "ISD::SRA": lambda a, b: a >> (b & 31),
}
_REASSOC: Final = frozenset({"ISD::ADD", "ISD::MUL", "ISD::AND", "ISD::OR", "ISD::XOR"})
_MINMAX: Final = {"SETLT": ("ISD::SMIN", "ISD::SMAX"), "SETLE": ("ISD::SMIN", "ISD::SMAX"),
                  "SETGT": ("ISD::SMAX", "ISD::SMIN"), "SETGE": ("ISD::SMAX", "ISD::SMIN"),
                  "SETULT": ("ISD::UMIN", "ISD::UMAX"), "SETULE": ("ISD::UMIN", "ISD::UMAX"),
                  "SETUGT": ("ISD::UMAX", "ISD::UMIN"), "SETUGE": ("ISD::UMAX", "ISD::UMIN")}


def _is_c(n: SDNode) -> bool:
    return n.opcode == "ISD::Constant" and isinstance(n.value, int)


_LEGAL: Final[dict[int, tuple[object, frozenset]]] = {}


def _legal(target) -> frozenset:
    """Root opcodes the target has patterns for (cached per target)."""
    if target is None:
        return frozenset()
    hit = _LEGAL.get(id(target))
    if hit is not None and hit[0] is target:
        return hit[1]
    from patterns.select.matcher import build_table

    legal = frozenset(build_table(target).by_opcode)
    _LEGAL[id(target)] = (target, legal)
    return legal


# SDNode.wlix (DAGCombiner's CombinerWorklistIndex): a position on the worklist, or one of
_FRESH: Final = -1  # not on the worklist and never combined (a new node, or one taken off)
_DONE: Final = -2   # popped and combined, not on the worklist since
_DEAD: Final = -3   # deleted from the DAG

# opcodes SelectionDAG's CSE map keeps, besides the binary ops of _FOLD (keyed by opcode
# and operands: their type follows from the first operand) and constants (ctx.consts)
_CSE_OTHER: Final = frozenset({
    "ISD::SETCC", "ISD::SELECT", "ISD::SMIN", "ISD::SMAX", "ISD::UMIN", "ISD::UMAX", "ISD::ABS",
    "ISD::CTLZ", "ISD::CTTZ", "ISD::CTLZ_ZERO_UNDEF", "ISD::CTTZ_ZERO_UNDEF", "ISD::CTPOP",
    "ISD::BITREVERSE", "ISD::BSWAP", "ISD::SIGN_EXTEND_INREG", "ISD::SIGN_EXTEND", "ISD::ZERO_EXTEND",
    "ISD::TRUNCATE", "AMDGPUISD::MUL_U24", "AMDGPUISD::MUL_I24", "AMDGPUISD::BFE_U32", "ISD::AssertZext",
    "ISD::USUBSAT", "ISD::FREEZE"})


def _key(opc: str, vt: str, ops, cc=None):
    """The CSE-map key of a node ``opc vt ops`` (None: a node that is not CSE'd here)."""
    if opc in _FOLD:
        return (opc, ops[0], ops[1]) if len(ops) == 2 else None
    if opc in _CSE_OTHER:
        return (opc, vt, cc, *ops)
    return None


class _Ctx:
    """One combine run over a block's DAG: the worklist, the pruning list, the CSE map and
    the DAG mutations with their worklist bookkeeping (see the module docstring)."""

    # (the fields that hold values of several kinds, or are set after ``__init__``)
    consts: Any
    sdb_root: Any
    prune: dict
    wl: list  # (None in a slot emptied by ``remove``)

    def __init__(self, dag: SelectionDAG, target=None) -> None:
        self.dag = dag
        self.block = dag.block
        # like DAGCombiner's TLI.isOperationLegal: only form nodes the target can select
        self.legal = _legal(target)
        self.legal_ops = False   # DAGCombiner's LegalOperations: set for combine2
        self.consts = None       # (value, vt) -> Constant, ("VT", vt) -> VTSDNode (made when needed)
        self.cse: dict = {}      # _key -> node
        self.users_built = False  # the use lists are made when first needed (ensure_users)
        self.roots = set(dag.roots)
        self.created: list = []  # every node made in this run
        self.sdb_root = None     # set while SimplifyDemandedBits runs from a visit
        self.events = 0          # nodes made, replaced or deleted (with operands) so far
        self.stamp: dict = {}    # node -> ``events`` when a visit of it last changed nothing
        self.quiet: dict = {}    # node -> _quiet's answer, while ``events`` is quiet_ev
        self.quiet_ev = -1
        self.dry = False         # set while _any_change tries visits
        self.late: list = []     # nodes a combine2-only target rule may rewrite (_sdwa_bfe)
        # the CSE map, and the worklist seeded with every node in creation order, so that
        # users are popped before their operands; the nodes nothing uses are the first
        # candidates for pruning. (The builder's use counts are exact.)
        nodes: list[SDNode] = dag.nodes
        cse = self.cse
        prune = self.prune = {}
        fold, other, roots = _FOLD, _CSE_OTHER, self.roots
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
        live = [n for n in nodes if n.wlix != _DEAD]
        live += [n for n in created if n.wlix != _DEAD]
        for n in live:
            n.users = {}
        for n in live:
            for o in n.ops:
                u: dict = o.users
                u[n] = u.get(n, 0) + 1

    def between_runs(self) -> list:
        """What happens between combine1 and combine2: RemoveDeadNodes; then the nodes
        combine2 has to visit: those with rules whose surroundings changed since their
        last visit (``stamp``), all of them when RemoveDeadNodes changed something."""
        n: SDNode
        stamp, ops, roots = self.stamp, _VISIT_OPS, self.roots
        stale = []
        dead = False
        ev = self.events
        for group in (self.dag.nodes, self.created):
            for n in group:
                if n.wlix == _DEAD:
                    continue
                if not n.uses and n.chain is None and n.opcode != "ISD::EntryToken" and n not in roots:
                    dead = True
                if n.opcode in ops and stamp.get(n) != ev:
                    stale.append(n)
        if dead:
            self.remove_dead_nodes()
            if self.events != ev:
                stale = [n for group in (self.dag.nodes, self.created) for n in group
                         if n.wlix != _DEAD and n.opcode in ops]
        return stale

    def remove_dead_nodes(self) -> None:
        """SelectionDAG::RemoveDeadNodes: every node without uses goes, recursively."""
        for group in (self.dag.nodes, self.created):
            for n in group:
                if not n.uses and n.wlix != _DEAD and not self.pinned(n):
                    todo = [n]
                    while todo:
                        x = todo.pop()
                        if x.uses or x.wlix == _DEAD or self.pinned(x):
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
            if n.wlix != _DEAD:
                if n.opcode == "ISD::Constant":
                    if type(n.value) is int:
                        consts.setdefault((n.value, n.vt), n)
                elif n.opcode == "ISD::VALUETYPE":
                    consts.setdefault(("VT", n.vt), n)
        return consts

    def const(self, v: int, vt: str) -> SDNode:
        """SelectionDAG::getConstant (one node per value and type)."""
        v = _wrap(v, vt)
        key = (v, vt)
        consts = self.consts
        if consts is None:
            consts = self._consts()
        n = consts.get(key)
        if n is None:
            if self.dry:
                raise _WouldChange
            n = SDNode(-1, "ISD::Constant", vt, (), value=v, block=self.block)
            n.source = "uniform"
            self.consts[key] = n
            self._inserted(n)
        return n

    def vtnode(self, vt: str) -> SDNode:
        """The VTSDNode operand carrying ``vt`` (e.g. the width of sign_extend_inreg);
        never divergent. See ``sdag.value_type_node``."""
        key = ("VT", vt)
        consts = self.consts
        if consts is None:
            consts = self._consts()
        n = consts.get(key)
        if n is None:
            if self.dry:
                raise _WouldChange
            n = value_type_node(self.block, vt)
            self.consts[key] = n
            self._inserted(n)
        return n

    def get(self, opc: str, vt: str, ops, like: SDNode | None = None, cc=None) -> SDNode:
        """SelectionDAG::getNode: the trivial folds it makes itself (constant folding,
        a constant moved to the right of a commutative op, ``x +|-|^|'|' 0``, ``x & 0``,
        ``x & -1``, a shift of or by 0), then the node from the CSE map if one exists,
        else a new node (divergent when an operand is, as createOperands computes it)."""
        if len(ops) == 2 and opc in _FOLD:
            a, b = ops
            ac = a.opcode == "ISD::Constant" and type(a.value) is int
            bc = b.opcode == "ISD::Constant" and type(b.value) is int
            if ac and bc:
                return self.const(_FOLD[opc](a.value, b.value), vt)
            if ac and opc in COMMUTATIVE:
                a, b, ac, bc = b, a, False, True
            if bc:
                c = _wrap(b.value, vt)
                if c == 0:
                    if opc in _ZERO_ID:
                        return a
                    if opc == "ISD::AND":
                        return b
                elif c == -1 and opc == "ISD::AND":
                    return a
            elif ac and opc in _SHIFTS and _wrap(a.value, vt) == 0:
                return a
            ops = (a, b)
            key: Any = (opc, a, b)
        else:
            key = _key(opc, vt, ops, cc)
        if key is not None:
            e = self.cse.get(key)
            if e is not None:
                return e
        if self.dry:
            raise _WouldChange
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
            key = _key(u.opcode, u.vt, uops, u.cc)
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
                key = _key(u.opcode, u.vt, uops, u.cc)
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
        n.wlix = _DEAD

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
            key = _key(opc, n.vt, n.ops, n.cc)
            if key is not None and self.cse.get(key) is n:
                del self.cse[key]
        self.drop(n)

    # -- DAGCombiner's worklist ----------------------------------------------------------

    def add(self, n: SDNode) -> None:
        """AddToWorklist: a candidate for pruning; pushed unless on the worklist already."""
        if self.dry:
            raise _WouldChange
        i = n.wlix
        if i == _DEAD:
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
            n.wlix = _FRESH

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
            raise _WouldChange
        root = self.sdb_root
        if root is not None:
            self.sdb_root = None
            self.add(root)
        if new is old:
            return
        if _TRACE[0] is not None:
            _TRACE[0]("commit", old, new)
        self.rauw(old, new)
        for u in reversed(new.users):
            self.add(u)
        self.add(new)
        self.delete_unused(old)

    def replace(self, n: SDNode, m: SDNode) -> None:
        """The rule's result is the existing value ``m``."""
        self.commit(n, m)


def _set(ctx: _Ctx, n: SDNode, opcode: str, ops) -> None:
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
_TRACE: Final[list] = [None]

_ZERO_ID: Final = frozenset({"ISD::ADD", "ISD::SUB", "ISD::OR", "ISD::XOR", "ISD::SHL", "ISD::SRL", "ISD::SRA"})


def _is_not_of(n: SDNode, x: SDNode) -> bool:
    return n.opcode == "ISD::XOR" and len(n.ops) == 2 and n.ops[0] is x and _is_c(n.ops[1]) and n.ops[1].value == -1


_SHIFTS: Final = frozenset({"ISD::SHL", "ISD::SRL", "ISD::SRA"})
_LOGIC3: Final = frozenset({"ISD::AND", "ISD::OR", "ISD::XOR"})


def _shift_by_constant(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    """DAGCombiner::visitShiftByConstant (after SimplifyDemandedBits in the shift visits;
    AMDGPU's isDesirableToCommuteWithShift allows it before type legalization), for a
    shift of a logic op used once: combineShiftOfShiftedLogic, shift (logic (shift x, c0),
    y), c1 -> logic (shift x, c0 + c1), (shift y, c1) when the inner shift is the same
    kind, used once and c0 + c1 < 32; else a logic op (or an add under shl) with a
    constant whose first operand is a shift by a constant, or a copy/select when the
    shift has other users: shift (op x, C), c -> op (shift x, c), (shift C, c)."""
    if a.opcode not in _LOGIC3 and not (a.opcode == "ISD::ADD" and opc == "ISD::SHL"):
        return False
    if not a.uses == 1:
        return False
    bits = _width(n.vt)
    c1 = b.value & ((1 << bits) - 1)
    vt = n.vt
    if _is_not(a):
        return False  # (a not stays a not: llc-19 keeps shift (not (shift x)) for shl, srl, sra)
    if a.opcode in _LOGIC3:
        for v, y in ((a.ops[0], a.ops[1]), (a.ops[1], a.ops[0])):
            if v.opcode == opc and v.uses == 1 and _is_c(v.ops[1]):
                c0 = v.ops[1].value & ((1 << bits) - 1)
                if c0 + c1 >= bits:
                    continue
                s1 = ctx.new(opc, vt, [v.ops[0], ctx.const(c0 + c1, vt)], like=n)
                s2 = ctx.new(opc, vt, [y, b], like=n)
                _set(ctx, n, a.opcode, [s1, s2])
                return True
    x = a.ops[0]
    by_const = x.opcode in _SHIFTS and _is_c(x.ops[1])
    copy_or_select = x.opcode in ("ISD::CopyFromReg", "ISD::SELECT")
    if not (by_const or copy_or_select) or (copy_or_select and n.uses == 1):
        return False
    if not _is_c(a.ops[1]):
        return False
    inner = ctx.new(opc, vt, [x, b], like=n)
    _set(ctx, n, a.opcode, [inner, ctx.const(_FOLD[opc](a.ops[1].value, c1), vt)])
    return True


def _is_neg(n: SDNode) -> bool:
    """``n`` is ``sub 0, x``."""
    return n.opcode == "ISD::SUB" and _is_c(n.ops[0]) and n.ops[0].value == 0


def _is_not(n: SDNode) -> bool:
    """``n`` is ``xor x, -1`` (isBitwiseNot)."""
    return n.opcode == "ISD::XOR" and _is_c(n.ops[1]) and n.ops[1].value == -1


def _no_common_bits(x: SDNode, y: SDNode, ctx: _Ctx) -> bool:
    """SelectionDAG::haveNoCommonBitsSet: the masked-merge shape (``_masked_merge``, each
    operand order), else by known bits: every bit is known zero on one side at least."""
    if (x.opcode in _MERGE_OPS or y.opcode in _MERGE_OPS) and (_masked_merge(x, y) or _masked_merge(y, x)):
        return True
    kx = _kb(x, ctx, 0)
    if not kx.zero:
        return False
    ky = _kb(y, ctx, 0)
    return (kx.zero | ky.zero) == (1 << kx.bits) - 1


_EXT_TRUNC: Final = frozenset({"ISD::ZERO_EXTEND", "ISD::TRUNCATE"})
_MERGE_OPS: Final = _EXT_TRUNC | {"ISD::AND"}


def _masked_merge(a: SDNode, b: SDNode) -> bool:
    """The structural test of haveNoCommonBitsSet (LLVM 19), one operand order: ``a`` is
    ``and`` with an operand ``not m`` and ``b`` is ``m`` itself or an ``and`` with ``m``
    as an operand ((x & ~m) vs m, (x & ~m) vs (y & m)). A zero_extend or truncate is
    looked through on ``a``, ``b`` and ``m``."""
    if a.opcode in _EXT_TRUNC:
        a = a.ops[0]
    if a.opcode != "ISD::AND" or len(a.ops) != 2:
        return False
    if b.opcode in _EXT_TRUNC:
        b = b.ops[0]
    b_and = b.opcode == "ISD::AND" and len(b.ops) == 2
    for v in a.ops:
        if v.opcode == "ISD::XOR" and _is_not(v):
            m = v.ops[0]
            if m.opcode in _EXT_TRUNC:
                m = m.ops[0]
            if b is m or (b_and and (b.ops[0] is m or b.ops[1] is m)):
                return True
    return False


def _add_like(v: SDNode, ctx: _Ctx) -> bool:
    """SelectionDAG::isADDLike: an or of operands without common bits (the xor with the
    sign mask too)."""
    if v.opcode == "ISD::OR":
        return _no_common_bits(v.ops[0], v.ops[1], ctx)
    if v.opcode == "ISD::XOR" and _is_c(v.ops[1]):
        bits = _width(v.vt)
        return bits != 0 and (v.ops[1].value & ((1 << bits) - 1)) == 1 << (bits - 1)
    return False


def _active_bits(v: SDNode, ctx: _Ctx) -> int:
    """KnownBits::countMaxActiveBits."""
    k = _kb(v, ctx, 0)
    return k.bits - k.lead_zeros()


def _only_mul_users(v: SDNode, ctx: _Ctx) -> bool:
    ctx.ensure_users()
    return all(u.opcode == "ISD::MUL" for u in v.users)


def _hoist_hands(n: SDNode, ctx: _Ctx, a: SDNode, b: SDNode) -> bool:
    """DAGCombiner::hoistLogicOpWithSameOpcodeHands: logic (op x, z), (op y, z) ->
    op (logic x, y), z for op a shift or an and, both hands used once."""
    if a.opcode != b.opcode or a.opcode not in _HANDS or len(a.ops) != 2 or a.ops[1] is not b.ops[1]:
        return False
    if not (a.uses == 1 and b.uses == 1):
        return False
    logic = ctx.new(n.opcode, n.vt, [a.ops[0], b.ops[0]], like=n)
    _set(ctx, n, a.opcode, [logic, a.ops[1]])
    return True


_HANDS: Final = frozenset({"ISD::SHL", "ISD::SRL", "ISD::SRA", "ISD::AND"})


# --- the visits ------------------------------------------------------------------------
#
# DAGCombiner::visit dispatches on the opcode; here each modeled binary opcode has one
# visit function (_VISITORS) holding, in their original order, the rules that can fire
# for it: the generic head every binary node gets (constant folding, the constant moved
# right, identities), the opcode's own folds (visitADD, visitSUB, ...), the
# SimplifyDemandedBits call at the place the visit makes it, visitShiftByConstant for
# shifts, the target's combines, and at last the commuted form found in the CSE map
# (DAGCombiner::combine). A rule whose opcode test cannot pass for the visited opcode is
# left out of that opcode's function, and each rule is tried only when its cheapest
# precondition (an operand's opcode, a constant) holds, so a visit that rewrites nothing
# costs a few comparisons. Each function returns whether a rule fired.


def _commuted(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    """DAGCombiner::combine's last step for a commutative binary node: when ``opc b, a``
    exists already (getNodeIfExists), that node replaces this one. (For a binary op of
    _FOLD; min/max nodes use _commuted_other.)"""
    if a is not b and (a.opcode != "ISD::Constant" or b.opcode == "ISD::Constant"):
        e = ctx.cse.get((opc, b, a))
        if e is not None:
            ctx.commit(n, e)
            return True
    return False


def _commuted_other(n: SDNode, ctx: _Ctx) -> bool:
    """_commuted for the commutative opcodes outside _FOLD (smin/smax/umin/umax)."""
    ops = n.ops
    if len(ops) == 2:
        a, b = ops
        if a is not b and (a.opcode != "ISD::Constant" or b.opcode == "ISD::Constant"):
            e = ctx.cse.get(_key(n.opcode, n.vt, (b, a)))
            if e is not None:
                ctx.commit(n, e)
                return True
    return False


def _visit_ADD(n: SDNode, ctx: _Ctx, or_like: bool = False) -> bool:
    """DAGCombiner::visitADD with visitADDLike / visitADDLikeCommutative in their order,
    then the target's add combines (SITargetLowering::reassociateScalarOps). With
    ``or_like``, ``n`` is an add-like or and only visitADDLike runs (visitOR's last step;
    its SimplifyDemandedBits is left out: visitOR's own just found nothing)."""
    t: Any
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value + b.value, n.vt))  # constant folding
            return True
        _set(ctx, n, "ISD::ADD", [b, a])  # the constant to the right
        return True
    if bc and b.value == 0:
        ctx.replace(n, a)  # x + 0
        return True
    vt = n.vt
    if (ao == "ISD::XOR" and _is_not(a) and a.ops[0] is b) or (bo == "ISD::XOR" and _is_not(b) and b.ops[0] is a):
        ctx.replace(n, ctx.const(-1, vt))  # x + ~x
        return True
    if bc:
        if ao == "ISD::SUB":
            a0, a1 = a.ops
            if a1.opcode == "ISD::Constant" and type(a1.value) is int:
                # ((A - c1) + c2) -> A + (c2 - c1)
                _set(ctx, n, "ISD::ADD", [a0, ctx.const(b.value - a1.value, vt)])
                return True
            if a0.opcode == "ISD::Constant" and type(a0.value) is int:
                # ((c1 - A) + c2) -> (c1 + c2) - A
                _set(ctx, n, "ISD::SUB", [ctx.const(b.value + a0.value, vt), a1])
                return True
        elif (ao == "ISD::OR" or ao == "ISD::XOR") and len(a.ops) == 2 and _is_c(a.ops[1]) and _add_like(a, ctx):
            # (add (or x, c0), c1) -> (add x, c0 + c1), the or add-like
            _set(ctx, n, "ISD::ADD", [a.ops[0], ctx.const(a.ops[1].value + b.value, vt)])
            return True
    # reassociateOps
    if ao == "ISD::ADD" and _reassociate(n, a, b, ctx, "ISD::ADD"):
        return True
    if bo == "ISD::ADD" and _reassociate(n, b, a, ctx, "ISD::ADD"):
        return True
    # ReassociateAddOr: (add (or x, c), y) -> (add (add x, y), c), the or add-like and
    # used once (each operand order)
    if (ao == "ISD::OR" or ao == "ISD::XOR") and not bc and _is_c(a.ops[1]) and a.uses == 1 and _add_like(a, ctx):
        inner = ctx.new("ISD::ADD", vt, [b, a.ops[0]], like=n)
        _set(ctx, n, "ISD::ADD", [inner, a.ops[1]])
        return True
    if (bo == "ISD::OR" or bo == "ISD::XOR") and _is_c(b.ops[1]) and b.uses == 1 and _add_like(b, ctx):
        inner = ctx.new("ISD::ADD", vt, [a, b.ops[0]], like=n)
        _set(ctx, n, "ISD::ADD", [inner, b.ops[1]])
        return True
    if ao == "ISD::SUB":
        a0, a1 = a.ops
        if a0.opcode == "ISD::Constant" and type(a0.value) is int and a0.value == 0:
            _set(ctx, n, "ISD::SUB", [b, a1])  # ((0 - A) + B) -> B - A
            return True
    if bo == "ISD::SUB":
        b0, b1 = b.ops
        if b0.opcode == "ISD::Constant" and type(b0.value) is int and b0.value == 0:
            _set(ctx, n, "ISD::SUB", [a, b1])  # (A + (0 - B)) -> A - B
            return True
        if b1 is a:  # A + (B - A) -> B
            ctx.replace(n, b0)
            return True
    if ao == "ISD::SUB":
        a0, a1 = a.ops
        if a1 is b:  # (B - A) + A -> B
            ctx.replace(n, a0)
            return True
        if bo == "ISD::SUB":
            b0, b1 = b.ops
            if b1 is a0:  # (A - B) + (C - A) -> C - B
                _set(ctx, n, "ISD::SUB", [b0, a1])
                return True
            if b0 is a1:  # (A - B) + (B - C) -> A - C
                _set(ctx, n, "ISD::SUB", [a0, b1])
                return True
    if bo == "ISD::SUB":
        t = b.ops[1]
        if t.opcode == "ISD::ADD" and a in t.ops:
            # A + (B - (A + C)) -> B - C (and A + (B - (C + A)))
            _set(ctx, n, "ISD::SUB", [b.ops[0], t.ops[1] if t.ops[0] is a else t.ops[0]])
            return True
    if bo == "ISD::ADD" or bo == "ISD::SUB":
        # A + ((B - A) +/- C) -> B +/- C (sd_match: the inner add commutative)
        b0, b1 = b.ops
        if b0.opcode == "ISD::SUB" and b0.ops[1] is a:
            _set(ctx, n, bo, [b0.ops[0], b1])
            return True
        if bo == "ISD::ADD" and b1.opcode == "ISD::SUB" and b1.ops[1] is a:
            _set(ctx, n, bo, [b1.ops[0], b0])
            return True
    if ao == "ISD::SUB" and bo == "ISD::SUB" and a.uses == 1 and b.uses == 1 \
            and (_is_c(a.ops[0]) or _is_c(b.ops[0])):
        # (A - B) + (C - D) -> (A + C) - (B + D) when A or C is a constant
        s1 = ctx.new("ISD::ADD", vt, [a.ops[0], b.ops[0]], like=n)
        s2 = ctx.new("ISD::ADD", vt, [a.ops[1], b.ops[1]], like=n)
        _set(ctx, n, "ISD::SUB", [s1, s2])
        return True
    if ao == "ISD::UMAX" and bc and _is_c(a.ops[1]) and _wrap(a.ops[1].value + b.value, vt) == 0 \
            and "ISD::USUBSAT" in ctx.legal:
        # (add (umax x, C), -C) -> (usubsat x, C) (the target has usubsat)
        _set(ctx, n, "ISD::USUBSAT", [a.ops[0], a.ops[1]])
        return True
    # SimplifyDemandedBits (passed over where it cannot change anything: _demanded_root)
    if not or_like and _demanded_root(n, ctx):
        return True
    if bc:
        c = _wrap(b.value, vt)
        if c == 1:
            if _is_not(a):  # (add (xor x, -1), 1) -> (sub 0, x)
                _set(ctx, n, "ISD::SUB", [ctx.const(0, vt), a.ops[0]])
                return True
            if ao == "ISD::ADD":  # (add (add (xor a, -1), b), 1) -> (sub b, a)
                if _is_not(a.ops[0]):
                    _set(ctx, n, "ISD::SUB", [a.ops[1], a.ops[0].ops[0]])
                    return True
                if _is_not(a.ops[1]):
                    _set(ctx, n, "ISD::SUB", [a.ops[0], a.ops[1].ops[0]])
                    return True
        elif c == -1 and ao == "ISD::SUB" and a.uses == 1:
            # (x - y) + -1 -> add (xor y, -1), x
            nt = ctx.new("ISD::XOR", vt, [a.ops[1], ctx.const(-1, vt)], like=a)
            _set(ctx, n, "ISD::ADD", [nt, a.ops[0]])
            return True
        if ao == "ISD::MUL" and a.uses == 1 and _is_c(a.ops[1]) and a.ops[0].opcode == "ISD::ADD" \
                and _is_c(a.ops[0].ops[1]):
            # add (mul (add A, CA), CM), CB -> add (mul A, CM), CM * CA + CB
            cm, ca = a.ops[1].value, a.ops[0].ops[1].value
            m = ctx.new("ISD::MUL", vt, [a.ops[0].ops[0], a.ops[1]], like=a)
            _set(ctx, n, "ISD::ADD", [m, ctx.const(cm * ca + b.value, vt)])
            return True
    # visitADDLikeCommutative, both operand orders
    if ao in _ADDLIKE_COMM or bo in _ADDLIKE_COMM:
        for p_, q in ((a, b), (b, a)):
            if q.opcode == "ISD::SHL" and _is_neg(q.ops[0]):
                # add x, (shl (0 - y), n) -> sub x, (shl y, n)
                sh = ctx.new("ISD::SHL", vt, [q.ops[0].ops[1], q.ops[1]], like=q)
                _set(ctx, n, "ISD::SUB", [p_, sh])
                return True
            po = p_.opcode
            if po == "ISD::SUB" and p_.uses == 1:
                if _is_c(p_.ops[1]):  # (x - C) + y -> (x + y) - C
                    t = ctx.new("ISD::ADD", vt, [p_.ops[0], q], like=n)
                    _set(ctx, n, "ISD::SUB", [t, p_.ops[1]])
                    return True
                if _is_c(p_.ops[0]):  # (C - x) + y -> (y - x) + C
                    t = ctx.new("ISD::SUB", vt, [q, p_.ops[1]], like=n)
                    _set(ctx, n, "ISD::ADD", [t, p_.ops[0]])
                    return True
            elif po == "ISD::MUL" and p_.ops[0] is q and _is_c(p_.ops[1]) and p_.uses == 1:
                # add (mul x, C), x -> mul x, C + 1
                _set(ctx, n, "ISD::MUL", [q, ctx.const(p_.ops[1].value + 1, vt)])
                return True
    if or_like:
        return False  # (the end of visitADDLike)
    if _no_common_bits(a, b, ctx):
        _set(ctx, n, "ISD::OR", [a, b])  # no common bits: an or (visitADD)
        return True
    if a.divergent != b.divergent and (ao == "ISD::ADD" or bo == "ISD::ADD") and _reassociate_scalar(n, ctx):
        return True
    return _commuted(n, ctx, "ISD::ADD", a, b)


_ADDLIKE_COMM: Final = frozenset({"ISD::SHL", "ISD::SUB", "ISD::MUL"})


def _visit_SUB(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::visitSUB in its order (sub x, C becomes add x, -C first)."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    ac = ao == "ISD::Constant" and type(a.value) is int
    if bo == "ISD::Constant" and type(b.value) is int:
        if ac:
            ctx.replace(n, ctx.const(a.value - b.value, n.vt))  # constant folding
            return True
        c = b.value
        if c == 0:
            ctx.replace(n, a)  # x - 0
            return True
        _set(ctx, n, "ISD::ADD", [a, ctx.const(-c, n.vt)])  # sub x, C -> add x, -C
        return True
    if a is b:
        ctx.replace(n, ctx.const(0, n.vt))  # x - x
        return True
    vt = n.vt
    bits = _width(vt)
    if ac:
        if a.value == 0 and (bo == "ISD::SRA" or bo == "ISD::SRL") and _is_c(b.ops[1]) \
                and (b.ops[1].value & 0xFFFFFFFF) == bits - 1:
            # -(X >>u 31) -> X >>s 31 ; -(X >>s 31) -> X >>u 31
            _set(ctx, n, "ISD::SRL" if bo == "ISD::SRA" else "ISD::SRA", [b.ops[0], b.ops[1]])
            return True
        if _wrap(a.value, vt) == -1:  # (sub -1, x) -> (xor x, -1)
            _set(ctx, n, "ISD::XOR", [b, a])
            return True
    if bo == "ISD::SUB":
        b0, b1 = b.ops
        if b0.opcode == "ISD::Constant" and type(b0.value) is int and b0.value == 0:
            _set(ctx, n, "ISD::ADD", [a, b1])  # A - (0 - B) -> A + B
            return True
        if b0 is a:  # A - (A - B) -> B
            ctx.replace(n, b1)
            return True
    if ao == "ISD::ADD" and b in a.ops:  # (A + B) - A -> B ; (A + B) - B -> A
        ctx.replace(n, a.ops[1] if a.ops[0] is b else a.ops[0])
        return True
    if bo == "ISD::ADD" and ac and _is_c(b.ops[1]):
        # C2 - (A + C1) -> (C2 - C1) - A (no one-use condition)
        _set(ctx, n, "ISD::SUB", [ctx.const(a.value - b.ops[1].value, vt), b.ops[0]])
        return True
    if ao == "ISD::ADD":
        # ((A + (B + C)) - B) -> A + C, then ((A + (B - C)) - B) -> A - C: sd_match with
        # m_Add commutative (each add's operands tried in order, then swapped), m_Sub not
        a0, a1 = a.ops
        for x, y in ((a0, a1), (a1, a0)):
            if y.opcode == "ISD::ADD":
                if y.ops[0] is b:
                    _set(ctx, n, "ISD::ADD", [x, y.ops[1]])
                    return True
                if y.ops[1] is b:
                    _set(ctx, n, "ISD::ADD", [x, y.ops[0]])
                    return True
        for x, y in ((a0, a1), (a1, a0)):
            if y.opcode == "ISD::SUB" and y.ops[0] is b:
                _set(ctx, n, "ISD::SUB", [x, y.ops[1]])
                return True
    elif ao == "ISD::SUB" and a.ops[1].opcode == "ISD::SUB" and a.ops[1].ops[1] is b:
        # ((A - (B - C)) - C) -> A - B
        _set(ctx, n, "ISD::SUB", [a.ops[0], a.ops[1].ops[0]])
        return True
    if bo == "ISD::SUB":
        if b.uses == 1:
            # (A - (B - C)) -> A + (C - B)
            inner = ctx.new("ISD::SUB", vt, [b.ops[1], b.ops[0]], like=b)
            _set(ctx, n, "ISD::ADD", [a, inner])
            return True
    elif bo == "ISD::AND":
        if a in b.ops:
            # A - (A & B) -> A & ~B (the and used once, or B a constant)
            bb = b.ops[1] if b.ops[0] is a else b.ops[0]
            if b.uses == 1 or _is_c(bb):
                inv = ctx.new("ISD::XOR", vt, [bb, ctx.const(-1, vt)], like=b)
                _set(ctx, n, "ISD::AND", [a, inv])
                return True
    elif bo == "ISD::MUL":
        if b.uses == 1:
            for p_, q in ((b.ops[0], b.ops[1]), (b.ops[1], b.ops[0])):
                if _is_neg(p_):  # A - ((0 - B) * C) -> A + (B * C)
                    m = ctx.new("ISD::MUL", vt, [p_.ops[1], q], like=b)
                    _set(ctx, n, "ISD::ADD", [a, m])
                    return True
    if (ao == "ISD::UMAX" and a.uses == 1 and b in a.ops) or (bo == "ISD::UMIN" and b.uses == 1 and a in b.ops):
        # foldSubToUSubSat: umax(x, y) - y and y - umin(y, x) -> usubsat(x, y) (the
        # min/max used once; the target has usubsat)
        if "ISD::USUBSAT" in ctx.legal:
            if ao == "ISD::UMAX" and a.uses == 1 and b in a.ops:
                _set(ctx, n, "ISD::USUBSAT", [a.ops[1] if a.ops[0] is b else a.ops[0], b])
            else:
                _set(ctx, n, "ISD::USUBSAT", [a, b.ops[1] if b.ops[0] is a else b.ops[0]])
            return True
    if bo == "ISD::XOR":
        if _is_not(b) and b.uses == 1:
            # sub y, (xor x, -1) -> add (add y, x), 1 (preferIncOfAddToSubOfNot)
            inner = ctx.new("ISD::ADD", vt, [a, b.ops[0]], like=n)
            _set(ctx, n, "ISD::ADD", [inner, ctx.const(1, vt)])
            return True
    if ao == "ISD::ADD":
        if a.uses == 1 and _is_c(a.ops[1]):
            # (x + C) - y -> (x - y) + C
            inner = ctx.new("ISD::SUB", vt, [a.ops[0], b], like=n)
            _set(ctx, n, "ISD::ADD", [inner, a.ops[1]])
            return True
    if bo == "ISD::ADD":
        if _is_c(b.ops[1]) and b.uses == 1:
            # y - (x + C) -> (y - x) - C, which the next visit makes (y - x) + -C
            inner = ctx.new("ISD::SUB", vt, [a, b.ops[0]], like=n)
            _set(ctx, n, "ISD::ADD", [inner, ctx.const(-b.ops[1].value, vt)])
            return True
    if ao == "ISD::SUB":
        if a.uses == 1 and _is_c(a.ops[0]):
            # (C - x) - y -> C - (x + y)
            inner = ctx.new("ISD::ADD", vt, [a.ops[1], b], like=n)
            _set(ctx, n, "ISD::SUB", [a.ops[0], inner])
            return True
    if bo == "ISD::SRL":
        if not ctx.legal_ops and b.uses == 1 and _is_c(b.ops[1]) and (b.ops[1].value & 0xFFFFFFFF) == bits - 1:
            # sub N0, (srl x, 31) -> add N0, (sra x, 31) (before legalization only)
            sra = ctx.new("ISD::SRA", vt, [b.ops[0], b.ops[1]], like=b)
            _set(ctx, n, "ISD::ADD", [a, sra])
            return True
    elif bo == "ISD::SHL":
        if _is_c(b.ops[1]) and (b.ops[1].value & 0xFFFFFFFF) == bits - 1:
            _set(ctx, n, "ISD::ADD", [b, a])  # N0 - (x << 31) -> (x << 31) + N0
            return True
    if ac and bits:
        # no borrow possible: sub C0, X -> xor X, C0
        mask = (1 << bits) - 1
        c0 = a.value & mask
        ones = ~_kb(b, ctx, 0).zero & mask
        if (c0 - ones) & mask == c0 ^ ones:
            _set(ctx, n, "ISD::XOR", [b, a])
            return True
    # SimplifyDemandedBits (passed over where it cannot change anything: _demanded_root)
    return _demanded_root(n, ctx)


def _visit_MUL(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::visitMUL, then AMDGPUTargetLowering::performMulCombine."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value * b.value, n.vt))  # constant folding
            return True
        _set(ctx, n, "ISD::MUL", [b, a])  # the constant to the right
        return True
    if bc:
        c = b.value
        if c == 0:
            ctx.replace(n, b)  # x * 0 (a CopyFromReg known zero reads the constant 0)
            return True
        if c == 1:
            ctx.replace(n, a)  # x * 1
            return True
        if c > 1 and (c & (c - 1)) == 0:  # mul x, 2^k -> shl x, k
            _set(ctx, n, "ISD::SHL", [a, ctx.const(c.bit_length() - 1, n.vt)])
            return True
        if c == -1:  # mul x, -1 -> 0 - x
            _set(ctx, n, "ISD::SUB", [ctx.const(0, n.vt), a])
            return True
        if c < -1 and ((-c) & (-c - 1)) == 0:  # mul x, -2^k -> 0 - (x << k)
            sh = ctx.new("ISD::SHL", n.vt, [a, ctx.const((-c).bit_length() - 1, n.vt)], like=n)
            _set(ctx, n, "ISD::SUB", [ctx.const(0, n.vt), sh])
            return True
        # (a divergent mul by 2^k + 1 stays a mul here: llc selects it as v_lshl_add_u32
        # by a pattern, targets/amdgpu/vop3.py)
        if ao == "ISD::SHL":
            if _is_c(a.ops[1]):
                # (mul (shl X, c1), c2) -> (mul X, c2 << c1) (no one-use condition)
                _set(ctx, n, "ISD::MUL", [a.ops[0], ctx.const(c << (a.ops[1].value & 31), n.vt)])
                return True
        elif ao == "ISD::ADD" and _is_c(a.ops[1]) and a.uses == 1:
            # (mul (add x, c1), c2) -> (add (mul x, c2), c1 * c2) when
            # isMulAddWithConstProfitable: the add used once (AMDGPU keeps the default
            # TargetLowering answer, true)
            m = ctx.new("ISD::MUL", n.vt, [a.ops[0], b], like=n)
            _set(ctx, n, "ISD::ADD", [m, ctx.const(a.ops[1].value * c, n.vt)])
            return True
    elif ao == "ISD::SHL" or bo == "ISD::SHL":
        # (mul (shl x, C), y) -> (shl (mul x, y), C), the shl used once (either operand
        # order, the first operand tried first)
        for s_, y in ((a, b), (b, a)):
            if s_.opcode == "ISD::SHL" and _is_c(s_.ops[1]) and s_.uses == 1:
                inner = ctx.new("ISD::MUL", n.vt, [s_.ops[0], y], like=n)
                _set(ctx, n, "ISD::SHL", [inner, s_.ops[1]])
                return True
    # reassociateOps
    if ao == "ISD::MUL" and _reassociate(n, a, b, ctx):
        return True
    if bo == "ISD::MUL" and _reassociate(n, b, a, ctx):
        return True
    # SimplifyDemandedBits (passed over where it cannot change anything: _demanded_root)
    if _demanded_root(n, ctx):
        return True
    if n.divergent:
        legal = ctx.legal
        if "ISD::ADD" in legal and (ao == "ISD::ADD" or bo == "ISD::ADD"):
            # AMDGPUTargetLowering::performMulCombine (a target combine: runs when the
            # generic visitMUL changed nothing), undoing InstCombine's X * (Y + 1) -> X * Y
            # + X for mad matching: a divergent mul x, (add y, 1) -> add (mul x, y), x
            # when the add has one use or only mul users; the add operand tried first
            for p_, x in ((a, b), (b, a)):
                if p_.opcode == "ISD::ADD" and _is_c(p_.ops[1]) and _wrap(p_.ops[1].value, n.vt) == 1 \
                        and (p_.uses == 1 or _only_mul_users(p_, ctx)):
                    m = ctx.new("ISD::MUL", n.vt, [x, p_.ops[0]], like=n)
                    _set(ctx, n, "ISD::ADD", [m, x])
                    return True
        if n.vt == "i32" and "AMDGPUISD::MUL_U24" in legal:
            # ... then a divergent multiply of two operands that fit in 24 bits becomes
            # MUL_U24 (known leading zeros), else MUL_I24 (sign bits)
            if max(_active_bits(a, ctx), _active_bits(b, ctx)) <= 24:
                _set(ctx, n, "AMDGPUISD::MUL_U24", [a, b])
                return True
            if max(33 - _sign_bits(a, ctx, 0), 33 - _sign_bits(b, ctx, 0)) <= 24:
                _set(ctx, n, "AMDGPUISD::MUL_I24", [a, b])
                return True
    return _commuted(n, ctx, "ISD::MUL", a, b)


def _visit_AND(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::visitAND."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value & b.value, n.vt))  # constant folding
            return True
        _set(ctx, n, "ISD::AND", [b, a])  # the constant to the right
        return True
    if bc and b.value == -1:
        ctx.replace(n, a)  # x & -1
        return True
    if a is b:
        ctx.replace(n, a)  # x & x
        return True
    # (no absorption (and x, (or x, y)) -> x: visitAND has none, unlike visitORCommutative's
    # (or (and x, y), x) -> x; InstSimplify folds the shapes already in the IR, seed 960)
    if bc:
        if ao == "ISD::OR":
            if _is_c(a.ops[1]) and (a.ops[1].value & b.value) == b.value:
                ctx.replace(n, b)  # (and (or x, C), D) -> D when C covers D
                return True
        elif ao == "ISD::SRA":
            if _is_c(a.ops[1]) and a.uses == 1:
                # SimplifyDemandedBits: the mask demands none of the bits the sra copies
                # from the sign bit -> srl
                c = a.ops[1].value & 31
                if c and 32 - (b.value & 0xFFFFFFFF).bit_length() >= c:
                    ctx.sdb_root = n  # (SimplifyDemandedBits replaces the operand)
                    _set(ctx, a, "ISD::SRL", a.ops)
                    return True
        elif ao == "ISD::SRL":
            if _is_c(a.ops[1]) and b.value > 0 and (b.value & (b.value + 1)) == 0:
                shift, width = a.ops[1].value & 31, (b.value + 1).bit_length() - 1
                if shift + width >= 32:  # the mask keeps every bit the shift leaves
                    ctx.replace(n, a)
                    return True
                # (no BFE_U32 here: AMDGPU forms it at selection time for both
                # divergences, the SelectS_BFE CustomSelect step; forming it early would
                # hide the and from an or root's v_and_or_b32)
    # reassociateOps
    if ao == "ISD::AND" and _reassociate(n, a, b, ctx):
        return True
    if bo == "ISD::AND" and _reassociate(n, b, a, ctx):
        return True
    if ao == bo and ao in _HANDS and _hoist_hands(n, ctx, a, b):
        return True
    if _demanded_root(n, ctx):
        return True
    if bc and ao == "ISD::SRL" and _sdwa_bfe(n, ctx, a, b):
        return True
    return _commuted(n, ctx, "ISD::AND", a, b)


def _sdwa_bfe(n: SDNode, ctx: _Ctx, a: SDNode, b: SDNode) -> bool:
    """SITargetLowering::performAndCombine (after legalization only: a node of this shape
    seen by combine1 is listed in ``ctx.late`` for combine2), on a target with SDWA:
    and (srl x, c), mask with mask a run of 8 or 16 ones above bit 0 whose field starts
    at a multiple of its width in x -> shl (bfe_u32 x, nb + c, width), nb (nb = the
    mask's trailing zeros), the bfe under an AssertZext to the field's width (which keeps
    visitSHL's shift-pair fold off it; _finish drops it before selection, as
    SelectionDAGISel does). AMDGPUTargetLowering's BFE_U32 combine, made here at once,
    turns a field reaching bit 31 into an srl, except the 16-bit field at 16 (kept for
    SDWA)."""
    mask = b.value & 0xFFFFFFFF
    bits = bin(mask).count("1")
    if (bits != 8 and bits != 16) or mask & 1 or not _is_c(a.ops[1]):
        return False
    low = mask & -mask
    if (mask + low) & mask:  # (not one run of ones)
        return False
    nb = low.bit_length() - 1
    off = nb + (a.ops[1].value & 0xFFFFFFFF)
    if off & (bits - 1):
        return False
    if not ctx.legal_ops:
        ctx.late.append(n)
        return False
    x = a.ops[0]
    if off + bits >= 32 and not (off == 16 and bits == 16):
        f = ctx.new("ISD::SRL", "i32", [x, ctx.const(off, "i32")], like=a)
    else:
        f = ctx.new("AMDGPUISD::BFE_U32", "i32", [x, ctx.const(off, "i32"), ctx.const(bits, "i32")], like=a)
    f = ctx.get("ISD::AssertZext", "i32", [f, ctx.vtnode(f"i{bits}")], like=a)
    _set(ctx, n, "ISD::SHL", [f, ctx.const(nb, "i32")])
    return True


def _visit_OR(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::visitOR (with visitORCommutative)."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value | b.value, n.vt))  # constant folding
            return True
        _set(ctx, n, "ISD::OR", [b, a])  # the constant to the right
        return True
    if bc and b.value == 0:
        ctx.replace(n, a)  # x | 0
        return True
    if a is b:
        ctx.replace(n, a)  # x | x
        return True
    # absorption: (or x, (and x, y)) -> x
    if bo == "ISD::AND" and a in b.ops:
        ctx.replace(n, a)
        return True
    if ao == "ISD::AND" and b in a.ops:
        ctx.replace(n, b)
        return True
    # reassociateOps
    if ao == "ISD::OR" and _reassociate(n, a, b, ctx):
        return True
    if bo == "ISD::OR" and _reassociate(n, b, a, ctx):
        return True
    if ao in _OR_COMM or bo in _OR_COMM:
        for p_, q in ((a, b), (b, a)):  # visitORCommutative, both operand orders
            po = p_.opcode
            if po == "ISD::AND":
                x0, x1 = p_.ops
                if _is_not(x1) and x1.ops[0] is q:  # (or (and X, ~Y), Y) -> (or X, Y)
                    _set(ctx, n, "ISD::OR", [x0, q])
                    return True
                if _is_not(x0) and x0.ops[0] is q:  # (or (and ~Y, X), Y) -> (or X, Y)
                    _set(ctx, n, "ISD::OR", [x1, q])
                    return True
            elif po == "ISD::XOR":
                x, y = p_.ops
                if y is q or x is q:  # (or (xor X, Y), Y) -> (or X, Y)
                    _set(ctx, n, "ISD::OR", [x if y is q else y, q])
                    return True
                if q.opcode in ("ISD::AND", "ISD::OR") and ((q.ops[0] is x and q.ops[1] is y)
                                                             or (q.ops[0] is y and q.ops[1] is x)):
                    _set(ctx, n, "ISD::OR", [x, y])  # (or (xor X, Y), (X and/or Y)) -> (or X, Y)
                    return True
    if ao == bo and ao in _HANDS and _hoist_hands(n, ctx, a, b):
        return True
    if _demanded_root(n, ctx):
        return True
    # an add-like or (isADDLike: no common bits) gets visitADDLike's combines
    if (ao in _ADDLIKE_OPS or bo in _ADDLIKE_OPS) and "ISD::ADD" in ctx.legal \
            and _no_common_bits(a, b, ctx) and _visit_ADD(n, ctx, True):
        return True
    return _commuted(n, ctx, "ISD::OR", a, b)


_OR_COMM: Final = frozenset({"ISD::AND", "ISD::XOR"})
# the operand opcodes one of visitADDLike's rules needs (an add-like or without one is
# not tried)
_ADDLIKE_OPS: Final = frozenset({"ISD::ADD", "ISD::SUB", "ISD::MUL", "ISD::SHL", "ISD::OR", "ISD::XOR", "ISD::UMAX"})


def _visit_XOR(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::visitXOR, then SITargetLowering's reassociateScalarOps."""
    x: Any
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value ^ b.value, n.vt))  # constant folding
            return True
        _set(ctx, n, "ISD::XOR", [b, a])  # the constant to the right
        return True
    if bc and b.value == 0:
        ctx.replace(n, a)  # x ^ 0
        return True
    if a is b:
        ctx.replace(n, ctx.const(0, n.vt))  # x ^ x
        return True
    if not bc:
        if ao == "ISD::AND" or bo == "ISD::AND":
            # (x & ~y) ^ y -> x | y
            for p_, y in ((a, b), (b, a)):
                if p_.opcode == "ISD::AND":
                    for q, x in ((p_.ops[1], p_.ops[0]), (p_.ops[0], p_.ops[1])):
                        if _is_not_of(q, y):
                            _set(ctx, n, "ISD::OR", [x, y])
                            return True
    elif _wrap(b.value, n.vt) == -1:
        if (ao == "ISD::AND" or ao == "ISD::OR") and a.uses == 1 and (_is_c(a.ops[1]) or _is_c(a.ops[0])):
            # De Morgan when one side is a constant, the and/or used once: not (and x, C)
            # -> or (not x), ~C ; not (or x, C) -> and (not x), ~C (both halves go on the
            # worklist, the and/or's first operand's first)
            x, c = (a.ops[0], a.ops[1]) if _is_c(a.ops[1]) else (a.ops[1], a.ops[0])
            notx = ctx.new("ISD::XOR", n.vt, [x, ctx.const(-1, n.vt)], like=a)
            notc = ctx.const(~c.value, n.vt)
            for h in ((notx, notc) if x is a.ops[0] else (notc, notx)):
                ctx.add(h)
            _set(ctx, n, "ISD::OR" if ao == "ISD::AND" else "ISD::AND", [notx, notc])
            return True
        # not (neg x) -> add x, -1 ; not (add x, -1) -> neg x
        if ao == "ISD::SUB":
            if _is_c(a.ops[0]) and a.ops[0].value == 0:
                _set(ctx, n, "ISD::ADD", [a.ops[1], ctx.const(-1, n.vt)])
                return True
        elif ao == "ISD::ADD":
            if _is_c(a.ops[1]) and _wrap(a.ops[1].value, n.vt) == -1:
                _set(ctx, n, "ISD::SUB", [ctx.const(0, n.vt), a.ops[0]])
                return True
    if ao == "ISD::AND" and a.ops[1] is b and a.uses == 1:
        # (xor (and x, y), y) -> (and (not x), y) when the and has one use; DAGCombiner
        # tries this operand order only (the and first, y its second operand)
        notx = ctx.new("ISD::XOR", n.vt, [a.ops[0], ctx.const(-1, n.vt)], like=a)
        ctx.add(notx)  # (visitXOR puts the not on the worklist)
        _set(ctx, n, "ISD::AND", [notx, b])
        return True
    # reassociateOps, hoistLogicOpWithSameOpcodeHands, reassociateScalarOps: an xor
    # operand makes the hands differ from _HANDS, and reassociateScalarOps needs one
    if ao == "ISD::XOR":
        if _reassociate(n, a, b, ctx):
            return True
        if bo == "ISD::XOR" and _reassociate(n, b, a, ctx):
            return True
        if a.divergent != b.divergent and _reassociate_scalar(n, ctx):
            return True
    elif bo == "ISD::XOR":
        if _reassociate(n, b, a, ctx):
            return True
        if a.divergent != b.divergent and _reassociate_scalar(n, ctx):
            return True
    elif ao == bo and ao in _HANDS and _hoist_hands(n, ctx, a, b):
        return True
    if _demanded_root(n, ctx):
        return True
    return _commuted(n, ctx, "ISD::XOR", a, b)


def _visit_SHL(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::visitSHL (SimplifyDemandedBits, then visitShiftByConstant)."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value << (b.value & 31), n.vt))  # constant folding
            return True
        if _wrap(a.value, n.vt) == 0:
            ctx.replace(n, a)  # 0 << x
            return True
    if bc:
        c = b.value
        if c == 0:
            ctx.replace(n, a)  # x << 0
            return True
        if (ao == "ISD::ADD" or ao == "ISD::OR") and _is_c(a.ops[1]) and a.uses == 1:
            # (shl (add x, c1), c2) -> (add (shl x, c2), c1 << c2)
            sh = ctx.new("ISD::SHL", n.vt, [a.ops[0], b], like=n)
            _set(ctx, n, ao, [sh, ctx.const(a.ops[1].value << (c & 31), n.vt)])
            return True
        if ao == "ISD::SHL":
            if _is_c(a.ops[1]) and _shift_of_shift(n, ctx, "ISD::SHL", a, b):
                return True
        elif ao == "ISD::MUL":
            if _is_c(a.ops[1]) and a.uses == 1:
                # (shl (mul x, c1), c2) -> (mul x, c1 << c2), the mul used once
                _set(ctx, n, "ISD::MUL", [a.ops[0], ctx.const(a.ops[1].value << (c & 31), n.vt)])
                return True
        elif ao == "ISD::SRL":
            if _is_c(a.ops[1]):
                c1, c2 = a.ops[1].value & 31, c & 31
                if c1 > 0 and c2 > 0 and (c1 == c2 or a.uses == 1):
                    # (shl (srl x, c1), c2) -> (and (shl|srl x, |c2-c1|), (-1 >> c1) << c2)
                    x = a.ops[0]
                    mask = ctx.const(((0xFFFFFFFF >> c1) << c2) & 0xFFFFFFFF, n.vt)
                    if c1 == c2:
                        inner = x
                    else:
                        inner = ctx.new("ISD::SHL" if c2 > c1 else "ISD::SRL", n.vt,
                                        [x, ctx.const(abs(c2 - c1), n.vt)], like=n)
                    _set(ctx, n, "ISD::AND", [inner, mask])
                    return True
    # SimplifyDemandedBits (passed over where it cannot change anything: _demanded_root)
    if _demanded_root(n, ctx):
        return True
    return bc and (ao in _LOGIC3 or ao == "ISD::ADD") and a.uses == 1 and _shift_by_constant(n, ctx, "ISD::SHL", a, b)


def _visit_SRL(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::visitSRL (SimplifyDemandedBits, then visitShiftByConstant)."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const((a.value & 0xFFFFFFFF) >> (b.value & 31), n.vt))  # constant folding
            return True
        if _wrap(a.value, n.vt) == 0:
            ctx.replace(n, a)  # 0 >> x
            return True
    if bc:
        c = b.value
        if c == 0:
            ctx.replace(n, a)  # x >> 0
            return True
        if ao == "ISD::SRL":
            if _is_c(a.ops[1]) and _shift_of_shift(n, ctx, "ISD::SRL", a, b):
                return True
        elif ao == "ISD::SHL":
            if _is_c(a.ops[1]):
                c1, c2 = a.ops[1].value & 31, c & 31
                if c1 > 0 and c2 > 0 and (c1 == c2 or a.uses == 1):
                    # (srl (shl x, c1), c2) -> (and (srl|shl x, |c2-c1|), -1 >> c2)
                    x = a.ops[0]
                    mask = ctx.const(0xFFFFFFFF >> c2, n.vt)
                    if c1 == c2:
                        inner = x
                    else:
                        inner = ctx.new("ISD::SRL" if c2 > c1 else "ISD::SHL", n.vt,
                                        [x, ctx.const(abs(c2 - c1), n.vt)], like=n)
                    _set(ctx, n, "ISD::AND", [inner, mask])
                    return True
        elif ao == "ISD::CTLZ" and _srl_of_ctlz(n, ctx, a, c):
            return True
    # SimplifyDemandedBits (passed over where it cannot change anything: _demanded_root)
    if _demanded_root(n, ctx):
        return True
    return bc and ao in _LOGIC3 and a.uses == 1 and _shift_by_constant(n, ctx, "ISD::SRL", a, b)


def _srl_of_ctlz(n: SDNode, ctx: _Ctx, a: SDNode, c: int) -> bool:
    """visitSRL's (srl (ctlz x), log2(width)): 1 exactly when x is zero. A known one in x
    makes it 0, x known zero makes it 1, and x with one bit that may be set, bit k, makes
    it (x >> k) ^ 1."""
    x: Any
    bits = _width(n.vt)
    if not bits or bits & (bits - 1) or c != bits.bit_length() - 1:
        return False
    x = a.ops[0]
    k = _kb(x, ctx, 0)
    if k.one:
        ctx.replace(n, ctx.const(0, n.vt))
        return True
    unknown = ~k.zero & ((1 << bits) - 1)
    if not unknown:
        ctx.replace(n, ctx.const(1, n.vt))
        return True
    if unknown & (unknown - 1):
        return False
    sh = unknown.bit_length() - 1
    if sh:
        x = ctx.new("ISD::SRL", n.vt, [x, ctx.const(sh, n.vt)], like=n)
    _set(ctx, n, "ISD::XOR", [x, ctx.const(1, n.vt)])
    return True


def _visit_SRA(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::visitSRA (SimplifyDemandedBits, then visitShiftByConstant), with
    sra (shl x, 32-n), 32-n -> sign_extend_inreg x, i<n> for n = 8, 16."""
    ops = n.ops
    if len(ops) != 2:
        return _other_rules(n, ctx)
    a, b = ops
    ao = a.opcode
    bo = b.opcode
    bc = bo == "ISD::Constant" and type(b.value) is int
    if ao == "ISD::Constant" and type(a.value) is int:
        if bc:
            ctx.replace(n, ctx.const(a.value >> (b.value & 31), n.vt))  # constant folding
            return True
        if _wrap(a.value, n.vt) == 0 or _wrap(a.value, n.vt) == -1:
            ctx.replace(n, a)  # 0 >> x, -1 >> x
            return True
    if bc and b.value == 0:
        ctx.replace(n, a)  # x >> 0
        return True
    if _non_negative(a):
        _set(ctx, n, "ISD::SRL", [a, b])  # the sign bit is known zero
        return True
    if bc and ao == "ISD::SRA" and _is_c(a.ops[1]) and _shift_of_shift(n, ctx, "ISD::SRA", a, b):
        return True
    # SimplifyDemandedBits (passed over where it cannot change anything: _demanded_root)
    if _demanded_root(n, ctx):
        return True
    if bc and ao in _LOGIC3 and a.uses == 1 and _shift_by_constant(n, ctx, "ISD::SRA", a, b):
        return True
    if bc and ao == "ISD::SHL":
        c = b.value
        if _is_c(a.ops[1]) and a.ops[1].value == c and c in (16, 24) and n.vt == "i32" \
                and "ISD::SIGN_EXTEND_INREG" in ctx.legal:
            _set(ctx, n, "ISD::SIGN_EXTEND_INREG", [a.ops[0], ctx.vtnode(f"i{32 - c}")])
            return True
    return False


def _shift_of_shift(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    """(shift (shift x, c1), c2) -> (shift x, c1 + c2), both shifts of one kind by
    constants (checked by the caller)."""
    total = (a.ops[1].value & 31) + (b.value & 31)
    if total < 32:
        _set(ctx, n, opc, [a.ops[0], ctx.const(total, n.vt)])
    elif opc == "ISD::SRA":
        _set(ctx, n, opc, [a.ops[0], ctx.const(31, n.vt)])
    else:
        ctx.replace(n, ctx.const(0, n.vt))
    return True


def _sign_bit_zero(n: SDNode, ctx: _Ctx) -> bool:
    """SelectionDAG::SignBitIsZero."""
    bits = _width(n.vt)
    return bool(bits) and bool(_kb(n, ctx).zero >> (bits - 1) & 1)


def _never_zero(n: SDNode, ctx: _Ctx, depth: int = 0) -> bool:
    """SelectionDAG::isKnownNeverZero for the modeled nodes (no nuw/nsw/exact flags are
    modeled on nodes: the rules needing them do not apply), then the known bits."""
    if depth >= _MAX_DEPTH:
        return False
    opc = n.opcode
    if opc == "ISD::Constant":
        return isinstance(n.value, int) and n.value != 0
    ops = n.ops
    d1 = depth + 1
    if opc == "ISD::OR" or opc == "ISD::UMAX":
        if _never_zero(ops[1], ctx, d1) or _never_zero(ops[0], ctx, d1):
            return True
    elif opc == "ISD::SELECT":
        if _never_zero(ops[1], ctx, d1) and _never_zero(ops[2], ctx, d1):
            return True
    elif opc == "ISD::SHL" or opc == "ISD::SRL" or opc == "ISD::SRA":
        k = _kb(ops[0], ctx, d1)
        bits = k.bits
        if opc == "ISD::SHL" and k.one & 1:
            return True
        if opc != "ISD::SHL" and k.one >> (bits - 1) & 1:
            return True
        most = _kb(ops[1], ctx, d1).max_value()
        if most < bits and ((k.one << most) & k.mask if opc == "ISD::SHL" else k.one >> most):
            return True
    elif opc == "ISD::SMAX" or opc == "ISD::SMIN":
        k1 = _kb(ops[1], ctx, d1)
        k0 = _kb(ops[0], ctx, d1)
        bits = k1.bits
        s = 1 << (bits - 1)
        if opc == "ISD::SMAX":
            # strictly positive: sign bit known zero and some one known
            if (k1.zero & s and k1.one) or (k0.zero & s and k0.one):
                return True
        elif k1.one & s or k0.one & s:
            return True
        if k1.one and k0.one:
            return True
        if _never_zero(ops[1], ctx, d1) and _never_zero(ops[0], ctx, d1):
            return True
    elif opc == "ISD::UMIN":
        if _never_zero(ops[1], ctx, d1) and _never_zero(ops[0], ctx, d1):
            return True
    elif opc in ("ISD::BITREVERSE", "ISD::BSWAP", "ISD::CTPOP", "ISD::ABS", "ISD::ZERO_EXTEND",
                 "ISD::SIGN_EXTEND"):
        return _never_zero(ops[0], ctx, d1)
    elif opc == "ISD::SUB":
        a, b = ops
        if _is_c(a) and a.value == 0:
            return _never_zero(b, ctx, d1)
        ka, kb = _kb(a, ctx, d1), _kb(b, ctx, d1)
        return bool((ka.zero & kb.one) | (ka.one & kb.zero))  # KnownBits::ne
    return bool(_kb(n, ctx, depth).one)


def _visit_COUNT(n: SDNode, ctx: _Ctx) -> bool:
    """visitCTPOP / visitCTLZ(_ZERO_UNDEF) / visitCTTZ(_ZERO_UNDEF) / visitBITREVERSE: a
    constant operand folds (FoldConstantArithmetic; a zero count is the width for the
    zero-undef forms too); ctpop of a shift by a constant that moves out only bits known
    zero (shl: leading, srl: trailing) counts the shift's source; then the opcode's other
    rules (_other_rules: ctlz/cttz of a value never zero, the zero-defined lowering)."""
    x = n.ops[0] if n.ops else None
    bits = _width(n.vt)
    if x is not None and _is_c(x) and bits:
        v = x.value & ((1 << bits) - 1)
        opc = n.opcode
        if opc == "ISD::CTPOP":
            r = bin(v).count("1")
        elif opc == "ISD::BITREVERSE":
            r = int(format(v, f"0{bits}b")[::-1], 2)
        elif opc in ("ISD::CTLZ", "ISD::CTLZ_ZERO_UNDEF"):
            r = bits - v.bit_length()
        else:
            r = ctz(v, bits)
        ctx.replace(n, ctx.const(r, n.vt))
        return True
    if n.opcode == "ISD::CTPOP" and x is not None and bits and x.opcode in ("ISD::SHL", "ISD::SRL") \
            and _is_c(x.ops[1]) and (x.ops[1].value & ((1 << bits) - 1)) < bits:
        # a shift that moves no set bit out: ctpop of its source
        amt = x.ops[1].value & ((1 << bits) - 1)
        k = _kb(x.ops[0], ctx, 0)
        m = (1 << bits) - 1
        if amt <= (k.lead_zeros() if x.opcode == "ISD::SHL" else ctz(~k.zero & m, bits)):
            _set(ctx, n, "ISD::CTPOP", [x.ops[0]])
            return True
    if n.opcode in ("ISD::CTLZ", "ISD::CTTZ"):
        return _visit_other(n, ctx)
    return False


def _visit_ABS(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::visitABS: abs of a constant, abs (abs x) -> abs x, abs x -> x when
    the sign bit is known zero."""
    x = n.ops[0]
    if _is_c(x):
        bits = _width(n.vt)
        v = x.value & ((1 << bits) - 1)
        ctx.replace(n, ctx.const(v if not v >> (bits - 1) else (1 << bits) - v, n.vt))
        return True
    if x.opcode == "ISD::ABS" or _sign_bit_zero(x, ctx):
        ctx.replace(n, x)
        return True
    return False


# SelectionDAG::canCreateUndefOrPoison (LLVM 19) with no poison-generating flags (the
# DAG here carries none): these opcodes never make poison or undef from defined
# operands; a shift does not when its amount is below the width; every other opcode
# (copies from other blocks, loads, abs, the bit counts, select, target nodes) may.
_NO_NEW_POISON: Final = frozenset({
    "ISD::ADD", "ISD::SUB", "ISD::MUL", "ISD::AND", "ISD::OR", "ISD::XOR", "ISD::SMIN", "ISD::SMAX",
    "ISD::UMIN", "ISD::UMAX", "ISD::BSWAP", "ISD::CTPOP", "ISD::BITREVERSE", "ISD::SIGN_EXTEND",
    "ISD::ZERO_EXTEND", "ISD::TRUNCATE", "ISD::SIGN_EXTEND_INREG", "ISD::BITCAST", "ISD::FREEZE",
    "ISD::SETCC"})
_GUARANTEED_LEAVES: Final = frozenset({"ISD::Constant", "ISD::VALUETYPE", "ISD::CONDCODE", "ISD::FREEZE",
                                       "ISD::CopyFromReg"})


def _kernel_argument_load(n: SDNode) -> bool:
    """A kernel's argument read in its entry block: llc lowers it as a load from the
    kernel-argument segment (which may be poison), where this DAG has a CopyFromReg (a
    register copy, which is not)."""
    a = n.ir
    if a is None or type(a).__name__ != "Argument":
        return False
    fn = a.function
    return fn is not None and fn.cc == "amdgpu_kernel" and bool(fn.blocks) and n.block is fn.blocks[0]


def _copy_assert(n: SDNode) -> tuple[int, int]:
    """What RegsForValue::getCopyFromRegs asserts of a CopyFromReg's value: the leading
    zeros recorded for it (an AssertZext when any), else its recorded sign bits (an
    AssertSext when more than 1) (sdag._Builder.live_lz / live_sb, counted when first
    asked)."""
    lz = n.klz
    if type(lz) is not int:
        lz = n.klz = _known_lz(lz)
    if lz:
        return lz, 1
    sb = n.ksb
    if type(sb) is not int:
        sb = n.ksb = live_sign_bits(sb)
    return 0, sb


def _asserted_copy(n: SDNode) -> bool:
    """A CopyFromReg llc reads through an AssertZext or an AssertSext (``_copy_assert``):
    those nodes are not among the ones known to make no poison, so the value counts as
    maybe poison."""
    lz, sb = _copy_assert(n)
    return lz > 0 or sb > 1


def _can_create_poison(n: SDNode, ctx: _Ctx | None) -> bool:
    """SelectionDAG::canCreateUndefOrPoison for ``n`` (see ``_NO_NEW_POISON``)."""
    opc = n.opcode
    if opc in _SHIFTS and len(n.ops) == 2:
        bits = _width(n.vt)
        return not bits or _shift_amount_range(n, bits, ctx, 1) is None
    return opc not in _NO_NEW_POISON


def _not_poison(n: SDNode, ctx: _Ctx | None, depth: int = 0) -> bool:
    """SelectionDAG::isGuaranteedNotToBeUndefOrPoison: a freeze, a constant, or a node
    that makes no poison of operands that are none (searched to depth 6)."""
    opc = n.opcode
    if opc in _GUARANTEED_LEAVES:
        if opc == "ISD::CopyFromReg":
            return not _kernel_argument_load(n) and not _asserted_copy(n)
        return opc != "ISD::Constant" or type(n.value) is int
    if depth >= 6 or _can_create_poison(n, ctx):
        return False
    for o in n.ops:
        if not _not_poison(o, ctx, depth + 1):
            return False
    return True


def _get_freeze(ctx: _Ctx, x: SDNode, like: SDNode) -> SDNode:
    """SelectionDAG::getFreeze: ``x`` itself when it cannot be poison (getNode asks at
    depth 1), else ``freeze x`` (CSE'd)."""
    if _not_poison(x, ctx, 1):
        return x
    return ctx.get("ISD::FREEZE", x.vt, [x], like=like)


def _visit_FREEZE(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::visitFREEZE for the scalar case: ``freeze x`` -> ``x`` when ``x``
    cannot be poison; else, when ``x`` has one use, makes no poison itself and reads
    one operand that may be poison (any number for a setcc), the freeze moves onto that
    operand, and every other reader of the operand reads the frozen value too:
    ``freeze (op a, C)`` -> ``op (freeze a), C``."""
    k: Any
    x = n.ops[0]
    if _not_poison(x, ctx):
        ctx.replace(n, x)
        return True
    if x.uses != 1 or _can_create_poison(x, ctx) or x.opcode == "ISD::CopyFromReg":
        return False
    maybe: list = []
    for o in x.ops:
        if _not_poison(o, ctx, 1) or o in maybe:
            continue
        if maybe and x.opcode != "ISD::SETCC":
            return False
        maybe.append(o)
    for k, o in enumerate(list(x.ops)):
        if o not in maybe:
            continue
        o = n.ops[0].ops[k]  # (re-read: an earlier replacement may have changed it)
        if o.opcode == "ISD::UNDEF":
            continue
        f = _get_freeze(ctx, o, o)
        if f is not o:
            ctx.rauw(o, f)  # (the new freeze reads ``o`` again, not itself)
            if f.ops[0] is f:  # (UpdateNodeOperands: back to ``o``, and so in the CSE map)
                cse = ctx.cse
                k = _key(f.opcode, f.vt, f.ops, f.cc)
                if cse.get(k) is f:
                    del cse[k]
                f.ops = [o]
                f.users.pop(f, None)
                f.uses -= 1
                o.users[f] = o.users.get(f, 0) + 1
                o.uses += 1
                cse[_key(f.opcode, f.vt, f.ops, f.cc)] = f
    if n.wlix == _DEAD:
        return True
    x = n.ops[0]
    ctx.replace(n, ctx.get(x.opcode, x.vt, list(x.ops), like=x, cc=x.cc))
    return True


def _visit_SIGN_EXTEND_INREG(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::visitSIGN_EXTEND_INREG for i32 values: a constant; an input sign
    extended already (ComputeMaxSignificantBits within the width) is the result; nested
    extensions keep the narrower; a known-zero sign bit makes it an and with the low
    mask (zext_in_reg); SimplifyDemandedBits with every bit demanded (its operand's low
    bits demanded, ``_sdb``); ``(sext_in_reg (srl X, c), iN)`` -> ``sra X, c`` when X has
    the sign bits for it."""
    ops = n.ops
    if len(ops) != 2:
        return False
    x, t = ops
    bits, ext = _width(n.vt), _width(t.vt)
    if not bits or not ext or ext >= bits:
        return False
    if _is_c(x):
        v = x.value & ((1 << ext) - 1)
        ctx.replace(n, ctx.const(v - (1 << ext) if v >> (ext - 1) else v, n.vt))
        return True
    if ext >= bits - _sign_bits(x, ctx) + 1:
        ctx.replace(n, x)
        return True
    if x.opcode == "ISD::SIGN_EXTEND_INREG" and ext < (_width(x.ops[1].vt) or bits):
        _set(ctx, n, "ISD::SIGN_EXTEND_INREG", [x.ops[0], t])
        return True
    if _kb(x, ctx).zero >> (ext - 1) & 1:
        _set(ctx, n, "ISD::AND", [x, ctx.const((1 << ext) - 1, n.vt)])
        return True
    k = _kb(n, ctx, 0)
    m = (1 << bits) - 1
    ctx.sdb_root = n
    r = _sdb(n, m, 0, ctx)[0] if (k.zero | k.one) ^ m else _demanded_const(n, m, k, ctx)
    ctx.sdb_root = None
    if r:
        return True
    if x.opcode == "ISD::SRL" and _is_c(x.ops[1]):
        sh = x.ops[1].value & ((1 << bits) - 1)
        if sh <= bits - ext and (bits - ext) - sh < _sign_bits(x.ops[0], ctx):
            _set(ctx, n, "ISD::SRA", [x.ops[0], x.ops[1]])
            return True
    return False


_MINMAX_FLIP: Final = {"ISD::SMIN": "ISD::UMIN", "ISD::SMAX": "ISD::UMAX", "ISD::UMIN": "ISD::SMIN", "ISD::UMAX": "ISD::SMAX"}


def _visit_MINMAX(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::visitIMINMAX's rules for two non-constant operands: the same operand
    twice; umin (smax ..) with both sign bits known zero is smin (the saturation shape
    InstCombine breaks, the one flip a target with all four legal makes); then
    SimplifyDemandedBits with every bit demanded: an operand whose known bits decide the
    order is the result (KnownBits::ule/ult, uge/ugt, sle/slt, sge/sgt). Then the
    existing steps of the opcode (the commuted form, smax(x, 0 - x) -> abs)."""
    ops = n.ops
    if len(ops) == 2:
        a, b = ops
        opc = n.opcode
        if a is b:
            ctx.replace(n, a)
            return True
        if not (_is_c(a) and _is_c(b)):
            if opc == "ISD::UMIN" and a.opcode == "ISD::SMAX" and "ISD::SMIN" in ctx.legal \
                    and _sign_bit_zero(a, ctx) and _sign_bit_zero(b, ctx):
                _set(ctx, n, "ISD::SMIN", [a, b])
                return True
            pick = _minmax_by_known(opc, _kb(a, ctx, 1), _kb(b, ctx, 1))
            if pick is not None:
                ctx.replace(n, a if pick == 0 else b)
                return True
    if n.opcode == "ISD::SMAX":
        if _visit_other(n, ctx):
            return True
    elif _commuted_other(n, ctx):
        return True
    return _min3_max3(n, ctx)


_MIN3_MAX3: Final = {"ISD::SMIN": "AMDGPUISD::SMIN3", "ISD::SMAX": "AMDGPUISD::SMAX3", "ISD::UMIN": "AMDGPUISD::UMIN3",
                     "ISD::UMAX": "AMDGPUISD::UMAX3"}


def _min3_max3(n: SDNode, ctx: _Ctx) -> bool:
    """SITargetLowering::performMinMaxCombine (after the generic visit changed nothing):
    op(op(a, b), c) -> op3(a, b, c), else op(a, op(b, c)) -> op3(a, b, c), the inner
    min/max of the same kind used once (i32; the target has the three-operand node)."""
    ops = n.ops
    if len(ops) != 2 or n.vt != "i32":
        return False
    opc3 = _MIN3_MAX3.get(n.opcode)
    if opc3 is None or opc3 not in ctx.legal:
        return False
    a, b = ops
    if a.opcode == n.opcode and a.uses == 1:
        _set(ctx, n, opc3, [a.ops[0], a.ops[1], b])
        return True
    if b.opcode == n.opcode and b.uses == 1:
        _set(ctx, n, opc3, [a, b.ops[0], b.ops[1]])
        return True
    return False


def _minmax_by_known(opc: str, ka: Known, kb: Known):
    """0 or 1: the operand of a min/max that known bits prove is the result (the
    non-strict comparison asked first, then the strict one), or None."""
    bits = ka.bits
    if opc[5] == "U":  # ISD::UMIN / ISD::UMAX
        alo, ahi, blo, bhi = ka.one, ka.max_value(), kb.one, kb.max_value()
    else:
        alo, ahi = signed_min_max(ka.zero, ka.one, bits)
        blo, bhi = signed_min_max(kb.zero, kb.one, bits)
    if opc[6:] == "MIN":
        # a <= b: true when max(a) <= min(b), false when min(a) > max(b)
        if ahi <= blo:
            return 0
        if alo > bhi:
            return 1
        # a < b (asked when a <= b is undecided): true when max(a) < min(b) (covered),
        # false when min(a) >= max(b)
        if alo >= bhi:
            return 1
        return None
    if alo >= bhi:
        return 0
    if ahi < blo:
        return 1
    if ahi <= blo:
        return 1
    return None


def _visit_other(n: SDNode, ctx: _Ctx) -> bool:
    """The visits of the other opcodes with rules (_other_rules), then for a commutative
    one its commuted form."""
    if _other_rules(n, ctx):
        return True
    return n.opcode in COMMUTATIVE and _commuted_other(n, ctx)


def _visit_MUL24(n: SDNode, ctx: _Ctx) -> bool:
    """AMDGPU's PerformDAGCombine of MUL_U24 / MUL_I24 (simplifyMul24): the node reads the
    low 24 bits of each operand. SimplifyMultipleUseDemandedBits of both operands first
    (a new node when either has a simpler value for those bits); else
    SimplifyDemandedBits of the left, then the right operand, each its own root (every
    bit demanded when it has other users)."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    low = (1 << 24) - 1
    va = _multi_use_demanded(a, low, 0, ctx)
    vb = _multi_use_demanded(b, low, 0, ctx)
    if va is not None or vb is not None:
        _set(ctx, n, n.opcode, [va or a, vb or b])
        return True
    for x in (a, b):
        if x.opcode == "ISD::Constant":
            continue
        m = (1 << (_width(x.vt))) - 1
        ctx.sdb_root = x  # (TargetLowering::SimplifyDemandedBits with DCI: x back on the worklist)
        r = _sdb(x, low if x.uses == 1 else m, 0, ctx)[0]
        ctx.sdb_root = None
        if r:
            return True
    return False


_VISITORS: Final = {
    "ISD::ADD": _visit_ADD, "ISD::SUB": _visit_SUB, "ISD::MUL": _visit_MUL, "ISD::AND": _visit_AND,
    "ISD::OR": _visit_OR, "ISD::XOR": _visit_XOR, "ISD::SHL": _visit_SHL, "ISD::SRL": _visit_SRL,
    "ISD::SRA": _visit_SRA,
    "ISD::SETCC": _visit_other, "ISD::SIGN_EXTEND": _visit_other, "ISD::SELECT": _visit_other,
    "ISD::CTLZ": _visit_COUNT, "ISD::CTTZ": _visit_COUNT, "ISD::CTPOP": _visit_COUNT,
    "ISD::CTLZ_ZERO_UNDEF": _visit_COUNT, "ISD::CTTZ_ZERO_UNDEF": _visit_COUNT, "ISD::BITREVERSE": _visit_COUNT,
    "ISD::SMAX": _visit_MINMAX,
    "ISD::SMIN": _visit_MINMAX, "ISD::UMIN": _visit_MINMAX, "ISD::UMAX": _visit_MINMAX,
    "ISD::ABS": _visit_ABS, "ISD::SIGN_EXTEND_INREG": _visit_SIGN_EXTEND_INREG,
    "AMDGPUISD::MUL_U24": _visit_MUL24, "AMDGPUISD::MUL_I24": _visit_MUL24,
    "ISD::FREEZE": _visit_FREEZE,
}
for _opc in COMMUTATIVE:  # (every commutative opcode gets at least the commuted-form step)
    _VISITORS.setdefault(_opc, _commuted_other)


def _non_negative(n: SDNode, depth: int = 0) -> bool:
    """Known bits: the sign bit of ``n`` is zero."""
    return _known_lz(n, depth) >= 1


def _known_lz(n: SDNode, depth: int = 0) -> int:
    """Known leading zero bits of a 32-bit value (the part of SelectionDAG's
    computeKnownBits the modeled ops need; recursion depth 6 like LLVM's: nothing is
    known below depth 6). Memoized like ``_kb`` in ``kbc``: under key -2 the count
    without a depth limit and the levels it needs (``_lz_full``; with none known there,
    none is known at any depth, as each rule only gains zeros from its operands'),
    else per depth (keys 16 + depth)."""
    if depth > 6:
        return 0
    c = n.kbc
    f = c.get(-2) if c is not None else None
    if f is None:
        f = _lz_full(n, _FULL_ROOM)
    k = f[0]
    if k is not None and (f[1] + depth <= 7 or not k):
        return k
    c = n.kbc
    if c is None:
        c = n.kbc = {}
    k = c.get(16 + depth)
    if k is None:
        ops = _lz_operands(n)
        k = _lz_leaf(n) if ops is None else _lz_rule(n, [_known_lz(o, depth + 1) for o in ops])
        c[16 + depth] = k
    return k


def _lz_full(n: SDNode, room: int) -> tuple[int | None, int]:
    """(known leading zeros without a depth limit, the levels they need, up to 8);
    (None, 99) when cut short by ``room`` (not memoized). (_lz_operands and _lz_rule,
    with the common opcodes inline.)"""
    o: SDNode
    ops: list[SDNode] | None
    f: tuple[int | None, int] | None
    fa: tuple[int | None, int]
    fb: tuple[int | None, int]
    xa: int | None
    xb: int | None
    x: int
    y: int
    c = n.kbc
    if c is not None:
        f = c.get(-2)
        if f is not None:
            return f
    if room <= 0:
        return _CUT
    opc = n.opcode
    if opc in _LZ_BINOPS:
        ops = n.ops
        o = ops[0]
        fa = _lz_full(o, room - 1)
        xa = fa[0]
        if xa is None:
            return _CUT
        o = ops[1]
        fb = _lz_full(o, room - 1)
        xb = fb[0]
        if xb is None:
            return _CUT
        need = fa[1] if fa[1] > fb[1] else fb[1]
        x = xa  # (declared int: compared natively)
        y = xb
        # (_lz_rule)
        if opc == "ISD::AND" or opc == "ISD::UMIN":
            v = x if x > y else y
        elif opc == "ISD::ADD":
            v = (x if x < y else y) - 1
            if v < 0:
                v = 0
        elif opc == "ISD::MUL":
            v = x + y - 32
            if v < 0:
                v = 0
        else:  # OR, XOR, UMAX, SMAX, SMIN
            v = x if x < y else y
        f = (v, need + 1 if need < 7 else 8)
    elif opc in _SHIFTS:
        ops = n.ops
        o = ops[0]
        fa = _lz_full(o, room - 1)
        xa = fa[0]
        if xa is None:
            return _CUT
        x = xa
        # (_lz_rule)
        b = ops[1]
        if b.opcode != "ISD::Constant" or not isinstance(b.value, int):
            v = x if opc != "ISD::SHL" else 0
        else:
            sh = b.value & 31
            if opc == "ISD::SHL":
                v = x - sh if x > sh else 0
            elif opc == "ISD::SRA" and x == 0:
                v = 0
            else:
                v = x + sh if x + sh < 32 else 32
        need = fa[1]
        f = (v, need + 1 if need < 7 else 8)
    elif opc == "ISD::CopyFromReg":
        k = n.klz  # (_lz_leaf)
        if type(k) is not int:
            k = n.klz = _known_lz(k)
        f = (k, 1)
    elif opc == "ISD::Constant" and type(n.value) is int:
        f = (32 - (n.value & 0xFFFFFFFF).bit_length(), 1)  # (_lz_leaf)
    else:
        ops = _lz_operands(n)
        if ops is None:
            f = (_lz_leaf(n), 1)
        else:
            vals = []
            need = 0
            for o in ops:
                fo = _lz_full(o, room - 1)
                if fo[0] is None:
                    return _CUT
                vals.append(fo[0])
                if fo[1] > need:
                    need = fo[1]
            f = (_lz_rule(n, vals), need + 1 if need < 7 else 8)
    if c is None:
        n.kbc = {-2: f}
    else:
        c[-2] = f
    return f


# (min/max are not here: their leading zeros come from KnownBits::umin/umax/smin/smax
# of the operands' known bits, _lz_leaf; e.g. smax of a non-negative value is non-negative
# whatever the other operand)
_LZ_BINOPS: Final = frozenset({"ISD::AND", "ISD::OR", "ISD::XOR", "ISD::ADD", "ISD::MUL"})


def _lz_operands(n: SDNode) -> list | None:
    """The operands whose leading zeros ``_lz_rule`` combines, or None for a node counted
    on its own (``_lz_leaf``)."""
    opc = n.opcode
    if opc in _LZ_BINOPS:
        return n.ops[:2]
    if opc in ("ISD::SRL", "ISD::SRA", "ISD::SHL"):
        return n.ops[:1]
    if opc == "ISD::SELECT":
        return n.ops[1:3]
    return None


def _lz_leaf(n: SDNode) -> int:
    opc = n.opcode
    if opc == "ISD::Constant":
        if not isinstance(n.value, int):
            return 0
        return 32 - (n.value & 0xFFFFFFFF).bit_length()
    if opc == "ISD::CopyFromReg":
        # recorded where the value was computed (sdag._Builder.live_lz): the exporting
        # node of that finished block until first asked, counted from depth 0 there
        k = n.klz
        if type(k) is not int:
            k = n.klz = _known_lz(k)
        return k
    if opc in _KB_INTRINSIC or opc == "ISD::SIGN_EXTEND_INREG":
        # (the counts, bitreverse, abs, min/max, sign_extend_inreg: from the operands'
        # known bits, _kb_intrinsic / _sext_in_reg_known)
        return _kb(n, None).lead_zeros()
    if opc == "ISD::INTRINSIC_WO_CHAIN":
        # a workitem id is lowered with AssertZext to the bits of the largest id (flat
        # workgroup size 1024 by default: 10 bits, SITargetLowering::lowerWorkitemID)
        return 22 if (n.intrinsic or "").startswith("llvm.amdgcn.workitem.id.") else 0
    if opc == "ISD::AssertZext":
        return 32 - int(n.ops[1].vt[1:])
    if opc == "AMDGPUISD::BFE_U32":
        w = n.ops[2]
        return 32 - (w.value & 31) if _is_c(w) and 0 < (w.value & 31) else 0
    return 0


def _lz_rule(n: SDNode, vals: list) -> int:
    """The leading zeros of ``n`` from its operands' (``_lz_operands``)."""
    opc = n.opcode
    if opc == "ISD::SELECT":
        return min(vals[0], vals[1])
    x = vals[0]
    if opc in ("ISD::SRL", "ISD::SRA", "ISD::SHL"):
        b = n.ops[1]
        if not _is_c(b):
            return x if opc != "ISD::SHL" else 0
        c = b.value & 31
        if opc == "ISD::SHL":
            return x - c if x > c else 0
        if opc == "ISD::SRA" and x == 0:
            return 0
        return min(32, x + c)
    y = vals[1]
    if opc in ("ISD::AND", "ISD::UMIN"):
        return max(x, y)
    if opc in ("ISD::OR", "ISD::XOR", "ISD::UMAX", "ISD::SMAX", "ISD::SMIN"):
        return min(x, y)
    if opc == "ISD::ADD":
        return max(0, min(x, y) - 1)
    if opc == "ISD::MUL":
        return max(0, x + y - 32)
    return 0


def _reassociate(n: SDNode, n0: SDNode, n1: SDNode, ctx: _Ctx, opc: str | None = None) -> bool:
    """DAGCombiner::reassociateOps for opcode ``opc`` (``n``'s own unless given: visitOR
    runs visitADDLike's reassociation of ADD operands on an add-like or)."""
    if opc is None:
        opc = n.opcode
    if n0.opcode != opc:
        return False
    n00, n01 = n0.ops
    if _is_c(n01):
        if _is_c(n1):
            folded = ctx.const(_FOLD[opc](n01.value, n1.value), n.vt)
            _set(ctx, n, opc, [n00, folded])
            return True
        if n0.uses == 1 and (n0.divergent or not n1.divergent):
            inner = ctx.new(opc, n.vt, [n00, n1], like=n0)
            _set(ctx, n, opc, [inner, n01])
            return True
    if opc == "ISD::XOR":
        if n1 is n00:
            ctx.replace(n, n01)
            return True
        if n1 is n01:
            ctx.replace(n, n00)
            return True
    if opc in ("ISD::AND", "ISD::OR") and (n1 is n00 or n1 is n01):
        ctx.replace(n, n0)
        return True
    if n0.uses == 1 and (n0.divergent or not n1.divergent):
        # DAGCombiner::reassociateOpsCommutative: (op (op n00, n01), n1) -> (op e, n01)
        # when e = (op n00, n1) is already a node of the DAG (getNodeIfExists, operands
        # in that order), or (op e, n00) with e = (op n01, n1); not when the result
        # itself exists already (doesNodeExist, which would make the two loop)
        if n1 is not n01:
            e = ctx.existing(opc, n00, n1)
            if e is not None and ctx.existing(opc, e, n01) is None:
                _set(ctx, n, opc, [e, n01])
                return True
        if n1 is not n00:
            e = ctx.existing(opc, n01, n1)
            if e is not None and ctx.existing(opc, e, n00) is None:
                _set(ctx, n, opc, [e, n00])
                return True
    return False


def _reassociate_scalar(n: SDNode, ctx: _Ctx) -> bool:
    op0: Any
    op1: Any
    x: Any
    y: Any
    opc = n.opcode
    op0, op1 = n.ops
    if opc == "ISD::ADD" and _is_c(op1):
        return False  # isBaseWithConstantOffset
    if op0.divergent == op1.divergent:
        return False
    if op0.divergent:
        op0, op1 = op1, op0
    if op1.opcode != opc or not op1.uses == 1:
        return False
    x, y = op1.ops
    if x.divergent == y.divergent:
        return False
    if x.divergent:
        x, y = y, x
    inner = ctx.new(opc, n.vt, [op0, x], like=op1)
    _set(ctx, n, opc, [inner, y])
    return True


def _other_rules(n: SDNode, ctx: _Ctx) -> bool:
    opc = n.opcode
    ops = n.ops
    if opc == "ISD::SETCC":
        return _setcc_rules(n, ctx)
    if opc == "ISD::SRA" and _is_c(ops[1]) and ops[0].opcode == "ISD::SHL" and _is_c(ops[0].ops[1]) \
            and ops[0].ops[1].value == ops[1].value and ops[1].value in (16, 24) and n.vt == "i32" \
            and "ISD::SIGN_EXTEND_INREG" in ctx.legal:
        _set(ctx, n, "ISD::SIGN_EXTEND_INREG", [ops[0].ops[0], ctx.vtnode(f"i{32 - ops[1].value}")])
        return True
    if opc == "ISD::SIGN_EXTEND" and n.vt == "i32" and ops and ops[0].opcode == "ISD::TRUNCATE" \
            and ops[0].vt in ("i8", "i16") and ops[0].ops[0].vt == "i32" \
            and "ISD::SIGN_EXTEND_INREG" in ctx.legal:
        # visitSIGN_EXTEND: sext (trunc x) with x already of the result type
        _set(ctx, n, "ISD::SIGN_EXTEND_INREG", [ops[0].ops[0], ctx.vtnode(ops[0].vt)])
        return True
    if opc == "ISD::SELECT" and len(ops) == 3 and ops[0].opcode == "ISD::SETCC" and n.vt == "i32":
        c, a, b = ops
        if c.cc in _MINMAX and c.uses == 1 and all(m in ctx.legal for m in _MINMAX[c.cc]):
            if c.ops[0] is a and c.ops[1] is b:
                _set(ctx, n, _MINMAX[c.cc][0], [a, b])
                return True
            if c.ops[0] is b and c.ops[1] is a:
                _set(ctx, n, _MINMAX[c.cc][1], [b, a])
                return True
    if opc in ("ISD::CTLZ", "ISD::CTTZ") and n.vt == "i32" and opc + "_ZERO_UNDEF" in ctx.legal \
            and _never_zero(ops[0], ctx):
        # visitCTLZ/visitCTTZ: a value known never to be zero counts as the zero-undef
        # form (before the target lowers the zero-defined one with a umin)
        inner = ctx.new(opc + "_ZERO_UNDEF", "i32", [ops[0]], like=n)
        inner.intrinsic = n.intrinsic
        ctx.commit(n, inner)
        return True
    if opc in ("ISD::CTLZ", "ISD::CTTZ") and n.vt == "i32" and opc + "_ZERO_UNDEF" in ctx.legal \
            and "ISD::UMIN" in ctx.legal:
        inner = ctx.new(opc + "_ZERO_UNDEF", "i32", [ops[0]], like=n)
        inner.intrinsic = n.intrinsic
        _set(ctx, n, "ISD::UMIN", [inner, ctx.const(32, "i32")])
        return True
    if opc == "ISD::SMAX" and len(ops) == 2 and not ctx.legal_ops:
        # (before legalization only: after it a divergent abs is this smax, _legalize_abs)
        for x, s in ((ops[0], ops[1]), (ops[1], ops[0])):
            if s.opcode == "ISD::SUB" and _is_c(s.ops[0]) and s.ops[0].value == 0 and s.ops[1] is x \
                    and "ISD::ABS" in ctx.legal:
                _set(ctx, n, "ISD::ABS", [x])
                return True
    return False


def _setcc_rules(n: SDNode, ctx: _Ctx) -> bool:
    """TargetLowering::SimplifySetCC for an integer equality compare whose operand is an
    add, sub or xor: the folds that drop that operation (when nothing else uses it); for
    an ordered compare ``_setcc_ordered``."""
    if len(n.ops) != 2:
        return False
    n0, n1 = n.ops
    if n0.vt == "i1" or not n0.vt.startswith("i"):
        return False
    if n.cc not in ("SETEQ", "SETNE"):
        return _setcc_ordered(n, n0, n1, ctx)
    if _is_c(n0) and not _is_c(n1):
        _set(ctx, n, "ISD::SETCC", [n1, n0])  # the constant goes to the right (equality: same condition)
        return True
    vt = n0.vt
    arith = ("ISD::ADD", "ISD::SUB", "ISD::XOR")
    if n0.opcode in arith:
        if n0.opcode == n1.opcode:
            # (X op Y) == (X op Z) -> Y == Z (and the commuted forms for add/xor)
            a0, a1 = n0.ops
            b0, b1 = n1.ops
            pairs = [(a0, b0, a1, b1), (a1, b1, a0, b0)]
            if n0.opcode != "ISD::SUB":
                pairs += [(a0, b1, a1, b0), (a1, b0, a0, b1)]
            for x, y, p, q in pairs:
                if x is y:
                    _set(ctx, n, "ISD::SETCC", [p, q])
                    return True
        legal_imm = False
        if _is_c(n1):
            c2 = n1.value
            a0, a1 = n0.ops
            if _is_c(a1) and n0.uses == 1:
                if n0.opcode == "ISD::ADD":  # (X + C1) == C2 -> X == C2 - C1
                    _set(ctx, n, "ISD::SETCC", [a0, ctx.const(c2 - a1.value, vt)])
                    return True
                if n0.opcode == "ISD::XOR":  # (X ^ C1) == C2 -> X == C1 ^ C2
                    _set(ctx, n, "ISD::SETCC", [a0, ctx.const(c2 ^ a1.value, vt)])
                    return True
            if n0.opcode == "ISD::SUB" and _is_c(a0) and n0.uses == 1:  # (C1 - X) == C2 -> X == C1 - C2
                _set(ctx, n, "ISD::SETCC", [a1, ctx.const(a0.value - c2, vt)])
                return True
            legal_imm = True  # isLegalICmpImmediate (any immediate on AMDGPU)
        if (not legal_imm or n0.uses == 1) and _setcc_binop(n, n0, n1, ctx):
            return True
    if n1.opcode in arith and _setcc_binop(n, n1, n0, ctx):
        return True
    return False


_SWAPPED_CC: Final = {"SETLT": "SETGT", "SETGT": "SETLT", "SETLE": "SETGE", "SETGE": "SETLE",
                      "SETULT": "SETUGT", "SETUGT": "SETULT", "SETULE": "SETUGE", "SETUGE": "SETULE"}


def _setcc_ordered(n: SDNode, n0: SDNode, n1: SDNode, ctx: _Ctx) -> bool:
    """SimplifySetCC for a signed or unsigned integer compare: a constant LHS moves to the
    right with the swapped condition (FoldSetCC / the canonicalization), then
    ``~X < ~Y`` -> ``Y < X`` and ``~X < C`` -> ``~C < X``, i.e. ``X > ~C`` once the
    constant has moved right (any ordered condition). Dropping the not's use matters to
    selection: an xor that fed ``not`` and the compare is no longer ``xor_oneuse``, so
    ``s_xnor_b32`` is not formed.

    Not modeled (no effect on the compared opcodes while the compare stays a compare):
    the rewrites of the condition and constant before it (``X >= C`` -> ``X > C-1``,
    ``X <= C`` -> ``X < C+1``, ``setlt X, MAX`` -> ``setne``, the SINTMIN/SINTMAX ones),
    and the folds of a compare against MIN/MAX to a constant true/false."""
    cc = n.cc
    swapped = _SWAPPED_CC.get(cc)
    if swapped is None:
        return False
    if _is_c(n0) and not _is_c(n1):
        ctx.commit(n, ctx.get("ISD::SETCC", n.vt, [n1, n0], like=n, cc=swapped))
        return True
    if _is_not(n0):
        if _is_not(n1):  # ~X op ~Y -> Y op X
            ctx.commit(n, ctx.get("ISD::SETCC", n.vt, [n1.ops[0], n0.ops[0]], like=n, cc=cc))
            return True
        if _is_c(n1) and not _is_c(n0.ops[0]):  # ~X op C -> ~C op X -> X swapped(op) ~C
            ctx.commit(n, ctx.get("ISD::SETCC", n.vt, [n0.ops[0], ctx.const(~n1.value, n0.vt)],
                                  like=n, cc=swapped))
            return True
    return False


def _setcc_binop(n: SDNode, n0: SDNode, n1: SDNode, ctx: _Ctx) -> bool:
    """TargetLowering::foldSetCCWithBinOp: (X op Y) == X -> Y == 0; (X + Y) == Y,
    (X ^ Y) == Y -> X == 0; (X - Y) == Y -> X == Y << 1 (the sub used once)."""
    x, y = n0.ops
    vt = n0.vt
    if x is n1:
        _set(ctx, n, "ISD::SETCC", [y, ctx.const(0, vt)])
        return True
    if y is not n1:
        return False
    if n0.opcode in ("ISD::ADD", "ISD::XOR"):
        _set(ctx, n, "ISD::SETCC", [x, ctx.const(0, vt)])
        return True
    if not n0.uses == 1:
        return False
    sh = ctx.new("ISD::SHL", vt, [n1, ctx.const(1, vt)], like=n0)
    ctx.add(sh)  # (foldSetCCWithBinOp puts the shift on the worklist)
    _set(ctx, n, "ISD::SETCC", [x, sh])
    return True


# --- known bits and demanded bits ----------------------------------------------------------

_MAX_DEPTH: Final = 6  # SelectionDAG::MaxRecursionDepth


_WIDTH: Final[dict] = {}


def _width(vt: str) -> int:
    w = _WIDTH.get(vt)
    if w is None:
        w = _WIDTH[vt] = int(vt[1:]) if vt[:1] == "i" and vt[1:].isdigit() else 0
    return w


def _kb(n: SDNode, ctx: _Ctx | None, depth: int = 0) -> Known:
    """SelectionDAG::computeKnownBits for the modeled nodes, at recursion depth ``depth``
    (constants are known at any depth, other nodes not at depth 6 and beyond).

    Memoized in ``kbc`` while a run lasts, exactly: under key -1 the answer without a
    depth limit and the depth it needs (``_kb_full``). That answer is the one at every
    depth with room for its need; when it knows no bit, no depth knows one (each
    transfer function only gains bits from known operand bits). Other answers, cut
    short by the limit, are memoized under their depth. ``_invalidate`` drops the memos
    when the node or a node below it changes."""
    k: Known | None
    g: tuple[Known | None, int]
    need: int
    g = _kb_full(n, ctx, _FULL_ROOM)  # (memoized there; a typed tuple, read natively)
    k, need = g
    if k is not None and (need + depth <= 6 or not (k.zero | k.one)):
        return k
    if depth >= 6:
        return _unknown(_width(n.vt) or 1)
    c = n.kbc
    if c is None:
        c = n.kbc = {}
    k = c.get(depth)
    if k is None:
        k = c[depth] = _kb_node(n, ctx, depth, _width(n.vt))
    return k


# how deep _kb_full follows operands (a longer chain is answered depth by depth)
_FULL_ROOM: Final = 100


def _kb_full(n: SDNode, ctx: _Ctx | None, room: int) -> tuple[Known | None, int]:
    """(known bits without a depth limit, the depth they need): 0 for a constant or a
    value without width, 1 for a node known without looking at operands, one more than
    its operands' for the others (counted up to 7). Looks at most ``room`` levels down;
    a node cut short by that gets (None, 99), not memoized. (The answers of constants
    and of leaves are shared tuples: neither they nor their Known are ever changed.)"""
    ka: Known
    kb: Known
    ka0: Known | None
    kb0: Known | None
    kx: Known | None
    need: int
    na: int
    nb: int
    z: int
    o: int
    f: tuple[Known | None, int] | None
    fa: tuple[Known | None, int]
    fb: tuple[Known | None, int]
    c = n.kbc
    if c is not None:
        f = c.get(-1)
        if f is not None:
            return f
    vt = n.vt
    bits = _width(vt)
    opc = n.opcode
    if opc == "ISD::Constant" and type(n.value) is int and bits:
        u = n.value & ((1 << bits) - 1)
        f = _CONST_FULL.get((u, bits))
        if f is None:
            f = _CONST_FULL[(u, bits)] = (const_known(u, bits), 0)
    elif not bits:
        f = _NO_WIDTH_FULL
    elif room <= 0:
        return _CUT
    elif opc == "ISD::CopyFromReg":
        # (_kb_leaf: the known leading zeros, _lz_leaf's count)
        lz = n.klz
        if type(lz) is not int:
            lz = n.klz = _known_lz(lz)
        f = _LEAF_FULL.get((lz, bits))
        if f is None:
            f = _LEAF_FULL[(lz, bits)] = (_lz_known(lz, bits) if lz else _unknown(bits), 1)
    else:
        ops = n.ops
        if opc in _KB_BINOPS and len(ops) == 2:
            x = ops[0]
            fa = _kb_full(x, ctx, room - 1)
            x = ops[1]
            fb = _kb_full(x, ctx, room - 1)
            ka0, na = fa  # (unpacked: the items of a typed tuple are read natively)
            kb0, nb = fb
            if ka0 is None or kb0 is None:
                return _CUT
            ka = ka0  # (declared Known: their fields are read natively)
            kb = kb0
            need = na if na > nb else nb
            need = need + 1 if need < 6 else 7
            if not (ka.zero | ka.one | kb.zero | kb.one):
                # (no binary op knows a bit of unknown operands)
                f = _UNK_FULL[need] if bits == 32 else (_unknown(bits), need)
            else:
                # (_kb_binop on masks; the arithmetic at the first operand's width, as
                # knownbits' add_carry, mul_known and shift_known compute it)
                if opc == "ISD::XOR":
                    z, o = (ka.zero & kb.zero) | (ka.one & kb.one), (ka.zero & kb.one) | (ka.one & kb.zero)
                elif opc == "ISD::AND":
                    z, o = ka.zero | kb.zero, ka.one & kb.one
                elif opc == "ISD::OR":
                    z, o = ka.zero & kb.zero, ka.one | kb.one
                else:
                    bits = ka.bits
                    if opc == "ISD::ADD":
                        z, o = add_carry_masks(ka.zero, ka.one, kb.zero, kb.one, (1 << bits) - 1, True, False)
                    elif opc == "ISD::SUB":
                        z, o = add_carry_masks(ka.zero, ka.one, kb.one, kb.zero, (1 << bits) - 1, False, True)
                    elif opc == "ISD::MUL":
                        z, o = mul_masks(ka.zero, ka.one, kb.zero, kb.one, bits, kb.bits)
                    else:
                        z, o = _kb_shift_masks(opc, bits, ka, kb)
                if z | o:
                    f = (Known(z, o, bits), need)
                else:  # (nothing known: the shared answer)
                    f = _UNK_FULL[need] if bits == 32 else (_unknown(bits), need)
        elif opc == "ISD::SELECT" and len(ops) == 3:
            fa = _kb_full(ops[1], ctx, room - 1)
            fb = _kb_full(ops[2], ctx, room - 1)
            if fa[0] is None or fb[0] is None:
                return _CUT
            need = fa[1] if fa[1] > fb[1] else fb[1]
            f = (fa[0].intersect(fb[0]), need + 1 if need < 6 else 7)
        elif opc == "ISD::SIGN_EXTEND_INREG" and len(ops) == 2 and _width(ops[1].vt):
            fa = _kb_full(ops[0], ctx, room - 1)
            if fa[0] is None:
                return _CUT
            need = fa[1]
            f = (_sext_in_reg_known(fa[0], _width(ops[1].vt)), need + 1 if need < 6 else 7)
        elif opc == "ISD::ABS":
            # (its known bits also take the operand's sign bits at the next depth,
            # which have no answer without a depth limit: answered depth by depth)
            return _CUT
        elif opc in _KB_INTRINSIC and ops:
            fa = _kb_full(ops[0], ctx, room - 1)
            if fa[0] is None:
                return _CUT
            need = fa[1]
            kx = None
            if opc in _KB_MINMAX:
                fb = _kb_full(ops[1], ctx, room - 1)
                if fb[0] is None:
                    return _CUT
                if fb[1] > need:
                    need = fb[1]
                kx = fb[0]
            f = (_kb_intrinsic(opc, bits, fa[0], kx), need + 1 if need < 6 else 7)
        else:
            f = (_kb_leaf(n, opc, bits), 1)
    if c is None:
        n.kbc = {-1: f}
    else:
        c[-1] = f
    return f


_CONST_FULL: Final[dict] = {}  # (value, bits) -> the _kb_full answer of that constant
_LEAF_FULL: Final[dict] = {}   # (leading zeros, bits) -> the _kb_full answer of such a CopyFromReg


_CUT: Final = (None, 99)
_UNKNOWN: Final[dict] = {}


def _unknown(bits: int) -> Known:
    """The shared Known of ``bits`` bits with no bit known (Known values are never
    changed once made)."""
    k = _UNKNOWN.get(bits)
    if k is None:
        k = _UNKNOWN[bits] = Known(0, 0, bits)
    return k


_UNK32: Final = _unknown(32)
_UNK_FULL: Final = [(_UNK32, need) for need in range(8)]  # (_kb_full answers)
_NO_WIDTH_FULL: Final = (Known(0, 0, 1), 0)
_LZ_KNOWN: Final[dict] = {}  # (leading zeros, bits) -> Known


def _lz_known(lz: int, bits: int) -> Known:
    """The shared Known of a ``bits``-bit value with ``lz`` known leading zeros."""
    k = _LZ_KNOWN.get((lz, bits))
    if k is None:
        m = (1 << bits) - 1
        k = _LZ_KNOWN[(lz, bits)] = Known(m & ~(m >> lz) if lz < bits else m, 0, bits)
    return k


def _kb_node(n: SDNode, ctx: _Ctx | None, depth: int, bits: int) -> Known:
    """The known bits of ``n`` from its operands' at ``depth + 1``."""
    opc = n.opcode
    ops = n.ops
    if opc in _KB_BINOPS and len(ops) == 2:
        return _kb_binop(opc, bits, _kb(ops[0], ctx, depth + 1), _kb(ops[1], ctx, depth + 1))
    if opc == "ISD::SELECT" and len(ops) == 3:
        return _kb(ops[1], ctx, depth + 1).intersect(_kb(ops[2], ctx, depth + 1))
    if opc == "ISD::SIGN_EXTEND_INREG" and len(ops) == 2 and _width(ops[1].vt):
        return _sext_in_reg_known(_kb(ops[0], ctx, depth + 1), _width(ops[1].vt))
    if opc in _KB_INTRINSIC and ops:
        k = _kb_intrinsic(opc, bits, _kb(ops[0], ctx, depth + 1),
                          _kb(ops[1], ctx, depth + 1) if opc in _KB_MINMAX else None)
        if opc == "ISD::ABS":
            # the absolute value of a value with s sign bits has s - 1 leading zeros
            # (SelectionDAG::computeKnownBits, ISD::ABS, in LLVM 19)
            s = _sign_bits(ops[0], ctx, depth + 1)
            if s > 1:
                hz = ((1 << bits) - 1) & ~((1 << (bits - s + 1)) - 1)
                if hz & ~k.zero:
                    k = Known(k.zero | hz, k.one & ~hz, bits)
        return k
    return _kb_leaf(n, opc, bits)


_KB_MINMAX: Final = {"ISD::UMIN": umin_masks, "ISD::UMAX": umax_masks, "ISD::SMIN": smin_masks, "ISD::SMAX": smax_masks}
_KB_COUNT: Final = {"ISD::CTPOP": "ctpop", "ISD::CTLZ": "ctlz", "ISD::CTLZ_ZERO_UNDEF": "ctlz", "ISD::CTTZ": "cttz",
                    "ISD::CTTZ_ZERO_UNDEF": "cttz"}
_KB_INTRINSIC: Final = frozenset(_KB_MINMAX) | frozenset(_KB_COUNT) | {"ISD::BITREVERSE", "ISD::ABS"}


def _sext_in_reg_known(k: Known, ext: int) -> Known:
    """KnownBits::sextInReg: the low ``ext`` bits, their top bit copied upward."""
    bits = k.bits
    if ext >= bits:
        return k
    m = (1 << bits) - 1
    low = (1 << ext) - 1
    high = m & ~low
    z, o = k.zero & low, k.one & low
    if z >> (ext - 1) & 1:
        z |= high
    if o >> (ext - 1) & 1:
        o |= high
    if not (z | o):
        return _UNK32 if bits == 32 else _unknown(bits)
    return Known(z, o, bits)


def _kb_intrinsic(opc: str, bits: int, ka: Known, kb: Known | None) -> Known:
    """SelectionDAG::computeKnownBits of the counting, bit-reversing, abs and min/max
    nodes from their operands' (KnownBits::umin/umax/smin/smax, abs with INT_MIN
    allowed; a count is below 2^(bit width of its largest possible value), with no
    zero-undef clamp in the DAG)."""
    if kb is not None:
        z, o = _KB_MINMAX[opc](ka.zero, ka.one, kb.zero, kb.one, bits)
    elif opc == "ISD::BITREVERSE":
        z, o = reverse_masks(ka.zero, ka.one, bits)
    elif opc == "ISD::ABS":
        z, o = abs_masks(ka.zero, ka.one, bits, False)
    else:
        z, o = count_masks(_KB_COUNT[opc], ka.zero, ka.one, bits)
    if not (z | o):
        return _UNK32 if bits == 32 else _unknown(bits)
    return Known(z, o, bits)


def _kb_binop(opc: str, bits: int, ka: Known, kb: Known) -> Known:
    if opc == "ISD::AND":
        return Known(ka.zero | kb.zero, ka.one & kb.one, bits)
    if opc == "ISD::OR":
        return Known(ka.zero & kb.zero, ka.one | kb.one, bits)
    if opc == "ISD::XOR":
        return Known((ka.zero & kb.zero) | (ka.one & kb.one), (ka.zero & kb.one) | (ka.one & kb.zero), bits)
    if opc == "ISD::ADD":
        return add_carry(ka, kb, True, False)
    if opc == "ISD::SUB":
        return add_carry(ka, Known(kb.one, kb.zero, bits), False, True)
    if opc == "ISD::MUL":
        return mul_known(ka, kb)
    return shift_known(ka, _KB_SHIFT[opc], kb)


def _kb_shift_masks(opc: str, bits: int, ka: Known, kb: Known) -> tuple:
    """``_kb_binop`` for a shift, as (zero, one) masks: by a constant amount (every bit
    of ``kb`` known, less than ``bits``) directly, what knownbits.shift_masks computes
    for one possible amount; other amounts by shift_masks."""
    az, c = kb.zero, kb.one
    if c >= bits or (az | c) != (1 << kb.bits) - 1:
        return shift_masks(ka.zero, ka.one, _KB_SHIFT[opc], az, c, bits, kb.bits)
    m = (1 << bits) - 1
    kz, ko = ka.zero, ka.one
    if not (kz | ko):
        if opc == "ISD::SHL":
            return (1 << c) - 1, 0
        if opc == "ISD::SRL":
            return m & ~(m >> c), 0
        return 0, 0
    if opc == "ISD::SHL":
        z, o = ((kz << c) | ((1 << c) - 1)) & m, (ko << c) & m
    elif opc == "ISD::SRL":
        z, o = (kz >> c) | (m & ~(m >> c)), ko >> c
    else:
        z, o = kz >> c, ko >> c
        if kz >> (bits - 1) & 1:
            z |= m & ~(m >> c)
        if ko >> (bits - 1) & 1:
            o |= m & ~(m >> c)
    if z & o:
        return m, 0  # (conflicting operand bits: shift_masks' answer)
    return z, o


def _kb_leaf(n: SDNode, opc: str, bits: int) -> Known:
    """The known bits of a node that are not computed from its operands' (at any depth
    below the limit)."""
    if opc == "ISD::CopyFromReg":
        lz = _known_lz(n)
        return _lz_known(lz, bits) if lz else (_UNK32 if bits == 32 else _unknown(bits))
    if opc in ("AMDGPUISD::BFE_U32", "ISD::INTRINSIC_WO_CHAIN"):
        return _lz_known(_known_lz(n), bits)
    return _UNK32 if bits == 32 else _unknown(bits)


_KB_BINOPS: Final = frozenset({"ISD::AND", "ISD::OR", "ISD::XOR", "ISD::ADD", "ISD::SUB", "ISD::MUL",
                               "ISD::SHL", "ISD::SRL", "ISD::SRA"})
_KB_SHIFT: Final = {"ISD::SHL": "shl", "ISD::SRL": "lshr", "ISD::SRA": "ashr"}


def _sign_bits(n: SDNode, ctx: _Ctx | None, depth: int = 0) -> int:
    """SelectionDAG::ComputeNumSignBits for the modeled nodes; memoized like ``_kb``
    (keys 32 + depth)."""
    c = n.kbc
    if c is not None:
        k = c.get(32 + depth)
        if k is not None:
            return k
    k = _sign_bits_node(n, ctx, depth)
    c = n.kbc
    if c is None:
        c = n.kbc = {}
    c[32 + depth] = k
    return k


def live_sign_bits(n: SDNode) -> int:
    """The sign bits llc records for a value its block exports (SelectionDAGISel::
    ComputeLiveOutVRegInfo: ComputeNumSignBits of the copied node, depth 0, in its
    finished block); ``n`` is that node."""
    return _sign_bits(n, None, 0)


def _sign_bits_node(n: SDNode, ctx: _Ctx | None, depth: int) -> int:
    """SelectionDAG::ComputeNumSignBits (LLVM 19) of one node: a constant's own count at
    any depth, 1 at depth 6 and beyond; the cases of the modeled opcodes, which either
    answer directly (SRA, SIGN_EXTEND_INREG, ADD, SUB, SELECT, min/max, MUL with sign bits
    on both sides; their early ``1``s skip the known bits) or give a first answer the
    known bits of the node may better (AND/OR/XOR, SHL past its sign bits, the rest)."""
    a: Any
    hi: Any
    bits = _width(n.vt)
    if not bits:
        return 1
    opc = n.opcode
    if opc == "ISD::Constant" and type(n.value) is int:
        u = n.value & ((1 << bits) - 1)
        return clz(u ^ ((1 << bits) - 1) if u >> (bits - 1) else u, bits)
    if depth >= _MAX_DEPTH:
        return 1
    ops = n.ops
    d1 = depth + 1
    first = 1
    if opc == "ISD::CopyFromReg":
        # a value read from another block's register: through an AssertZext of its
        # recorded leading zeros (VTBits - width), else an AssertSext of its recorded
        # sign bits (VTBits - width + 1); with neither, nothing is known
        lz, s = _copy_assert(n)
        return lz if lz else max(s, 1)
    if opc == "ISD::SRA":
        t = _sign_bits(ops[0], ctx, d1)
        r = _shift_amount_range(n, bits, ctx, d1)
        if r is not None:
            t = min(t + r[0], bits)
        return t
    if opc == "ISD::SHL":
        r = _shift_amount_range(n, bits, ctx, d1)
        if r is not None:
            lo, hi = r
            a = ops[0]
            if a.opcode in _EXT_OPS and a.ops:
                diff = bits - (_width(a.ops[0].vt) or bits)
                if diff <= lo:
                    t = diff + _sign_bits(a.ops[0], ctx, d1)
                    if hi < t:
                        return t - hi
            t = _sign_bits(a, ctx, d1)
            if hi < t:
                return t - hi
    elif opc in _SDB_LOGIC:
        t = _sign_bits(ops[0], ctx, d1)
        if t != 1:
            t2 = _sign_bits(ops[1], ctx, d1)
            first = t if t < t2 else t2
    elif opc == "ISD::ADD":
        t = _sign_bits(ops[0], ctx, d1)
        if t == 1:
            return 1
        b = ops[1]
        if b.opcode == "ISD::Constant" and type(b.value) is int and _wrap(b.value, n.vt) == -1:
            s = _sign_bits_step(_kb(ops[0], ctx, d1), bits, t)  # (x - 1)
            if s:
                return s
        t2 = _sign_bits(b, ctx, d1)
        if t2 == 1:
            return 1
        return (t if t < t2 else t2) - 1
    elif opc == "ISD::SUB":
        t2 = _sign_bits(ops[1], ctx, d1)
        if t2 == 1:
            return 1
        a = ops[0]
        if a.opcode == "ISD::Constant" and type(a.value) is int and _wrap(a.value, n.vt) == 0:
            s = _sign_bits_step(_kb(ops[1], ctx, d1), bits, t2)  # (0 - x)
            if s:
                return s
        t = _sign_bits(a, ctx, d1)
        if t == 1:
            return 1
        return (t if t < t2 else t2) - 1
    elif opc == "ISD::MUL":
        s0 = _sign_bits(ops[0], ctx, d1)
        if s0 != 1:
            s1 = _sign_bits(ops[1], ctx, d1)
            if s1 != 1:
                valid = (bits - s0 + 1) + (bits - s1 + 1)
                return 1 if valid > bits else bits - valid + 1
    elif opc == "ISD::SIGN_EXTEND_INREG" and len(ops) == 2 and ops[1].opcode == "ISD::VALUETYPE" \
            and _width(ops[1].vt):
        t = bits - _width(ops[1].vt) + 1
        t2 = _sign_bits(ops[0], ctx, d1)
        return t if t > t2 else t2
    elif opc == "ISD::SELECT" and len(ops) == 3:
        t = _sign_bits(ops[1], ctx, d1)
        if t == 1:
            return 1
        t2 = _sign_bits(ops[2], ctx, d1)
        return t if t < t2 else t2
    elif opc in _KB_MINMAX and len(ops) == 2:
        if opc == "ISD::SMIN" or opc == "ISD::SMAX":
            # a clamp smax(smin(x, hi), lo) / smin(smax(x, lo), hi) with lo <= hi: the
            # fewer sign bits of the two bounds
            a, lo = ops
            if _is_c(lo) and a.opcode == ("ISD::SMIN" if opc == "ISD::SMAX" else "ISD::SMAX") \
                    and len(a.ops) == 2 and _is_c(a.ops[1]):
                hi = a.ops[1]
                if opc == "ISD::SMIN":
                    lo, hi = hi, lo
                lv, hv = _wrap(lo.value, n.vt), _wrap(hi.value, n.vt)
                if lv <= hv:
                    ls, hs = _sign_bits(lo, ctx, d1), _sign_bits(hi, ctx, d1)
                    return ls if ls < hs else hs
        t = _sign_bits(ops[0], ctx, d1)
        if t == 1:
            return 1
        t2 = _sign_bits(ops[1], ctx, d1)
        return t if t < t2 else t2
    elif opc == "ISD::AssertZext" and len(ops) == 2 and _width(ops[1].vt):
        return bits - _width(ops[1].vt)
    # the known bits of the node itself, at this depth (KnownBits::countMinSignBits)
    k = _kb(n, ctx, depth)
    z = k.zero
    mask = z if z >> (bits - 1) & 1 else (k.one if k.one >> (bits - 1) & 1 else 0)
    return max(first, clz(~mask & ((1 << bits) - 1), bits)) if mask else first


def _sign_bits_step(k: Known, bits: int, t: int) -> int:
    """ComputeNumSignBits of ``x - 1`` or ``0 - x`` from x's known bits ``k`` and sign
    bits ``t``: every bit for an x in {0, 1} (the result is 0 or -1), ``t`` for a
    non-negative x (no carry out), else 0 (the general rule applies)."""
    if (k.zero | 1) == (1 << bits) - 1:
        return bits
    return t if k.zero >> (bits - 1) & 1 else 0


_EXT_OPS: Final = frozenset({"ISD::ZERO_EXTEND", "ISD::SIGN_EXTEND", "ISD::ANY_EXTEND"})


def _shift_amount_range(n: SDNode, bits: int, ctx: _Ctx | None, depth: int):
    """SelectionDAG::getValidShiftAmountRange of shift ``n`` (LLVM 19): (min, max) of its
    amount, from a constant (None when not below the width) or from the amount's known
    bits at ``depth`` (None when its largest possible value is not below the width)."""
    amt = n.ops[1]
    if amt.opcode == "ISD::Constant" and type(amt.value) is int:
        aw = _width(amt.vt) or bits
        v = amt.value & ((1 << aw) - 1)
        return (v, v) if v < bits else None
    k = _kb(amt, ctx, depth)
    hi = ~k.zero & ((1 << k.bits) - 1)
    return (k.one, hi) if hi < bits else None


def _demanded_root(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner's SimplifyDemandedBits(SDValue(N, 0)) at the end of visitAND, visitOR,
    visitXOR, the shift visits and visitADD/SUB/MUL: every bit of ``n`` demanded.

    Passed over where it provably cannot change anything (``_sdb_inert``: same answers,
    less work)."""
    opc = n.opcode
    if opc not in _SDB_ROOTS:
        return False
    if _SDB_SHORTCUTS[0] and _sdb_inert(n, 0, ctx):
        return False
    k = _kb(n, ctx, 0)
    bits = k.bits
    m = (1 << bits) - 1
    if (k.zero | k.one) ^ m:
        if bits == 1:
            return False
        # DAGCombiner::SimplifyDemandedBits: a replacement it makes puts ``n`` back on
        # the worklist first (ctx.commit)
        ctx.sdb_root = n
        r = _sdb(n, m, 0, ctx)[0]
    else:
        ctx.sdb_root = n
        r = _demanded_const(n, m, k, ctx)  # every bit known
    ctx.sdb_root = None
    return r


def _looked_into(v: SDNode, depth: int, ctx: _Ctx) -> bool:
    """Whether ``_sdb(v, every bit, depth)`` below a root may do more than answer v's known
    bits: v is used once and is an operation with rules (or every bit of it is known,
    which makes it a constant), and is not ``_quiet``. A value used more than once, a
    constant, and a leaf with an unknown bit are answered by their known bits."""
    if v.uses != 1 or v.opcode == "ISD::Constant" or depth >= _MAX_DEPTH:
        return False
    if v.opcode in _KB_BINOPS and len(v.ops) == 2:
        return not _quiet(v, ctx)
    if v.opcode == "ISD::SIGN_EXTEND_INREG":
        return True  # (_sdb_sext_in_reg demands a part of its operand)
    k = _kb(v, ctx, depth)
    return not (k.zero | k.one) ^ ((1 << k.bits) - 1)


def _quiet(v: SDNode, ctx: _Ctx) -> bool:
    """True only where ``_sdb(v, every bit, depth)`` changes nothing at every depth, for a
    one-use binary node ``v``: v is an and/or/xor/add/sub/mul of two values of which no
    bit is known (at any depth then), a not or an add of a constant whose bits are not
    all known, or a shl/srl by a variable amount whose bits are not all known (no rule
    of _sdb applies to those with every bit demanded, and every bit of their operands is
    demanded), and each operand _sdb looks into is quiet too. Memoized while the DAG
    stays the same (``ctx.events``)."""
    if ctx.quiet_ev != ctx.events:
        ctx.quiet = {}
        ctx.quiet_ev = ctx.events
    memo = ctx.quiet
    r = memo.get(v)
    if r is None:
        memo[v] = False  # (a cycle cannot occur; a provisional answer all the same)
        r = memo[v] = _quiet_node(v, ctx)
    return r


def _quiet_node(v: SDNode, ctx: _Ctx) -> bool:
    opc = v.opcode
    a, b = v.ops
    if b.opcode == "ISD::Constant":
        if not (opc == "ISD::ADD" or opc == "ISD::XOR" and type(b.value) is int and _is_all_ones(b.value, v.vt)):
            return False
    elif opc in ("ISD::SHL", "ISD::SRL"):
        return _not_all_known(v, ctx, 0)  # (nothing looked into: every bit demanded)
    elif opc == "ISD::SRA":
        return False
    elif not (_no_known(a, ctx, 0) and _no_known(b, ctx, 0)):
        # known operand bits: the rules of _sdb that read them only apply with more bits
        # known, and known bits at a depth are a part of those at depth 0; an operand
        # demanded in part is a value used more than once (answered by its known bits)
        k0, k1 = _kb(a, ctx, 0), _kb(b, ctx, 0)
        m = (1 << k0.bits) - 1
        if opc == "ISD::XOR":
            if not m & ~k1.zero or not m & ~k0.zero or not m & ~(k0.zero | k1.zero):
                return False
        elif opc == "ISD::OR":
            if k1.one and a.uses == 1 or not m & ~(k0.one | k1.zero) or not m & ~(k1.one | k0.zero):
                return False
        elif opc == "ISD::AND":
            if k1.zero and a.uses == 1 or not m & ~(k0.zero | k1.one) or not m & ~(k1.zero | k0.one) \
                    or not m & ~(k1.zero | k0.zero):
                return False
        elif opc == "ISD::MUL":
            if k1.zero & 1 and a.uses == 1:
                return False
        elif opc != "ISD::ADD" and opc != "ISD::SUB":
            return False
    if _sub_looked_into(b, ctx):
        return False
    return not _sub_looked_into(a, ctx) and _not_all_known(v, ctx, 0)


def _sub_looked_into(x: SDNode, ctx: _Ctx) -> bool:
    # (_looked_into at any depth: a leaf whose bits are not all known at depth 0 is not
    # all known deeper either)
    if x.uses != 1 or x.opcode == "ISD::Constant":
        return False
    if x.opcode in _KB_BINOPS and len(x.ops) == 2:
        return not _quiet(x, ctx)
    if x.opcode == "ISD::SIGN_EXTEND_INREG":
        return True
    return not _not_all_known(x, ctx, 0)


def _sdb_inert(n: SDNode, depth: int, ctx: _Ctx) -> bool:
    """True only where ``_sdb(n, every bit, depth)`` provably changes nothing (and so
    answers n's known bits): the premise of the shortcuts, checked, not assumed.

    SimplifyDemandedBits demanding every bit of a node still looks into its operands
    used once, and rewrites them before their own visits (a one-use ``xor v, C`` under a
    ``not`` becomes an ``or`` before its user's visit reassociates it): so an operand it
    looks into (``_looked_into``) is always followed. Otherwise: a not whose bits are not
    all known; a shift by a variable amount (no operand bit to drop; an sra only when
    its source is not all sign bits); a shift by a constant, or an add/sub/mul with a
    constant, of a value without known bits that is no operation with rules; an
    add/sub/mul of two values (every bit of both demanded; a mul's left operand is
    demanded below the right one's trailing zeros); an add, or a mul by an odd constant,
    whose bits are not all known; an and/or/xor of two values whose operands _sdb
    answers by their known bits alone and whose rules cannot apply
    (``_sdb_logic_may_change``)."""
    opc = n.opcode
    if opc not in _SDB_ROOTS:
        return False
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    bc = b.opcode == "ISD::Constant"
    d1 = depth + 1
    # (``_looked_into`` is False for a value used more than once: tested first, inline)
    if opc in _SDB_LOGIC:
        if bc:
            if not (type(b.value) is int and _is_all_ones(b.value, n.vt)):
                return False
            # a not: only a constant (every bit known) or its operand can change
            if a.uses == 1 and _looked_into(a, d1, ctx):
                return False
            k = _kb(n, ctx, depth)
            return bool((k.zero | k.one) ^ ((1 << k.bits) - 1))
        if a.uses == 1 and _looked_into(a, d1, ctx) or b.uses == 1 and _looked_into(b, d1, ctx):
            return False
        if _no_known(a, ctx, d1) and _no_known(b, ctx, d1):
            return True
        k = _kb(n, ctx, depth)
        m = (1 << k.bits) - 1
        return bool((k.zero | k.one) ^ m) and k.bits != 1 and not _sdb_logic_may_change(n, a, b, m, ctx, d1)
    if not bc:
        if opc == "ISD::SRA":
            return _sign_bits(a, ctx, d1) < _width(n.vt) and _not_all_known(n, ctx, depth)
        if opc in ("ISD::SHL", "ISD::SRL"):
            return _not_all_known(n, ctx, depth)
        if a.uses == 1 and _looked_into(a, d1, ctx) or b.uses == 1 and _looked_into(b, d1, ctx):
            return False
        if opc == "ISD::MUL" and a.uses == 1 and a.opcode != "ISD::Constant" and _kb(b, ctx, d1).zero & 1:
            return False  # (a's bits demanded below b's trailing zeros only)
        return _not_all_known(n, ctx, depth)
    if a.opcode not in _KB_BINOPS and a.opcode != "ISD::SIGN_EXTEND_INREG" and _no_known(a, ctx, d1):
        # (an sra copying only sign bits of a is a)
        return opc != "ISD::SRA" or _sign_bits(a, ctx, d1) < _width(n.vt)
    if opc == "ISD::ADD" or opc == "ISD::MUL" and type(b.value) is int and b.value & 1:
        return not (a.uses == 1 and _looked_into(a, d1, ctx)) and _not_all_known(n, ctx, depth)
    return False


def _is_all_ones(v: int, vt: str) -> bool:
    """``_wrap(v, vt) == -1``."""
    bits = _width(vt)
    if bits:
        m = (1 << bits) - 1
        return v & m == m
    return _wrap(v, vt) == -1


def _not_all_known(n: SDNode, ctx: _Ctx, depth: int) -> bool:
    k = _kb(n, ctx, depth)
    return bool((k.zero | k.one) ^ ((1 << k.bits) - 1))


def _sdb_logic_may_change(n: SDNode, a: SDNode, b: SDNode, m: int, ctx: _Ctx, d1: int = 1) -> bool:
    """Whether ``_sdb(n, m, d1 - 1, ctx)`` may change something, for an and/or/xor ``n`` of
    two operands that are no constants, every bit demanded and not every bit of ``n``
    known. False only where _sdb's answer is plain: its operands are then answered by
    their known bits at depth 1 (every bit of ``b`` demanded; of ``a`` too, or ``a`` used
    more than once, each of which _sdb passes over), no operand is bypassed (every bit
    demanded), no constant to shrink, and the rules left are the ones tested here."""
    k1 = _kb(b, ctx, d1)
    k0 = _kb(a, ctx, d1)
    opc = n.opcode
    if opc == "ISD::XOR":
        # (_sdb: b known zero -> a; a known zero -> b; no bit possibly set on both -> or)
        return not m & ~(k0.zero | k1.zero)
    if opc == "ISD::OR":
        if k1.one and a.uses == 1:
            return True  # (a's bits not all demanded: _sdb looks into a)
        return not m & ~(k0.one | k1.zero) or not m & ~(k1.one | k0.zero)
    if k1.zero and a.uses == 1:  # AND
        return True
    return not m & ~(k0.zero | k1.one) or not m & ~(k1.zero | k0.one) or not m & ~(k1.zero | k0.zero)


def _no_known(n: SDNode, ctx: _Ctx, depth: int) -> bool:
    """``_kb(n, ctx, depth)`` knows no bit (read from the memo when it can tell)."""
    k: Known  # (a memoized answer always has its Known: cut answers are not memoized)
    c = n.kbc
    if c is not None:
        f = c.get(-1)
        if f is not None:
            k = f[0]
            if not (k.zero | k.one):
                return True  # (nothing known without a limit: nothing at any depth)
            if f[1] + depth <= 6:
                return False
    k = _kb(n, ctx, depth)
    return not (k.zero | k.one)


# the shortcuts of _demanded_root and _sdb (same answers; tests/test_combine_llc.py
# compares the selections with them turned off)
_SDB_SHORTCUTS: Final = [True]
_SDB_LOGIC: Final = frozenset({"ISD::AND", "ISD::OR", "ISD::XOR"})
_SDB_ROOTS: Final = _SDB_LOGIC | {"ISD::SHL", "ISD::SRL", "ISD::SRA", "ISD::ADD", "ISD::SUB", "ISD::MUL"}


# (the known bits a simplification that changed the DAG answers: never read, since the
# caller returns at once; a Known rather than None keeps the answer's type exact)
_NOK: Final = Known(0, 0, 1)


def _combine_to(op: SDNode, new: SDNode, ctx: _Ctx) -> tuple[bool, Known]:
    ctx.replace(op, new)
    return True, _NOK


def _sdb(op: SDNode, demanded: int, depth: int, ctx: _Ctx) -> tuple[bool, Known]:
    """TargetLowering::SimplifyDemandedBits for the modeled integer nodes: (changed,
    known bits of ``op`` for the demanded bits; ``_NOK`` when changed). A rewrite replaces ``op`` (used once
    below the root; the root's users all read the same value) by a simpler value."""
    opc = op.opcode
    if opc == "ISD::Constant":
        return False, _kb(op, ctx, depth)
    vt = op.vt
    bits = _width(vt)
    m = (1 << bits) - 1
    if depth >= _MAX_DEPTH:
        return False, _unknown(bits)
    if depth and (op.uses != 1 or demanded == m and _SDB_SHORTCUTS[0] and _sdb_inert(op, depth, ctx)):
        # (used more than once; or every bit demanded where nothing can change)
        return False, _kb(op, ctx, depth)
    if opc == "ISD::SIGN_EXTEND_INREG" and demanded and len(op.ops) == 2:
        r = _sdb_sext_in_reg(op, demanded, depth, ctx, bits)
        if r is not None:
            return r
    if demanded == 0 or opc not in _KB_BINOPS or len(op.ops) != 2:
        known = _kb(op, ctx, depth)
        return _demanded_const(op, demanded, known, ctx), known
    a, b = op.ops
    cb = b.value & m if b.opcode == "ISD::Constant" and type(b.value) is int else None
    if opc == "ISD::AND":
        if cb is not None:
            lk = _kb(a, ctx, depth)
            if lk.zero & demanded == ~cb & m & demanded:
                return _combine_to(op, a, ctx)  # the and clears only known-zero bits
            if _shrink_const(op, ~lk.zero & demanded, ctx):
                return True, _NOK
        ch, k1 = _sdb(b, demanded, depth + 1, ctx)
        if ch:
            return True, _NOK
        ch, k0 = _sdb(a, ~k1.zero & demanded, depth + 1, ctx)
        if ch:
            return True, _NOK
        if demanded != m and _bypass_multi_use(op, demanded, depth, ctx):
            return True, _NOK
        if demanded & ~(k0.zero | k1.one) == 0:
            return _combine_to(op, a, ctx)
        if demanded & ~(k1.zero | k0.one) == 0:
            return _combine_to(op, b, ctx)
        if demanded & ~(k1.zero | k0.zero) == 0:
            return _combine_to(op, ctx.const(0, vt), ctx)
        if cb is not None and _shrink_const(op, ~k0.zero & demanded, ctx):
            return True, _NOK
        known = Known(k0.zero | k1.zero, k0.one & k1.one, bits)
    elif opc == "ISD::OR":
        ch, k1 = _sdb(b, demanded, depth + 1, ctx)
        if ch:
            return True, _NOK
        ch, k0 = _sdb(a, ~k1.one & demanded, depth + 1, ctx)
        if ch:
            return True, _NOK
        if demanded != m and _bypass_multi_use(op, demanded, depth, ctx):
            return True, _NOK
        if demanded & ~(k0.one | k1.zero) == 0:
            return _combine_to(op, a, ctx)
        if demanded & ~(k1.one | k0.zero) == 0:
            return _combine_to(op, b, ctx)
        if cb is not None and _shrink_const(op, demanded, ctx):
            return True, _NOK
        known = Known(k0.zero & k1.zero, k0.one | k1.one, bits)
    elif opc == "ISD::XOR":
        ch, k1 = _sdb(b, demanded, depth + 1, ctx)
        if ch:
            return True, _NOK
        ch, k0 = _sdb(a, demanded, depth + 1, ctx)
        if ch:
            return True, _NOK
        if demanded != m and _bypass_multi_use(op, demanded, depth, ctx):
            return True, _NOK
        if demanded & ~k1.zero == 0:
            return _combine_to(op, a, ctx)
        if demanded & ~k0.zero == 0:
            return _combine_to(op, b, ctx)
        if demanded & ~(k0.zero | k1.zero) == 0:
            # no demanded bit set on both sides: an inclusive or
            _set(ctx, op, "ISD::OR", [a, b])
            return True, _NOK
        if cb is not None:
            if cb == k0.one:
                # (X | C1) ^ C2 -> (X | C1) & ~C2 when C2's bits are known set in X | C1
                _set(ctx, op, "ISD::AND", [a, ctx.const(~cb & demanded, vt)])
                return True, _NOK
            if cb != m and demanded & ~cb == 0:
                # every demanded bit flipped: a not
                _set(ctx, op, "ISD::XOR", [a, ctx.const(-1, vt)])
                return True, _NOK
            if a.opcode in ("ISD::SRL", "ISD::SHL") and a.uses == 1 and _is_c(a.ops[1]) \
                    and (a.ops[1].value & m) < bits:
                s = a.ops[1].value & m
                ones = (m << s) & m if a.opcode == "ISD::SHL" else m >> s
                if cb & demanded == ones & demanded:
                    # xor (X << s), C -> (not X) << s when C flips exactly the demanded
                    # bits the shift can set (and the srl form)
                    nx = ctx.new("ISD::XOR", vt, [a.ops[0], ctx.const(-1, vt)], like=a)
                    _set(ctx, op, a.opcode, [nx, a.ops[1]])
                    return True, _NOK
        if cb is not None and cb != m and _shrink_const(op, demanded, ctx):
            return True, _NOK
        known = Known((k0.zero & k1.zero) | (k0.one & k1.one), (k0.zero & k1.one) | (k0.one & k1.zero), bits)
    elif opc in ("ISD::SHL", "ISD::SRL", "ISD::SRA"):
        r = _sdb_shift(op, demanded, depth, ctx, a, b, bits)
        if r is not None:
            return r
        known = _kb(op, ctx, depth)
    else:  # ADD, SUB, MUL: no demanded bit above the highest one the user demands
        lz = clz(demanded, bits)
        lo = m >> lz
        ch, k1 = _sdb(b, lo, depth + 1, ctx)
        if ch:
            return True, _NOK
        lo0 = lo
        if opc == "ISD::MUL":
            tz = k1.trail_zeros()
            lo0 = lo & (m >> tz) if tz < bits else 0
        ch, k0 = _sdb(a, lo0, depth + 1, ctx)
        if ch:
            return True, _NOK
        if lo != m and _bypass_multi_use(op, lo, depth, ctx):
            return True, _NOK
        if opc == "ISD::SUB" and demanded == 1 and _is_c(a) and (a.value & m) == 0:
            return _combine_to(op, b, ctx)  # neg x, only the low bit demanded
        high = m & ~(m >> lz) if lz else 0
        if cb is not None and cb != m and cb != 1 and (cb | high) == m:
            # a constant whose undemanded high bits are the only zeros becomes -1
            _set(ctx, op, opc, [a, ctx.const(-1, vt)])
            return True, _NOK
        if opc == "ISD::MUL":
            known = mul_known(k0, k1)
        elif opc == "ISD::ADD":
            known = add_carry(k0, k1, True, False)
        else:
            known = add_carry(k0, Known(k1.one, k1.zero, bits), False, True)
    if not demanded & ~(known.zero | known.one) and _demanded_const(op, demanded, known, ctx):
        return True, _NOK
    return False, known


def _sdb_sext_in_reg(op: SDNode, demanded: int, depth: int, ctx: _Ctx, bits: int) -> tuple[bool, Known] | None:
    """SimplifyDemandedBits of ``sign_extend_inreg x, iE``: only the sign bit demanded ->
    ``shl x, bits - E`` (unless x is sign extended already); no bit above the low E
    demanded -> x; else x's low E bits and bit E-1 are demanded of x, and a known-zero
    bit E-1 makes it ``and x, (1 << E) - 1``. Returns _sdb's answer, or None for a type
    operand without width."""
    x, t = op.ops
    ext = _width(t.vt)
    if not ext or ext >= bits:
        return None
    vt = op.vt
    m = (1 << bits) - 1
    if demanded == 1 << (bits - 1) and ext < bits - _sign_bits(x, ctx, depth + 1) + 1:
        _set(ctx, op, "ISD::SHL", [x, ctx.const(bits - ext, vt)])
        return True, _NOK
    if demanded.bit_length() <= ext:
        return _combine_to(op, x, ctx)  # none of the extended bits demanded
    low = (1 << ext) - 1
    ch, k = _sdb(x, (demanded & low) | 1 << (ext - 1), depth + 1, ctx)
    if ch:
        return True, _NOK
    if k.zero >> (ext - 1) & 1:
        _set(ctx, op, "ISD::AND", [x, ctx.const(low, vt)])  # (getZeroExtendInReg)
        return True, _NOK
    if k.one >> (ext - 1) & 1:
        known = Known(k.zero & low, k.one | (m & ~low), bits)
    else:
        known = Known(k.zero & low, k.one & low, bits)
    if _demanded_const(op, demanded, known, ctx):
        return True, _NOK
    return False, known


def _demanded_const(op: SDNode, demanded: int, known: Known, ctx: _Ctx) -> bool:
    """Every demanded bit known: the value is that constant."""
    if op.opcode == "ISD::Constant" or not demanded or demanded & ~(known.zero | known.one):
        return False
    ctx.replace(op, ctx.const(known.one, op.vt))
    return True


def _shrink_const(op: SDNode, demanded: int, ctx: _Ctx) -> bool:
    """TargetLowering::ShrinkDemandedConstant: clear the constant's undemanded bits
    (and/or/xor; a not is left alone)."""
    if not demanded or op.opcode not in ("ISD::AND", "ISD::OR", "ISD::XOR"):
        return False
    b = op.ops[1]
    if not _is_c(b):
        return False
    m = (1 << _width(op.vt)) - 1
    c = b.value & m
    if op.opcode == "ISD::XOR" and demanded & ~c == 0:
        return False
    if c & ~demanded == 0:
        return False
    _set(ctx, op, op.opcode, [op.ops[0], ctx.const(c & demanded, op.vt)])
    return True


def _sdb_shift(op: SDNode, demanded: int, depth: int, ctx: _Ctx, a: SDNode, b: SDNode,
               bits: int) -> tuple[bool, Known] | None:
    m = (1 << bits) - 1
    opc = op.opcode
    vt = op.vt
    sa = b.value & m if _is_c(b) and (b.value & m) < bits else None
    if opc == "ISD::SRA":
        hi = bits - ctz(demanded, bits) if demanded else 0
        if _sign_bits(a, ctx, depth + 1) >= hi:
            return _combine_to(op, a, ctx)  # only bits that already copy the sign
        if demanded == 1:
            _set(ctx, op, "ISD::SRL", [a, b])
            return True, _NOK
    if sa is None:
        if opc == "ISD::SHL":
            lz = clz(demanded, bits)
            if lz:
                ch, _k = _sdb(a, m >> lz, depth + 1, ctx)
                if ch:
                    return True, _NOK
        return None
    if sa == 0:
        return _combine_to(op, a, ctx)
    if opc == "ISD::SHL":
        if a.opcode == "ISD::SRL" and not demanded & ((1 << sa) - 1) and _is_c(a.ops[1]) \
                and (a.ops[1].value & m) < bits:
            # ((X >>u C1) << sa): the low bits are not demanded, one shift
            diff = sa - (a.ops[1].value & m)
            _set(ctx, op, "ISD::SHL" if diff >= 0 else "ISD::SRL", [a.ops[0], ctx.const(abs(diff), vt)])
            return True, _NOK
        ch, k = _sdb(a, demanded >> sa, depth + 1, ctx)
        if ch or _bypass_shift_source(op, demanded >> sa, depth, ctx):
            return True, _NOK
        return None
    if opc == "ISD::SRL":
        if a.opcode == "ISD::SHL" and not demanded & (m & ~(m >> sa)) and _is_c(a.ops[1]) \
                and (a.ops[1].value & m) < bits:
            # ((X << C1) >>u sa): the high bits are not demanded, one shift
            diff = sa - (a.ops[1].value & m)
            _set(ctx, op, "ISD::SRL" if diff >= 0 else "ISD::SHL", [a.ops[0], ctx.const(abs(diff), vt)])
            return True, _NOK
        ch, k = _sdb(a, (demanded << sa) & m, depth + 1, ctx)
        if ch or _bypass_shift_source(op, (demanded << sa) & m, depth, ctx):
            return True, _NOK
        return None
    # SRA by a constant. (sra (shl x, c), c) -> sign_extend_inreg, at whatever depth the
    # walk reaches the pair with one use (an operand of an add or a logic op that asks
    # its bits), so before a visit of an outer sra could fold the two sras into one
    if a.opcode == "ISD::SHL" and _is_c(a.ops[1]) and (a.ops[1].value & m) == sa:
        if "ISD::SIGN_EXTEND_INREG" in ctx.legal and bits - sa in (8, 16) and bits == 32:
            _set(ctx, op, "ISD::SIGN_EXTEND_INREG", [a.ops[0], ctx.vtnode(f"i{bits - sa}")])
            return True, _NOK
        if _sign_bits(a.ops[0], ctx, depth + 1) > sa:
            return _combine_to(op, a.ops[0], ctx)
    ind = (demanded << sa) & m
    if clz(demanded, bits) < sa:
        ind |= 1 << (bits - 1)
    ch, k = _sdb(a, ind, depth + 1, ctx)
    if ch:
        return True, _NOK
    if (k.zero >> (bits - 1)) & 1 or clz(demanded, bits) >= sa:
        _set(ctx, op, "ISD::SRL", [a, b])  # sign known zero or no sign copy demanded
        return True, _NOK
    if demanded and demanded & (demanded - 1) == 0:
        # one demanded bit, taken from the sign
        _set(ctx, op, "ISD::SRL", [a, ctx.const(bits - 1 - (demanded.bit_length() - 1), vt)])
        return True, _NOK
    if _bypass_shift_source(op, ind, depth, ctx):
        return True, _NOK
    return None


def _bypass_shift_source(op: SDNode, demanded: int, depth: int, ctx: _Ctx) -> bool:
    """The shift's "avoid multi-use ops" step: its source replaced by the simpler value
    SimplifyMultipleUseDemandedBits finds for the bits the shift reads."""
    m = (1 << _width(op.vt)) - 1
    if demanded == m:
        return False
    v = _multi_use_demanded(op.ops[0], demanded, depth + 1, ctx)
    if v is None:
        return False
    _set(ctx, op, op.opcode, [v, op.ops[1]])
    return True


def _bypass_multi_use(op: SDNode, demanded: int, depth: int, ctx: _Ctx) -> bool:
    """SimplifyDemandedBits' "attempt to avoid multi-use ops if we don't need anything
    from them" for a two-operand node: each operand replaced by the simpler value
    SimplifyMultipleUseDemandedBits finds for the demanded bits (the operand itself may
    have other users, which keep it)."""
    m = (1 << _width(op.vt)) - 1
    if demanded == m:
        return False
    a, b = op.ops
    va = _multi_use_demanded(a, demanded, depth + 1, ctx)
    vb = _multi_use_demanded(b, demanded, depth + 1, ctx)
    if va is None and vb is None:
        return False
    _set(ctx, op, op.opcode, [va or a, vb or b])
    return True


def _multi_use_demanded(v: SDNode, demanded: int, depth: int, ctx: _Ctx):
    """TargetLowering::SimplifyMultipleUseDemandedBits for the modeled nodes: a value
    equal to ``v`` on the ``demanded`` bits, without rewriting ``v`` (it may have other
    users), or None."""
    if not demanded or depth >= _MAX_DEPTH or len(v.ops) != 2:
        return None
    opc = v.opcode
    a, b = v.ops
    if opc in _SDB_LOGIC:
        ka, kb_ = _kb(a, ctx, depth + 1), _kb(b, ctx, depth + 1)
        if opc == "ISD::AND":
            if not demanded & ~(ka.zero | kb_.one):
                return a
            if not demanded & ~(kb_.zero | ka.one):
                return b
        elif opc == "ISD::OR":
            if not demanded & ~(ka.one | kb_.zero):
                return a
            if not demanded & ~(kb_.one | ka.zero):
                return b
        else:
            if not demanded & ~kb_.zero:
                return a
            if not demanded & ~ka.zero:
                return b
        return None
    if opc == "ISD::SHL" and _is_c(b):
        bits = _width(v.vt)
        sa = b.value & ((1 << bits) - 1)
        if sa < bits:
            nsb = _sign_bits(a, ctx, depth + 1)
            if nsb > sa and nsb - sa >= bits - ctz(demanded, bits):
                return a  # only sign bits demanded: the shift's source
        return None
    if opc == "ISD::SIGN_EXTEND_INREG" and b.opcode == "ISD::VALUETYPE" and _width(b.vt):
        if demanded.bit_length() <= _width(b.vt):
            return a  # none of the extended bits demanded
    return None


# the opcodes with a visit (between_runs: the nodes combine2 may have to visit)
_VISIT_OPS: Final = frozenset(_VISITORS)

# A run stops after this many visits per node of the block (a guard against two rules
# undoing each other forever; no generated kernel comes near it)
_VISITS_PER_NODE: Final = 64
STATS: Final[dict] = {"visit_limit_hit": 0}


def _visit(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner::combine: the node's visit (the generic rules, then the target's), then,
    when nothing fired, the commuted form of a commutative binary node if it exists
    already (getNodeIfExists). Whether something changed."""
    vis = _VISITORS.get(n.opcode)
    return vis is not None and vis(n, ctx)


class _WouldChange(Exception):
    """A visit tried in _any_change was about to change the DAG."""


def _any_change(ctx: _Ctx, nodes: list) -> bool:
    """Whether visiting one of ``nodes`` would change the DAG as it is. A visit that
    changes nothing leaves no trace, so when none of them changes anything, combine2
    (visiting them in whatever order) is a run without effect; the first change stops
    the tries before it happens (every change starts with _Ctx.get, const or vtnode
    making a node, commit or add)."""
    ctx.dry = True
    try:
        for n in nodes:
            if _visit(n, ctx):
                return True
    except _WouldChange:
        return True
    finally:
        ctx.dry = False
        ctx.sdb_root = None
    return False


def run(dag: SelectionDAG, target=None) -> None:
    """Combine the block's DAG in place as llc does before selection: DAGCombiner::Run
    before legalization (combine1), SelectionDAG::Legalize's topological re-sort (the
    modeled operations are legal already), DAGCombiner::Run after it (combine2); then
    give the DAG the selector's form: nodes in topological order from the roots,
    numbered, with use counts and divergence bits."""
    ctx = _Ctx(dag, target)
    _combine_run(ctx)
    _legalize(ctx)
    if ctx.events or ctx.late:
        stale = ctx.between_runs()
        if ctx.late:
            # (combine2-only rules: these nodes' combine1 visits say nothing of combine2's)
            have = set(stale)
            for n in ctx.late:
                if n.wlix != _DEAD:
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


_FFB: Final = {"ISD::CTLZ_ZERO_UNDEF": "AMDGPUISD::FFBH_U32", "ISD::CTTZ_ZERO_UNDEF": "AMDGPUISD::FFBL_B32"}


def _legalize(ctx: _Ctx) -> None:
    """The legalizations between the combine runs that change what combine2 and the
    blocks reading a value see: ``_legalize_abs``, and the i32 zero-undef counts
    becoming the target's find-first-bit nodes (AMDGPUTargetLowering::LowerCTLZ_CTTZ),
    whose result for a zero input is -1, so nothing is known of their bits any more
    (the known bits a later block reads, and combine2's)."""
    n: SDNode
    for group in (ctx.dag.nodes, ctx.created):
        for n in group:
            if n.opcode in _LEGALIZED:
                break
        else:
            continue
        break
    else:
        return  # (nothing to legalize: one pass instead of two)
    _legalize_abs(ctx)
    todo = [n for group in (ctx.dag.nodes, ctx.created) for n in group
            if n.opcode in _FFB and n.wlix != _DEAD and n.vt == "i32" and _FFB[n.opcode] in ctx.legal]
    for n in todo:
        _set(ctx, n, _FFB[n.opcode], [n.ops[0]])


_LEGALIZED: Final = frozenset(_FFB) | {"ISD::ABS"}  # (the opcodes _legalize rewrites)


def _legalize_abs(ctx: _Ctx) -> None:
    """Legalization of ``abs``: AMDGPU expands an i32 abs to ``smax x, (sub 0, x)``
    (TargetLowering::expandABS with a legal smax), which combine2 then sees, e.g. as the
    inner max of a v_max3_i32 (llc's MIR shows it for both divergences); selection
    makes a uniform one s_abs_i32 again by a pattern on that smax, a divergent one
    v_max_i32 of v_sub_u32. After legalization the generic smax-of-negation fold back
    to abs no longer applies (abs is not legal). The operand, read twice, is frozen
    first (``_get_freeze``): unless it cannot be poison, ``0 - freeze x`` hides x's
    shape from the combines (``_visit_FREEZE`` moves the freeze down only through a
    one-use node). Where the model stops: no node carries poison-generating flags
    (nsw/nuw/exact/disjoint), and only the scalar opcodes of this DAG are classified."""
    if "ISD::SMAX" not in ctx.legal:
        return
    todo = [n for group in (ctx.dag.nodes, ctx.created) for n in group
            if n.opcode == "ISD::ABS" and n.wlix != _DEAD and n.vt == "i32"]
    for n in todo:
        x = _get_freeze(ctx, n.ops[0], n)  # (expandABS freezes its operand, read twice)
        neg = ctx.new("ISD::SUB", n.vt, [ctx.const(0, n.vt), x], like=n)
        _set(ctx, n, "ISD::SMAX", [x, neg])


def _combine_run(ctx: _Ctx, again: bool = False) -> None:
    """DAGCombiner::Run over the worklist ctx holds.

    A node whose last visit changed nothing, with the DAG unchanged since (``stamp``), is
    not visited again (``again``: in combine2): the visit is a function of the DAG, so it
    would change nothing again (combine2's rules are those of combine1 or fewer)."""
    n: SDNode | None
    wl = ctx.wl
    prune = ctx.prune
    stamp = ctx.stamp
    visitors = _VISITORS
    fresh, done, dead = _FRESH, _DONE, _DEAD
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
        if _TRACE[0] is not None:
            _TRACE[0]("visit", n, None)
        vis(n, ctx)  # _visit(n, ctx)
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


def _topological_order(ctx: _Ctx) -> list:
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
            if n.wlix == _DEAD:
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


def _finish(dag: SelectionDAG, ctx: _Ctx) -> None:
    """The DAG in the selector's form: the use lists dropped (they would keep the nodes
    in reference cycles) and, when the block changed, re-sorted, renumbered, with use counts and divergence bits."""
    m: SDNode
    changed = ctx.events != 0
    # (an AssertZext is a leaf's only user here: none in the block, nothing to replace)
    if changed and any(m.opcode == "ISD::AssertZext" for group in (dag.nodes, ctx.created) for m in group):
        # SelectionDAGISel replaces an AssertZext by its operand before selecting
        for group in (dag.nodes, ctx.created):
            for m in group:
                if m.wlix != _DEAD and m.ops:
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
        _resort(dag)


_MARK: Final = [0]


def _resort(dag: SelectionDAG, ctx: _Ctx | None = None) -> None:
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

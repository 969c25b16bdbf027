"""The DAG combines and legalizations that make our DAG look like llc's before selection
(the package: ``driver.run`` runs them on a block).

Each rule is an llc-19 behaviour (DAGCombiner combines and legalization) checked with
llc-19 on gfx900, stopped after instruction selection, on small uniform/divergent kernels
and by the differential test (tests/test_isel_llc.py). What a target adds (LLVM's
TargetLowering::PerformDAGCombine, LowerOperation, computeKnownBitsForTargetNode, its CSE'd
nodes, its calling conventions) is a hook its folder declares (``tdgen.hooks.TargetHooks``:
AMDGPU's are targets/amdgpu/dag_combine.py), read once per target
(``driver.dag_target``, a ``context.DAGTarget``) and carried by each run's ``Ctx``; the
engine names no target:

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
  whose sign bit is known zero -> ``srl`` (known leading zeros, ``known_lz``, which reads
  a CopyFromReg's count recorded in the block that computed the value, see
  ``patterns.dag.builder.DAGBuilder.live_lz``); a one-use
  ``sra x, c`` under ``and`` with a mask whose top c bits are clear -> ``srl`` (demanded
  bits);
  ``(x ^ y) | y`` -> ``x | y``;
  ``x - ~y`` -> ``(y + 1) + x`` (the not used once); ``C2 - (x + C1)`` -> ``(C2 - C1) - x``;
  ``x - (y + C)`` -> ``(x - y) + -C`` (the add used once; visitSUB); ``~x + 1`` -> ``0 - x``; ``(0 - x) + y`` -> ``y - x``; ``a - (a & b)`` -> ``a & ~b``;
  ``~(and x, C)`` -> ``~x | ~C`` and ``~(or x, C)`` -> ``~x & ~C`` (the and/or used once;
  visitXOR's De Morgan with a constant); ``~(0 - x)`` -> ``x + -1``; ``~(x + -1)`` -> ``0 - x``; ``(x & ~y) ^ y`` -> ``x | y``; ``(x & y) ^ y`` -> ``~x & y``; absorption ``x | (x & y)`` -> ``x`` (visitORCommutative; visitAND has no ``x & (x | y)`` fold);
- (InstSimplify, which llc's EarlyCSE applies to the IR across blocks, is modeled on the
  IR before the DAGs are built: patterns/llc/); ``sra``/``srl``/``shl`` of 0 and
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

- visitADD / visitADDLike / visitADDLikeCommutative in their order (``visit_ADD``):
  ``((A - c1) + c2)``, ``((c1 - A) + c2)``, an add-like or with a constant, reassociation
  (also ReassociateAddOr), ``(0 - A) + B``, ``A + (B - A)``, ``(A - B) + (C - A)``,
  ``(A - B) + (B - C)``, ``A + (B - (A + C))``, ``A + ((B - A) +/- C)`` (the adds commutative), ``(A - B) + (C - D)``
  with a constant, ``(umax x, C) + -C`` -> ``usubsat x, C``, SimplifyDemandedBits, ``(~a + b) + 1`` -> ``b - a``, ``(x - y) + -1``,
  ``(mul (add A, CA), CM) + CB``, ``x + (shl (0 - y), n)``, ``(x -/+ C) + y`` hoisting,
  ``(mul x, C) + x``, an add without common bits -> or (haveNoCommonBitsSet: known bits,
  or the masked-merge shape ``(x & ~m)`` beside ``m`` or ``(y & m)``);
- visitSUB in its order (``visit_SUB``): ``-(x >> 31)`` flips the shift kind, ``-1 - x``,
  ``A - (0 - B)``, ``A - (A - B)``, ``(A + B) - A``, ``C2 - (A + C1)``, ``((A + (B +/- C)) - B)`` (both adds
  commutative, as sd_match's m_Add),
  ``((A - (B - C)) - C)``, ``A - (B - C)``, ``A - (A & B)``, ``A - ((0 - B) * C)``,
  foldSubToUSubSat (``umax(x, y) - y``, ``x - umin(x, y)``, the min/max used once -> ``usubsat``),
  ``y - ~x`` -> ``(y + x) + 1``, constant hoisting, ``x - (srl y, 31)`` -> add of sra (combine1 only),
  ``x - (y << 31)``, ``C - x`` without a possible borrow -> ``x ^ C``;
- visitMUL: ``(mul (shl X, c1), c2)`` -> ``mul X, c2 << c1``; ``(mul (add x, c1), c2)`` ->
  ``(mul x, c2) + c1 * c2`` (the add used once); then the target's combine of a mul
  (AMDGPU's performMulCombine: a divergent ``mul x, (y + 1)`` -> ``x * y + x`` and a
  divergent multiply of 24-bit operands -> 24-bit multiplies);
- visitOR's last step: an or without common bits (isADDLike) is given visitADDLike's rules
  (``visit_ADD`` with ``or_like``), e.g. ``(0 - (x << 3)) | 7`` -> ``7 - (x << 3)``;
- logic: hoistLogicOpWithSameOpcodeHands (``op (sh x, z), (sh y, z)`` -> ``sh (op x, y), z``
  for shifts and and, both hands used once), visitORCommutative (``(X & ~Y) | Y``,
  ``(X ^ Y) | (X and/or Y)``), ``(and (or x, C), D)`` -> ``D``; reassociateOpsCommutative's
  reassociation onto a node that already exists (SelectionDAG::getNodeIfExists);
- visitShiftByConstant: combineShiftOfShiftedLogic and a logic op with a constant pulled
  through a constant shift (a ``not`` stays);
- the integer intrinsic nodes: visitABS (``abs`` of a constant, of an ``abs``, of a value
  whose sign bit is known zero); visitCTLZ / visitCTTZ (a value isKnownNeverZero,
  ``never_zero``, counts as the zero-undef form, so no ``umin`` with 32 follows);
  visitIMINMAX (the same operand twice; ``umin (smax a, b), c`` -> ``smin`` when the
  sign bits of both operands are known zero; then SimplifyDemandedBits' min/max case:
  an operand whose known bits decide the order is the result); their known bits from
  their operands' (KnownBits::umin/umax/smin/smax/abs, counts bounded by the operand's
  known bits, bitreverse); then the target's combine of the opcode (AMDGPU's
  performMinMaxCombine: a min/max of a one-use min/max of the same kind is the
  three-operand node, v_min3/v_max3, VALU for either divergence; not modeled: its MED3
  clamp of two constants). Not modeled: visitCTPOP's shift
  look-through, visitBITREVERSE, SimplifyDemandedBits' sign-bit
  OR/AND form of a min/max of all-sign-bit values;
- visitSIGN_EXTEND_INREG (``visit_SIGN_EXTEND_INREG``): a constant, an input already
  sign extended, nested extensions, a known-zero sign bit (-> and), ``srl`` -> ``sra``;
  its known bits are KnownBits::sextInReg of the operand's;
- TargetLowering::SimplifyDemandedBits / SimplifyMultipleUseDemandedBits for the modeled
  ops (``sdb``): constants shrunk, and/or/xor operands that contribute no demanded bit
  dropped, xor -> or / not, sra -> srl, shift pairs merged, add/sub/mul demanding only low
  bits, every demanded bit known -> a constant; known bits (``known_bits``) from constants,
  the modeled ops, CopyFromReg leading zeros and the target's nodes (its ``known_lz``
  hook: AMDGPU's workitem id has 22 known-zero high bits, an AssertZext); the SDB run at
  the end of each visit where it can change something;
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
  (``driver.VISITORS``: ``visit_ADD`` ... ``visit_SRA`` for the binary ops, ``other_rules``
  for the others), then, when none fired, the target's combine of the opcode
  (PerformDAGCombine, ``TargetHooks.dag_combine``; the visit of a target node), then the
  commuted form of a commutative binary node if it exists already (``commuted``; a
  min/max looks for it before the target's combine).
- A rule's result (``set_result`` builds it with ``Ctx.get``, ``Ctx.replace`` names an
  existing value) goes through ``Ctx.commit``: ReplaceAllUsesWith, then the result's
  users and the result on the worklist (so the result is combined next), then the old
  node deleted if unused (recursively, operands re-queued). A SimplifyDemandedBits
  replacement (CommitTargetLoweringOpt) first puts the visited node back on the
  worklist. Nodes a rule builds on the way (``Ctx.new``) are candidates for pruning
  only (WorklistInserter); they are reached as never-combined operands of the result,
  or by the worklist pushes some LLVM folds make (De Morgan, the not of
  ``(x & y) ^ y``, foldSetCCWithBinOp's shift).
- SelectionDAG::getNode (``Ctx.get``): the folds it makes itself (constants, a
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
  (``Ctx.stamp``): combine2 visits only nodes whose surroundings changed after their
  last combine1 visit; those visits are first tried with every change refused
  (``_any_change``), and when none would change anything combine2 is not run (its
  order, the topological sort, only matters once something changes);
- ``demanded_root`` passes over roots where SimplifyDemandedBits cannot change
  anything, and ``sdb`` over operands demanded in full where it cannot
  (``sdb_inert``; ``SDB_SHORTCUTS``, tested against running it everywhere). Every
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

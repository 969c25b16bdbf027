"""The DAG combines and legalizations that make our DAG look like llc's before selection.

Each rule is an llc-19 behaviour (DAGCombiner / SITargetLowering combines, AMDGPU
legalization) checked with ``llc-19 -mtriple=amdgcn -mcpu=gfx900 -stop-after=amdgpu-isel``
on small uniform/divergent kernels and by the differential test (tests/test_isel_llc.py):

- ``x | x``, ``x & x`` -> ``x``; ``x ^ x``, ``x - x`` -> 0; ``x + (y - x)`` -> ``y``;
  ``(x + y) - x`` -> ``y``; ``x - (x - y)`` -> ``y``; ``x - (y - z)`` -> ``x + (z - y)``;
  ``(shift (shift x, c1), c2)`` -> ``(shift x, c1+c2)``; ``add x, C`` with C in [-64, -17]
  -> ``sub x, -C`` (AMDGPU's NegSubInlineConst32 selection, kept as a sub so the plain
  S_SUB/V_SUB patterns select it);
  ``and (srl x, c), 2^w-1`` -> just ``srl x, c`` when c + w >= 32 (bit-field extracts
  themselves are formed at selection time, the target's SelectS_BFE CustomSelect step,
  for both divergences, as llc does: formed here they would hide the ``and`` from an
  ``or`` root's v_and_or_b32);
  ``(srl (shl x, c1), c2)`` -> ``(and (srl|shl x, |c2-c1|), -1 >> c2)`` and
  ``(shl (srl x, c1), c2)`` -> ``(and (shl|srl x, |c2-c1|), (-1 >> c1) << c2)`` (inner
  shift used once or c1 == c2; DAGCombiner);
  ``mul x, -1`` -> ``0 - x``; ``mul x, -2^k`` -> ``0 - (x << k)``; a divergent
  ``mul x, 2^k+1`` -> ``(x << k) + x`` unless it is selected into v_mad_u64_u32 by its add
  user (``_feeds_mad``); ``(mul (shl x, C), y)`` -> ``(shl (mul x, y), C)`` (the shl used
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
  visitXOR's De Morgan with a constant); ``~(0 - x)`` -> ``x + -1``; ``~(x + -1)`` -> ``0 - x``; ``(x & ~y) ^ y`` -> ``x | y``; ``(x & y) ^ y`` -> ``~x & y``; absorption ``x | (x & y)`` -> ``x``, ``x & (x | y)`` -> ``x``;
- (InstSimplify, which llc's EarlyCSE applies to the IR across blocks, is modeled on the
  IR before the DAGs are built: patterns/irpasses.py); ``sra``/``srl``/``shl`` of 0 and
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

- visitADD / visitADDLike / visitADDLikeCommutative in their order (``_tail_ADD``):
  ``((A - c1) + c2)``, ``((c1 - A) + c2)``, an add-like or with a constant, reassociation
  (also ReassociateAddOr), ``(0 - A) + B``, ``A + (B - A)``, ``(A - B) + (C - A)``,
  ``(A - B) + (B - C)``, ``A + (B - (A + C))``, ``A + ((B - A) +/- C)``, ``(A - B) + (C - D)``
  with a constant, SimplifyDemandedBits, ``(~a + b) + 1`` -> ``b - a``, ``(x - y) + -1``,
  ``(mul (add A, CA), CM) + CB``, ``x + (shl (0 - y), n)``, ``(x -/+ C) + y`` hoisting,
  ``(mul x, C) + x``, an add without common bits -> or (haveNoCommonBitsSet);
- visitSUB in its order (``_tail_SUB``): ``-(x >> 31)`` flips the shift kind, ``-1 - x``,
  ``A - (0 - B)``, ``A - (A - B)``, ``(A + B) - A``, ``C2 - (A + C1)``, ``((A + (B +/- C)) - B)``,
  ``((A - (B - C)) - C)``, ``A - (B - C)``, ``A - (A & B)``, ``A - ((0 - B) * C)``,
  ``y - ~x`` -> ``(y + x) + 1``, constant hoisting, ``x - (srl y, 31)`` -> add of sra,
  ``x - (y << 31)``, ``C - x`` without a possible borrow -> ``x ^ C``;
- visitMUL: ``(mul (shl X, c1), c2)`` -> ``mul X, c2 << c1``; ``(mul (add x, c1), c2)`` ->
  ``(mul x, c2) + c1 * c2`` (the add used once); AMDGPU's performMulCombine: a divergent
  ``mul x, (y + 1)`` -> ``x * y + x`` and a divergent multiply of 24-bit operands ->
  AMDGPUISD::MUL_U24 / MUL_I24 (known bits);
- logic: hoistLogicOpWithSameOpcodeHands (``op (sh x, z), (sh y, z)`` -> ``sh (op x, y), z``
  for shifts and and, both hands used once), visitORCommutative (``(X & ~Y) | Y``,
  ``(X ^ Y) | (X and/or Y)``), ``(and (or x, C), D)`` -> ``D``; reassociateOpsCommutative's
  reassociation onto a node that already exists (SelectionDAG::getNodeIfExists);
- visitShiftByConstant: combineShiftOfShiftedLogic and a logic op with a constant pulled
  through a constant shift (a ``not`` stays);
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

Rules run to a fixpoint, users before operands (DAGCombiner's worklist order); a node a
rule rewrote is combined again right away, then the nodes the rule created (the worklist
pops the result first). The use counts the rules read follow every rewrite within a pass
(``_set``, ``_Ctx.new``, ``_Ctx.replace``), as LLVM's use lists do. Then the
block's nodes are re-sorted topologically, renumbered, nodes no root reaches are dropped,
and use counts and divergence bits recomputed (sources keep their bits).

How it is kept fast (every shortcut gives exactly the answer of the plain loop; the DAG
dumps of thousands of generated kernels are byte-identical, tests/test_sdag_prepass.py):
a pass skips nodes whose opcode no rule handles without a call; a binary node runs the
shared rules and then only the rules of its own opcode (``_TAIL``); use counts the rules
see live on the nodes (``cuses``/``cpass``) instead of a dict keyed by ``id``; and when
the last pass (after a re-sort) changed nothing, the final re-sort is skipped, as it
would reproduce the same order.
"""

from __future__ import annotations

from .knownbits import Known, add_carry, clz, const_known, ctz, mul_known, shift_known
from .sdag import COMMUTATIVE, SDNode, _wrap, value_type_node

__all__ = ["run"]

_FOLD = {
    "ISD::ADD": lambda a, b: a + b, "ISD::SUB": lambda a, b: a - b, "ISD::MUL": lambda a, b: a * b,
    "ISD::AND": lambda a, b: a & b, "ISD::OR": lambda a, b: a | b, "ISD::XOR": lambda a, b: a ^ b,
    "ISD::SHL": lambda a, b: a << (b & 31), "ISD::SRL": lambda a, b: (a & 0xFFFFFFFF) >> (b & 31),
    "ISD::SRA": lambda a, b: a >> (b & 31),
}
_REASSOC = frozenset({"ISD::ADD", "ISD::MUL", "ISD::AND", "ISD::OR", "ISD::XOR"})
_MINMAX = {"SETLT": ("ISD::SMIN", "ISD::SMAX"), "SETLE": ("ISD::SMIN", "ISD::SMAX"),
           "SETGT": ("ISD::SMAX", "ISD::SMIN"), "SETGE": ("ISD::SMAX", "ISD::SMIN"),
           "SETULT": ("ISD::UMIN", "ISD::UMAX"), "SETULE": ("ISD::UMIN", "ISD::UMAX"),
           "SETUGT": ("ISD::UMAX", "ISD::UMIN"), "SETUGE": ("ISD::UMAX", "ISD::UMIN")}


def _is_c(n: SDNode) -> bool:
    return n.opcode == "ISD::Constant" and isinstance(n.value, int)


_LEGAL: dict[int, tuple[object, frozenset]] = {}


def _legal(target) -> frozenset:
    """Root opcodes the target has patterns for (cached per target)."""
    if target is None:
        return frozenset()
    hit = _LEGAL.get(id(target))
    if hit is not None and hit[0] is target:
        return hit[1]
    from .matcher import build_table

    legal = frozenset(build_table(target).by_opcode)
    _LEGAL[id(target)] = (target, legal)
    return legal


class _Ctx:
    def __init__(self, dag, target=None):
        self.dag = dag
        # like DAGCombiner's TLI.isOperationLegal: only form nodes the target can select
        self.legal = _legal(target)
        self.consts: dict = {}
        self.forward: dict[int, SDNode] = {}
        self.created: list[SDNode] = []
        # use counts the rules see: a node's ``cuses`` when its ``cpass`` is this pass's
        # number ``self.pass_no`` (set from ``uses`` at the start of the pass), else 0
        self.pass_no = 0
        self.known: dict = {}  # (id(node), depth) -> (node, KnownBits), see _kb
        self.index_pass = -1  # the pass the getNodeIfExists index was built in
        self.index: dict = {}
        self.mutated = False
        consts = self.consts
        for n in dag.nodes:
            if n.opcode == "ISD::Constant" and isinstance(n.value, int):  # _is_c(n)
                consts.setdefault((n.value, n.vt), n)

    def const(self, v: int, vt: str) -> SDNode:
        v = _wrap(v, vt)
        n = self.consts.get((v, vt))
        if n is None:
            n = SDNode(-1, "ISD::Constant", vt, (), value=v, block=self.dag.block)
            n.source = "uniform"
            self.dag.nodes.append(n)
            self.consts[(v, vt)] = n
        return n

    def vtnode(self, vt: str) -> SDNode:
        """The VTSDNode operand carrying ``vt`` (e.g. the width of sign_extend_inreg);
        never divergent. See ``sdag.value_type_node``."""
        key = ("VT", vt)
        n = self.consts.get(key)
        if n is None:
            n = value_type_node(self.dag.block, vt)
            self.dag.nodes.append(n)
            self.consts[key] = n
        return n

    def new(self, opcode, vt, ops, like: SDNode | None = None) -> SDNode:
        n = SDNode(-1, opcode, vt, ops, block=self.dag.block, ir=like.ir if like is not None else None)
        n.divergent = any(o.divergent for o in ops)
        self.dag.nodes.append(n)
        self.created.append(n)
        p = self.pass_no
        n.cuses, n.cpass = 0, p  # (the _set, new or replace that uses it counts the use)
        for o in ops:
            if o.cpass == p:
                o.cuses += 1
            else:
                o.cuses, o.cpass = 1, p
        return n

    def existing(self, opc: str, a: SDNode, b: SDNode) -> SDNode | None:
        """SelectionDAG::getNodeIfExists: a live node ``opc a, b`` (operands in this
        order). The index is built on first use in a pass; a hit is re-checked, so a node
        changed since is not returned (one made since is found from the next pass on)."""
        if self.index_pass != self.pass_no:
            self.index_pass = self.pass_no
            idx = self.index = {}
            for m in self.dag.nodes:
                if len(m.ops) == 2 and m.opcode in _FOLD:
                    idx.setdefault((m.opcode, id(m.ops[0]), id(m.ops[1])), m)
        m = self.index.get((opc, id(a), id(b)))
        if m is None or m.opcode != opc or m.ops[0] is not a or m.ops[1] is not b \
                or id(m) in self.forward or not (m.cpass == self.pass_no and m.cuses > 0):
            return None
        return m

    def one_use(self, n: SDNode) -> bool:
        return n.cpass == self.pass_no and n.cuses == 1

    def replace(self, n: SDNode, m: SDNode) -> None:
        """Every user of ``n`` uses ``m`` instead (applied at the end of the pass; the use
        counts of this pass follow now: ``m`` gains ``n``'s users, ``n`` is dead)."""
        self.forward[id(n)] = m
        p = self.pass_no
        k = n.cuses if n.cpass == p else 0
        if m.cpass == p:
            m.cuses += k
        else:
            m.cuses, m.cpass = k, p
        n.cuses, n.cpass = 0, p
        for o in n.ops:
            if o.cpass == p and o.cuses > 0:
                o.cuses -= 1


def _set(n: SDNode, opcode: str, ops) -> None:
    """Rewrite ``n`` in place (its users see the new expression, of the same value); the
    use counts of this pass follow (the old operands lose a use, the new ones gain one)."""
    p = _PASS_NO[0]
    for o in n.ops:
        if o.cpass == p and o.cuses > 0:
            o.cuses -= 1
    n.opcode = opcode
    n.ops = ops = list(ops)
    for o in ops:
        if o.cpass == p:
            o.cuses += 1
        else:
            o.cuses, o.cpass = 1, p
    n.divergent = any(o.divergent for o in ops) if n.source is None else n.divergent




def _is_not_of(n: SDNode, x: SDNode) -> bool:
    return n.opcode == "ISD::XOR" and len(n.ops) == 2 and n.ops[0] is x and _is_c(n.ops[1]) and n.ops[1].value == -1


def _bus_ok(ops) -> bool:
    from .matcher import CONSTANT_BUS_LIMIT, is_inline_immediate

    return sum(1 for o in ops if not o.divergent and not is_inline_immediate(o)) <= CONSTANT_BUS_LIMIT


def _feeds_mad(m: SDNode, ctx: _Ctx) -> bool:
    """``m`` (a mul by a constant) is selected as part of v_mad_u64_u32 by its one user:
    a divergent ``add m, z`` whose ThreeOp predicate holds, unless v_add3_u32 takes that
    add first (z a one-use add). llc decomposes a divergent mul by 2^k+1 into
    v_lshl_add_u32 only when it is selected on its own (checked with llc-19: ``mul x, 9``
    feeding ``add .., %uniform`` stays a mul and becomes v_mad_u64_u32)."""
    if "ISD::ADD" not in ctx.legal or not ctx.one_use(m):
        return False
    users = [u for u in ctx.dag.nodes if m in u.ops and id(u) not in ctx.forward]
    if len(users) != 1 or users[0].opcode != "ISD::ADD" or not users[0].divergent:
        return False
    u = users[0]
    z = u.ops[1] if u.ops[0] is m else u.ops[0]
    if z.opcode == "ISD::ADD" and ctx.one_use(z) and _bus_ok([z.ops[0], z.ops[1], m]):
        return False
    return _bus_ok([m.ops[0], m.ops[1], z])



def _binop_rules(n: SDNode, ctx: _Ctx) -> bool:
    opc = n.opcode
    a, b = n.ops
    ac = a.opcode == "ISD::Constant" and isinstance(a.value, int)  # _is_c(a), _is_c(b)
    bc = b.opcode == "ISD::Constant" and isinstance(b.value, int)
    if ac:
        if bc:
            n.opcode, n.ops, n.value, n.source, n.divergent = "ISD::Constant", [], _wrap(_FOLD[opc](a.value, b.value), n.vt), "uniform", False
            return True
        if opc in COMMUTATIVE:
            n.ops = [b, a]
            return True
        if opc in ("ISD::SRA", "ISD::SRL", "ISD::SHL") and _wrap(a.value, n.vt) == 0 \
                or opc == "ISD::SRA" and _wrap(a.value, n.vt) == -1:
            ctx.replace(n, a)  # shifting 0 (or sra of all ones) gives the same value
            return True
    if bc:
        c = b.value
        if (c == 0 and opc in ("ISD::ADD", "ISD::SUB", "ISD::OR", "ISD::XOR", "ISD::SHL", "ISD::SRL", "ISD::SRA")) \
                or (c == 1 and opc == "ISD::MUL") or (c == -1 and opc == "ISD::AND"):
            ctx.replace(n, a)
            return True
        if opc == "ISD::SUB" and n.value != "negsub":
            _set(n, "ISD::ADD", [a, ctx.const(-c, n.vt)])
            return True
        if opc == "ISD::MUL" and c > 1 and (c & (c - 1)) == 0:
            _set(n, "ISD::SHL", [a, ctx.const(c.bit_length() - 1, n.vt)])
            return True
        if opc == "ISD::MUL" and c == -1:
            _set(n, "ISD::SUB", [ctx.const(0, n.vt), a])
            return True
        if opc == "ISD::MUL" and c < -1 and ((-c) & (-c - 1)) == 0:
            sh = ctx.new("ISD::SHL", n.vt, [a, ctx.const((-c).bit_length() - 1, n.vt)], like=n)
            _set(n, "ISD::SUB", [ctx.const(0, n.vt), sh])
            return True
        if opc == "ISD::MUL" and n.divergent and c > 2 and ((c - 1) & (c - 2)) == 0 \
                and not _feeds_mad(n, ctx):
            # AMDGPU decomposes a divergent mul by 2^k + 1 (decomposeMulByConstant)
            sh = ctx.new("ISD::SHL", n.vt, [a, ctx.const((c - 1).bit_length() - 1, n.vt)], like=n)
            _set(n, "ISD::ADD", [sh, a])
            return True
        if opc == "ISD::MUL" and a.opcode == "ISD::SHL" and _is_c(a.ops[1]):
            # visitMUL: (mul (shl X, c1), c2) -> (mul X, c2 << c1) (no one-use condition)
            _set(n, "ISD::MUL", [a.ops[0], ctx.const(c << (a.ops[1].value & 31), n.vt)])
            return True
        if opc == "ISD::MUL" and a.opcode == "ISD::ADD" and _is_c(a.ops[1]) and ctx.one_use(a):
            # visitMUL: (mul (add x, c1), c2) -> (add (mul x, c2), c1 * c2) when
            # isMulAddWithConstProfitable: the add used once (AMDGPU keeps the default
            # TargetLowering answer, true)
            m = ctx.new("ISD::MUL", n.vt, [a.ops[0], b], like=n)
            _set(n, "ISD::ADD", [m, ctx.const(a.ops[1].value * c, n.vt)])
            return True
        if opc == "ISD::SHL" and a.opcode in ("ISD::ADD", "ISD::OR") and _is_c(a.ops[1]) and ctx.one_use(a):
            # (shl (add x, c1), c2) -> (add (shl x, c2), c1 << c2)
            sh = ctx.new("ISD::SHL", n.vt, [a.ops[0], b], like=n)
            _set(n, a.opcode, [sh, ctx.const(a.ops[1].value << (c & 31), n.vt)])
            return True
        if opc == "ISD::SRA" and _non_negative(a):
            n.opcode = "ISD::SRL"  # the sign bit is known zero
            return True
    elif opc == "ISD::SRA" and _non_negative(a):  # (with a constant b: tested just above)
        n.opcode = "ISD::SRL"  # the sign bit is known zero
        return True
    if a is b:
        if opc in ("ISD::XOR", "ISD::SUB"):
            ctx.replace(n, ctx.const(0, n.vt))
            return True
        if opc in ("ISD::AND", "ISD::OR"):
            ctx.replace(n, a)
            return True
    tail = _TAIL.get(opc)
    if tail is not None and tail(n, ctx, opc, a, b):
        return True
    # (the add and mul tails run SimplifyDemandedBits at their place in the visit)
    if opc == "ISD::ADD" or opc == "ISD::MUL":
        return False
    if _demanded_root(n, ctx):
        return True
    return bc and opc in _SHIFTS and _shift_by_constant(n, ctx, opc, a, b)


_SHIFTS = frozenset({"ISD::SHL", "ISD::SRL", "ISD::SRA"})
_LOGIC3 = frozenset({"ISD::AND", "ISD::OR", "ISD::XOR"})


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
    if not ctx.one_use(a):
        return False
    bits = _width(n.vt)
    c1 = b.value & ((1 << bits) - 1)
    vt = n.vt
    if _is_not(a):
        return False  # (a not stays a not: llc-19 keeps shift (not (shift x)) for shl, srl, sra)
    if a.opcode in _LOGIC3:
        for v, y in ((a.ops[0], a.ops[1]), (a.ops[1], a.ops[0])):
            if v.opcode == opc and ctx.one_use(v) and _is_c(v.ops[1]):
                c0 = v.ops[1].value & ((1 << bits) - 1)
                if c0 + c1 >= bits:
                    continue
                s1 = ctx.new(opc, vt, [v.ops[0], ctx.const(c0 + c1, vt)], like=n)
                s2 = ctx.new(opc, vt, [y, b], like=n)
                _set(n, a.opcode, [s1, s2])
                return True
    x = a.ops[0]
    by_const = x.opcode in _SHIFTS and _is_c(x.ops[1])
    copy_or_select = x.opcode in ("ISD::CopyFromReg", "ISD::SELECT")
    if not (by_const or copy_or_select) or (copy_or_select and ctx.one_use(n)):
        return False
    if not _is_c(a.ops[1]):
        return False
    inner = ctx.new(opc, vt, [x, b], like=n)
    _set(n, a.opcode, [inner, ctx.const(_FOLD[opc](a.ops[1].value, c1), vt)])
    return True


# The opcode-specific rules of _binop_rules, one function per opcode: each holds, in the
# chain's original order, exactly the rules whose opcode test admits that opcode (the
# others cannot fire for it), so the rules an opcode runs, and their order, are unchanged.
# Rules shared by several opcodes are the _rule_* functions.

def _rule_absorb(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if opc in ("ISD::AND", "ISD::OR"):
        # absorption: (or x, (and x, y)) -> x ; (and x, (or x, y)) -> x
        other = "ISD::AND" if opc == "ISD::OR" else "ISD::OR"
        for x, y in ((a, b), (b, a)):
            if y.opcode == other and x in y.ops:
                ctx.replace(n, x)
                return True
    return False


def _rule_shift_of_shift(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if opc in ("ISD::SHL", "ISD::SRL", "ISD::SRA") and _is_c(b) and a.opcode == opc and _is_c(a.ops[1]):
        # (shift (shift x, c1), c2) -> (shift x, c1 + c2)
        total = (a.ops[1].value & 31) + (b.value & 31)
        if total < 32:
            _set(n, opc, [a.ops[0], ctx.const(total, n.vt)])
        elif opc == "ISD::SRA":
            _set(n, opc, [a.ops[0], ctx.const(31, n.vt)])
        else:
            ctx.replace(n, ctx.const(0, n.vt))
        return True
    return False


def _rule_reassociate(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if opc in _REASSOC:
        for x, y in ((a, b), (b, a)) if opc in COMMUTATIVE else ((a, b),):
            if _reassociate(n, x, y, ctx):
                return True
    return False


def _is_neg(n: SDNode) -> bool:
    """``n`` is ``sub 0, x``."""
    return n.opcode == "ISD::SUB" and _is_c(n.ops[0]) and n.ops[0].value == 0


def _is_not(n: SDNode) -> bool:
    """``n`` is ``xor x, -1`` (isBitwiseNot)."""
    return n.opcode == "ISD::XOR" and _is_c(n.ops[1]) and n.ops[1].value == -1


def _no_common_bits(x: SDNode, y: SDNode, ctx: _Ctx) -> bool:
    """SelectionDAG::haveNoCommonBitsSet, by known bits: every bit is known zero on one
    side at least."""
    kx = _kb(x, ctx, 0)
    if not kx.zero:
        return False
    ky = _kb(y, ctx, 0)
    return (kx.zero | ky.zero) == (1 << kx.bits) - 1


def _add_like(v: SDNode, ctx: _Ctx) -> bool:
    """SelectionDAG::isADDLike: an or of operands without common bits (the xor with the
    sign mask too)."""
    if v.opcode == "ISD::OR":
        return _no_common_bits(v.ops[0], v.ops[1], ctx)
    if v.opcode == "ISD::XOR" and _is_c(v.ops[1]):
        bits = _width(v.vt)
        return bits and (v.ops[1].value & ((1 << bits) - 1)) == 1 << (bits - 1)
    return False


def _tail_ADD(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    """DAGCombiner::visitADDLike / visitADDLikeCommutative / visitADD in their order, then
    the target's add combines."""
    vt = n.vt
    bc = _is_c(b)
    if (_is_not(a) and a.ops[0] is b) or (_is_not(b) and b.ops[0] is a):
        ctx.replace(n, ctx.const(-1, vt))  # x + ~x
        return True
    if bc and a.opcode == "ISD::SUB":
        if _is_c(a.ops[1]):  # ((A - c1) + c2) -> A + (c2 - c1)
            _set(n, "ISD::ADD", [a.ops[0], ctx.const(b.value - a.ops[1].value, vt)])
            return True
        if _is_c(a.ops[0]):  # ((c1 - A) + c2) -> (c1 + c2) - A
            _set(n, "ISD::SUB", [ctx.const(b.value + a.ops[0].value, vt), a.ops[1]])
            return True
    if bc and len(a.ops) == 2 and _is_c(a.ops[1]):
        if _add_like(a, ctx):  # (add (or x, c0), c1) -> (add x, c0 + c1), the or add-like
            _set(n, "ISD::ADD", [a.ops[0], ctx.const(a.ops[1].value + b.value, vt)])
            return True
    if bc and -64 <= b.value < -16:
        # AMDGPU selects add x, -C with -C in [-64, -17] as a sub of the inline constant C
        # (LLVM's NegSubInlineConst32 patterns); we express it as the DAG it selects from
        _set(n, "ISD::SUB", [a, ctx.const(-b.value, vt)])
        n.value = "negsub"
        ctx.mutated = True  # a change no pass reports (see run)
        return False
    if _rule_reassociate(n, ctx, opc, a, b):
        return True
    for p_, q in ((a, b), (b, a)):
        # ReassociateAddOr: (add (or x, c), y) -> (add (add x, y), c), the or add-like
        # and used once
        if p_.opcode in ("ISD::OR", "ISD::XOR") and _is_c(p_.ops[1]) and not _is_c(q) and ctx.one_use(p_) \
                and _add_like(p_, ctx):
            inner = ctx.new("ISD::ADD", vt, [q, p_.ops[0]], like=n)
            _set(n, "ISD::ADD", [inner, p_.ops[1]])
            return True
    if _is_neg(a):  # ((0 - A) + B) -> B - A
        _set(n, "ISD::SUB", [b, a.ops[1]])
        return True
    if _is_neg(b):  # (A + (0 - B)) -> A - B
        _set(n, "ISD::SUB", [a, b.ops[1]])
        return True
    if b.opcode == "ISD::SUB" and b.ops[1] is a:  # A + (B - A) -> B
        ctx.replace(n, b.ops[0])
        return True
    if a.opcode == "ISD::SUB" and a.ops[1] is b:  # (B - A) + A -> B
        ctx.replace(n, a.ops[0])
        return True
    if a.opcode == "ISD::SUB" and b.opcode == "ISD::SUB":
        if b.ops[1] is a.ops[0]:  # (A - B) + (C - A) -> C - B
            _set(n, "ISD::SUB", [b.ops[0], a.ops[1]])
            return True
        if b.ops[0] is a.ops[1]:  # (A - B) + (B - C) -> A - C
            _set(n, "ISD::SUB", [a.ops[0], b.ops[1]])
            return True
    if b.opcode == "ISD::SUB" and b.ops[1].opcode == "ISD::ADD" and a in b.ops[1].ops:
        # A + (B - (A + C)) -> B - C (and A + (B - (C + A)))
        t = b.ops[1]
        _set(n, "ISD::SUB", [b.ops[0], t.ops[1] if t.ops[0] is a else t.ops[0]])
        return True
    if b.opcode in ("ISD::ADD", "ISD::SUB") and b.ops[0].opcode == "ISD::SUB" and b.ops[0].ops[1] is a:
        # A + ((B - A) +/- C) -> B +/- C
        _set(n, b.opcode, [b.ops[0].ops[0], b.ops[1]])
        return True
    if a.opcode == "ISD::SUB" and b.opcode == "ISD::SUB" and ctx.one_use(a) and ctx.one_use(b) \
            and (_is_c(a.ops[0]) or _is_c(b.ops[0])):
        # (A - B) + (C - D) -> (A + C) - (B + D) when A or C is a constant
        s1 = ctx.new("ISD::ADD", vt, [a.ops[0], b.ops[0]], like=n)
        s2 = ctx.new("ISD::ADD", vt, [a.ops[1], b.ops[1]], like=n)
        _set(n, "ISD::SUB", [s1, s2])
        return True
    if _demanded_root(n, ctx):
        return True
    if bc and _wrap(b.value, vt) == 1:
        if _is_not(a):  # (add (xor x, -1), 1) -> (sub 0, x)
            _set(n, "ISD::SUB", [ctx.const(0, vt), a.ops[0]])
            return True
        if a.opcode == "ISD::ADD":  # (add (add (xor a, -1), b), 1) -> (sub b, a)
            if _is_not(a.ops[0]):
                _set(n, "ISD::SUB", [a.ops[1], a.ops[0].ops[0]])
                return True
            if _is_not(a.ops[1]):
                _set(n, "ISD::SUB", [a.ops[0], a.ops[1].ops[0]])
                return True
    if bc and _wrap(b.value, vt) == -1 and a.opcode == "ISD::SUB" and ctx.one_use(a):
        # (x - y) + -1 -> add (xor y, -1), x
        nt = ctx.new("ISD::XOR", vt, [a.ops[1], ctx.const(-1, vt)], like=a)
        _set(n, "ISD::ADD", [nt, a.ops[0]])
        return True
    if bc and a.opcode == "ISD::MUL" and ctx.one_use(a) and _is_c(a.ops[1]) and a.ops[0].opcode == "ISD::ADD" \
            and _is_c(a.ops[0].ops[1]):
        # add (mul (add A, CA), CM), CB -> add (mul A, CM), CM * CA + CB
        cm, ca = a.ops[1].value, a.ops[0].ops[1].value
        m = ctx.new("ISD::MUL", vt, [a.ops[0].ops[0], a.ops[1]], like=a)
        _set(n, "ISD::ADD", [m, ctx.const(cm * ca + b.value, vt)])
        return True
    for p_, q in ((a, b), (b, a)):  # visitADDLikeCommutative, both operand orders
        if q.opcode == "ISD::SHL" and _is_neg(q.ops[0]):
            # add x, (shl (0 - y), n) -> sub x, (shl y, n)
            sh = ctx.new("ISD::SHL", vt, [q.ops[0].ops[1], q.ops[1]], like=q)
            _set(n, "ISD::SUB", [p_, sh])
            return True
        if p_.opcode == "ISD::SUB" and ctx.one_use(p_):
            if _is_c(p_.ops[1]):  # (x - C) + y -> (x + y) - C
                t = ctx.new("ISD::ADD", vt, [p_.ops[0], q], like=n)
                _set(n, "ISD::SUB", [t, p_.ops[1]])
                return True
            if _is_c(p_.ops[0]):  # (C - x) + y -> (y - x) + C
                t = ctx.new("ISD::SUB", vt, [q, p_.ops[1]], like=n)
                _set(n, "ISD::ADD", [t, p_.ops[0]])
                return True
        if p_.opcode == "ISD::MUL" and p_.ops[0] is q and _is_c(p_.ops[1]) and ctx.one_use(p_):
            # add (mul x, C), x -> mul x, C + 1
            _set(n, "ISD::MUL", [q, ctx.const(p_.ops[1].value + 1, vt)])
            return True
    if _no_common_bits(a, b, ctx):
        _set(n, "ISD::OR", [a, b])  # no common bits: an or (visitADD)
        return True
    if _reassociate_scalar(n, ctx):
        return True
    return False


def _tail_SUB(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    """DAGCombiner::visitSUB in its order (sub x, C is already add x, -C)."""
    vt = n.vt
    bits = _width(vt)
    if _is_c(a) and a.value == 0 and b.opcode in ("ISD::SRA", "ISD::SRL") and _is_c(b.ops[1]) \
            and (b.ops[1].value & 0xFFFFFFFF) == bits - 1:
        # -(X >>u 31) -> X >>s 31 ; -(X >>s 31) -> X >>u 31
        _set(n, "ISD::SRL" if b.opcode == "ISD::SRA" else "ISD::SRA", [b.ops[0], b.ops[1]])
        return True
    if _is_c(a) and _wrap(a.value, vt) == -1:  # (sub -1, x) -> (xor x, -1)
        _set(n, "ISD::XOR", [b, a])
        return True
    if _is_neg(b):  # A - (0 - B) -> A + B
        _set(n, "ISD::ADD", [a, b.ops[1]])
        return True
    if b.opcode == "ISD::SUB" and b.ops[0] is a:  # A - (A - B) -> B
        ctx.replace(n, b.ops[1])
        return True
    if a.opcode == "ISD::ADD" and b in a.ops:  # (A + B) - A -> B ; (A + B) - B -> A
        ctx.replace(n, a.ops[1] if a.ops[0] is b else a.ops[0])
        return True
    if b.opcode == "ISD::ADD" and _is_c(a) and _is_c(b.ops[1]):
        # C2 - (A + C1) -> (C2 - C1) - A (no one-use condition)
        _set(n, "ISD::SUB", [ctx.const(a.value - b.ops[1].value, vt), b.ops[0]])
        return True
    if a.opcode == "ISD::ADD" and a.ops[1].opcode in ("ISD::ADD", "ISD::SUB") and a.ops[1].ops[0] is b:
        # ((A + (B +/- C)) - B) -> A +/- C
        _set(n, a.ops[1].opcode, [a.ops[0], a.ops[1].ops[1]])
        return True
    if a.opcode == "ISD::ADD" and a.ops[1].opcode == "ISD::ADD" and a.ops[1].ops[1] is b:
        # ((A + (C + B)) - B) -> A + C
        _set(n, "ISD::ADD", [a.ops[0], a.ops[1].ops[0]])
        return True
    if a.opcode == "ISD::SUB" and a.ops[1].opcode == "ISD::SUB" and a.ops[1].ops[1] is b:
        # ((A - (B - C)) - C) -> A - B
        _set(n, "ISD::SUB", [a.ops[0], a.ops[1].ops[0]])
        return True
    if b.opcode == "ISD::SUB" and ctx.one_use(b):
        # (A - (B - C)) -> A + (C - B)
        inner = ctx.new("ISD::SUB", vt, [b.ops[1], b.ops[0]], like=b)
        _set(n, "ISD::ADD", [a, inner])
        return True
    if b.opcode == "ISD::AND" and a in b.ops:
        # A - (A & B) -> A & ~B (the and used once, or B a constant)
        bb = b.ops[1] if b.ops[0] is a else b.ops[0]
        if ctx.one_use(b) or _is_c(bb):
            inv = ctx.new("ISD::XOR", vt, [bb, ctx.const(-1, vt)], like=b)
            _set(n, "ISD::AND", [a, inv])
            return True
    if b.opcode == "ISD::MUL" and ctx.one_use(b):
        for p_, q in ((b.ops[0], b.ops[1]), (b.ops[1], b.ops[0])):
            if _is_neg(p_):  # A - ((0 - B) * C) -> A + (B * C)
                m = ctx.new("ISD::MUL", vt, [p_.ops[1], q], like=b)
                _set(n, "ISD::ADD", [a, m])
                return True
    if _is_not(b) and ctx.one_use(b):
        # sub y, (xor x, -1) -> add (add y, x), 1 (preferIncOfAddToSubOfNot)
        inner = ctx.new("ISD::ADD", vt, [a, b.ops[0]], like=n)
        _set(n, "ISD::ADD", [inner, ctx.const(1, vt)])
        return True
    if a.opcode == "ISD::ADD" and ctx.one_use(a) and _is_c(a.ops[1]):
        # (x + C) - y -> (x - y) + C
        inner = ctx.new("ISD::SUB", vt, [a.ops[0], b], like=n)
        _set(n, "ISD::ADD", [inner, a.ops[1]])
        return True
    if b.opcode == "ISD::ADD" and _is_c(b.ops[1]) and ctx.one_use(b):
        # y - (x + C) -> (y - x) - C, which the next visit makes (y - x) + -C
        inner = ctx.new("ISD::SUB", vt, [a, b.ops[0]], like=n)
        _set(n, "ISD::ADD", [inner, ctx.const(-b.ops[1].value, vt)])
        return True
    if a.opcode == "ISD::SUB" and ctx.one_use(a) and _is_c(a.ops[0]):
        # (C - x) - y -> C - (x + y)
        inner = ctx.new("ISD::ADD", vt, [a.ops[1], b], like=n)
        _set(n, "ISD::SUB", [a.ops[0], inner])
        return True
    if b.opcode == "ISD::SRL" and ctx.one_use(b) and _is_c(b.ops[1]) and (b.ops[1].value & 0xFFFFFFFF) == bits - 1:
        # sub N0, (srl x, 31) -> add N0, (sra x, 31)
        sra = ctx.new("ISD::SRA", vt, [b.ops[0], b.ops[1]], like=b)
        _set(n, "ISD::ADD", [a, sra])
        return True
    if b.opcode == "ISD::SHL" and _is_c(b.ops[1]) and (b.ops[1].value & 0xFFFFFFFF) == bits - 1:
        _set(n, "ISD::ADD", [b, a])  # N0 - (x << 31) -> (x << 31) + N0
        return True
    if _is_c(a) and bits:
        # no borrow possible: sub C0, X -> xor X, C0
        m = (1 << bits) - 1
        c0 = a.value & m
        ones = ~_kb(b, ctx, 0).zero & m
        if (c0 - ones) & m == c0 ^ ones:
            _set(n, "ISD::XOR", [b, a])
            return True
    return False


def _tail_MUL(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if (a.opcode == "ISD::SHL" or b.opcode == "ISD::SHL") and not _is_c(b):
        # DAGCombiner visitMUL: (mul (shl x, C), y) -> (shl (mul x, y), C), the shl used
        # once (either operand order, the first operand tried first)
        for s_, y in ((a, b), (b, a)):
            if s_.opcode == "ISD::SHL" and _is_c(s_.ops[1]) and ctx.one_use(s_):
                inner = ctx.new("ISD::MUL", n.vt, [s_.ops[0], y], like=n)
                _set(n, "ISD::SHL", [inner, s_.ops[1]])
                return True
    if _rule_reassociate(n, ctx, opc, a, b):
        return True
    if _demanded_root(n, ctx):
        return True
    if n.divergent and "ISD::ADD" in ctx.legal:
        # AMDGPUTargetLowering::performMulCombine (a target combine: runs when the generic
        # visitMUL changed nothing), undoing InstCombine's X * (Y + 1) -> X * Y + X for
        # mad matching: a divergent mul x, (add y, 1) -> add (mul x, y), x when the add
        # has one use or only mul users; the add operand tried first
        for p_, x in ((a, b), (b, a)):
            if p_.opcode == "ISD::ADD" and _is_c(p_.ops[1]) and _wrap(p_.ops[1].value, n.vt) == 1 \
                    and (ctx.one_use(p_) or _only_mul_users(p_, ctx)):
                m = ctx.new("ISD::MUL", n.vt, [x, p_.ops[0]], like=n)
                _set(n, "ISD::ADD", [m, x])
                return True
    if n.divergent and n.vt == "i32" and "AMDGPUISD::MUL_U24" in ctx.legal:
        # ... then a divergent multiply of two operands that fit in 24 bits becomes
        # MUL_U24 (known leading zeros), else MUL_I24 (sign bits)
        if max(_active_bits(a, ctx), _active_bits(b, ctx)) <= 24:
            _set(n, "AMDGPUISD::MUL_U24", [a, b])
            return True
        if max(33 - _sign_bits(a, ctx, 0), 33 - _sign_bits(b, ctx, 0)) <= 24:
            _set(n, "AMDGPUISD::MUL_I24", [a, b])
            return True
    return False


def _active_bits(v: SDNode, ctx: _Ctx) -> int:
    """KnownBits::countMaxActiveBits."""
    k = _kb(v, ctx, 0)
    return k.bits - k.lead_zeros()


def _only_mul_users(v: SDNode, ctx: _Ctx) -> bool:
    return all(u.opcode == "ISD::MUL" for u in ctx.dag.nodes if v in u.ops and id(u) not in ctx.forward)


def _hoist_hands(n: SDNode, ctx: _Ctx, a: SDNode, b: SDNode) -> bool:
    """DAGCombiner::hoistLogicOpWithSameOpcodeHands: logic (op x, z), (op y, z) ->
    op (logic x, y), z for op a shift or an and, both hands used once."""
    if a.opcode != b.opcode or a.opcode not in _HANDS or len(a.ops) != 2 or a.ops[1] is not b.ops[1]:
        return False
    if not (ctx.one_use(a) and ctx.one_use(b)):
        return False
    logic = ctx.new(n.opcode, n.vt, [a.ops[0], b.ops[0]], like=n)
    _set(n, a.opcode, [logic, a.ops[1]])
    return True


_HANDS = frozenset({"ISD::SHL", "ISD::SRL", "ISD::SRA", "ISD::AND"})


def _tail_AND(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if _rule_absorb(n, ctx, opc, a, b):
        return True
    if _is_c(b) and a.opcode == "ISD::OR" and _is_c(a.ops[1]) and (a.ops[1].value & b.value) == b.value:
        ctx.replace(n, b)  # (and (or x, C), D) -> D when C covers D
        return True
    if opc == "ISD::AND" and _is_c(b) and a.opcode == "ISD::SRA" and _is_c(a.ops[1]) and ctx.one_use(a):
        # SimplifyDemandedBits: the mask demands none of the bits the sra copies from
        # the sign bit -> srl
        c = a.ops[1].value & 31
        if c and 32 - (b.value & 0xFFFFFFFF).bit_length() >= c:
            a.opcode = "ISD::SRL"
            return True
    if opc == "ISD::AND" and _is_c(b) and a.opcode == "ISD::SRL" and _is_c(a.ops[1]) and b.value > 0 \
            and (b.value & (b.value + 1)) == 0:
        shift, width = a.ops[1].value & 31, (b.value + 1).bit_length() - 1
        if shift + width >= 32:  # the mask keeps every bit the shift leaves
            ctx.replace(n, a)
            return True
        # (no BFE_U32 here: AMDGPU forms it at selection time for both divergences, the
        # SelectS_BFE CustomSelect step; forming it early would hide the and from an or
        # root's v_and_or_b32)
    if _rule_reassociate(n, ctx, opc, a, b):
        return True
    if _hoist_hands(n, ctx, a, b):
        return True
    return False


def _tail_OR(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if _rule_absorb(n, ctx, opc, a, b):
        return True
    if _rule_reassociate(n, ctx, opc, a, b):
        return True
    for p_, q in ((a, b), (b, a)):  # visitORCommutative, both operand orders
        if p_.opcode == "ISD::AND":
            x0, x1 = p_.ops
            if _is_not(x1) and x1.ops[0] is q:  # (or (and X, ~Y), Y) -> (or X, Y)
                _set(n, "ISD::OR", [x0, q])
                return True
            if _is_not(x0) and x0.ops[0] is q:  # (or (and ~Y, X), Y) -> (or X, Y)
                _set(n, "ISD::OR", [x1, q])
                return True
        if p_.opcode == "ISD::XOR":
            x, y = p_.ops
            if y is q or x is q:  # (or (xor X, Y), Y) -> (or X, Y)
                _set(n, "ISD::OR", [x if y is q else y, q])
                return True
            if q.opcode in ("ISD::AND", "ISD::OR") and ((q.ops[0] is x and q.ops[1] is y)
                                                         or (q.ops[0] is y and q.ops[1] is x)):
                _set(n, "ISD::OR", [x, y])  # (or (xor X, Y), (X and/or Y)) -> (or X, Y)
                return True
    if _hoist_hands(n, ctx, a, b):
        return True
    return False


def _tail_XOR(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if opc == "ISD::XOR" and not _is_c(b):
        # DAGCombiner: (x & ~y) ^ y -> x | y
        for p_, y in ((a, b), (b, a)):
            if p_.opcode == "ISD::AND":
                for q, x in ((p_.ops[1], p_.ops[0]), (p_.ops[0], p_.ops[1])):
                    if _is_not_of(q, y):
                        _set(n, "ISD::OR", [x, y])
                        return True
    if opc == "ISD::XOR" and _is_c(b) and _wrap(b.value, n.vt) == -1:
        ao = a.opcode
        if (ao == "ISD::AND" or ao == "ISD::OR") and ctx.one_use(a) and (_is_c(a.ops[1]) or _is_c(a.ops[0])):
            # DAGCombiner visitXOR (De Morgan when one side is a constant, the and/or used
            # once): not (and x, C) -> or (not x), ~C ; not (or x, C) -> and (not x), ~C
            x, c = (a.ops[0], a.ops[1]) if _is_c(a.ops[1]) else (a.ops[1], a.ops[0])
            notx = ctx.new("ISD::XOR", n.vt, [x, ctx.const(-1, n.vt)], like=a)
            _set(n, "ISD::OR" if ao == "ISD::AND" else "ISD::AND", [notx, ctx.const(~c.value, n.vt)])
            return True
        # DAGCombiner: not (neg x) -> add x, -1 ; not (add x, -1) -> neg x
        if a.opcode == "ISD::SUB" and _is_c(a.ops[0]) and a.ops[0].value == 0:
            _set(n, "ISD::ADD", [a.ops[1], ctx.const(-1, n.vt)])
            return True
        if a.opcode == "ISD::ADD" and _is_c(a.ops[1]) and _wrap(a.ops[1].value, n.vt) == -1:
            _set(n, "ISD::SUB", [ctx.const(0, n.vt), a.ops[0]])
            return True
    if opc == "ISD::XOR":
        # (xor (and x, y), y) -> (and (not x), y) when the and has one use; DAGCombiner
        # tries this operand order only (the and first, y its second operand)
        for p_, y in ((a, b),):
            if p_.opcode == "ISD::AND" and p_.ops[1] is y and ctx.one_use(p_):
                x = p_.ops[0]
                notx = ctx.new("ISD::XOR", n.vt, [x, ctx.const(-1, n.vt)], like=p_)
                _set(n, "ISD::AND", [notx, y])
                return True
    if _rule_reassociate(n, ctx, opc, a, b):
        return True
    if _hoist_hands(n, ctx, a, b):
        return True
    if _reassociate_scalar(n, ctx):
        return True
    return False


def _tail_SHL(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if _rule_shift_of_shift(n, ctx, opc, a, b):
        return True
    if _is_c(b) and a.opcode == "ISD::MUL" and _is_c(a.ops[1]) and ctx.one_use(a):
        # visitSHL: (shl (mul x, c1), c2) -> (mul x, c1 << c2), the mul used once
        _set(n, "ISD::MUL", [a.ops[0], ctx.const(a.ops[1].value << (b.value & 31), n.vt)])
        return True
    if opc == "ISD::SHL" and _is_c(b) and a.opcode == "ISD::SRL" and _is_c(a.ops[1]):
        c1, c2 = a.ops[1].value & 31, b.value & 31
        if c1 > 0 and c2 > 0 and (c1 == c2 or ctx.one_use(a)):
            # DAGCombiner: (shl (srl x, c1), c2) -> (and (shl|srl x, |c2-c1|), (-1 >> c1) << c2)
            x = a.ops[0]
            mask = ctx.const(((0xFFFFFFFF >> c1) << c2) & 0xFFFFFFFF, n.vt)
            if c1 == c2:
                inner = x
            else:
                inner = ctx.new("ISD::SHL" if c2 > c1 else "ISD::SRL", n.vt,
                                [x, ctx.const(abs(c2 - c1), n.vt)], like=n)
            _set(n, "ISD::AND", [inner, mask])
            return True
    return False


def _tail_SRL(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if _rule_shift_of_shift(n, ctx, opc, a, b):
        return True
    if opc in ("ISD::SRL", "ISD::SRA") and _is_c(b) and a.opcode == "ISD::SHL" and _is_c(a.ops[1]):
        c1, c2 = a.ops[1].value & 31, b.value & 31
        x = a.ops[0]
        if opc == "ISD::SRL" and c1 > 0 and c2 > 0 and (c1 == c2 or ctx.one_use(a)):
            # DAGCombiner: (srl (shl x, c1), c2) -> (and (srl|shl x, |c2-c1|), -1 >> c2)
            mask = ctx.const(0xFFFFFFFF >> c2, n.vt)
            if c1 == c2:
                inner = x
            else:
                inner = ctx.new("ISD::SRL" if c2 > c1 else "ISD::SHL", n.vt,
                                [x, ctx.const(abs(c2 - c1), n.vt)], like=n)
            _set(n, "ISD::AND", [inner, mask])
            return True
    return False


def _tail_SRA(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if _rule_shift_of_shift(n, ctx, opc, a, b):
        return True
    return False


_TAIL = {"ISD::ADD": _tail_ADD, "ISD::SUB": _tail_SUB, "ISD::MUL": _tail_MUL, "ISD::AND": _tail_AND,
         "ISD::OR": _tail_OR, "ISD::XOR": _tail_XOR, "ISD::SHL": _tail_SHL, "ISD::SRL": _tail_SRL,
         "ISD::SRA": _tail_SRA}


def _non_negative(n: SDNode, depth: int = 0) -> bool:
    """Known bits: the sign bit of ``n`` is zero."""
    return _known_lz(n, depth) >= 1


def _known_lz(n: SDNode, depth: int = 0) -> int:
    """Known leading zero bits of a 32-bit value (the part of SelectionDAG's
    computeKnownBits the modeled ops need; recursion depth 6 like LLVM's)."""
    if depth > 6:
        return 0
    opc = n.opcode
    if opc == "ISD::Constant":
        if not isinstance(n.value, int):
            return 0
        return 32 - (n.value & 0xFFFFFFFF).bit_length()
    if opc == "ISD::CopyFromReg":
        # recorded where the value was computed (sdag._Builder.live_lz): the exporting
        # node of that finished block until first asked, counted from depth 0 there
        k = n.klz
        if k.__class__ is not int:
            k = n.klz = _known_lz(k)
        return k
    if opc in ("ISD::CTPOP", "ISD::CTLZ", "ISD::CTTZ", "ISD::CTLZ_ZERO_UNDEF", "ISD::CTTZ_ZERO_UNDEF"):
        return 26  # at most 32: six bits
    if opc == "ISD::INTRINSIC_WO_CHAIN":
        # a workitem id is lowered with AssertZext to the bits of the largest id (flat
        # workgroup size 1024 by default: 10 bits, SITargetLowering::lowerWorkitemID)
        return 22 if (n.intrinsic or "").startswith("llvm.amdgcn.workitem.id.") else 0
    if opc == "AMDGPUISD::BFE_U32":
        w = n.ops[2]
        return 32 - (w.value & 31) if _is_c(w) and 0 < (w.value & 31) else 0
    ops = n.ops
    if opc not in ("ISD::SRL", "ISD::SRA", "ISD::SHL", "ISD::AND", "ISD::OR", "ISD::XOR", "ISD::ADD",
                   "ISD::MUL", "ISD::UMIN", "ISD::UMAX", "ISD::SMAX", "ISD::SMIN", "ISD::SELECT"):
        return 0
    if opc == "ISD::SELECT":
        return min(_known_lz(ops[1], depth + 1), _known_lz(ops[2], depth + 1))
    x = _known_lz(ops[0], depth + 1)
    if opc in ("ISD::SRL", "ISD::SRA", "ISD::SHL"):
        b = ops[1]
        if not _is_c(b):
            return x if opc != "ISD::SHL" else 0
        c = b.value & 31
        if opc == "ISD::SHL":
            return x - c if x > c else 0
        if opc == "ISD::SRA" and x == 0:
            return 0
        return min(32, x + c)
    y = _known_lz(ops[1], depth + 1)
    if opc in ("ISD::AND", "ISD::UMIN"):
        return max(x, y)
    if opc in ("ISD::OR", "ISD::XOR", "ISD::UMAX", "ISD::SMAX", "ISD::SMIN"):
        return min(x, y)
    if opc == "ISD::ADD":
        return max(0, min(x, y) - 1)
    if opc == "ISD::MUL":
        return max(0, x + y - 32)
    return 0


def _reassociate(n: SDNode, n0: SDNode, n1: SDNode, ctx: _Ctx) -> bool:
    opc = n.opcode
    if n0.opcode != opc:
        return False
    n00, n01 = n0.ops
    if _is_c(n01):
        if _is_c(n1):
            folded = ctx.const(_FOLD[opc](n01.value, n1.value), n.vt)
            _set(n, opc, [n00, folded])
            return True
        if ctx.one_use(n0) and (n0.divergent or not n1.divergent):
            inner = ctx.new(opc, n.vt, [n00, n1], like=n0)
            _set(n, opc, [inner, n01])
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
    if ctx.one_use(n0) and (n0.divergent or not n1.divergent):
        # DAGCombiner::reassociateOpsCommutative: (op (op n00, n01), n1) -> (op e, n01)
        # when e = (op n00, n1) is already a node of the DAG (getNodeIfExists, operands
        # in that order), or (op e, n00) with e = (op n01, n1); not when the result
        # itself exists already (doesNodeExist, which would make the two loop)
        if n1 is not n01:
            e = ctx.existing(opc, n00, n1)
            if e is not None and ctx.existing(opc, e, n01) is None:
                _set(n, opc, [e, n01])
                return True
        if n1 is not n00:
            e = ctx.existing(opc, n01, n1)
            if e is not None and ctx.existing(opc, e, n00) is None:
                _set(n, opc, [e, n00])
                return True
    return False


def _reassociate_scalar(n: SDNode, ctx: _Ctx) -> bool:
    opc = n.opcode
    op0, op1 = n.ops
    if opc == "ISD::ADD" and _is_c(op1):
        return False  # isBaseWithConstantOffset
    if op0.divergent == op1.divergent:
        return False
    if op0.divergent:
        op0, op1 = op1, op0
    if op1.opcode != opc or not ctx.one_use(op1):
        return False
    x, y = op1.ops
    if x.divergent == y.divergent:
        return False
    if x.divergent:
        x, y = y, x
    inner = ctx.new(opc, n.vt, [op0, x], like=op1)
    _set(n, opc, [inner, y])
    return True


def _other_rules(n: SDNode, ctx: _Ctx) -> bool:
    opc = n.opcode
    ops = n.ops
    if opc == "ISD::SETCC":
        return _setcc_rules(n, ctx)
    if opc == "ISD::SRA" and _is_c(ops[1]) and ops[0].opcode == "ISD::SHL" and _is_c(ops[0].ops[1]) \
            and ops[0].ops[1].value == ops[1].value and ops[1].value in (16, 24) and n.vt == "i32" \
            and "ISD::SIGN_EXTEND_INREG" in ctx.legal:
        _set(n, "ISD::SIGN_EXTEND_INREG", [ops[0].ops[0], ctx.vtnode(f"i{32 - ops[1].value}")])
        return True
    if opc == "ISD::SIGN_EXTEND" and n.vt == "i32" and ops and ops[0].opcode == "ISD::TRUNCATE" \
            and ops[0].vt in ("i8", "i16") and ops[0].ops[0].vt == "i32" \
            and "ISD::SIGN_EXTEND_INREG" in ctx.legal:
        # visitSIGN_EXTEND: sext (trunc x) with x already of the result type
        _set(n, "ISD::SIGN_EXTEND_INREG", [ops[0].ops[0], ctx.vtnode(ops[0].vt)])
        return True
    if opc == "ISD::SELECT" and len(ops) == 3 and ops[0].opcode == "ISD::SETCC" and n.vt == "i32":
        c, a, b = ops
        if c.cc in _MINMAX and ctx.one_use(c) and all(m in ctx.legal for m in _MINMAX[c.cc]):
            if c.ops[0] is a and c.ops[1] is b:
                _set(n, _MINMAX[c.cc][0], [a, b])
                return True
            if c.ops[0] is b and c.ops[1] is a:
                _set(n, _MINMAX[c.cc][1], [b, a])
                return True
    if opc in ("ISD::CTLZ", "ISD::CTTZ") and n.vt == "i32" and opc + "_ZERO_UNDEF" in ctx.legal \
            and "ISD::UMIN" in ctx.legal:
        inner = ctx.new(opc + "_ZERO_UNDEF", "i32", [ops[0]], like=n)
        inner.intrinsic = n.intrinsic
        _set(n, "ISD::UMIN", [inner, ctx.const(32, "i32")])
        return True
    if opc == "ISD::SMAX" and len(ops) == 2:
        for x, s in ((ops[0], ops[1]), (ops[1], ops[0])):
            if s.opcode == "ISD::SUB" and _is_c(s.ops[0]) and s.ops[0].value == 0 and s.ops[1] is x \
                    and "ISD::ABS" in ctx.legal:
                _set(n, "ISD::ABS", [x])
                return True
    return False


def _setcc_rules(n: SDNode, ctx: _Ctx) -> bool:
    """TargetLowering::SimplifySetCC for an integer equality compare whose operand is an
    add, sub or xor: the folds that drop that operation (when nothing else uses it)."""
    if n.cc not in ("SETEQ", "SETNE") or len(n.ops) != 2:
        return False
    n0, n1 = n.ops
    if n0.vt == "i1" or not n0.vt.startswith("i"):
        return False
    if _is_c(n0) and not _is_c(n1):
        n.ops = [n1, n0]  # the constant goes to the right (equality: same condition)
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
                    n.ops = [p, q]
                    return True
        legal_imm = False
        if _is_c(n1):
            c2 = n1.value
            a0, a1 = n0.ops
            if _is_c(a1) and ctx.one_use(n0):
                if n0.opcode == "ISD::ADD":  # (X + C1) == C2 -> X == C2 - C1
                    n.ops = [a0, ctx.const(c2 - a1.value, vt)]
                    return True
                if n0.opcode == "ISD::XOR":  # (X ^ C1) == C2 -> X == C1 ^ C2
                    n.ops = [a0, ctx.const(c2 ^ a1.value, vt)]
                    return True
            if n0.opcode == "ISD::SUB" and _is_c(a0) and ctx.one_use(n0):  # (C1 - X) == C2 -> X == C1 - C2
                n.ops = [a1, ctx.const(a0.value - c2, vt)]
                return True
            legal_imm = True  # isLegalICmpImmediate (any immediate on AMDGPU)
        if (not legal_imm or ctx.one_use(n0)) and _setcc_binop(n, n0, n1, ctx):
            return True
    if n1.opcode in arith and _setcc_binop(n, n1, n0, ctx):
        return True
    return False


def _setcc_binop(n: SDNode, n0: SDNode, n1: SDNode, ctx: _Ctx) -> bool:
    """TargetLowering::foldSetCCWithBinOp: (X op Y) == X -> Y == 0; (X + Y) == Y,
    (X ^ Y) == Y -> X == 0; (X - Y) == Y -> X == Y << 1 (the sub used once)."""
    x, y = n0.ops
    vt = n0.vt
    if x is n1:
        n.ops = [y, ctx.const(0, vt)]
        return True
    if y is not n1:
        return False
    if n0.opcode in ("ISD::ADD", "ISD::XOR"):
        n.ops = [x, ctx.const(0, vt)]
        return True
    if not ctx.one_use(n0):
        return False
    sh = ctx.new("ISD::SHL", vt, [n1, ctx.const(1, vt)], like=n0)
    n.ops = [x, sh]
    return True


# --- known bits and demanded bits ----------------------------------------------------------

_MAX_DEPTH = 6  # SelectionDAG::MaxRecursionDepth


_WIDTH: dict = {}


def _width(vt: str) -> int:
    w = _WIDTH.get(vt)
    if w is None:
        w = _WIDTH[vt] = int(vt[1:]) if vt[:1] == "i" and vt[1:].isdigit() else 0
    return w


def _kb(n: SDNode, ctx: _Ctx, depth: int = 0) -> Known:
    """SelectionDAG::computeKnownBits for the modeled nodes. Cached per combine run: a
    rewrite keeps a node's value, so what is known about it stays true; an answer
    computed from a shallower depth is reused for a deeper query (the depth limit only
    ever loses facts)."""
    bits = _WIDTH.get(n.vt) or _width(n.vt)
    if n.opcode == "ISD::Constant" and n.value.__class__ is int and bits:
        return const_known(n.value & ((1 << bits) - 1), bits)
    if depth >= _MAX_DEPTH or not bits:
        return Known(0, 0, bits or 1)
    hit = ctx.known.get(id(n))
    if hit is not None and hit[0] is n:
        return hit[2]
    k = _kb_node(n, ctx, depth, bits)
    ctx.known[id(n)] = (n, depth, k)
    return k


def _kb_node(n: SDNode, ctx: _Ctx, depth: int, bits: int) -> Known:
    opc = n.opcode
    ops = n.ops
    m = (1 << bits) - 1
    if opc in _KB_BINOPS and len(ops) == 2:
        ka = _kb(ops[0], ctx, depth + 1)
        kb = _kb(ops[1], ctx, depth + 1)
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
    if opc == "ISD::CopyFromReg":
        lz = _known_lz(n)
        return Known(m & ~(m >> lz) if lz < bits else m, 0, bits)
    if opc == "ISD::SELECT" and len(ops) == 3:
        return _kb(ops[1], ctx, depth + 1).intersect(_kb(ops[2], ctx, depth + 1))
    if opc in ("ISD::CTPOP", "ISD::CTLZ", "ISD::CTTZ", "ISD::CTLZ_ZERO_UNDEF", "ISD::CTTZ_ZERO_UNDEF"):
        return Known(m & ~((1 << bits.bit_length()) - 1), 0, bits)
    if opc in ("ISD::UMIN", "ISD::UMAX", "ISD::SMIN", "ISD::SMAX", "AMDGPUISD::BFE_U32", "ISD::INTRINSIC_WO_CHAIN"):
        lz = _known_lz(n)
        return Known(m & ~(m >> lz) if lz < bits else m, 0, bits)
    return Known(0, 0, bits)


_KB_BINOPS = frozenset({"ISD::AND", "ISD::OR", "ISD::XOR", "ISD::ADD", "ISD::SUB", "ISD::MUL",
                        "ISD::SHL", "ISD::SRL", "ISD::SRA"})
_KB_SHIFT = {"ISD::SHL": "shl", "ISD::SRL": "lshr", "ISD::SRA": "ashr"}


def _sign_bits(n: SDNode, ctx: _Ctx, depth: int = 0) -> int:
    """SelectionDAG::ComputeNumSignBits for the modeled nodes."""
    bits = _width(n.vt)
    if not bits:
        return 1
    if n.opcode == "ISD::Constant" and isinstance(n.value, int):
        u = n.value & ((1 << bits) - 1)
        return clz(u ^ ((1 << bits) - 1) if u >> (bits - 1) else u, bits)
    if depth >= _MAX_DEPTH:
        return 1
    opc, ops = n.opcode, n.ops
    first = 1
    if opc == "ISD::SRA" and _is_c(ops[1]) and (ops[1].value & 0xFFFFFFFF) < bits:
        first = min(bits, _sign_bits(ops[0], ctx, depth + 1) + (ops[1].value & 0xFFFFFFFF))
    elif opc == "ISD::SHL" and _is_c(ops[1]) and (ops[1].value & 0xFFFFFFFF) < bits:
        t = _sign_bits(ops[0], ctx, depth + 1)
        c = ops[1].value & 0xFFFFFFFF
        first = t - c if c < t else 1
    elif opc in ("ISD::AND", "ISD::OR", "ISD::XOR"):
        t = _sign_bits(ops[0], ctx, depth + 1)
        if t != 1:
            first = min(t, _sign_bits(ops[1], ctx, depth + 1))
    elif opc == "ISD::SIGN_EXTEND_INREG" and ops[1].opcode == "ISD::VALUETYPE" and _width(ops[1].vt):
        first = bits - _width(ops[1].vt) + 1
    elif opc == "ISD::SELECT" and len(ops) == 3:
        first = min(_sign_bits(ops[1], ctx, depth + 1), _sign_bits(ops[2], ctx, depth + 1))
    first = max(first, 1)
    if first == bits:
        return first
    k = _kb(n, ctx, depth)
    mask = k.zero if k.zero >> (bits - 1) & 1 else (k.one if k.one >> (bits - 1) & 1 else 0)
    return max(first, clz(~mask & ((1 << bits) - 1), bits)) if mask else first


def _demanded_root(n: SDNode, ctx: _Ctx) -> bool:
    """DAGCombiner's SimplifyDemandedBits(SDValue(N, 0)) at the end of visitAND, visitOR,
    visitXOR, the shift visits and visitADD/SUB/MUL: every bit of ``n`` demanded.

    Passed over where it cannot change anything (same answers, less work): an and/or/xor
    whose operands have no known bits and no constant; a shift by a variable amount
    (every bit demanded from a source that is visited itself); a shift by a constant,
    or an add/sub/mul with a constant, of a value without known bits that is no operation
    with rules; any other add/sub/mul (every bit demanded from operands visited
    themselves). None of those can have every bit known either."""
    opc = n.opcode
    if opc not in _SDB_ROOTS:
        return False
    a, b = n.ops
    bc = b.opcode == "ISD::Constant"
    if _SDB_SHORTCUTS[0]:
        if opc in _SDB_LOGIC:
            if not bc:
                ka = _kb(a, ctx, 1)
                if not (ka.zero | ka.one):
                    kb_ = _kb(b, ctx, 1)
                    if not (kb_.zero | kb_.one):
                        return False
        elif not bc:
            return False
        elif a.opcode not in _KB_BINOPS and a.opcode != "ISD::SIGN_EXTEND_INREG":
            ka = _kb(a, ctx, 1)
            if not (ka.zero | ka.one):
                return False
    k = _kb(n, ctx, 0)
    if not (k.zero | k.one) ^ ((1 << k.bits) - 1):
        return _demanded_const(n, (1 << k.bits) - 1, k, ctx)  # every bit known
    bits = k.bits
    if bits == 1:
        return False
    return _sdb(n, (1 << bits) - 1, 0, ctx)[0]


# the shortcuts of _demanded_root and _sdb (same answers; tests/test_combine_llc.py
# compares the selections with them turned off)
_SDB_SHORTCUTS = [True]
_SDB_LOGIC = frozenset({"ISD::AND", "ISD::OR", "ISD::XOR"})
_SDB_ROOTS = _SDB_LOGIC | {"ISD::SHL", "ISD::SRL", "ISD::SRA", "ISD::ADD", "ISD::SUB", "ISD::MUL"}


def _combine_to(op: SDNode, new: SDNode, ctx: _Ctx) -> tuple:
    ctx.replace(op, new)
    return True, None


def _sdb(op: SDNode, demanded: int, depth: int, ctx: _Ctx):
    """TargetLowering::SimplifyDemandedBits for the modeled integer nodes: (changed,
    known bits of ``op`` for the demanded bits). A rewrite replaces ``op`` (used once
    below the root; the root's users all read the same value) by a simpler value."""
    bits = _width(op.vt)
    m = (1 << bits) - 1
    opc = op.opcode
    if opc == "ISD::Constant":
        return False, _kb(op, ctx, depth)
    if depth >= _MAX_DEPTH:
        return False, Known(0, 0, bits)
    if depth and ((demanded == m and _SDB_SHORTCUTS[0]) or not ctx.one_use(op)):
        # (every bit demanded: what the node's own visit does, it is visited itself)
        return False, _kb(op, ctx, depth)
    if demanded == 0 or opc not in _KB_BINOPS or len(op.ops) != 2:
        known = _kb(op, ctx, depth)
        return _demanded_const(op, demanded, known, ctx), known
    a, b = op.ops
    vt = op.vt
    cb = b.value & m if _is_c(b) else None
    if opc == "ISD::AND":
        if cb is not None:
            lk = _kb(a, ctx, depth)
            if lk.zero & demanded == ~cb & m & demanded:
                return _combine_to(op, a, ctx)  # the and clears only known-zero bits
            if _shrink_const(op, ~lk.zero & demanded, ctx):
                return True, None
        ch, k1 = _sdb(b, demanded, depth + 1, ctx)
        if ch:
            return True, None
        ch, k0 = _sdb(a, ~k1.zero & demanded, depth + 1, ctx)
        if ch:
            return True, None
        if _bypass_multi_use(op, demanded, depth, ctx):
            return True, None
        if demanded & ~(k0.zero | k1.one) == 0:
            return _combine_to(op, a, ctx)
        if demanded & ~(k1.zero | k0.one) == 0:
            return _combine_to(op, b, ctx)
        if demanded & ~(k1.zero | k0.zero) == 0:
            return _combine_to(op, ctx.const(0, vt), ctx)
        if _shrink_const(op, ~k0.zero & demanded, ctx):
            return True, None
        known = Known(k0.zero | k1.zero, k0.one & k1.one, bits)
    elif opc == "ISD::OR":
        ch, k1 = _sdb(b, demanded, depth + 1, ctx)
        if ch:
            return True, None
        ch, k0 = _sdb(a, ~k1.one & demanded, depth + 1, ctx)
        if ch:
            return True, None
        if _bypass_multi_use(op, demanded, depth, ctx):
            return True, None
        if demanded & ~(k0.one | k1.zero) == 0:
            return _combine_to(op, a, ctx)
        if demanded & ~(k1.one | k0.zero) == 0:
            return _combine_to(op, b, ctx)
        if _shrink_const(op, demanded, ctx):
            return True, None
        known = Known(k0.zero & k1.zero, k0.one | k1.one, bits)
    elif opc == "ISD::XOR":
        ch, k1 = _sdb(b, demanded, depth + 1, ctx)
        if ch:
            return True, None
        ch, k0 = _sdb(a, demanded, depth + 1, ctx)
        if ch:
            return True, None
        if _bypass_multi_use(op, demanded, depth, ctx):
            return True, None
        if demanded & ~k1.zero == 0:
            return _combine_to(op, a, ctx)
        if demanded & ~k0.zero == 0:
            return _combine_to(op, b, ctx)
        if demanded & ~(k0.zero | k1.zero) == 0:
            # no demanded bit set on both sides: an inclusive or
            _set(op, "ISD::OR", [a, b])
            return True, None
        if cb is not None:
            if cb == k0.one:
                # (X | C1) ^ C2 -> (X | C1) & ~C2 when C2's bits are known set in X | C1
                _set(op, "ISD::AND", [a, ctx.const(~cb & demanded, vt)])
                return True, None
            if cb != m and demanded & ~cb == 0:
                # every demanded bit flipped: a not
                _set(op, "ISD::XOR", [a, ctx.const(-1, vt)])
                return True, None
            if a.opcode in ("ISD::SRL", "ISD::SHL") and ctx.one_use(a) and _is_c(a.ops[1]) \
                    and (a.ops[1].value & m) < bits:
                s = a.ops[1].value & m
                ones = (m << s) & m if a.opcode == "ISD::SHL" else m >> s
                if cb == ones:
                    # xor (X << s), (-1 << s) -> (not X) << s (and the srl form)
                    nx = ctx.new("ISD::XOR", vt, [a.ops[0], ctx.const(-1, vt)], like=a)
                    _set(op, a.opcode, [nx, a.ops[1]])
                    return True, None
        if (cb is None or cb != m) and _shrink_const(op, demanded, ctx):
            return True, None
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
            return True, None
        lo0 = lo
        if opc == "ISD::MUL":
            tz = k1.trail_zeros()
            lo0 = lo & (m >> tz) if tz < bits else 0
        ch, k0 = _sdb(a, lo0, depth + 1, ctx)
        if ch:
            return True, None
        if lo != m and _bypass_multi_use(op, lo, depth, ctx):
            return True, None
        if opc == "ISD::SUB" and demanded == 1 and _is_c(a) and (a.value & m) == 0:
            return _combine_to(op, b, ctx)  # neg x, only the low bit demanded
        high = m & ~(m >> lz) if lz else 0
        if cb is not None and cb != m and cb != 1 and (cb | high) == m:
            # a constant whose undemanded high bits are the only zeros becomes -1
            _set(op, opc, [a, ctx.const(-1, vt)])
            return True, None
        if opc == "ISD::MUL":
            known = mul_known(k0, k1)
        elif opc == "ISD::ADD":
            known = add_carry(k0, k1, True, False)
        else:
            known = add_carry(k0, Known(k1.one, k1.zero, bits), False, True)
    if _demanded_const(op, demanded, known, ctx):
        return True, None
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
    _set(op, op.opcode, [op.ops[0], ctx.const(c & demanded, op.vt)])
    return True


def _sdb_shift(op: SDNode, demanded: int, depth: int, ctx: _Ctx, a: SDNode, b: SDNode, bits: int):
    m = (1 << bits) - 1
    opc = op.opcode
    vt = op.vt
    sa = b.value & m if _is_c(b) and (b.value & m) < bits else None
    if opc == "ISD::SRA":
        hi = bits - ctz(demanded, bits) if demanded else 0
        if _sign_bits(a, ctx, depth + 1) >= hi:
            return _combine_to(op, a, ctx)  # only bits that already copy the sign
        if demanded == 1:
            _set(op, "ISD::SRL", [a, b])
            return True, None
    if sa is None:
        if opc == "ISD::SHL":
            lz = clz(demanded, bits)
            if lz:
                ch, _k = _sdb(a, m >> lz, depth + 1, ctx)
                if ch:
                    return True, None
        return None
    if sa == 0:
        return _combine_to(op, a, ctx)
    if opc == "ISD::SHL":
        if a.opcode == "ISD::SRL" and not demanded & ((1 << sa) - 1) and _is_c(a.ops[1]) \
                and (a.ops[1].value & m) < bits:
            # ((X >>u C1) << sa): the low bits are not demanded, one shift
            diff = sa - (a.ops[1].value & m)
            _set(op, "ISD::SHL" if diff >= 0 else "ISD::SRL", [a.ops[0], ctx.const(abs(diff), vt)])
            return True, None
        ch, k = _sdb(a, demanded >> sa, depth + 1, ctx)
        if ch or _bypass_shift_source(op, demanded >> sa, depth, ctx):
            return True, None
        return None
    if opc == "ISD::SRL":
        if a.opcode == "ISD::SHL" and not demanded & (m & ~(m >> sa)) and _is_c(a.ops[1]) \
                and (a.ops[1].value & m) < bits:
            # ((X << C1) >>u sa): the high bits are not demanded, one shift
            diff = sa - (a.ops[1].value & m)
            _set(op, "ISD::SRL" if diff >= 0 else "ISD::SHL", [a.ops[0], ctx.const(abs(diff), vt)])
            return True, None
        ch, k = _sdb(a, (demanded << sa) & m, depth + 1, ctx)
        if ch or _bypass_shift_source(op, (demanded << sa) & m, depth, ctx):
            return True, None
        return None
    # SRA by a constant
    if a.opcode == "ISD::SHL" and _is_c(a.ops[1]) and (a.ops[1].value & m) == sa:
        if "ISD::SIGN_EXTEND_INREG" in ctx.legal and bits - sa in (8, 16) and bits == 32:
            _set(op, "ISD::SIGN_EXTEND_INREG", [a.ops[0], ctx.vtnode(f"i{bits - sa}")])
            return True, None
        if _sign_bits(a.ops[0], ctx, depth + 1) > sa:
            return _combine_to(op, a.ops[0], ctx)
    ind = (demanded << sa) & m
    if clz(demanded, bits) < sa:
        ind |= 1 << (bits - 1)
    ch, k = _sdb(a, ind, depth + 1, ctx)
    if ch:
        return True, None
    if (k.zero >> (bits - 1)) & 1 or clz(demanded, bits) >= sa:
        _set(op, "ISD::SRL", [a, b])  # sign known zero or no sign copy demanded
        return True, None
    if demanded and demanded & (demanded - 1) == 0:
        # one demanded bit, taken from the sign
        _set(op, "ISD::SRL", [a, ctx.const(bits - 1 - (demanded.bit_length() - 1), vt)])
        return True, None
    if _bypass_shift_source(op, ind, depth, ctx):
        return True, None
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
    _set(op, op.opcode, [v, op.ops[1]])
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
    _set(op, op.opcode, [va or a, vb or b])
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


# opcodes _other_rules has rules for (it answers False for every other opcode)
_OTHER_OPS = frozenset({"ISD::SRA", "ISD::SIGN_EXTEND", "ISD::SELECT", "ISD::CTLZ", "ISD::CTTZ", "ISD::SMAX",
                        "ISD::SETCC"})


def _visit(n: SDNode, ctx: _Ctx) -> bool:
    if ctx.forward and id(n) in ctx.forward:
        return False
    if n.opcode in _FOLD and len(n.ops) == 2:
        if _binop_rules(n, ctx):
            return True
    # (a binop rule may have changed the opcode without reporting a change: NegSub)
    if n.opcode in _OTHER_OPS:
        return _other_rules(n, ctx)
    return False


_PASS_NO = [0]


def run(dag, target=None, max_passes: int = 8) -> None:
    ctx = _Ctx(dag, target)
    touched = False
    fold, other = _FOLD, _OTHER_OPS
    binop, other_rules = _binop_rules, _other_rules
    created, forward = ctx.created, ctx.forward
    for k in range(max_passes):
        if k:
            _resort(dag, ctx)
        ctx.mutated = False
        _PASS_NO[0] += 1
        p = ctx.pass_no = _PASS_NO[0]
        nodes = list(dag.nodes)
        for n in nodes:
            n.cuses = n.uses
            n.cpass = p
        changed = False
        for n in reversed(nodes):  # users before operands, as DAGCombiner's worklist
            # _visit(n, ctx), inline: nodes of opcodes without rules are passed over
            opc = n.opcode
            if opc in fold:
                if forward and id(n) in forward:
                    continue
                fired = (len(n.ops) == 2 and binop(n, ctx)) or (n.opcode in other and other_rules(n, ctx))
            elif opc in other:
                if forward and id(n) in forward:
                    continue
                fired = other_rules(n, ctx)
            else:
                continue
            if fired:
                changed = True
                # the rewritten node (DAGCombiner's result value) is combined again right
                # away, then the nodes the rule created (they were pushed on the worklist
                # before it): the worklist pops the result first
                stack = list(created)
                stack.append(n)
                created.clear()
                budget = 32
                while stack and budget:
                    budget -= 1
                    m = stack.pop()
                    if _visit(m, ctx):
                        stack.extend(created)
                        stack.append(m)
                        created.clear()
            created.clear()
        if ctx.forward:
            _apply_forward(dag, ctx)
        touched = touched or changed
        if not changed:
            break
    if k and not changed and not ctx.mutated:
        # The last pass, after a re-sort, changed nothing: re-sorting again would give the
        # same order, ids, uses and bits; only the constants that pass made and left
        # unused (appended after the sorted nodes) go.
        del dag.nodes[len(nodes):]
    elif touched or any(n.id < 0 for n in dag.nodes):
        _resort(dag, ctx)


def _apply_forward(dag, ctx: _Ctx) -> None:
    def final(m: SDNode) -> SDNode:
        seen = 0
        while id(m) in ctx.forward and seen < 64:
            m = ctx.forward[id(m)]
            seen += 1
        return m

    for n in dag.nodes:
        if n.ops:
            n.ops = [final(o) if id(o) in ctx.forward else o for o in n.ops]
    dag.roots[:] = [r for r in dag.roots]
    ctx.forward.clear()


_MARK = [0]


def _resort(dag, ctx: _Ctx | None = None) -> None:
    """Topological order from the roots (drops unreachable nodes), ids, uses, divergence.

    Iterative DFS post-order over operands, from the roots and the entry token in node
    order; a node's ``mark`` says it was reached in this sort."""
    _MARK[0] += 1
    mark = _MARK[0]
    order: list[SDNode] = []
    append = order.append
    roots = dag.roots
    if len(roots) == 1:
        r0 = roots[0]
        starts = [r for r in dag.nodes if r is r0 or r.opcode == "ISD::EntryToken"]
    else:
        root_ids = {id(r) for r in roots}
        starts = [r for r in dag.nodes if id(r) in root_ids or r.opcode == "ISD::EntryToken"]
    for root in starts:
        if root.mark == mark:
            continue
        root.mark = mark
        stack = [(root, iter(root.ops))]
        push, top = stack.append, stack.pop
        while stack:
            node, it = stack[-1]
            for child in it:
                if child.mark != mark:
                    child.mark = mark
                    push((child, iter(child.ops)))
                    break
            else:
                top()
                append(node)
    for n in order:
        n.uses = 0
    for i, n in enumerate(order):
        n.id = i
        ops = n.ops
        for o in ops:
            o.uses += 1
        src = n.source
        if src == "divergent":
            n.divergent = True
        elif src == "uniform":
            n.divergent = False
        elif ops:
            d = False
            for o in ops:
                if o.divergent:
                    d = True
                    break
            n.divergent = d
    dag.nodes[:] = order

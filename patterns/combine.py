"""The few DAG combines and legalizations that make our DAG look like llc's before selection.

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
- InstSimplify as llc's EarlyCSE applies it, for add/and/or/xor (``_simplify``):
  identities, ``x op x``, ``x op ~x``, absorption, and simplifyAssociativeBinOp (regroup
  ``(a op b) op c`` when a sub-pair simplifies, up to 3 levels); ``sra``/``srl``/``shl``
  of 0 and ``sra`` of -1 fold to that constant;
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

Rules that form a node (sign_extend_inreg, min/max, abs, ctlz_zero_undef) apply
only when the target has patterns rooted at that node (DAGCombiner's isOperationLegal).

Rules run to a fixpoint, users before operands (DAGCombiner's worklist order). Then the
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
        n.cuses, n.cpass = 1, p
        for o in ops:
            if o.cpass == p:
                o.cuses += 1
            else:
                o.cuses, o.cpass = 1, p
        return n

    def one_use(self, n: SDNode) -> bool:
        return n.cpass == self.pass_no and n.cuses == 1

    def replace(self, n: SDNode, m: SDNode) -> None:
        """Every user of ``n`` uses ``m`` instead (applied at the end of the pass)."""
        self.forward[id(n)] = m


def _set(n: SDNode, opcode: str, ops) -> None:
    n.opcode = opcode
    n.ops = list(ops)
    n.divergent = any(o.divergent for o in n.ops) if n.source is None else n.divergent


_ASSOC = frozenset({"ISD::ADD", "ISD::AND", "ISD::OR", "ISD::XOR"})
_NOT_OR_ABSORB = frozenset({"ISD::XOR", "ISD::AND", "ISD::OR"})


def _is_not_of(n: SDNode, x: SDNode) -> bool:
    return n.opcode == "ISD::XOR" and len(n.ops) == 2 and n.ops[0] is x and _is_c(n.ops[1]) and n.ops[1].value == -1


def _simplify(opc: str, x: SDNode, y: SDNode, ctx: _Ctx, rec: int):
    """InstSimplify's answer for ``opc x, y`` (llc's EarlyCSE applies it at IR level): an
    existing node or a constant it folds to, without creating other nodes; else None.
    Covers the identities, ``x op x``, ``x op ~x``, absorption, and (with ``rec``
    recursion levels, 3 like LLVM's RecursionLimit) simplifyAssociativeBinOp."""
    if rec <= 0:
        return None
    rec -= 1
    vt = x.vt
    xo, yo = x.opcode, y.opcode
    xc = xo == "ISD::Constant" and isinstance(x.value, int)
    yc = yo == "ISD::Constant" and isinstance(y.value, int)
    if xc and yc:
        return ctx.const(_FOLD[opc](x.value, y.value), vt)
    if xc or yc:
        for a, b in ((x, y), (y, x)):
            if _is_c(b):
                c = _wrap(b.value, vt)
                if c == 0 and opc in ("ISD::ADD", "ISD::OR", "ISD::XOR"):
                    return a
                if c == 0 and opc == "ISD::AND":
                    return b
                if c == -1 and opc == "ISD::AND":
                    return a
                if c == -1 and opc == "ISD::OR":
                    return b
    if x is y:
        if opc in ("ISD::AND", "ISD::OR"):
            return x
        if opc == "ISD::XOR":
            return ctx.const(0, vt)
    # the not/absorption tests below need an xor, and, or operand
    if xo in _NOT_OR_ABSORB or yo in _NOT_OR_ABSORB:
        # x == ~y or y == ~x (the test is symmetric, so one evaluation serves both orders)
        if (xo == "ISD::XOR" and _is_not_of(x, y)) or (yo == "ISD::XOR" and _is_not_of(y, x)):
            if opc == "ISD::AND":
                return ctx.const(0, vt)
            if opc in ("ISD::OR", "ISD::XOR"):
                return ctx.const(-1, vt)
        # absorption: a & (a | z) -> a ; a | (a & z) -> a (x's test first, then y's)
        if opc == "ISD::AND":
            if yo == "ISD::OR" and x in y.ops:
                return x
            if xo == "ISD::OR" and y in x.ops:
                return y
        elif opc == "ISD::OR":
            if yo == "ISD::AND" and x in y.ops:
                return x
            if xo == "ISD::AND" and y in x.ops:
                return y
    if opc not in _ASSOC or (xo != opc and yo != opc) or rec <= 0:
        # simplifyAssociativeBinOp needs an operand of the same opcode, and a recursion
        # level left for its inner queries (at 0 they all answer None)
        return None
    # simplifyAssociativeBinOp
    if x.opcode == opc:
        a, b, c = x.ops[0], x.ops[1], y
        v = _simplify(opc, b, c, ctx, rec)  # (a op b) op c -> a op (b op c)
        if v is not None:
            if v is b:
                return x
            w = _simplify(opc, a, v, ctx, rec)
            if w is not None:
                return w
    if y.opcode == opc:
        a, b, c = x, y.ops[0], y.ops[1]
        v = _simplify(opc, a, b, ctx, rec)  # a op (b op c) -> (a op b) op c
        if v is not None:
            if v is b:
                return y
            w = _simplify(opc, v, c, ctx, rec)
            if w is not None:
                return w
    if x.opcode == opc:
        a, b, c = x.ops[0], x.ops[1], y
        v = _simplify(opc, c, a, ctx, rec)  # (a op b) op c -> (c op a) op b
        if v is not None:
            if v is a:
                return x
            w = _simplify(opc, v, b, ctx, rec)
            if w is not None:
                return w
    if y.opcode == opc:
        a, b, c = x, y.ops[0], y.ops[1]
        v = _simplify(opc, c, a, ctx, rec)  # a op (b op c) -> b op (c op a)
        if v is not None:
            if v is c:
                return y
            w = _simplify(opc, b, v, ctx, rec)
            if w is not None:
                return w
    return None


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
    if opc in _ASSOC and not (bc and opc == "ISD::ADD"):
        ao, bo = a.opcode, b.opcode
        # (_simplify answers None unless one of these holds: see its tests)
        if ac or bc or a is b or ao in _NOT_OR_ABSORB or bo in _NOT_OR_ABSORB or ao == opc or bo == opc:
            r = _simplify(opc, a, b, ctx, 3)
            if r is not None and r is not n:
                ctx.replace(n, r)
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
    return tail(n, ctx, opc, a, b) if tail is not None else False


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


def _tail_ADD(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if opc == "ISD::ADD" and _is_c(b) and b.value == 1 and a.opcode == "ISD::XOR" and _is_c(a.ops[1]) \
            and a.ops[1].value == -1:
        # (add (xor x, -1), 1) -> (sub 0, x)
        _set(n, "ISD::SUB", [ctx.const(0, n.vt), a.ops[0]])
        return True
    if opc == "ISD::ADD":
        # (add (sub 0, x), y) -> (sub y, x)
        for s_, y in ((a, b), (b, a)):
            if s_.opcode == "ISD::SUB" and _is_c(s_.ops[0]) and s_.ops[0].value == 0:
                _set(n, "ISD::SUB", [y, s_.ops[1]])
                return True
    if opc == "ISD::ADD":
        # (add x, (sub y, x)) -> y ; (add (sub y, x), x) -> y
        for x, s in ((a, b), (b, a)):
            if s.opcode == "ISD::SUB" and s.ops[1] is x:
                ctx.replace(n, s.ops[0])
                return True
    if opc == "ISD::ADD" and _is_c(b) and -64 <= b.value < -16:
        # AMDGPU selects add x, -C with -C in [-64, -17] as a sub of the inline constant C
        # (LLVM's NegSubInlineConst32 patterns); we express it as the DAG it selects from
        _set(n, "ISD::SUB", [a, ctx.const(-b.value, n.vt)])
        n.value = "negsub"
        ctx.mutated = True  # a change no pass reports (see run)
        return False
    if _rule_reassociate(n, ctx, opc, a, b):
        return True
    if opc in ("ISD::ADD", "ISD::XOR") and _reassociate_scalar(n, ctx):
        return True
    return False


def _tail_SUB(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if b.opcode == "ISD::ADD" and _is_c(a) and _is_c(b.ops[1]):
        # DAGCombiner visitSUB: C2 - (x + C1) -> (C2 - C1) - x (no one-use condition)
        _set(n, "ISD::SUB", [ctx.const(a.value - b.ops[1].value, n.vt), b.ops[0]])
        return True
    if opc == "ISD::SUB" and b.opcode == "ISD::XOR" and _is_c(b.ops[1]) and b.ops[1].value == -1 \
            and ctx.one_use(b) and not _has_not_inside(b.ops[0]):
        # (sub x, (xor y, -1)) -> (add (add y, 1), x), only when the not has one use
        inner = ctx.new("ISD::ADD", n.vt, [b.ops[0], ctx.const(1, n.vt)], like=b)
        _set(n, "ISD::ADD", [inner, a])
        return True
    if opc == "ISD::SUB" and b.opcode == "ISD::AND" and a in b.ops:
        # DAGCombiner: A - (A & B) -> A & ~B (the and used once, or B a constant)
        bb = b.ops[1] if b.ops[0] is a else b.ops[0]
        if ctx.one_use(b) or _is_c(bb):
            inv = ctx.new("ISD::XOR", n.vt, [bb, ctx.const(-1, n.vt)], like=b)
            _set(n, "ISD::AND", [a, inv])
            return True
    if opc == "ISD::SUB":
        # (sub (add x, y), x) -> y ; (sub (add x, y), y) -> x ; (sub x, (sub x, y)) -> y
        if a.opcode == "ISD::ADD" and b in a.ops:
            ctx.replace(n, a.ops[1] if a.ops[0] is b else a.ops[0])
            return True
        if b.opcode == "ISD::SUB" and b.ops[0] is a:
            ctx.replace(n, b.ops[1])
            return True
        # (sub x, (sub y, z)) -> (add x, (sub z, y)) when the inner sub has one use
        if b.opcode == "ISD::SUB" and ctx.one_use(b) and not _is_c(b.ops[0]):
            inner = ctx.new("ISD::SUB", n.vt, [b.ops[1], b.ops[0]], like=b)
            _set(n, "ISD::ADD", [a, inner])
            return True
        # DAGCombiner visitSUB hoists a one-use add of a constant: x - (y + C) ->
        # (x - y) + -C (llc makes (x - y) - C, which its next visit turns into this add)
        if b.opcode == "ISD::ADD" and _is_c(b.ops[1]) and ctx.one_use(b):
            inner = ctx.new("ISD::SUB", n.vt, [a, b.ops[0]], like=n)
            _set(n, "ISD::ADD", [inner, ctx.const(-b.ops[1].value, n.vt)])
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
    return False


def _tail_AND(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if _rule_absorb(n, ctx, opc, a, b):
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
    return False


def _tail_OR(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if _rule_absorb(n, ctx, opc, a, b):
        return True
    if opc == "ISD::OR":
        # (or (xor x, y), y) -> (or x, y)
        for p_, y in ((a, b), (b, a)):
            if p_.opcode == "ISD::XOR" and y in p_.ops:
                x = p_.ops[1] if p_.ops[0] is y else p_.ops[0]
                _set(n, "ISD::OR", [x, y])
                return True
    if _rule_reassociate(n, ctx, opc, a, b):
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
    if opc in ("ISD::ADD", "ISD::XOR") and _reassociate_scalar(n, ctx):
        return True
    return False


def _tail_SHL(n: SDNode, ctx: _Ctx, opc: str, a: SDNode, b: SDNode) -> bool:
    if _rule_shift_of_shift(n, ctx, opc, a, b):
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


def _has_not_inside(n: SDNode) -> bool:
    """``n`` is an xor with a ``not`` operand: DAGCombiner cancels that pair (moving the
    constant outward) before ``x - ~y`` is rewritten, so the sub stays a sub."""
    return n.opcode == "ISD::XOR" and any(
        o.opcode == "ISD::XOR" and _is_c(o.ops[1]) and o.ops[1].value == -1 for o in n.ops)


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


# opcodes _other_rules has rules for (it answers False for every other opcode)
_OTHER_OPS = frozenset({"ISD::SRA", "ISD::SIGN_EXTEND", "ISD::SELECT", "ISD::CTLZ", "ISD::CTTZ", "ISD::SMAX"})


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
                # nodes a rule just created are combined right away (they are pushed on
                # DAGCombiner's worklist and popped next)
                budget = 16
                while created and budget:
                    budget -= 1
                    _visit(created.pop(), ctx)
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

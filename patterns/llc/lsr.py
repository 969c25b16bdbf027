"""A model of one case of llc-19's LoopStrengthReduce (LSR, ``loop-reduce``), the loop
pass llc runs after LICM and before its last EarlyCSE (``llc-19 -debug-pass=Structure``:
the LICM loop pass manager, then LSR's, then MergeICmps ... EarlyCSE).

What LSR does, in general (LLVM 19's LoopStrengthReduce.cpp, facts only): for each
innermost loop, IVUsers collects the "interesting" values -- those whose SCEV is an
affine add-recurrence of the loop, or a sum with exactly one interesting operand --
from the header phis on, and records as an IV use every operand where an interesting
value is read by an instruction that is not interesting itself. LSR gives each use a
set of formulae (sums of registers, a scaled register, offsets), picks one per use by
a cost (registers first: NumRegs, AddRecCost, NumIVMuls, NumBaseAdds, ScaleCost,
ImmCost, SetupCost) in a search that prefers registers earlier uses chose, and
rewrites *every* use by expanding its formula with SCEVExpander; what is left unread
is deleted.

The case modeled (``claim`` and ``_decided`` say when it applies):

* the loop is innermost, has a preheader (the header's one outside predecessor,
  branching only to it) and one latch, its only exiting block, ending in ``br i1 %c``
  on ``%c = icmp <not eq/ne> %inext, <loop invariant>`` read only by that branch;
* ``%i = phi [0, preheader], [%inext, latch]``, ``%inext = add %i, 1`` (no flags), read
  only by ``%i`` and ``%c``; the other header phis take from the latch a value SCEV
  sees as opaque (a SCEVUnknown, ``_opaque``: a phi, an opaque operation of two
  values, ``ashr x, C`` of an x that is not an add or shl);
* the interesting values (``_Scev``: sums of +-1 times opaque values, products, quotients,
  constants and {0,+,1} through add, sub and ``xor x, -1``; a product is a ``mul``
  without flags of two different opaque values, loop-invariant or of the loop but not
  ``%i``, at least one of the loop (``_product``); a quotient is ``lshr x, C`` (no
  flags, C 1 to 31) of an opaque value of the loop other than ``%i`` (``_udiv``,
  SCEV's x /u 2^C); a constant multiple is ``mul x, C`` (2 <= C < 2^31) or ``shl x,
  k`` (k 1 to 30), without flags, of such a value (``_scaled``, SCEV's C * x, a
  product with its constant first; no other instruction with that SCEV); no sum has
  a factor of one
  product as another term or as a factor of another product, which getAddExpr would
  fold) are all in the loop, read once by
  each reader, and only by interesting values or by readers that are not interesting
  (``_plain_user``: no phi, no add/sub, no multiply or shift by a constant, a
  multiply only by a value certainly loop-variant (``_Scev.varies``) or of a value
  with a loop-variant part, ...; or a phi of a loop block other than the header that
  SCEV sees as opaque, ``_phi_reader_ok``: its incoming values not all equal and,
  with two of them, some loop-variant atom of their SCEVs not properly dominating its
  block -- so not select-like --, the block it reads the value from ending in an
  unconditional branch, and no other interesting value read by it),
  or are equality compares of ``%i`` with a loop-invariant atom N (ICmpZero uses,
  when no use counts down) or with a value SCEV sees as loop-variant;
* besides the reads of ``%i`` itself, the uses count down -- SCEV
  ``W + I + c + {0,+,-1}`` (or all by one step -2 to -8, ``W + I + c + {0,+,-k}``:
  a new IV with that step; then a processed value IVUsers reaches again, ``%x - %i -
  %i``, is a use that dies with it), all with the same I + c, or some with none (I and c
  empty) and the others with the same I and no c -- or up -- ``W + I + c +
  {0,+,1}``, at most one of them (one SCEV) with a constant c -- with W a sum of +-1 times opaque loop-variant values, I of
  loop-invariant ones (arguments, or loads, calls and opaque operations outside the
  loop), c a constant, all up-counting uses with an invariant part having the same
  I + c; no two terms of a sum tie in SCEV complexity (``_decided``).

There llc-19's choice (verified, not derived: tests/test_lsr.py compares the model
with llc's ``-print-before/-print-after=loop-reduce`` on 800 iselgen kernels, and 2000
more were checked while building it, with no difference where the model applies) is
reg(W) + reg({I+c,+,-1}) for a down-counting use (one new IV they share; when some
start at 0 and the others at an I, the IV counts from 0 and those others get reg(W) +
reg(I) + reg({0,+,-1}), with no up-counting use with an invariant part), reg(W) +
reg(I+c) + reg(%i) for an up-counting one with an invariant part I (reg(W) + reg(%i)
and the immediate c when I is empty; reg(I) + reg(W) + reg(%i) and the immediate c when
I is one value with a use of LSR's own -- CollectLoopInvariantFixupsAndFormulae gives
one to a loop-invariant value read, in a block the header dominates, by an operation
SCEV sees as opaque or cannot describe, other than a compare with a recurrence of the
loop (``_pinned``), so reg(I) costs no register and reg(I+c) one more; where a reader
of I is one SCEV may see through -- a no-op, a mask, a select, a phi -- the model
declines: ``_pins_decided``), expanded as LSR's Expand drives SCEVExpander
(``_Expander``): the registers each expanded, then their sum, then the immediate
added. A new induction variable ``%lsr.iv = phi [%lsr.iv.next, latch], [start,
preheader]`` at the top of the header (incoming values in the header's
predecessor-list order, most recent branch first), made when the first use of it is
expanded, ``%lsr.iv.next = add %lsr.iv, -1`` right before ``%c``; a loop-invariant
register (the start, an I + c) expanded at the end of the preheader of the outermost
loop it is invariant in, once per insertion point (InsertedExpressions); W and the
sums at the use's insertion point (``_insert_point``: AdjustInsertPositionForExpand,
which climbs the dominator tree from the reader -- for a phi, from the end of the
block the value comes from: RewriteForPHI -- to right after the replaced value). Before
building W, SCEVExpander looks its SCEV up among the values ScalarEvolution knows
(FindValueInExprValueMap): an instruction of the loop with that SCEV dominating the
insertion point is used instead (the model claims the loop only when it is the only
one, has no flags and is an operand of an interesting value, whose SCEV IVUsers
computed: ``_found_values``, ``_decided``); so it finds a product term's ``mul``
itself, a quotient's ``lshr`` and a constant multiple's ``mul``/``shl`` (a leading
-1 * x * y is multiplied out as visitMulExpr does, ``_Expander.neg_product``: -1 and the
loop-invariant factors first, ``sub 0, Prod`` for -1, then ``mul``; a leading -C * x is
``mul x, -C``, with the nsw/nuw StrengthenNoWrapFlags
gives it from x's ranges, ``_Expander.neg_scaled``; constant operands of products
compare unsigned). A sum is emitted as visitAddExpr does: the
terms in SCEV order (GroupByComplexity: constants, then products -- -1 * x and x * y
before -1 * x * y, the constant -1 before quotients before values, then the values'
complexity --, then quotients -- dividends, then divisors --,
then values by CompareValueComplexity -- constants, arguments, instructions by
opcode, then loop depth, operand count, operands to depth 2), reversed, stably
sorted by loop (invariant terms first) with negated terms last; then left to right,
``sub`` for a negated term, ``mul x, -1`` (``sub 0, x`` outside loops) for a leading
one, ``mul nsw`` where x's signed range leaves out INT_MIN (``_no_int_min``: the
known-bits and sign-bits facts the model follows, sign bits also from known-zero top
bits as ComputeNumSignBits falls back on them), ``mul nuw nsw`` where x is at most
1 (``_umax``); each binop reuses an equal instruction among the six before the insertion point
and is hoisted out of loops its operands are invariant in (InsertBinop); an expression
(a sum, a negated term) expanded before at the same insertion point -- a second reader
of the same value -- is reused however far back (InsertedExpressions, ``_Expander.cache``). The reads of
``%i`` and ``%inext`` expand to themselves (no change). An equality compare gets
``%i`` as its first operand (CollectFixupsAndInitialFormulae swaps it there); with an
invariant N the formula reg(N) + -1 * reg(%i) makes it ``icmp N, %i`` (Expand puts
the -1-scaled register second). Uses are rewritten in LSR's
order -- IVUsers' depth-first walk, each value's readers in use-list order (most
recent first), uses with equal SCEVs together -- which decides what the reuse of
nearby equal instructions finds. The interesting values left unread (an expansion may
read one it found) go (DeleteTriviallyDeadInstructions). New names follow the ValueSymbolTable (a taken
name gets the function's next number); unnamed values are numbered in program order,
as LLVM prints them. The use-list order is taken as the reverse of program order, as
the parser leaves it; the earlier passes' rewrites (EarlyCSE, LICM) change use lists
in LLVM, which the model does not follow.

Where the model stops: every loop outside this class is left untouched (never half
transformed), though LSR rewrites many: down-counting uses with different invariant
parts other than 0 and one I (they may share one new IV, with the invariant parts in
registers of their own: the solver's choice; so may up-counting uses with different invariant parts),
up-counting uses with different SCEVs and constants (GenerateCrossUseConstantOffsets
offers a new IV {c,+,1}, which the solver may take over %i: seen against llc),
terms tying in SCEV complexity (LLVM keeps the order ScalarEvolution built them in),
an up-counting use whose W holds the whole W' of an earlier up-counting use with formula
reg(W') + reg(%i) (the solver requires that register of it: ``_shares_part``),
values SCEV does not see as opaque (products of sums or of more values, quotients
of sums, ``and`` with a mask, constant multiples of sums or with flags ...), sums where
getAddExpr factors products or merges multiples of one value, uses read by header phis,
select-like phis, phis over critical edges or outside the loop, an instruction with
W's SCEV whose SCEV the model cannot tell was computed, coefficients other than +-1
(multiplies and shifts of the recurrence by constants), equality exit compares, equality compares
with a constant, an interesting value or beside a down-counting use, IV chains,
address uses, nested outer-loop recurrences. Known bits beyond ``_no_int_min``'s are
taken as unknown. The cost model and the solver are not modeled; neither is what
llc's later EarlyCSE does to the expanded code.
"""

from __future__ import annotations

from typing import Any, Final

from patterns.ir.core import I32, Constant
from patterns.ir.function import Argument, Function, Instruction

# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction

# (``reversed`` called through an untyped name: mypyc 2.4 stops with an internal error on
# ``for x in reversed(lst)`` over a list it cannot type; see patterns/dag/builder.py)
_rev: Final[Any] = reversed

__all__ = ["loop_strength_reduce", "claim"]

# Opcodes whose result SCEV treats as an opaque value (SCEVUnknown) when no operand is
# a constant (a constant shift is a multiply / division, ``xor x, -1`` a subtraction,
# ``or`` with a constant may be an add, ``xor (and x, C), C`` an and).
_OPAQUE: Final = frozenset({"and", "or", "xor", "lshr", "ashr", "shl"})

# LLVM's Instruction opcode numbers for the kinds CompareValueComplexity meets here
# (Value IDs of instructions are InstructionVal + opcode): only their order matters.
_OPCODE_ORDER: Final = {op: k for k, op in enumerate((
    "ret", "br", "switch", "indirectbr", "invoke", "resume", "unreachable", "cleanupret", "catchret",
    "catchswitch", "callbr", "fneg", "add", "fadd", "sub", "fsub", "mul", "fmul", "udiv", "sdiv", "fdiv",
    "urem", "srem", "frem", "shl", "lshr", "ashr", "and", "or", "xor", "alloca", "load", "store",
    "getelementptr", "fence", "cmpxchg", "atomicrmw", "trunc", "zext", "sext", "fptoui", "fptosi",
    "uitofp", "sitofp", "fptrunc", "fpext", "ptrtoint", "inttoptr", "bitcast", "addrspacecast",
    "cleanuppad", "catchpad", "icmp", "fcmp", "phi", "call", "select"))}


def _is_const(v) -> bool:
    return type(v) is _CONSTANT


def _opaque(v, body) -> bool:
    """``v`` is defined in the loop and SCEV sees it as an opaque value: a phi, an
    opaque operation of two values, or an arithmetic shift right by a constant (1 to
    31) of a value that is not an add or shl (createSCEV looks for sext-of-trunc
    patterns only there)."""
    if type(v) is not _INSTRUCTION or v.block not in body:
        return False
    if v.opcode == "phi":
        return True
    if v.opcode in _OPAQUE and len(v.operands) == 2 and not any(_is_const(o) for o in v.operands):
        return "disjoint" not in v.flags
    return _ashr_by_constant(v)


def _ashr_by_constant(v) -> bool:
    if v.opcode != "ashr" or len(v.operands) != 2 or v.flags:
        return False
    a, b = v.operands
    return _is_const(b) and isinstance(b.value, int) and 1 <= b.value <= 31 and not _is_const(a) and \
        not (type(a) is _INSTRUCTION and a.opcode in ("add", "shl"))


def _no_int_min(x) -> bool:
    """ScalarEvolution's signed range of the opaque ``x`` leaves out INT_MIN (so -1 * x
    gets ``nsw``), by the facts the model knows: two sign bits or more
    (ComputeNumSignBits, ``_sign_bits``), or a known-zero sign bit (computeKnownBits,
    ``_sign_zero``)."""
    return _sign_bits(x, 0) >= 2 or _sign_zero(x, 0)


def _const_int(v):
    return v.value & 0xFFFFFFFF if type(v) is _CONSTANT and isinstance(v.value, int) else None


def _sign_bits(x, depth: int) -> int:
    """``_sign_bits1``, or the leading zeros of a value whose sign bit is known zero
    when more (ComputeNumSignBits falls back on computeKnownBits: ``and x, 7`` has 29)."""
    r = _sign_bits1(x, depth)
    if r < 32 and type(x) is _INSTRUCTION and _sign_zero(x, depth):
        r = max(r, 32 - _umax(x, depth).bit_length())
    return r


def _sign_bits1(x, depth: int) -> int:
    """A lower bound of ComputeNumSignBits(x): constants; ``ashr`` keeps the operand's
    (adding a constant amount), ``lshr`` by C >= 1 gives C (by a variable amount it
    keeps a non-negative operand's), ``shl`` by C takes C away; bitwise operations
    keep the smaller of their operands', ``add``/``sub`` one less."""
    k = _const_int(x)
    if k is not None:
        v = k if k < 1 << 31 else ~k & 0xFFFFFFFF
        return 32 - v.bit_length()
    if type(x) is not _INSTRUCTION or depth > 4 or len(x.operands) != 2:
        return 1
    a, b = x.operands
    op, c = x.opcode, _const_int(b)
    if op == "ashr":
        return min(32, _sign_bits(a, depth + 1) + (c if c is not None and c < 32 else 0))
    if op == "lshr":
        if c is not None and 1 <= c < 32:
            return c  # (C leading zeros)
        return _sign_bits(a, depth + 1) if _sign_zero(a, depth + 1) else 1
    if op == "shl" and c is not None and c < 32:
        return max(1, _sign_bits(a, depth + 1) - c)
    if op in ("and", "or", "xor"):
        return min(_sign_bits(a, depth + 1), _sign_bits(b, depth + 1))
    if op in ("add", "sub"):
        return max(1, min(_sign_bits(a, depth + 1), _sign_bits(b, depth + 1)) - 1)
    return 1


def _umax(x, depth: int) -> int:
    """An upper bound of the unsigned value of ``x`` from its known bits."""
    k = _const_int(x)
    if k is not None:
        return k
    full = 0xFFFFFFFF
    if type(x) is not _INSTRUCTION or depth > 4 or len(x.operands) != 2:
        return full
    a, b = x.operands
    op, c = x.opcode, _const_int(b)
    if op == "and":
        return min(_umax(a, depth + 1), _umax(b, depth + 1))
    if op in ("or", "xor"):
        return (1 << max(_umax(a, depth + 1), _umax(b, depth + 1)).bit_length()) - 1
    if op == "lshr" and c is not None and c < 32:
        return _umax(a, depth + 1) >> c
    if op == "ashr" and c is not None and c < 32 and _sign_zero(a, depth + 1):
        return _umax(a, depth + 1) >> c
    return full


def _sign_zero(x, depth: int) -> bool:
    if type(x) is _CONSTANT:
        return isinstance(x.value, int) and 0 <= x.value < (1 << 31)
    if type(x) is not _INSTRUCTION or depth > 4 or len(x.operands) != 2:
        return False
    a, b = x.operands
    op = x.opcode
    if op == "lshr":
        return (_is_const(b) and isinstance(b.value, int) and 1 <= b.value <= 31) or _sign_zero(a, depth + 1)
    if op == "and":
        return _sign_zero(a, depth + 1) or _sign_zero(b, depth + 1)
    if op == "or":
        return _sign_zero(a, depth + 1) and _sign_zero(b, depth + 1)
    if op == "ashr":
        return _sign_zero(a, depth + 1)
    return False


def _plain_user(u, v, body, sc) -> bool:
    """``u``, reading the interesting ``v``, is not interesting itself: SCEV sees it as
    opaque (and, or without ``disjoint``, xor but with -1, shifts of ``v`` by a
    variable amount or to the right by a constant not over an add or shl, a shift by
    ``v``), a multiply whose other operand is neither a constant nor a loop-invariant
    scale of a bare recurrence, or an ordered compare."""
    if type(u) is not _INSTRUCTION or u.block not in body or len(u.operands) != 2:
        return False
    a, b = u.operands
    other = b if a is v else a
    if a is v and b is v:
        return False
    op = u.opcode
    if op == "icmp":
        return u.predicate not in ("eq", "ne")
    if op in ("and", "or", "xor"):
        if "disjoint" in u.flags:
            return False
        return not (op == "xor" and _is_const(other) and other.value == -1)
    if op in ("lshr", "ashr", "shl"):
        if b is v:
            return True  # (a shift by v)
        if not _is_const(b):
            return True
        return op != "shl" and not (op == "ashr" and v.opcode in ("add", "shl"))
    if op == "mul":
        # (a product is an affine recurrence only when v's SCEV is one and the other
        # factor is loop-invariant)
        if _is_const(other):
            return False
        oe = sc.of(other)
        if oe is None:
            return sc.varies(other)
        if oe[3] != 0 or oe[0]:
            return True
        e = sc.of(v)
        return bool(e and e[0])
    return False


def _users(fn: Function) -> dict:
    """Each instruction's readers in program order (one entry per operand read), for the
    instructions read at all."""
    us: dict = {}
    Inst = Instruction
    for b in fn.blocks:
        for i in b.instructions:
            for o in i.operands:
                if type(o) is Inst:
                    lst: list | None = us.get(o)
                    if lst is None:
                        us[o] = [i]
                    else:
                        lst.append(i)
    return us


def _loops(fn, idom=None, dom=None, forest=...) -> tuple:
    """((header, body) of each innermost natural loop, in LLVM's loop pass manager
    order: a post-order walk of the loop forest, top-level loops in reverse program
    order; block -> loop depth; header -> body of every loop). ``forest``: the
    ``loop_forest`` of ``fn`` when the caller has it."""
    from patterns.llc.analyses import dom_tree, loop_forest

    if forest is ...:
        if dom is None:
            if idom is None:
                from patterns.dag.builder import immediate_dominators

                idom = immediate_dominators(fn)
            dom = dom_tree(fn, idom)
        forest = loop_forest(fn, dom)
    if forest is None:
        return [], {}, {}
    order, bodies, kids, _innermost = forest
    depth: dict = {}
    for body in bodies.values():
        for x in body:
            depth[x] = depth.get(x, 0) + 1
    return [(h, bodies[h]) for h in order if not kids[h]], depth, bodies


class _Claim:
    """One loop of the modeled class: what the rewrite needs. ``dead``: the interesting
    instructions the rewrite leaves unread (LSR deletes them)."""

    def __init__(self, header, pre, latch, iv, inext, cmp, start, uses, chain):
        self.header, self.pre, self.latch, self.cmp = header, pre, latch, cmp
        self.iv, self.inext = iv, inext
        self.start, self.uses, self.chain = start, uses, chain
        # set by ``claim`` once the loop is taken
        self.split: Any = None
        self.compares: list = []
        self.sc: Any = None
        self.body: Any = None
        self.users: Any = None
        self.fn_blocks: list = []
        self.pinned_readers: set = set()
        # memos: ``_reader_pins``, ``_found_values``, ``_computed``
        self.pins: dict = {}
        self.sums: dict | None = None
        self.computed: set | None = None


def _invariant_atom(v, body) -> bool:
    """A loop-invariant value SCEV sees as opaque: an argument, or an instruction
    outside the loop that is a load, a call or an opaque operation."""
    if isinstance(v, Argument):
        return True
    if type(v) is not _INSTRUCTION or v.block in body:
        return False
    if v.opcode in ("load", "call"):
        return True
    return v.opcode in _OPAQUE and not any(_is_const(o) for o in v.operands) and "disjoint" not in v.flags


class _Scev:
    """SCEV of the loop's integer values as far as the class needs: a sum of
    coefficient * atom terms (loop-variant atoms, loop-invariant atoms), a constant,
    and the step of the add-recurrence {0,+,step} of ``%i`` it contains (0: none).
    None for a value outside these forms."""

    def __init__(self, body, iv):
        self.body, self.iv = body, iv
        self.memo: dict = {}
        self.vmemo: dict = {}

    def of(self, v):
        if type(v) is _CONSTANT:
            return ({}, {}, v.value if isinstance(v.value, int) else None, 0) if isinstance(v.value, int) else None
        if v is self.iv:
            return ({}, {}, 0, 1)
        r = self.memo.get(v, 0)
        if r != 0:
            return r
        self.memo[v] = None  # (cycles through phis: opaque)
        r = self._of(v)
        self.memo[v] = r
        return r

    def varies(self, v) -> bool:
        """``v``'s SCEV is certainly loop-variant (where ``of`` does not say what it
        is): an opaque value of the loop, a sum with loop-variant terms or a recurrence
        of the loop, or a constant multiple, shift, mask or product of a value that
        varies (SCEV folds no product of a varying value to an invariant)."""
        if type(v) is not _INSTRUCTION or v.block not in self.body:
            return False
        r = self.vmemo.get(v)
        if r is None:
            self.vmemo[v] = False  # (cycles: not known)
            r = self.vmemo[v] = self._varies(v)
        return r

    def _varies(self, v) -> bool:
        if _opaque(v, self.body):
            return True
        e = self.of(v)
        if e is not None:
            return bool(e[0]) or e[3] != 0
        ops = v.operands
        if v.opcode in ("mul", "shl", "lshr", "ashr", "and", "or") and len(ops) == 2 and not v.flags:
            a, b = ops
            if v.opcode == "mul" and not _is_const(a) and not _is_const(b):
                return self.varies(a) or self.varies(b)
            if _is_const(b) and isinstance(b.value, int) and b.value not in (0, -1) and \
                    (v.opcode in ("mul", "and", "or") or 0 < b.value < 32):
                return self.varies(a)
        return False

    def _of(self, v):
        if _opaque(v, self.body):
            return ({v: 1}, {}, 0, 0)
        if _invariant_atom(v, self.body):
            return ({}, {v: 1}, 0, 0)
        if type(v) is not _INSTRUCTION or v.block not in self.body or v.type != I32:
            return None
        ops = v.operands
        if self.iv not in ops and (_product(v, self.body) or _udiv(v, self.body) or _scaled(v, self.body)):
            return ({v: 1}, {}, 0, 0)
        if v.opcode in ("add", "sub") and "disjoint" not in v.flags:
            a, b = self.of(ops[0]), self.of(ops[1])
            if a is None or b is None:
                return None
            r = _lin(a, b, 1 if v.opcode == "add" else -1)
            # (getAddExpr folds X + X * Y to X * (1 + Y), X * Y + X * Z to X * (Y + Z):
            # such sums are not followed)
            seen: set = set()
            for x in list(r[0]) + list(r[1]):
                fs = {x.operands[0]} if _scale(x) else \
                    set(x.operands) if type(x) is _INSTRUCTION and x.opcode == "mul" else {x}
                if fs & seen:
                    return None
                seen |= fs
            return r
        if v.opcode == "xor" and _is_const(ops[1]) and ops[1].value == -1:
            a = self.of(ops[0])
            if a is None:
                return None
            return _lin(({}, {}, -1, 0), a, -1)
        return None


def _product(v, body) -> bool:
    """``v`` is a product SCEV keeps as a term of its own (a SCEVMulExpr x * y): ``mul``
    without flags of two different values of the loop or loop-invariant that SCEV sees
    as opaque, one of them of the loop. (SCEVExpander finds ``v`` itself for the
    term: FindValueInExprValueMap, ``v``'s SCEV having been computed as an operand of
    the interesting value that reads it.)"""
    if v.opcode != "mul" or v.flags or len(v.operands) != 2 or v.block not in body:
        return False
    a, b = v.operands
    if a is b or not all(_opaque(o, body) or _invariant_atom(o, body) for o in (a, b)):
        return False
    return _opaque(a, body) or _opaque(b, body)


def _udiv(v, body) -> bool:
    """``v`` is a quotient SCEV keeps as a term of its own (a SCEVUDivExpr x /u 2^C):
    ``lshr`` without flags by a constant C (1 to 31) of an opaque value of the loop
    (not ``%i``: the caller checks). (The expander finds ``v`` itself for the term.)"""
    if v.opcode != "lshr" or v.flags or len(v.operands) != 2 or v.block not in body:
        return False
    a, b = v.operands
    return _is_const(b) and isinstance(b.value, int) and 1 <= b.value <= 31 and _opaque(a, body)


def _scale(v):
    """The constant C of ``v`` = ``mul x, C`` (2 <= C < 2^31) or ``shl x, k`` (1 <= k <=
    30, C = 2^k), both without flags: SCEV's C * x (a SCEVMulExpr with a constant
    first). None for other values."""
    if type(v) is not _INSTRUCTION or v.flags or len(v.operands) != 2 or v.opcode not in ("mul", "shl"):
        return None
    a, b = v.operands
    k = _const_int(b)
    if k is None or _is_const(a):
        return None
    if v.opcode == "shl":
        return 1 << k if 1 <= k <= 30 else None
    return k if 2 <= k < 1 << 31 else None


def _scaled(v, body) -> bool:
    """``v`` is a constant multiple SCEV keeps as a term of its own (C * x, ``_scale``)
    of an opaque value x of the loop (not ``%i``: the caller checks). (The expander
    finds ``v`` itself for the term; its negation -C * x leading a sum is ``mul x,
    -C``.)"""
    return v.block in body and _scale(v) is not None and _opaque(v.operands[0], body)


def _kind(x, k: int) -> str:
    """The expander's term kind of coefficient ``k`` times the atom ``x``."""
    if _scale(x):
        return "ns" if k == -1 else "s"
    if type(x) is _INSTRUCTION and x.opcode == "mul":
        return "np" if k == -1 else "p"
    if type(x) is _INSTRUCTION and x.opcode == "lshr" and _is_const(x.operands[1]):
        return "nd" if k == -1 else "d"  # (x /u 2^C: an lshr by a variable amount is a value)
    return "n" if k == -1 else "u"


def _lin(a, b, k: int):
    """a + k * b."""
    var, inv = dict(a[0]), dict(a[1])
    for d, src in ((var, b[0]), (inv, b[1])):
        for x, c in src.items():
            c = d.get(x, 0) + k * c
            if c:
                d[x] = c
            else:
                d.pop(x, None)
    return (var, inv, (a[2] + k * b[2]) & 0xFFFFFFFF, a[3] + k * b[3])


def _phi_reader_ok(u, v, sc, body, dom) -> bool:
    """``u``, a phi of a loop block other than the header reading the interesting ``v``,
    is an IV use the model can rewrite: SCEV sees it as opaque (not all incoming values
    equal -- simplifyInstruction -- and, with two incoming values, not a select-like
    phi: createNodeFromSelectLikePHI needs the SCEVs of both incoming values to
    properly dominate the phi's block, so some loop-variant atom of one of them must
    not), and every block it reads ``v`` from ends in an unconditional branch
    (RewriteForPHI splits a critical edge)."""
    ins = u.incoming
    if len(ins) < 2 or all(x is ins[0][0] for x, _b in ins) or dom is None:
        return False
    for x, blk in ins:
        if x is v and len(blk.successors) != 1:
            return False
    _kids, pre, post = dom
    pb = u.block

    def properly_dominates(b):
        return b is not pb and pre[b] <= pre[pb] and post[pb] <= post[b]

    if len(ins) == 2:
        atoms = []
        for x, _b in ins:
            e = sc.of(x)
            if e is not None:
                atoms.extend(e[0])
        if all(properly_dominates(a.block) for a in atoms):
            return False  # (a select-like phi could have a SCEV of its own)
    return True


def claim(fn, header, body, users: Any = None, dom=None) -> "_Claim | None":
    """The loop's parts when it is of the modeled class (module docstring), else None.
    ``users``: each live instruction's live readers (``_live_users``); ``dom``: the
    dominator tree (``patterns.llc.analyses.dom_tree``), without which no phi reader of
    an interesting value is taken."""
    if users is None:
        users = _live_users(fn)
    outside = [p for p in dict.fromkeys(header.predecessors) if p not in body]
    inside = [p for p in dict.fromkeys(header.predecessors) if p in body]
    if len(outside) != 1 or len(inside) != 1 or len(outside[0].successors) != 1:
        return None
    pre, latch = outside[0], inside[0]
    for b in body:
        if b is not latch and any(s not in body for s in b.successors):
            return None  # another exiting block
    br = latch.terminator
    if br is None or br.opcode != "br" or len(br.operands) != 1 or len(latch.successors) != 2:
        return None
    cmp = br.operands[0]
    if (type(cmp) is not _INSTRUCTION or cmp.opcode != "icmp" or cmp.block is not latch
            or cmp.predicate in ("eq", "ne") or users.get(cmp) != [br]):
        return None
    inext, bound = cmp.operands
    if type(bound) is _INSTRUCTION and bound.block in body:
        return None
    if type(inext) is not _INSTRUCTION or inext.opcode != "add" or inext.block not in body or inext.type != I32:
        return None
    iv, one = inext.operands
    if not (_is_const(one) and one.value == 1) or type(iv) is not _INSTRUCTION or iv.opcode != "phi":
        return None
    if iv.block is not header or len(iv.incoming) != 2 or inext.flags:
        return None
    inc = dict((blk, v) for v, blk in iv.incoming)
    start: Any = inc.get(pre)
    if inc.get(latch) is not inext or not (_is_const(start) and start.value == 0):
        return None
    if sorted(map(id, users.get(inext, []))) != sorted((id(iv), id(cmp))):
        return None
    for p in header.instructions:
        if p.opcode != "phi":
            break
        if p is iv:
            continue
        lv = dict((blk, v) for v, blk in p.incoming).get(latch)
        if lv is None or not _opaque(lv, body) or lv.opcode == "phi":
            return None
    # IVUsers: from %i through the users whose SCEV is interesting (it holds {0,+,k});
    # a reader that is not interesting is a use of the value it reads
    sc = _Scev(body, iv)
    uses = []
    chain = []
    seen = {iv, inext}

    def visit(v) -> bool:
        # each value's readers in use-list order (most recent first: as a parsed
        # module's use lists are), depth first, as IVUsers walks them
        for u in _rev(list(dict.fromkeys(users.get(v, [])))):
            if u is inext or u is iv or (v is inext and u is cmp):
                continue
            if u.block not in body:
                return False
            if u.opcode == "phi":
                # (an opaque phi of the loop: a use, rewritten in its incoming blocks)
                if u.block is header or not _phi_reader_ok(u, v, sc, body, dom):
                    return False
                uses.append((u, v))
                continue
            e = sc.of(u) if u.opcode in ("add", "sub", "xor") else None
            if e is not None and e[3] != 0:
                if u in seen:
                    # (IVUsers records a processed value reached again as a user of the
                    # value: a use of its own, which dies with the processed value when
                    # every use counts down by a step below -1 -- ``%x - %i - %i`` --;
                    # elsewhere the model declines)
                    rereached.append((u, v))
                    continue
                seen.add(u)
                chain.append(u)
                if not visit(u):
                    return False
                continue
            if u.opcode == "icmp" and u.predicate in ("eq", "ne") and v is iv:
                other = u.operands[1] if u.operands[0] is iv else u.operands[0]
                if other is iv:
                    return False
                if _invariant_atom(other, body):
                    zero.append(u)  # (an ICmpZero use: N - {0,+,1} == 0)
                else:
                    oe = sc.of(other)
                    if _is_const(other) or oe is None or oe[3] != 0 or not oe[0]:
                        return False  # (a constant, or a value the model cannot place)
                    basic.append(u)
                continue
            if not _plain_user(u, v, body, sc):
                return False  # (interesting in a form the model does not follow)
            uses.append((u, v))
        return True

    zero: list = []
    basic: list = []
    rereached: list = []
    if not visit(iv):
        return None
    for u, v in uses:
        if u.opcode == "phi" and any(x is not v and x in seen for x, _b in u.incoming):
            return None  # (a phi reading two interesting values: IVUsers records one)
    nontrivial = []
    for u, v in uses:
        if v is iv:
            continue
        if users.get(v, []).count(u) != 1:
            return None  # (a reader of the value twice: two fixups)
        e = sc.of(v)
        var, inv, const, step = e
        if step == 0 or step > 1 or step < -8 or any(c not in (1, -1) for c in list(var.values()) + list(inv.values())):
            return None
        if step == 1 and not (inv or const or var):
            return None
        nontrivial.append((u, v, e))
    if not nontrivial and not zero and not any(u.operands[1] is iv for u in basic):
        return None
    # LSR rewrites use by use (uses with equal SCEVs are one, in order of first
    # appearance), each use's fixups in order
    first: dict = {}
    for k, (_u, _v, e) in enumerate(nontrivial):
        first.setdefault((frozenset(e[0].items()), frozenset(e[1].items()), e[2], e[3]), k)
    nontrivial.sort(key=lambda t: first[(frozenset(t[2][0].items()), frozenset(t[2][1].items()), t[2][2], t[2][3])])
    if len({e[3] for _u, _v, e in nontrivial}) > 1 and any(e[3] < -1 for _u, _v, e in nontrivial):
        return None  # (a down-counting step other than -1 beside other steps: the solver decides)
    if rereached and not (nontrivial and all(e[3] < -1 for _u, _v, e in nontrivial)):
        return None  # (IVUsers' use of a processed value: followed only below)
    neg_starts = {(frozenset(e[1].items()), e[2]) for _u, _v, e in nontrivial if e[3] < 0}
    split = False
    if len(neg_starts) > 1:
        # two down-counting starts, 0 and an invariant part I without a constant: one
        # new IV from 0 and I in a register of its own (fewer registers than any other
        # formula; verified against llc). Other mixes: LSR's solver decides.
        if len(neg_starts) != 2 or (frozenset(), 0) not in neg_starts or any(k for _i, k in neg_starts):
            return None
        if any(e[3] == 1 and e[1] for _u, _v, e in nontrivial):
            return None  # (an up-counting invariant part beside them: not modeled)
        split = True
    if len({(frozenset(e[0].items()), frozenset(e[1].items()), e[2]) for _u, _v, e in nontrivial
            if e[3] == 1 and e[2]}) > 1:
        # (two up-counting uses with constants: GenerateCrossUseConstantOffsets offers
        # them a new IV {c,+,1}, which llc's solver takes over %i with the immediates)
        return None
    if len({(frozenset(e[1].items()), e[2]) for _u, _v, e in nontrivial if e[3] == 1 and e[1]}) > 1:
        return None  # (up-counting uses with different invariant parts: the solver may share registers)
    neg = [e for _u, _v, e in nontrivial if e[3] < 0]
    if neg and zero:
        return None  # (a down-counting IV the compares could share: the solver decides)
    start = ({}, 0) if split else (neg[0][1], neg[0][2]) if neg else None
    c = _Claim(header, pre, latch, iv, inext, cmp, start, nontrivial, chain)
    c.split = split
    c.compares = [(u, True) for u in zero] + [(u, False) for u in basic]
    c.sc, c.body, c.users = sc, body, users
    c.fn_blocks = fn.blocks
    return c


def _reader_pins(u, x, sc) -> "bool | None":
    """Whether ``u``, read in a block the loop header dominates, gives the loop-invariant
    ``x`` a use of LSR's own (CollectLoopInvariantFixupsAndFormulae: a reader whose SCEV
    is opaque, or that SCEV cannot describe -- no integer result --, other than a
    compare with a recurrence of the loop); None where the model cannot tell (a no-op,
    a mask, a select or phi SCEV may see through, ...)."""
    t = u.type
    if t is None or not (t.is_int or t.is_ptr):
        return True  # (a store, a branch: not SCEVable)
    op, ops = u.opcode, u.operands
    if op in ("add", "sub", "mul", "udiv", "urem", "trunc", "zext", "sext"):
        return False  # (a sum, product, quotient or cast: ignored)
    if op == "icmp":
        if len(ops) != 2 or ops[0] is ops[1]:
            return None
        other = ops[1] if ops[0] is x else ops[0]
        if type(other) is _CONSTANT or type(other) is not _INSTRUCTION or other.block not in sc.body:
            return True
        e = sc.of(other)
        if e is None:
            return None
        return not (e[3] != 0 and not e[0])  # (a recurrence of the loop: the IV use has it)
    if len(ops) != 2 or ops[0] is ops[1]:
        return None
    a, b = ops
    if op in ("shl", "lshr", "ashr"):
        if b is x or not _is_const(b):
            return True
        if not isinstance(b.value, int) or not 1 <= b.value <= 31:
            return None
        if op == "ashr":
            return True if _ashr_by_constant(u) else None
        return False  # (a multiple or a quotient)
    if op in ("and", "or", "xor"):
        if "disjoint" in u.flags:
            return False
        if _is_const(a) or _is_const(b):
            return False if op == "xor" and (b.value if _is_const(b) else a.value) == -1 else None
        return True
    return None


def _pinned(c, x, dom) -> "bool | None":
    """LSR gives the loop-invariant ``x`` (an argument or an instruction outside the
    loop) a use of its own, so a formula reading reg(x) costs no register: some reader
    of ``x`` in a block the loop header dominates (for a phi, the block the value comes
    from) ``_reader_pins`` it. None where some reader cannot be placed."""
    memo = c.pins
    if x in memo:
        return memo[x]
    _kids, pre, post = dom
    h = c.header
    dead = getattr(c.users, "dead", ())
    r: Any = False
    for b in c.fn_blocks:
        for u in b.instructions:
            if not any(o is x for o in u.operands):
                continue
            if u.opcode == "phi":
                for v, blk in u.incoming:
                    if v is x and pre[h] <= pre[blk] and post[blk] <= post[h]:
                        r = None  # (a phi reading it: SCEV may see a select through it)
                continue
            if not (pre[h] <= pre[b] and post[b] <= post[h]):
                continue
            if u in dead:
                continue
            k = _reader_pins(u, x, c.sc)
            if k is True:
                memo[x] = True
                return True
            if k is None:
                r = None
    memo[x] = r
    return r


def _found_values(c, var: dict) -> list:
    """The instructions of ``c``'s loop whose SCEV is the loop-variant sum ``var``
    (SCEVExpander's expand looks an expression up in ScalarEvolution's ExprValueMap
    before building it: FindValueInExprValueMap; never for a single value)."""
    if len(var) < 2 and all(k == 1 for k in var.values()):
        return []
    sums = c.sums
    if sums is None:
        sums = c.sums = {}
        for b in c.body:
            for x in b.instructions:
                if x.opcode in ("add", "sub", "xor", "mul") and c.users.get(x) is not None:
                    e = c.sc.of(x)
                    if e is not None and not e[1] and not e[2] and not e[3] and e[0]:
                        sums.setdefault(frozenset(e[0].items()), []).append(x)
    return sums.get(frozenset(var.items()), [])


def _computed(c) -> set:
    """The values whose SCEV IVUsers has certainly computed by the time LSR expands:
    the interesting values and, through the sums SCEV looks into, their operands."""
    done = c.computed
    if done is None:
        done = c.computed = set()
        work = list(c.chain)
        while work:
            x = work.pop()
            if x in done:
                continue
            done.add(x)
            if x.opcode in ("add", "sub") or (x.opcode == "xor" and _is_const(x.operands[1])):
                work.extend(o for o in x.operands if type(o) is _INSTRUCTION and o.block in c.body)
    return done


def _complexity(a, b, depth: dict, level: int = 0) -> int:
    """LLVM's CompareValueComplexity(a, b) for the values met here: negative when ``a``
    sorts first in a SCEV sum."""
    if level > 1:  # (MaxValueCompareDepth 2; the values compared are at depth 1)
        return 0
    def kind(v):
        if type(v) is _CONSTANT:  # (LLVM's value IDs: constants, arguments, instructions)
            return (0, 0)
        if isinstance(v, Argument):
            return (1, 0)
        if type(v) is _INSTRUCTION:
            return (2, _OPCODE_ORDER.get(v.opcode, 99))
        return (0, 0)

    ka, kb = kind(a), kind(b)
    if ka != kb:
        return -1 if ka < kb else 1
    if isinstance(a, Argument):
        return a.index - b.index
    if type(a) is not _INSTRUCTION:
        return 0
    if a.block is not b.block:
        da, db = depth.get(a.block, 0), depth.get(b.block, 0)
        if da != db:
            return da - db
    na, nb = len(a.operands), len(b.operands)
    if na != nb:
        return na - nb
    for oa, ob in zip(a.operands, b.operands):
        r = _complexity(oa, ob, depth, level + 1)
        if r:
            return r
    return 0


class _Expander:
    """SCEVExpander as LSR drives it, for sums of terms: ``("c", k)`` a constant,
    ``("u", x)`` a value (SCEVUnknown), ``("n", x)`` its negation (-1 * x), ``("p", x)``
    the product ``x`` (``_product``; the expander finds ``x`` itself), ``("np", x)``
    its negation."""

    def __init__(self, fn, ty, bodies, home, depth, created):
        self.fn, self.ty, self.bodies, self.home, self.depth = fn, ty, bodies, home, depth
        self.created = created
        self.cache: dict = {}  # (SCEV, insertion point) -> its expansion (InsertedExpressions)

    def loop_of(self, v):
        """The innermost loop holding ``v``'s definition (getRelevantLoop), or None."""
        if type(v) is not _INSTRUCTION:
            return None
        hs = self.home.get(v.block)
        return hs[0] if hs else None

    def rank(self, v) -> int:
        h = self.loop_of(v)
        return 0 if h is None else self.depth.get(h, 0)

    def invariant_in(self, v, h) -> bool:
        return type(v) is not _INSTRUCTION or v.block not in self.bodies[h]

    def binop(self, opc, a, b, anchor, flags=frozenset()):
        """InsertBinop: constants fold; an equal instruction among the six before the
        insertion point is reused; else it goes out of every loop both operands are
        invariant in (to that loop's preheader end) and is inserted there."""
        if type(a) is _CONSTANT and type(b) is _CONSTANT:
            x, y = a.value, b.value
            r = (x + y) if opc == "add" else (x - y) if opc == "sub" else (x * y)
            r &= 0xFFFFFFFF
            r = r - (1 << 32) if r >= 1 << 31 else r
            return Constant(self.ty, str(r), "int", r)
        block = anchor.block
        insts = block.instructions
        k = insts.index(anchor)
        for j in range(k - 1, max(-1, k - 7), -1):
            o = insts[j]
            if o.opcode == opc and o.flags == flags and len(o.operands) == 2 and _same(o.operands[0], a) \
                    and _same(o.operands[1], b):
                return o
        for h in self.home.get(block, []):
            if not (self.invariant_in(a, h) and self.invariant_in(b, h)):
                break
            pre = _preheader(h, self.bodies[h])
            if pre is None:
                break
            block, k = pre, len(pre.instructions) - 1
            insts = block.instructions
        i = Instruction(opc, None, self.ty, [a, b], block)
        if flags:
            i.flags = flags
        insts.insert(k, i)
        self.created.append((i, None))
        return i

    def factors(self, p) -> list:
        """The operands of the product ``p``'s SCEV, in SCEV order (GroupByComplexity)."""
        import functools

        return sorted(p.operands, key=functools.cmp_to_key(lambda a, b: _complexity(a, b, self.depth)))

    def scev_cmp(self, s, t) -> int:
        """CompareSCEVComplexity on two terms: constants, then products (fewer operands
        first, then operand by operand: the constant -1 before values), then values."""
        kr = {"c": 0, "n": 6, "p": 6, "np": 6, "nd": 6, "s": 6, "ns": 6, "d": 7, "u": 15}
        if kr[s[0]] != kr[t[0]]:
            return kr[s[0]] - kr[t[0]]
        if s[0] == "c":
            return 0
        if s[0] == "u":
            return _complexity(s[1], t[1], self.depth)
        if s[0] == "d":
            return self.udiv_cmp(s[1], t[1], 1)

        def ops(term):
            # (the operands of the product: constants as ints, unsigned)
            kind, x = term
            if kind in ("s", "ns"):
                k = _scale(x)
                return [k if kind == "s" else -k & 0xFFFFFFFF, x.operands[0]]
            vals = self.factors(x) if kind in ("p", "np") else [x]
            return ([0xFFFFFFFF] if kind in ("n", "np", "nd") else []) + vals

        a, b = ops(s), ops(t)
        if len(a) != len(b):
            return len(a) - len(b)
        for x, y in zip(a, b):
            cx, cy = isinstance(x, int), isinstance(y, int)
            if cx or cy:
                if cx != cy:
                    return -1 if cx else 1
                if x != y:
                    return -1 if x < y else 1
                continue
            dx, dy = s[0] == "nd", t[0] == "nd"  # (a quotient sorts before values)
            if dx != dy:
                return -1 if dx else 1
            r = self.udiv_cmp(x, y, 2) if dx else _complexity(x, y, self.depth, 1)
            if r:
                return r
        return 0

    def udiv_cmp(self, x, y, level: int) -> int:
        """Two quotients x /u 2^C: the dividends, then the divisors (unsigned)."""
        r = _complexity(x.operands[0], y.operands[0], self.depth, level)
        if r:
            return r
        return (x.operands[1].value & 0xFFFFFFFF) - (y.operands[1].value & 0xFFFFFFFF)

    def sum(self, terms, anchor):
        """visitAddExpr on the SCEV sum of ``terms``, inserted before ``anchor``; an
        expression expanded before at the same insertion point is reused (expand's
        InsertedExpressions)."""
        if len(terms) == 1 and terms[0][0] in ("u", "p", "d", "s"):
            return terms[0][1]
        key = ("sum", tuple(sorted(repr((k, x if k == "c" else id(x))) for k, x in terms)), id(anchor))
        v = self.cache.get(key)
        if v is None:
            v = self.cache[key] = self._sum(terms, anchor)
        return v

    def term(self, kind, x, anchor, emit):
        """expand() on one negated term: at ``anchor``, or at the end of the outermost
        preheader when the term is loop-invariant, reused there when expanded before."""
        at = anchor
        if kind == "n" and self.rank(x) == 0:
            for h in self.home.get(anchor.block, []):
                pre = _preheader(h, self.bodies[h])
                if pre is None:
                    break
                at = pre.instructions[-1]
        key = (kind, id(x), id(at))
        v = self.cache.get(key)
        if v is None:
            v = self.cache[key] = emit(x, anchor)
        return v

    def _sum(self, terms, anchor):
        import functools

        terms = sorted(terms, key=functools.cmp_to_key(self.scev_cmp))
        terms.reverse()
        rel = [0 if t[0] == "c" else self.rank(t[1]) for t in terms]
        order = sorted(range(len(terms)), key=lambda j: (rel[j], terms[j][0] in ("n", "np", "nd", "ns")))
        terms = [terms[j] for j in order]
        acc = None
        for kind, x in terms:
            if acc is None:
                if kind == "c":
                    acc = Constant(self.ty, str(x), "int", x)
                elif kind in ("u", "p", "d", "s"):
                    acc = x
                else:
                    acc = self.term(kind, x, anchor, self.neg_scaled if kind == "ns" else
                                    self.neg_product if kind == "np" else self.neg)
            elif kind in ("n", "np", "nd", "ns"):
                acc = self.binop("sub", acc, x, anchor)
            else:
                w = Constant(self.ty, str(x), "int", x) if kind == "c" else x
                if type(acc) is _CONSTANT:
                    acc, w = w, acc
                acc = self.binop("add", acc, w, anchor)
        return acc

    def neg(self, x, anchor):
        """visitMulExpr on -1 * x: ``mul x, -1`` when x is defined in a loop (the
        constant sorts first), else ``sub 0, x``."""
        if self.rank(x) == 0:
            return self.binop("sub", Constant(self.ty, "0", "int", 0), x, anchor)
        # (SCEV's no-wrap flags for -1 * x from x's ranges: nsw without INT_MIN, nuw
        # too when x is at most 1)
        flags = frozenset({"nsw", "nuw"}) if _umax(x, 0) <= 1 else \
            frozenset({"nsw"}) if _no_int_min(x) else frozenset()
        return self.binop("mul", x, Constant(self.ty, "-1", "int", -1), anchor, flags)


    def neg_product(self, p, anchor):
        """visitMulExpr on -1 * x * y (``p`` the product x * y): the operands in SCEV order
        (-1 first), reversed, stably sorted by loop (outermost first); the first
        expanded, -1 a ``sub 0, Prod``, a value ``mul Prod, v`` (the constant swapped to
        the right), each hoisted as InsertBinop does; no flags (SCEV infers none for
        three operands)."""
        ops = [Constant(self.ty, "-1", "int", -1)] + self.factors(p)
        ops.reverse()
        ops = sorted(ops, key=lambda o: 0 if type(o) is _CONSTANT else self.rank(o))
        prod = None
        for o in ops:
            if prod is None:
                prod = o
            elif type(o) is _CONSTANT:
                prod = self.binop("sub", Constant(self.ty, "0", "int", 0), prod, anchor)
            else:
                w = o
                if type(prod) is _CONSTANT:
                    prod, w = w, prod
                prod = self.binop("mul", prod, w, anchor)
        return prod

    def neg_scaled(self, v, anchor):
        """visitMulExpr on -C * x (``v`` = C * x, x of the loop): ``mul x, -C`` (the
        constant sorts first and is swapped to the right; -C is no power of two), with
        the no-wrap flags SCEV gives the product from x's ranges (StrengthenNoWrapFlags:
        nsw where x * -C cannot overflow signed, nuw where x is at most 1)."""
        x, k = v.operands[0], _scale(v)
        flags = set()
        if _umax(x, 0) <= 1:
            flags = {"nsw", "nuw"}
        else:
            lo, hi = _signed_range(x)
            if -(1 << 31) <= -k * hi and -k * lo <= (1 << 31) - 1:
                flags = {"nsw"}
        return self.binop("mul", x, Constant(self.ty, str(-k), "int", -k), anchor, frozenset(flags))


def _signed_range(x) -> tuple:
    """A superset of ScalarEvolution's signed range of the opaque ``x`` from the facts
    the model knows (sign bits, a known-zero sign bit)."""
    n = _sign_bits(x, 0)
    lo, hi = -(1 << (32 - n)), (1 << (32 - n)) - 1
    return (0, hi) if _sign_zero(x, 0) else (lo, hi)


def _decided(c, ex, dom) -> bool:
    """Whether the expansion of ``c``'s uses is fixed by what the model knows: every
    value it adds is defined outside loops or in loops holding ``c``'s (getRelevantLoop
    orders by loop nesting; sibling loops go by dominance, not modeled), and no two
    terms it sorts compare equal in SCEV complexity (LLVM then keeps the order in
    which ScalarEvolution built the sum)."""
    h = c.header

    def ok_loop(v):
        lp = ex.loop_of(v)
        return lp is None or h in ex.bodies[lp]

    def distinct(terms) -> bool:
        for j in range(len(terms)):
            for k in range(j + 1, len(terms)):
                if terms[j][0] == terms[k][0] and ex.scev_cmp(terms[j], terms[k]) == 0:
                    return False
        return True

    _kids, pre, post = dom

    def dominates(x, reader):
        if x.block is reader.block:
            insts = x.block.instructions
            return insts.index(x) < insts.index(reader)
        return pre[x.block] <= pre[reader.block] and post[reader.block] <= post[x.block]

    for reader, value, (var, inv, _const, step) in c.uses:
        for x in list(var) + list(inv):
            if not ok_loop(x):
                return False
        found = _found_values(c, var)
        if found:
            # (an instruction with W's SCEV that may dominate the expansion: reused when
            # its SCEV was computed, which the model only knows for IVUsers' values)
            lowest = reader if reader.opcode != "phi" else \
                next(blk for x, blk in reader.incoming if x is value).terminator
            maybe = [x for x in found if dominates(x, lowest)]
            if maybe and (len(found) > 1 or maybe[0].flags or maybe[0] not in _computed(c)):
                return False
        for group in (var, inv):
            if not distinct([(_kind(x, k), x) for x, k in group.items()]):
                return False
        for x in var:
            if _scale(x):
                # (C * x: the expander finds the atom, its SCEV computed with the sum's,
                # when no other value has that SCEV; -C * x finds no value: visitMulExpr)
                if x not in _computed(c) or any(y is not x and _same_scaled(y, x) for b in c.body
                                                for y in b.instructions):
                    return False
            elif x.opcode == "mul":
                fa, fb = ex.factors(x)
                if _complexity(fa, fb, ex.depth) == 0:
                    return False  # (factors tying: their order is the one SCEV built)
                if any(y is not x and y.opcode == "mul" and set(y.operands) == set(x.operands)
                       for b in c.body for y in b.instructions):
                    return False  # (another value with the product's SCEV)
            if x.opcode == "lshr" and any(y is not x and y.opcode == "lshr" and y.operands[0] is x.operands[0]
                                          and _same(y.operands[1], x.operands[1])
                                          for b in c.body for y in b.instructions):
                return False  # (another value with the quotient's SCEV)
            if var[x] == -1 and x.opcode in ("mul", "shl") and any(_negation_of(c, y, x) for b in c.body for y in b.instructions):
                return False  # (a value with the SCEV -1 * x the expander of -x could find)
        if len(var) == 1 and next(iter(var.values())) == 1:
            (x,) = var
            if step == 1:
                if _complexity(x, c.iv, ex.depth) == 0:
                    return False
            elif x.opcode == "phi":
                # (against the new IV: its first incoming value is the increment, an
                # add in the loop; x's first is from outside the loop or a constant)
                y = x.operands[0] if x.operands else None
                if type(y) is _INSTRUCTION and y.opcode == "add" and ex.depth.get(y.block, 0) == \
                        ex.depth.get(c.latch, 0):
                    return False
    return True


def _negation_of(c, y, x) -> bool:
    """``y``'s SCEV is -1 times the term ``x`` (an instruction FindValueInExprValueMap
    could find for it)."""
    if y.opcode not in ("sub", "mul", "xor"):
        return False
    e = c.sc.of(y)
    return e is not None and e[0] == {x: -1} and not e[1] and not e[2] and not e[3]


def _same_scaled(y, x) -> bool:
    """``y`` is another constant multiple with ``x``'s SCEV C * v (``_scale``), flags
    or not."""
    if type(y) is not _INSTRUCTION or y.opcode not in ("mul", "shl") or len(y.operands) != 2 or \
            y.operands[0] is not x.operands[0]:
        return False
    k = _const_int(y.operands[1])
    if k is None:
        return False
    return (1 << k if y.opcode == "shl" and k < 32 else k if y.opcode == "mul" else None) == _scale(x)


def _pins_decided(c, dom) -> bool:
    """Whether the model knows each up-counting use's formula given the loop-invariant
    values LSR pins in registers of their own (``_pinned``): with a pinned invariant
    part I, a single value, and a constant c, reg(I) + reg(W) + reg(%i) and the
    immediate c take fewer registers than reg(I+c) beside the pinned reg(I) (the
    immediate is added last: ``c.pinned_readers``); where the model cannot tell
    whether I is pinned, it declines."""
    c.pinned_readers = set()
    for reader, _value, (_var, inv, const, step) in c.uses:
        if step != 1 or not inv:
            continue
        if len(inv) == 1 and next(iter(inv.values())) == 1:
            if const:
                p = _pinned(c, next(iter(inv)), dom)
                if p is None:
                    return False
                if p:
                    c.pinned_readers.add(reader)
    return True


def _shares_part(c) -> bool:
    """An up-counting use whose loop-variant part W (two terms or more) holds, as a
    part, the whole W' of an up-counting use LSR takes before it (``c.uses`` is in
    LSR's order) and whose formula is exactly reg(W') + reg(%i): the solver requires
    of a later use the registers earlier ones chose when it can read them, so W's
    formula gets reg(W') and the rest beside it (seen against llc), which the model
    does not follow: it declines. (With W's use first, W stays one register.)"""
    seen: list = []
    for _r, _v, (var, inv, k, step) in c.uses:
        if step != 1 or not var:
            continue
        w = frozenset(var.items())
        if len(w) > 1 and any(x < w for x in seen):
            return True
        if not inv and not k:
            seen.append(w)
    return False


def _insert_point(reader, value, idom, dom, home, depth, inserted):
    """AdjustInsertPositionForExpand: the instruction the expansion of the use of
    ``value`` goes before, ``reader`` the lowest position (the reading instruction, or
    for a phi the terminator of the incoming block). HoistInsertPosition climbs the
    dominator tree from there (not into deeper loops) while ``value`` dominates the candidate
    position, taking the point right after ``value`` in its own block; then past phis
    and past instructions the expander inserted (never past the reader)."""
    _kids, pre, post = dom

    def dominates(a, b):
        return pre[a] <= pre[b] and post[b] <= post[a]

    def loop_of(b):
        hs = home.get(b)
        return hs[0] if hs else None

    ip = reader
    tentative = reader
    while True:
        if tentative is value:
            break
        vb, tb = value.block, tentative.block
        if vb is tb:
            insts = vb.instructions
            if insts.index(value) > insts.index(tentative):
                break
            ip = insts[insts.index(value) + 1]
        elif dominates(vb, tb):
            ip = tentative
        else:
            break
        b = ip.block
        ip_loop, ip_depth = loop_of(b), depth.get(b, 0)
        rung = b
        found = None
        while True:
            nxt = idom.get(rung)
            if nxt is None or nxt is rung:
                break
            rung = nxt
            if depth.get(rung, 0) <= ip_depth and (depth.get(rung, 0) != ip_depth or loop_of(rung) is ip_loop):
                found = rung
                break
        if found is None:
            break
        tentative = found.instructions[-1]
    insts = ip.block.instructions
    k = insts.index(ip)
    while insts[k].opcode == "phi":
        k += 1
    while insts[k] in inserted and insts[k] is not reader:
        k += 1
    return insts[k]


def _same(x, y) -> bool:
    """The same value (constants by value: LLVM uniques them)."""
    return x is y or (type(x) is _CONSTANT and type(y) is _CONSTANT and x == y)


def _preheader(h, body):
    outside = [p for p in dict.fromkeys(h.predecessors) if p not in body]
    if len(outside) != 1 or len(outside[0].successors) != 1:
        return None
    return outside[0]


def loop_strength_reduce(fn, ua=None, idom=None, dom=None, forest=..., readers: list | None = None,
                         names: set | None = None) -> list:
    """Run the modeled LSR on ``fn`` in place; returns the headers of the loops
    rewritten (the others are untouched). ``ua``: the uniformity analysis, given the
    verdicts of the new instructions; ``idom``/``dom``: the dominator tree when known
    (``patterns.llc.analyses.dom_tree``; LSR's caller does not change the CFG);
    ``forest``: its ``patterns.llc.analyses.loop_forest`` when known (LICM's: LICM moves
    instructions only). ``readers``: when given and a loop is rewritten, gets the map
    instruction -> the instructions that may read it (each instruction in the function
    is listed under every instruction it reads; deleted ones and former readers may
    be listed too). ``names``: the names the function's values and blocks have, when
    the caller keeps them (LICM's ``_LicmState.names_now``); taken over."""
    if getattr(fn, "is_declaration", False) or len(fn.blocks) < 2:
        return []
    if dom is None:
        from patterns.llc.analyses import dom_tree

        if idom is None:
            from patterns.dag.builder import immediate_dominators

            idom = immediate_dominators(fn)
        dom = dom_tree(fn, idom)
    loops, depth, bodies = _loops(fn, idom, dom, forest)
    if not loops:
        return []
    _kids, dpre, dpost = dom

    def dominates(a, b):
        return dpre[a] <= dpre[b] and dpost[b] <= dpost[a]
    everyone = _users(fn)
    dead0 = _dead(fn, everyone)
    users = _LiveUsers(everyone, dead0)
    claims = [c for c in (claim(fn, h, body, users, dom) for h, body in loops) if c is not None]
    if not claims:
        return []
    # the names taken, made at the first new name unless given (nothing named is made or
    # deleted before it: the expansions are unnamed)
    last = [0]

    def unique(base: str) -> str:
        nonlocal names
        if names is None:
            names = {i.name for b in fn.blocks for i in b.instructions if i.name is not None}
            names.update(a.name for a in fn.args)
            names.update(b.name for b in fn.blocks)
        name = base
        while name in names:
            last[0] += 1
            name = f"{base}{last[0]}"
        names.add(name)
        return name

    i32 = claims[0].iv.type
    created: list = []
    home: dict = {}  # block -> headers of the loops holding it, innermost first
    for h in sorted(bodies, key=lambda h: -len(bodies[h])):
        for x in bodies[h]:
            home.setdefault(x, []).insert(0, h)
    ex = _Expander(fn, i32, bodies, home, depth, created)
    claims = [c for c in claims if _decided(c, ex, dom) and _pins_decided(c, dom) and not _shares_part(c)]
    if not claims:
        return []
    order = None  # block -> its position (made when a new IV needs it)
    expanded: dict = {}  # (I + c, insertion point) -> its expansion (InsertedExpressions)

    def expand_invariant(c, inv, const):
        """reg(I + c) expanded as SCEVExpander's expand does a loop-invariant
        expression: at the end of the preheader of the outermost loop around ``c``'s
        it is invariant in (climbing while the loops have preheaders), once per
        insertion point; a constant when I is empty."""
        terms = [("n" if k == -1 else "u", x) for x, k in inv.items()]
        if const:
            terms.append(("c", const - (1 << 32) if const >= 1 << 31 else const))
        if not terms:
            return Constant(i32, "0", "int", 0)
        if len(terms) == 1 and terms[0][0] == "u":
            return terms[0][1]
        anchor = c.pre.instructions[-1]
        for h in home.get(c.pre, []):
            if not all(ex.invariant_in(x, h) for x in inv):
                break
            pre = _preheader(h, bodies[h])
            if pre is None:
                break
            anchor = pre.instructions[-1]
        key = (tuple(sorted(((id(x), k) for x, k in inv.items()))), const, anchor)
        v = expanded.get(key)
        if v is None:
            v = expanded[key] = ex.sum(terms, anchor)
        return v

    for c in claims:
        phi = None
        for reader, value, (var, inv, const, step) in c.uses:
            if step < 0 and phi is None:
                # the new IV {I+c,+,-1}, made (its start expanded in the preheader) when
                # the first use of it is expanded
                sv = expand_invariant(c, *c.start)
                if order is None:
                    order = {b: k for k, b in enumerate(fn.blocks)}
                preds = sorted(dict.fromkeys(c.header.predecessors), key=order.__getitem__, reverse=True)
                phi = Instruction("phi", unique("lsr.iv"), i32, [], c.header)
                nxt = Instruction("add", unique("lsr.iv.next"), i32, [phi, Constant(i32, str(step), "int", step)],
                                  c.latch)
                incoming = [(nxt if p is c.latch else sv, p) for p in preds]
                phi.incoming = incoming
                phi.operands = [v for v, _ in incoming]
                c.header.instructions.insert(0, phi)
                insts = c.latch.instructions
                insts.insert(insts.index(c.cmp), nxt)
                created.append((phi, c.iv))
                created.append((nxt, c.inext))
            ivv = c.iv if step == 1 else phi
            terms = [(_kind(x, k), x) for x, k in var.items()]
            # an up-counting use with an invariant part: reg(W) + reg(I+c) + reg(%i), or reg(I) and
            # the immediate c last when I has a use of its own
            # (and a down-counting one beside a use starting at 0: reg(W) + reg(I) + the IV)
            pinned = reader in c.pinned_readers
            icv = None if not inv or not (step == 1 or c.split) else next(iter(inv)) if pinned else \
                expand_invariant(c, inv, const)
            imm = const - (1 << 32) if const >= 1 << 31 else const
            imm = imm if step == 1 and (not inv or pinned) and imm else None
            # a phi's use is expanded at the end of the block it comes from (RewriteForPHI)
            lowest = reader if reader.opcode != "phi" else \
                next(blk for x, blk in reader.incoming if x is value).terminator
            if terms or icv is not None or imm is not None:
                ip = _insert_point(lowest, value, idom, dom, home, depth, {i for i, _ in created})
                w = None
                for x in _found_values(c, var):
                    if x.block is ip.block and x.block.instructions.index(x) < ip.block.instructions.index(ip) \
                            or x.block is not ip.block and dominates(x.block, ip.block):
                        w = x  # (FindValueInExprValueMap: an instruction with W's SCEV)
                parts = [("u", w if w is not None else ex.sum(terms, ip))] if terms else []
                if icv is not None:
                    parts.append(("u", icv))
                final = ex.sum(parts + [("u", ivv)], ip)
                if imm is not None:
                    final = ex.sum([("u", final), ("c", imm)], ip)
            else:
                final = ivv
            if final is value:
                continue  # (the expansion found the value itself)
            reader.operands = [final if o is value else o for o in reader.operands]
            if reader.opcode == "phi":
                reader.incoming = [(final if x is value else x, blk) for x, blk in reader.incoming]
            reader._text = None
            everyone[value].remove(reader)
            if type(final) is _INSTRUCTION:
                everyone.setdefault(final, []).append(reader)
    for c in claims:
        # an equality compare of %i: LSR puts %i first; one with a loop-invariant N
        # (ICmpZero, formula reg(N) + -1 * reg(%i)) becomes ``icmp N, %i``
        for u, zero in c.compares:
            other = u.operands[1] if u.operands[0] is c.iv else u.operands[0]
            ops = [other, c.iv] if zero else [c.iv, other]
            if u.operands != ops:
                u.operands = ops
                u._text = None
    for i, _old in created:  # (an expansion may read an interesting value it found)
        for o in i.operands:
            if type(o) is _INSTRUCTION:
                everyone.setdefault(o, []).append(i)
    _delete_dead([x for c in claims for x in c.chain], everyone, dead0)
    if readers is not None:
        # (every rewrite of a reader above added it under the value it reads now, and
        # each new instruction under its operands; deletion changes no operand)
        readers.append(everyone)
    # unnamed values are numbered in program order (as LLVM prints them)
    from patterns.llc.naming import number_unnamed

    # (an expansion is made unnamed: when one is left, names change)
    number_unnamed(fn, any(i.name is None and i.block is not None for i, _old in created))
    fn.uses = None
    if ua is not None:
        _note_divergence(fn, ua, created)
    return [c.header for c in claims]


def _dead(fn, users: dict) -> set:
    """The instructions LLVM has deleted by now or would delete: no side effects and
    read only by such instructions (our earlier passes leave replaced code in place)."""
    from patterns.dag.builder import _has_side_effect

    # (``users`` has an entry, never empty, for each instruction read at all; the reads
    # by dead instructions are counted off in ``gone``, for the few instructions they read)
    work = [i for b in fn.blocks for i in b.instructions
            if i not in users and not _has_side_effect(i) and not i.is_terminator]
    dead: set = set()
    gone: dict = {}
    while work:
        d = work.pop()
        if d in dead:
            continue
        dead.add(d)
        for o in d.operands:
            if type(o) is _INSTRUCTION and o not in dead:
                n = gone[o] = gone.get(o, 0) + 1
                if n == len(users[o]) and not _has_side_effect(o) and not o.is_terminator:
                    work.append(o)
    return dead


class _LiveUsers:
    """Each live instruction's live readers, filtered when first asked (``get``)."""

    def __init__(self, users: dict, dead: set):
        self.users, self.dead = users, dead
        self.memo: dict = {}

    def get(self, v, default=None):
        r = self.memo.get(v)
        if r is None:
            us = self.users.get(v)
            if us is None or v in self.dead:
                return default
            r = self.memo[v] = [u for u in us if u not in self.dead]
        return r


def _live_users(fn) -> "_LiveUsers":
    """Each live instruction's live readers."""
    users = _users(fn)
    return _LiveUsers(users, _dead(fn, users))


def _delete_dead(cands, users: dict, dead0: set) -> None:
    """DeleteTriviallyDeadInstructions on the replaced values: each read only by
    deleted or dead code goes. ``users``: every instruction's readers (dead ones too)
    after the rewrite; ``dead0``: the code dead before LSR (LLVM had deleted it), which
    goes too where it reads a deleted instruction, so nothing left reads one."""
    gone: set = set()
    changed = True
    while changed:
        changed = False
        for d in cands:
            if d not in gone and all(u in gone or u in dead0 for u in users.get(d, [])):
                gone.add(d)
                changed = True
    work = [u for d in gone for u in users.get(d, [])]
    while work:
        u = work.pop()
        if u not in gone and u in dead0:
            gone.add(u)
            work.extend(users.get(u, []))
    for d in gone:
        if d.block is not None:
            d.block.instructions.remove(d)
            d.block = None


def _note_divergence(fn, ua, created) -> None:
    """The uniformity analysis's verdicts for the new instructions, as llc's rerun gives
    them: the new IV (and its increment) as divergent as ``%i`` (same control, a start
    value outside the loop: divergent too when that start is), an expansion when one
    of its operands is (all of them are in the loop, no temporal divergence)."""
    try:
        fu = ua.function(fn)
    except (KeyError, AttributeError):
        return
    table = getattr(ua, "_divergent", None)
    new: dict = {}

    def div(v):
        return new[v] if v in new else ua.is_divergent(v)

    later = {i for i, _old in created}
    for i, old in created:
        if i.opcode == "phi":
            # (its start: an existing value, or one expanded before it; its increment,
            # made after it, is as divergent as the phi)
            cause = old if ua.is_divergent(old) else next(
                (o for o in i.operands if type(o) is not _CONSTANT and (o in new or o not in later) and div(o)),
                None)
        else:
            cause = next((o for o in i.operands if type(o) is not _CONSTANT and div(o)), None)
        new[i] = cause is not None
        if cause is not None:
            fu.divergent[i] = cause
            if table is not None and table is not fu.divergent:
                table.add(i)

"""Models of llc-19's IR passes that change the integer ALU code instruction selection sees.

``run_ir_passes(fn, ua, target)`` (called by ``patterns.dag.builder.build_function_dags``) runs
them in llc's order on the IR, in place (uses rewritten as replaceAllUsesWith leaves them,
hoisted instructions moved, a multiply turned into an intrinsic call): UnreachableBlockElim
(``remove_unreachable_blocks``), EarlyCSE with InstSimplify (``early_cse``),
AMDGPUCodeGenPrepare's replaceMulWithMul24 (``mul24``), LICM (``licm``), the CSE llc's last
EarlyCSE finds for hoisted code, CodeGenPrepare's shift sinking (``sink_extract_bits``)
and folding of branches on constants (``fold_constant_branches``) and UnreachableBlockElim
again; the uniformity analysis is
made again where llc's pipeline makes it. The parts not modeled
are listed in the report of bench/isel_triage.py ``--pass-cause`` (LoopStrengthReduce,
NaryReassociate/SLSR, CodeGenPrepare's block and compare sinking).

llc runs a short IR pipeline before its SelectionDAG (``llc-19 -debug-pass=Structure``):
for amdgcn at -O2 it includes EarlyCSE three times (around SLSR / NaryReassociate and
after LSR), and EarlyCSE simplifies every instruction it visits with InstSimplify
(``simplifyInstruction``) before it looks the instruction up in its table of available
values. Both act on the whole function: a value computed in one block folds with an
operand defined in another, which a per-block DAG combine cannot see.

``early_cse(fn, idom)`` models that pass (``EarlyCSE::processNode``): blocks in dominator
tree preorder, each instruction first simplified (its operands read through the
replacements made so far, as LLVM's replaceAllUsesWith leaves them), then, if it did not
simplify, replaced by an equal instruction available in a dominating position (same
opcode, type, predicate and operands; commutative operands and swapped compares match).
It answers ``instruction -> replacement`` (an instruction, argument or constant), which
``apply_early_cse`` applies to the IR. What llc's later EarlyCSE runs add -- a phi visited
before a value it reads over a back edge was replaced -- comes from simplifying those phis
again, and the users of what they became (``_resimplify``), rather than from repeating
the walk.

The simplifications are InstSimplify's (llvm/lib/Analysis/InstructionSimplify.cpp, LLVM
19) for the integer binary operators, phis and compares, with its recursion limit of 3
levels: constant folding and identities, ``x op x``, ``x op ~x``, negations,
``simplifyAssociativeBinOp`` (regroup when a sub-pair folds), the distributive
``expandCommutativeBinOp`` (``mul`` over ``add``, ``and`` over ``or``/``xor``, ``or`` over
``and``), threading ``mul``/``and``/``or``/shifts over a phi's incoming values, the
sub reassociations, the shift folds (``x >> x``, ``-1 >>a x``, shift amounts whose known
bits decide the result, an ``ashr`` of an all-sign-bits value), the and/or/xor logic
identities (absorption, ``(A ^ B) | (A | B)``, ``(~A & B) ^ (A | B)`` ...), masks that only
clear known-zero bits of a shift, and ``simplifyByDomEq`` (an operation whose operands a
dominating branch proved equal: ``x - y``, ``x ^ y`` -> 0, ``x & y``, ``x | y`` -> ``y``).
Known bits and sign bits follow ValueTracking's computeKnownBits / ComputeNumSignBits for
the modeled operations (depth limit 6; ComputeNumSignBits in LLVM 19's order: most
operators answer from their operands, ``and``/``or``/``xor`` also from the known bits).
LLVM computes every query afresh; the answers here are memoized per value together with
the range of query depths that give them, so each query gets exactly the answer of its
own depth whatever was asked before. Poison is not modeled: a shift by the width or
more, which InstSimplify folds to poison, is left as it is. Compares fold when their operands are equal,
constant, decided by the constant range of the left side (computeConstantRange), by
conflicting known bits (isKnownNonEqual), by a binary operator on one side with the
other side its operand (``x | y`` never below ``x``, ``x & y`` and ``x >> y`` never above
it: simplifyICmpWithBinOp) or by the branch condition of the single predecessor
(isImpliedByDomCondition).

The integer intrinsics without memory effects (``llvm.ctpop``, ``bitreverse``, ``bswap``,
``ctlz``, ``cttz``, ``abs``, ``smin``, ``smax``, ``umin``, ``umax``; ``_PURE_INTRINSICS``):
EarlyCSE takes their calls like any other value; InstSimplify's simplifyIntrinsic folds
them (a min/max of equal operands, of a saturating constant, of a nested min/max
sharing an operand (foldMinMaxSharedOp), or whose order ``isICmpTrue`` decides;
``abs(abs x)``, ``bitreverse(bitreverse x)``, ``ctpop`` of a power of two or of a value
with only its lowest bit possibly set, ``cttz(1 << x)``, ``ctlz(negative >>u x)``,
constants); their known bits follow ValueTracking (KnownBits::umin/umax/smin/smax/abs,
the counts bounded by their operand's known bits) and their constant ranges
setLimitsForIntrinsic. Not modeled: simplifyICmpWithMinMax and simplifyICmpWithZero
(a compare of two min/max of different kinds, or against zero by isKnownNonZero).
"""

from __future__ import annotations

from typing import Any, Final

from patterns.ir.core import VOID, Constant, IntType
from patterns.ir.function import Argument, Function, Instruction
from patterns.support.knownbits import abs_masks as _abs_masks, add_carry_masks as _add_carry_masks, clz as _clz, \
    count_masks as _count_masks, mul_masks as _mul_masks, reverse_masks as _reverse_masks, \
    shift_masks as _shift_masks, smax_masks, smin_masks, umax_masks, umin_masks

# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction
_INT_TYPE: Final = IntType
_VOID_TYPE: Final = VOID

__all__ = ["early_cse", "simplify_function", "apply_early_cse", "licm", "run_ir_passes"]

_BINOPS: Final = frozenset({"add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr"})
_ANDOR: Final = frozenset({"and", "or"})

_ADDSUB: Final = frozenset({"add", "sub"})
_COMMUTATIVE: Final = frozenset({"add", "mul", "and", "or", "xor"})
_CSE_OPS: Final = _BINOPS | {"icmp", "select", "zext", "sext", "trunc", "getelementptr", "freeze", "call",
                             "udiv", "sdiv", "urem", "srem"}
_SWAP: Final = {"eq": "eq", "ne": "ne", "slt": "sgt", "sgt": "slt", "sle": "sge", "sge": "sle",
                "ult": "ugt", "ugt": "ult", "ule": "uge", "uge": "ule"}
_INVERSE: Final = {"eq": "ne", "ne": "eq", "slt": "sge", "sge": "slt", "sgt": "sle", "sle": "sgt",
                   "ult": "uge", "uge": "ult", "ugt": "ule", "ule": "ugt"}
_MAX_DEPTH: Final = 6  # ValueTracking's MaxAnalysisRecursionDepth
_RECURSION_LIMIT: Final = 3  # InstSimplify's RecursionLimit
_ANY_DEPTH: Final = 1 << 30  # the top of a memoized answer's depth range when no depth changes it


def _up(lo1: int, hi1: int, lo2: int, hi2: int) -> tuple[int, int]:
    """The query depths of a value whose operands were asked one level deeper and gave
    their answers for depths lo1..hi1 and lo2..hi2 (below the depth limit)."""
    lo = (lo1 if lo1 > lo2 else lo2) - 1
    hi = (hi1 if hi1 < hi2 else hi2) - 1
    return (lo if lo > 0 else 0), (hi if hi < _MAX_DEPTH else _MAX_DEPTH - 1)


def _bits(v) -> Any:  # (int for an integer type, else None)
    t = v.type
    return t.bits if type(t) is _INT_TYPE else None


def _cval(v) -> int | None:
    """The unsigned value of an integer constant, else None."""
    if type(v) is not _CONSTANT:
        return None
    return v._u  # (Constant.unsigned_value, made with the constant)


def _same(a, b) -> bool:
    """The same value: one object, or integer constants of one width and value."""
    if a is b:
        return True
    if type(a) is _CONSTANT and type(b) is _CONSTANT:
        ca = _cval(a)
        return ca is not None and ca == _cval(b) and _bits(a) == _bits(b)
    return False


def _signed(u: int, bits: int) -> int:
    return u - (1 << bits) if u >> (bits - 1) else u


def _dom_tree(fn: Function, idom: dict) -> tuple[dict, dict, dict]:
    """The dominator tree of ``idom`` as (children lists in LLVM's order, preorder and
    postorder clock of each reachable block): ``a`` dominates ``b`` when
    ``pre[a] <= pre[b] and post[b] <= post[a]``. A block's children are in the order
    the tree construction numbers blocks (``cfg.dom_tree_order``), which EarlyCSE's walk
    follows. Built once per ``run_ir_passes`` and shared by its passes (none of them
    changes the CFG)."""
    from patterns.ir.cfg import dom_tree_order

    kids: dict = {}
    for b in dom_tree_order(fn):
        p = idom.get(b)
        if p is not None and p is not b:
            lst = kids.get(p)
            if lst is None:
                kids[p] = [b]
            else:
                lst.append(b)
    pre: dict = {}
    post: dict = {}
    clock = 0
    work = [(fn.blocks[0], False)]
    while work:
        x, done = work.pop()
        if done:
            post[x] = clock
            clock += 1
            continue
        pre[x] = clock
        clock += 1
        work.append((x, True))
        ks = kids.get(x)
        if ks:
            for k in reversed(ks):
                work.append((k, False))
    return kids, pre, post


class SimplifyQuery:
    """One function's EarlyCSE state: replacements, dominance, analyses."""

    def __init__(self, fn, idom: dict | None, rep: dict, h: dict, dom: tuple | None = None):
        self.fn = fn
        self.idom = idom
        self.rep = rep
        # value -> (answer, lo, hi) or a list of them, per range of query depths (see
        # ``_kb``): facts stay true under replacement
        self.known_cache: dict = {}
        self.sign_cache: dict = {}
        # visited instruction -> its binop tuple (opcode, a, b), False when it is no
        # binary operator, None when to be built again (see _resimplify); an
        # instruction is visited when it has an entry
        self.bo: dict = {}
        self.dom_cond: dict = {}  # block -> its single predecessor's branch condition (see _edge)
        self.pre, self.post, self.kids = {}, {}, {}
        # the simplifier of each binary opcode (``simplify_binop``): opcode ->
        # f(sq, a, b, rec, cxt)
        self.h = h
        if idom is None:
            return  # (the analyses only: no dominance queries)
        self.kids, self.pre, self.post = dom if dom is not None else _dom_tree(fn, idom)

    # --- the IR as replaceAllUsesWith has left it -------------------------------------
    def r(self, v):
        if type(v) is not _INSTRUCTION:
            return v  # (only instructions are replaced)
        rep: dict = self.rep
        while True:
            w = rep.get(v)
            if w is None:
                return v
            v = w

    def ops(self, i) -> list:
        return [self.r(o) for o in i.operands]

    def binop(self, v, opc: str | None = None):
        """(opcode, a, b) of a binary-operator instruction ``v`` (operands resolved).
        Kept once ``v`` is visited: its operands were visited before it (they dominate
        it), so their replacements are final for this run."""
        if type(v) is not _INSTRUCTION:
            return None
        bo = self.bo.get(v)
        if bo is None:
            bo = self._binop(v)
        if bo is False or (opc is not None and bo[0] != opc):
            return None
        return bo

    def _binop(self, v):
        """``binop``'s tuple, or False for any other instruction, when none is kept."""
        if v.opcode not in _BINOPS or v.block is None or len(v.operands) != 2:
            bo = False
        else:
            a, b = v.operands
            bo = (v.opcode, self.r(a), self.r(b))
        if v in self.bo:  # (visited)
            self.bo[v] = bo
        return bo

    def const(self, u: int, like) -> Constant:
        t = like.type
        bits = t.bits
        u &= (1 << bits) - 1
        if bits == 1:
            return Constant(t, "true" if u else "false", "int", 1 if u else 0)
        s = _signed(u, bits)
        return Constant(t, str(s), "int", s)

    def same(self, a, b) -> bool:
        if a is b:
            return True
        if type(a) is _CONSTANT and type(b) is _CONSTANT:
            ca, cb = _cval(a), _cval(b)
            return ca is not None and ca == cb and _bits(a) == _bits(b)
        return False

    def is_not(self, v, x=None):
        """``v`` is ``xor X, -1`` (either operand order): X (``x`` when given and equal)."""
        if type(v) is not _INSTRUCTION:
            return None
        bo = self.bo.get(v)
        if bo is None:
            bo = self._binop(v)
        if bo is False or bo[0] != "xor":
            return None
        _, a, b = bo
        m = (1 << _bits(v)) - 1
        if type(b) is _CONSTANT and _cval(b) == m and (x is None or _same(a, x)):
            return a
        if type(a) is _CONSTANT and _cval(a) == m and (x is None or _same(b, x)):
            return b
        return None

    def is_neg(self, v, x=None):
        bo = self.binop(v, "sub")
        if bo is None or _cval(bo[1]) != 0:
            return None
        return bo[2] if x is None or _same(bo[2], x) else None

    def dominates_block(self, a, b) -> bool:
        pre, post = self.pre, self.post
        if a not in pre or b not in pre:
            return False
        return pre[a] <= pre[b] and post[b] <= post[a]

    def value_dominates_phi(self, v, phi) -> bool:
        if getattr(v, "block", None) is None or not hasattr(v, "opcode"):
            return True  # arguments and constants
        if v.block is phi.block:
            if v.opcode != "phi":
                return False
            insts = phi.block.instructions
            return insts.index(v) < insts.index(phi)
        return self.dominates_block(v.block, phi.block)


# --- ValueTracking ------------------------------------------------------------------
# Known bits are (zero, one) mask pairs here (knownbits.Known's two fields; the
# width is the value's type's). LLVM recomputes computeKnownBits and
# ComputeNumSignBits at every query, and an answer can depend on the query's depth
# (MaxAnalysisRecursionDepth cuts the recursion off). The memo keeps that exact: each
# answer is stored with the range of query depths ``lo..hi`` that give it -- the
# depths at which the recursion below reaches the same leaves and cut-offs (a
# binary operator's range is its operands' ranges moved up one level and
# intersected; a phi's incoming values are always asked at the last level, so its
# answer holds at every depth before that) -- and reused only for a query inside
# that range. Facts stay true under replaceAllUsesWith, so the memo is kept for the
# whole pass.
def known_bits(sq, v, depth: int = 0) -> tuple:
    """computeKnownBits: (known zero, known one) of ``v`` asked at ``depth``."""
    return _kb(sq, v, depth)[0]


def _kb(sq, v, depth: int) -> tuple:
    """(known bits, lo, hi): the answer at ``depth`` and the query depths giving it."""
    c = type(v)
    if c is _INSTRUCTION:
        t = v.type
        if type(t) is not _INT_TYPE:
            return _NOTHING, 0, _ANY_DEPTH
        if depth >= _MAX_DEPTH:
            return _NOTHING, _MAX_DEPTH, _ANY_DEPTH
        memo = sq.known_cache
        ent = memo.get(v)
        if ent is not None:
            if type(ent) is tuple:
                if ent[1] <= depth <= ent[2]:
                    return ent
            else:
                for e in ent:
                    if e[1] <= depth <= e[2]:
                        return e
        e = _known_inst(sq, v, depth, t.bits)
        if e[2] == _MAX_DEPTH - 1 and e[0] == _NOTHING:
            # (nothing known up to the last level: the cut-off below it answers
            # nothing too, so the range goes on past the limit -- exact, and a
            # reader one level up keeps its own range up to the last level)
            e = e[0], e[1], _ANY_DEPTH
        if ent is None:
            memo[v] = e
        elif type(ent) is tuple:
            memo[v] = [ent, e]
        else:
            ent.append(e)
        return e
    if c is _CONSTANT:
        cv = _cval(v)
        if cv is not None:  # (constants are answered before the depth limit)
            return (~cv & ((1 << v.type.bits) - 1), cv), 0, _ANY_DEPTH
    return _NOTHING, 0, _ANY_DEPTH  # arguments, undef, poison: nothing known


def _known_inst(sq, v: Instruction, depth: int, bits: int) -> tuple:
    """computeKnownBits of the integer instruction ``v`` at ``depth`` (below the
    limit) for the modeled opcodes, with the range of depths giving the same answer
    (see ``_kb``)."""
    e: tuple[tuple[int, int], int, int]  # (a memo entry unboxed: read natively)
    za: int
    oa: int
    zb: int
    ob: int
    opc = v.opcode
    if v.block is None:
        return _NOTHING, 0, _MAX_DEPTH - 1
    m = (1 << bits) - 1
    d1 = depth + 1
    kb_ = _kb
    if opc in _BINOPS:
        bo = sq.bo.get(v)
        if bo:
            a, b = bo[1], bo[2]
        else:
            ops = v.operands
            a, b = ops[0], ops[1]
            if sq.rep:
                a, b = sq.r(a), sq.r(b)
        # kb_(a, d1) and kb_(b, d1), with the memo's usual hit written out, and
        # the cut-off too (what kb_ answers first at the limit, for an operand of
        # an integer operator, which has its type)
        memo = sq.known_cache
        Inst = Instruction
        if type(a) is Inst:
            ent = memo.get(a)
            if type(ent) is tuple:
                e = ent
                if not e[1] <= d1 <= e[2]:
                    e = _CUT if d1 >= _MAX_DEPTH else kb_(sq, a, d1)
            else:
                e = _CUT if d1 >= _MAX_DEPTH else kb_(sq, a, d1)
            (za, oa), alo, ahi = e
        else:  # a constant or an argument: the same at every depth
            cv = _cval(a)
            za, oa = _NOTHING if cv is None else (~cv & m, cv)
            alo, ahi = 0, _ANY_DEPTH
        if type(b) is Inst:
            ent = memo.get(b)
            if type(ent) is tuple:
                e = ent
                if not e[1] <= d1 <= e[2]:
                    e = _CUT if d1 >= _MAX_DEPTH else kb_(sq, b, d1)
            else:
                e = _CUT if d1 >= _MAX_DEPTH else kb_(sq, b, d1)
            (zb, ob), blo, bhi = e
        else:
            cv = _cval(b)
            zb, ob = _NOTHING if cv is None else (~cv & m, cv)
            blo, bhi = 0, _ANY_DEPTH
        lo = (alo if alo > blo else blo) - 1
        hi = (ahi if ahi < bhi else bhi) - 1
        if lo < 0:
            lo = 0
        if hi >= _MAX_DEPTH:
            hi = _MAX_DEPTH - 1
        if not (za | oa | zb | ob):
            # (every rule below gives nothing known for two operands without known
            # bits, at every width: the bitwise ones at sight; add_carry_masks' known
            # is masked by (lz|lo)&(rz|ro) = 0; mul_masks: no trailing zeros and no
            # leading zeros (the product of two all-ones maxima overflows, or at one
            # bit is 1); shift_masks by an amount of least value 0: nothing)
            return _NOTHING, lo, hi
        if opc == "and":
            return (za | zb, oa & ob), lo, hi
        if opc == "or":
            return (za & zb, oa | ob), lo, hi
        if opc == "xor":
            return ((za & zb) | (oa & ob), (za & ob) | (oa & zb)), lo, hi
        if opc == "add":
            return _add_carry_masks(za, oa, zb, ob, m, True, False), lo, hi
        if opc == "sub":  # (a + ~b + 1)
            return _add_carry_masks(za, oa, ob, zb, m, False, True), lo, hi
        if opc == "mul":
            return _mul_masks(za, oa, zb, ob, bits, bits), lo, hi
        return _shift_masks(za, oa, opc, zb, ob, bits, bits), lo, hi
    r = sq.r
    if opc == "phi":
        # ComputeKnownBits of a phi: the common bits of its incoming values, each
        # looked at with one level of recursion left (whatever the phi's own depth)
        if depth >= _MAX_DEPTH - 1:
            return _NOTHING, _MAX_DEPTH - 1, _MAX_DEPTH - 1
        res = None
        for inc, _blk in v.incoming:
            inc = r(inc)
            if inc is v:
                continue
            k = kb_(sq, inc, _MAX_DEPTH - 1)[0]
            res = k if res is None else (res[0] & k[0], res[1] & k[1])
            if not (res[0] | res[1]):
                break
        return (_NOTHING if res is None else res), 0, _MAX_DEPTH - 2
    if opc == "select":
        k1, lo1, hi1 = kb_(sq, r(v.operands[1]), d1)
        k2, lo2, hi2 = kb_(sq, r(v.operands[2]), d1)
        return (k1[0] & k2[0], k1[1] & k2[1]), *_up(lo1, hi1, lo2, hi2)
    if opc in ("zext", "sext", "trunc"):
        src = r(v.operands[0])
        sb = _bits(src)
        if sb is None:
            return _NOTHING, 0, _MAX_DEPTH - 1
        (z, o), slo, shi = kb_(sq, src, d1)
        lo, hi = _up(slo, shi, slo, shi)
        if opc == "trunc":
            return (z & m, o & m), lo, hi
        if opc == "zext":
            return (z | (m & ~((1 << sb) - 1)), o), lo, hi
        hi_bits = m & ~((1 << sb) - 1)
        if z >> (sb - 1) & 1:
            z |= hi_bits
        if o >> (sb - 1) & 1:
            o |= hi_bits
        return (z, o), lo, hi
    if opc == "call":
        kind = _intrinsic(v)
        if kind is None or kind == "bswap":
            return _NOTHING, 0, _MAX_DEPTH - 1
        ops = v.operands
        (za, oa), alo, ahi = kb_(sq, r(ops[0]), d1)
        if kind in _MINMAX_PRED:
            (zb, ob), blo, bhi = kb_(sq, r(ops[1]), d1)
            lo, hi = _up(alo, ahi, blo, bhi)
            return _MINMAX_KNOWN[kind](za, oa, zb, ob, bits), lo, hi
        lo, hi = _up(alo, ahi, alo, ahi)
        if kind == "bitreverse":
            return _reverse_masks(za, oa, bits), lo, hi
        flag = len(ops) > 1 and _cval(ops[1]) == 1  # (zero / INT_MIN poison)
        if kind == "abs":
            return _abs_masks(za, oa, bits, flag), lo, hi
        return _count_masks(kind, za, oa, bits, flag), lo, hi
    return _NOTHING, 0, _MAX_DEPTH - 1


def num_sign_bits(sq, v, depth: int = 0) -> int:
    """ComputeNumSignBits of ``v`` asked at ``depth`` (memoized like ``known``)."""
    return _sb(sq, v, depth)[0]


def _sb(sq, v, depth: int) -> tuple:
    """(sign bits, lo, hi), as ``_kb``."""
    if depth >= _MAX_DEPTH:
        return 1, _MAX_DEPTH, _ANY_DEPTH  # (constants too: the limit is tested first)
    if type(v) is _INSTRUCTION:
        t = v.type
        if type(t) is not _INT_TYPE:
            return 1, 0, _ANY_DEPTH
        memo = sq.sign_cache
        ent = memo.get(v)
        if ent is not None:
            if type(ent) is tuple:
                if ent[1] <= depth <= ent[2]:
                    return ent
            else:
                for e in ent:
                    if e[1] <= depth <= e[2]:
                        return e
        e = _sign_bits_inst(sq, v, depth, t.bits)
        if e[2] == _MAX_DEPTH - 1 and e[0] == 1:
            e = 1, e[1], _ANY_DEPTH  # (the cut-off's answer too: see ``_kb``)
        if ent is None:
            memo[v] = e
        elif type(ent) is tuple:
            memo[v] = [ent, e]
        else:
            ent.append(e)
        return e
    c = _cval(v)
    if c is not None:
        bits = v.type.bits
        s = _signed(c, bits)
        return _clz(~s & ((1 << bits) - 1) if s < 0 else s, bits), 0, _MAX_DEPTH - 1
    return 1, 0, _ANY_DEPTH  # (arguments, undef: nothing known)


def _sign_bits_inst(sq, v: Instruction, depth: int, bits: int) -> tuple:
    """ComputeNumSignBitsImpl of the integer instruction ``v`` at ``depth`` (below
    the limit), in LLVM 19's order for the modeled opcodes: most operators answer
    from their operands and return; ``and``/``or``/``xor`` (and any operator whose
    own rule gave up) fall through to the known bits of ``v`` at the same depth,
    keeping the better answer. With the range of depths giving the same answer
    (see ``_kb``): ``L``..``H`` is the intersection of the ranges of the operands
    asked (one level down), so the answer's range is ``L - 1``..``H - 1``. (Each
    operand's question is written out: ``sb_``/``kb_`` at ``d1``, then the range
    narrowed.)"""
    opc = v.opcode
    d1 = depth + 1
    sb_ = _sb
    L, H = 1, _MAX_DEPTH  # narrowed by every operand asked
    m = (1 << bits) - 1
    first = 1
    bo = sq.bo.get(v)
    if bo is None:
        bo = sq._binop(v)
    if bo:
        _, a, b = bo
        if opc == "ashr":
            # ashr x, C adds C sign bits; any other amount: x's (a constant amount
            # of the width or more gives up)
            t, L, H = sb_(sq, a, d1)
            if L < 1:
                L = 1
            if H > _MAX_DEPTH:
                H = _MAX_DEPTH
            cb = _cval(b)
            if cb is None or cb < bits:
                if cb is not None:
                    t = t + cb if t + cb < bits else bits
                return t, L - 1, H - 1
        elif opc == "shl":
            cb = _cval(b)
            if cb is not None and cb < bits:
                t, L, H = sb_(sq, a, d1)
                if L < 1:
                    L = 1
                if H > _MAX_DEPTH:
                    H = _MAX_DEPTH
                if cb < t:  # (else every sign bit is shifted out)
                    return t - cb, L - 1, H - 1
        elif opc == "and" or opc == "or" or opc == "xor":
            t, L, H = sb_(sq, a, d1)
            if L < 1:
                L = 1
            if H > _MAX_DEPTH:
                H = _MAX_DEPTH
            if t != 1:
                t2, xl, xh = sb_(sq, b, d1)
                if xl > L:
                    L = xl
                if xh < H:
                    H = xh
                first = t if t < t2 else t2
        elif opc == "add":
            t, L, H = sb_(sq, a, d1)
            if L < 1:
                L = 1
            if H > _MAX_DEPTH:
                H = _MAX_DEPTH
            if t != 1:
                if _cval(b) == m:  # x + -1
                    (z, _o), xl, xh = _kb(sq, a, d1)
                    if xl > L:
                        L = xl
                    if xh < H:
                        H = xh
                    if (z | 1) == m:  # x is 0 or 1: the result is 0 or -1
                        return bits, L - 1, H - 1
                    if z >> (bits - 1) & 1:  # x >= 0: no carry out
                        return t, L - 1, H - 1
                t2, xl, xh = sb_(sq, b, d1)
                if xl > L:
                    L = xl
                if xh < H:
                    H = xh
                if t2 != 1:
                    return (t if t < t2 else t2) - 1, L - 1, H - 1
        elif opc == "sub":
            t2, L, H = sb_(sq, b, d1)
            if L < 1:
                L = 1
            if H > _MAX_DEPTH:
                H = _MAX_DEPTH
            if t2 != 1:
                if _cval(a) == 0:  # the negation of b
                    (z, _o), xl, xh = _kb(sq, b, d1)
                    if xl > L:
                        L = xl
                    if xh < H:
                        H = xh
                    if (z | 1) == m:
                        return bits, L - 1, H - 1
                    if z >> (bits - 1) & 1:
                        return t2, L - 1, H - 1
                t, xl, xh = sb_(sq, a, d1)
                if xl > L:
                    L = xl
                if xh < H:
                    H = xh
                if t != 1:
                    return (t if t < t2 else t2) - 1, L - 1, H - 1
        elif opc == "mul":
            s0, L, H = sb_(sq, a, d1)
            if L < 1:
                L = 1
            if H > _MAX_DEPTH:
                H = _MAX_DEPTH
            if s0 != 1:
                s1, xl, xh = sb_(sq, b, d1)
                if xl > L:
                    L = xl
                if xh < H:
                    H = xh
                if s1 != 1:
                    valid = (bits - s0 + 1) + (bits - s1 + 1)
                    return (1 if valid > bits else bits - valid + 1), L - 1, H - 1
    elif opc == "sext" or opc == "trunc":
        src = sq.r(v.operands[0])
        sb = _bits(src)
        if sb is not None:
            t, L, H = sb_(sq, src, d1)
            if L < 1:
                L = 1
            if H > _MAX_DEPTH:
                H = _MAX_DEPTH
            if opc == "sext":
                return t + (bits - sb), L - 1, H - 1
            return (t - (sb - bits) if t > sb - bits else 1), L - 1, H - 1
    elif opc == "select":
        r = sq.r
        t, L, H = sb_(sq, r(v.operands[1]), d1)
        if L < 1:
            L = 1
        if H > _MAX_DEPTH:
            H = _MAX_DEPTH
        if t != 1:
            t2, xl, xh = sb_(sq, r(v.operands[2]), d1)
            if xl > L:
                L = xl
            if xh < H:
                H = xh
            return (t if t < t2 else t2), L - 1, H - 1
    elif opc == "phi":
        inc = v.incoming
        if 0 < len(inc) <= 4:  # (larger in-degrees are not analyzed)
            r = sq.r
            t = bits
            for x, _b in inc:
                if t == 1:
                    break
                n, xl, xh = sb_(sq, r(x), d1)
                if xl > L:
                    L = xl
                if xh < H:
                    H = xh
                if n < t:
                    t = n
            return t, L - 1, H - 1
    # the known bits of ``v`` at the same depth: its leading copies of a known sign
    lo, hi = L - 1, H - 1
    (z, o), klo, khi = _kb(sq, v, depth)
    if klo > lo:
        lo = klo
    if khi < hi:
        hi = khi
    if z >> (bits - 1) & 1:
        mask = z
    elif o >> (bits - 1) & 1:
        mask = o
    else:
        return first, lo, hi
    n = _clz(~mask & m, bits)
    return (n if n > first else first), lo, hi


def is_power_of_two(sq, v, or_zero: bool, depth: int = 0) -> bool:
    """isKnownToBeAPowerOfTwo for the shapes the modeled ops build."""
    c = _cval(v)
    if c is not None:
        return (c != 0 or or_zero) and c & (c - 1) == 0
    bo = sq.binop(v)
    if bo is None:
        kind = _intrinsic(v)
        if kind is None or depth >= _MAX_DEPTH:
            return False
        ops = sq.ops(v)
        if kind in _MINMAX_PRED:
            return is_power_of_two(sq, ops[1], or_zero, depth + 1) and is_power_of_two(sq, ops[0], or_zero, depth + 1)
        if kind == "bitreverse" or kind == "bswap":
            return is_power_of_two(sq, ops[0], or_zero, depth + 1)
        return False
    opc, a, b = bo
    # 1 << x and signmask >>u x: a power of two unless shifted out (then poison),
    # answered before the depth limit
    if opc == "shl" and _cval(a) == 1:
        return True
    if opc == "lshr" and _cval(a) == 1 << (_bits(v) - 1):
        return True
    if depth >= _MAX_DEPTH:
        return False
    if opc == "and" and or_zero:
        if sq.is_neg(b, a) is not None or sq.is_neg(a, b) is not None:
            return True
        return is_power_of_two(sq, a, True, depth + 1) or is_power_of_two(sq, b, True, depth + 1)
    return False


# --- InstSimplify -------------------------------------------------------------------
# The simplifiers below keep InstructionSimplify.cpp's order of rules. What they
# add is cheap tests that skip a group of
# rules only when none of them could apply: a rule about a constant operand when
# neither operand is constant, a rule about an operand's opcode when neither operand
# is such an instruction. ``A``/``B`` are the ``binop`` tuples of the two operands
# (False for anything else), read from ``bo`` directly.
def simplify_instruction(sq, i, ops=None):
    """simplifyInstruction for the modeled instructions: a replacement value or None.
    ``ops``: the instruction's operands, resolved (``ops(i)``) when the caller has them."""
    opc = i.opcode
    if ops is None:
        ops = sq.ops(i)
    if opc in _BINOPS:
        if _bits(i) is None:
            return None
        a, b = ops
        v = sq.h[opc](sq, a, b, _RECURSION_LIMIT, i)
        return None if v is i else v
    if opc == "phi":
        return simplify_phi(sq, i)
    if opc == "icmp":
        a, b = ops
        if _bits(a) is None:
            return None
        return simplify_icmp(sq, i.predicate, a, b, _RECURSION_LIMIT, i)
    if opc == "select":
        c, t, f = ops
        cv = _cval(c)
        if cv is not None:
            return t if cv else f
        if sq.same(t, f):
            return t
        return None
    if opc == "call":
        kind = _intrinsic(i)
        if kind is not None and type(i.type) is _INT_TYPE:
            return simplify_intrinsic(sq, kind, i, ops)
    return None


def call_of(sq, v, kind: str):
    """The resolved operands of ``v`` when it is a call of the intrinsic ``kind``."""
    if type(v) is not _INSTRUCTION or v.opcode != "call" or _intrinsic(v) != kind:
        return None
    return sq.ops(v)


def simplify_intrinsic(sq, kind: str, i, ops):
    """simplifyIntrinsic for the pure integer intrinsics (``_PURE_INTRINSICS``):
    simplifyUnaryIntrinsic / simplifyBinaryIntrinsic, then constant folding."""
    bits = i.type.bits
    m = (1 << bits) - 1
    if len(ops) == 1:
        x = ops[0]
        if kind == "bitreverse" or kind == "bswap":
            inner = call_of(sq, x, kind)
            if inner is not None:  # bitreverse (bitreverse x) -> x
                return inner[0]
        elif kind == "ctpop":
            if is_power_of_two(sq, x, False):
                return sq.const(1, i)
            if not (~known_bits(sq, x)[0] & m & ~1):  # only the lowest bit may be set
                return x
        cx = _cval(x)
        if cx is None:
            return None
        if kind == "ctpop":
            return sq.const(bin(cx).count("1"), i)
        if kind == "bitreverse":
            return sq.const(int(format(cx, f"0{bits}b")[::-1], 2), i)
        if kind == "bswap" and bits % 16 == 0:
            return sq.const(int.from_bytes(cx.to_bytes(bits // 8, "little"), "big"), i)
        return None
    if len(ops) != 2:
        return None
    a, b = ops
    if kind in _MINMAX_PRED:
        return _simplify_minmax(sq, kind, i, a, b, bits)
    ca, cb = _cval(a), _cval(b)
    if kind == "abs":
        if call_of(sq, a, "abs") is not None:  # abs (abs x) -> abs x
            return a
        if ca is not None and cb is not None:
            s = _signed(ca, bits)
            if s == -(1 << (bits - 1)) and cb:
                return None  # (poison: not modeled)
            return sq.const(abs(s), i)
        return None
    if kind == "cttz":
        bo = sq.binop(a, "shl")
        if bo is not None and _cval(bo[1]) == 1:  # cttz (1 << x) -> x
            return bo[2]
    elif kind == "ctlz":
        bo = sq.binop(a)
        if bo is not None and bo[0] in ("lshr", "ashr"):
            c0 = _cval(bo[1])
            if c0 is not None and c0 >> (bits - 1) & 1:
                # ctlz (neg >>u x) -> x; ctlz (neg >>s x) -> 0
                return bo[2] if bo[0] == "lshr" else sq.const(0, i)
    if ca is not None and cb is not None and kind in ("ctlz", "cttz"):
        if ca == 0:
            return None if cb else sq.const(bits, i)  # (zero is poison when the flag is set)
        if kind == "ctlz":
            return sq.const(bits - ca.bit_length(), i)
        return sq.const((ca & -ca).bit_length() - 1, i)
    return None


def _simplify_minmax(sq, kind: str, i, a, b, bits: int):
    """simplifyBinaryIntrinsic for smin/smax/umin/umax."""
    if a is b or sq.same(a, b):
        return a
    if type(a) is _CONSTANT and type(b) is not _CONSTANT:
        a, b = b, a
    cb = _cval(b)
    if cb is not None:
        if cb == _saturation(kind, bits):  # umax(x, -1) -> -1 ...
            return sq.const(cb, i)
        if cb == _saturation(_MINMAX_INVERSE[kind], bits):  # umin(x, -1) -> x ...
            return a
        inner = call_of(sq, a, kind)
        if inner is not None:
            # max (max x, C1), C2 -> max x, C1 when C1 >= C2
            for ic in (_cval(inner[0]), _cval(inner[1])):
                if ic is not None:
                    if _compare(_MINMAX_PRED[kind], ic, cb, bits):
                        return a
                    break
    v = _minmax_shared_op(sq, kind, a, b)
    if v is None:
        v = _minmax_shared_op(sq, kind, b, a)
    if v is not None:
        return v
    pred = _MINMAX_PRED[kind]
    # (isICmpTrue with the call as the context: a dominating branch condition
    # can decide the order, isImpliedByDomCondition at the end of simplifyICmpInst)
    if simplify_icmp(sq, pred, a, b, _RECURSION_LIMIT, i, True) is True:
        return a
    if simplify_icmp(sq, pred, b, a, _RECURSION_LIMIT, i, True) is True:
        return b
    return None


def _minmax_shared_op(sq, kind: str, x, y):
    """foldMinMaxSharedOp: ``x`` a min/max of (p, q) and ``y`` p, q or a min/max of
    p and q: m(m(p, q), p) -> m(p, q); m(inverse-m(p, q), p) -> p."""
    if type(x) is not _INSTRUCTION or x.opcode != "call":
        return None
    kx = _intrinsic(x)
    if kx not in _MINMAX_PRED:
        return None
    p, q = sq.ops(x)
    same = sq.same
    hit = same(y, p) or same(y, q)
    if not hit and type(y) is _INSTRUCTION and y.opcode == "call" and _intrinsic(y) in _MINMAX_PRED:
        yp, yq = sq.ops(y)
        hit = (same(yp, p) and same(yq, q)) or (same(yp, q) and same(yq, p))
    if not hit:
        return None
    if kx == kind:
        return x
    if kx == _MINMAX_INVERSE[kind]:
        return y
    return None


def simplify_phi(sq, p):
    common = None
    rep = sq.rep
    for v, _b in p.incoming:
        if type(v) is _INSTRUCTION and v in rep:
            v = sq.r(v)
        if v is p:
            continue
        if type(v) is _CONSTANT and v.kind in ("undef", "poison"):
            return None  # (only the plain all-equal case is modeled)
        if common is not None and not (v is common or _same(v, common)):
            return None
        common = v
    if common is None:
        return None
    return common


def simplify_binop(sq, opc, a, b, rec, cxt):
    return sq.h[opc](sq, a, b, rec, cxt)


def fold_constants(sq, opc, a, b):
    """foldOrCommuteConstant: (folded constant, a, b) with a constant moved right."""
    if type(a) is not _CONSTANT and type(b) is not _CONSTANT:
        return None, a, b
    ca, cb = _cval(a), _cval(b)
    if ca is not None and cb is not None:
        bits = _bits(a)
        m = (1 << bits) - 1
        if opc == "add":
            r = ca + cb
        elif opc == "sub":
            r = ca - cb
        elif opc == "mul":
            r = ca * cb
        elif opc == "and":
            r = ca & cb
        elif opc == "or":
            r = ca | cb
        elif opc == "xor":
            r = ca ^ cb
        elif cb >= bits:
            return None, a, b  # poison: not modeled, left alone
        elif opc == "shl":
            r = ca << cb
        elif opc == "lshr":
            r = ca >> cb
        else:
            r = _signed(ca, bits) >> cb
        return sq.const(r & m, a), a, b
    if ca is not None and opc in _COMMUTATIVE:
        a, b = b, a
    return None, a, b


def simplify_associative(sq, opc, lhs, rhs, rec, cxt, L, R):
    """simplifyAssociativeBinOp; ``L``, ``R``: the operands' binop tuples (or False)."""
    if rec <= 0:
        return None
    rec -= 1
    f = sq.h[opc]
    op0 = L if L and L[0] == opc else None
    op1 = R if R and R[0] == opc else None
    if op0 is not None:  # (A op B) op C -> A op (B op C)
        _, A, B = op0
        v = f(sq, B, rhs, rec, cxt)
        if v is not None:
            if v is B or _same(v, B):
                return lhs
            w = f(sq, A, v, rec, cxt)
            if w is not None:
                return w
    if op1 is not None:  # A op (B op C) -> (A op B) op C
        _, B, C = op1
        v = f(sq, lhs, B, rec, cxt)
        if v is not None:
            if v is B or _same(v, B):
                return rhs
            w = f(sq, v, C, rec, cxt)
            if w is not None:
                return w
    if opc not in _COMMUTATIVE:
        return None
    if op0 is not None:  # (A op B) op C -> (C op A) op B
        _, A, B = op0
        v = f(sq, rhs, A, rec, cxt)
        if v is not None:
            if v is A or _same(v, A):
                return lhs
            w = f(sq, v, B, rec, cxt)
            if w is not None:
                return w
    if op1 is not None:  # A op (B op C) -> B op (C op A)
        _, B, C = op1
        v = f(sq, C, lhs, rec, cxt)
        if v is not None:
            if v is C or _same(v, C):
                return rhs
            w = f(sq, B, v, rec, cxt)
            if w is not None:
                return w
    return None


def expand_commutative(sq, opc, lhs, rhs, over, rec, cxt, L, R):
    """expandCommutativeBinOp: distribute ``opc`` over ``over`` when it simplifies;
    ``L``, ``R``: the operands' binop tuples (or False)."""
    if rec <= 0:
        return None
    rec -= 1
    f = sq.h[opc]
    for v, other, bo in ((lhs, rhs, L), (rhs, lhs, R)):
        if not bo or bo[0] != over:
            continue
        _, b0, b1 = bo
        l_ = f(sq, b0, other, rec, cxt)
        if l_ is None:
            continue
        r_ = f(sq, b1, other, rec, cxt)
        if r_ is None:
            continue
        if (_same(l_, b0) and _same(r_, b1)) or (over in _COMMUTATIVE and _same(l_, b1) and _same(r_, b0)):
            return v
        s = sq.h[over](sq, l_, r_, rec, cxt)
        if s is not None:
            return s
    return None


def thread_over_phi(sq, opc, lhs, rhs, rec, cxt):
    """threadBinOpOverPHI: the same simplified value on every incoming edge."""
    if rec <= 0:
        return None
    rec -= 1
    if type(lhs) is _INSTRUCTION and lhs.opcode == "phi":
        pi, other, left = lhs, rhs, True
    else:
        pi, other, left = rhs, lhs, False
    if not sq.value_dominates_phi(other, pi):
        return None
    f = sq.h[opc]
    common = None
    for inc, _blk in pi.incoming:
        inc = sq.r(inc)
        if inc is pi:
            continue
        v = f(sq, inc, other, rec, None) if left else f(sq, other, inc, rec, None)
        if v is None or (common is not None and not _same(v, common)):
            return None
        common = v
    return common


def simplify_by_dom_eq(sq, opc, a, b, rec, cxt):
    """simplifyByDomEq (top level only)."""
    if rec != _RECURSION_LIMIT or cxt is None:
        return None
    blk = cxt.block
    e = sq.dom_cond.get(blk, _NO_EDGE)
    if e is _NO_EDGE:
        e = dom_edge(sq, blk)
    if e is None:
        return None
    e1, e2 = e[1], e[2]
    if not (e1 is a or e1 is b or e2 is a or e2 is b or _same(e1, a) or _same(e1, b) or _same(e2, a)
            or _same(e2, b)):
        return None
    if implied_by_dom_condition(sq, "eq", a, b, cxt) is True:
        if opc in ("sub", "xor"):
            return sq.const(0, a)
        if opc in ("and", "or"):
            return b
    return None


def simplify_add(sq, a, b, rec, cxt):
    if type(a) is _CONSTANT:
        if type(b) is _CONSTANT:
            c, a, b = fold_constants(sq, "add", a, b)
            if c is not None:
                return c
            if _cval(b) == 0:
                return a
        else:
            ca = _cval(a)
            if ca is not None:  # (foldOrCommuteConstant moves the constant right)
                if ca == 0:
                    return b
                a, b = b, a
    elif type(b) is _CONSTANT and _cval(b) == 0:
        return a
    bo = sq.bo
    if type(a) is _INSTRUCTION:
        A = bo.get(a)
        if A is None:
            A = sq._binop(a)
    else:
        A = False
    if type(b) is _INSTRUCTION:
        B = bo.get(b)
        if B is None:
            B = sq._binop(b)
    else:
        B = False
    oa, ob = A and A[0], B and B[0]
    if not (oa or ob):
        if _bits(a) == 1 and rec:
            return simplify_xor(sq, a, b, rec - 1, cxt)
        return None
    sa = A if oa == "sub" else None
    sb = B if ob == "sub" else None
    # isKnownNegation: x + (0 - x), (a - b) + (b - a)
    if (sa is not None and _cval(sa[1]) == 0 and _same(sa[2], b)) \
            or (sb is not None and _cval(sb[1]) == 0 and _same(sb[2], a)):
        return sq.const(0, a)
    if sa is not None and sb is not None and _same(sa[1], sb[2]) and _same(sa[2], sb[1]):
        return sq.const(0, a)
    # X + (Y - X) -> Y ; (Y - X) + X -> Y
    if sb is not None and _same(sb[2], a):
        return sb[1]
    if sa is not None and _same(sa[2], b):
        return sa[1]
    if (oa == "xor" and _not_pair(A, b, a)) or (ob == "xor" and _not_pair(B, a, b)):
        return sq.const(-1, a)
    if rec and _bits(a) == 1:
        v = simplify_xor(sq, a, b, rec - 1, cxt)
        if v is not None:
            return v
    if oa == "add" or ob == "add":
        return simplify_associative(sq, "add", a, b, rec, cxt, A, B)
    return None


def simplify_sub(sq, a, b, rec, cxt):
    if type(a) is _CONSTANT or type(b) is _CONSTANT:
        if type(a) is _CONSTANT and type(b) is _CONSTANT:
            c, a, b = fold_constants(sq, "sub", a, b)  # (sub does not commute: only a fold)
            if c is not None:
                return c
        if _cval(b) == 0:
            return a
        if sq.same(a, b):
            return sq.const(0, a)
        if _cval(a) == 0:
            bits = _bits(a)
            if known_bits(sq, b)[0] == ((1 << (bits - 1)) - 1):  # 0 or the minimum signed value
                return b
    elif a is b:
        return sq.const(0, a)
    if rec:
        A, B = sq.binop(a), sq.binop(b)
        ad = A if A is not None and A[0] == "add" else None
        if ad is not None:  # (X + Y) - Z -> X + (Y - Z) or Y + (X - Z)
            _, X, Y = ad
            for p, q in ((X, Y), (Y, X)):
                v = simplify_sub(sq, q, b, rec - 1, cxt)
                if v is not None:
                    w = simplify_add(sq, p, v, rec - 1, cxt)
                    if w is not None:
                        return w
        ad = B if B is not None and B[0] == "add" else None
        if ad is not None:  # X - (Y + Z) -> (X - Y) - Z or (X - Z) - Y
            _, Y, Z = ad
            for p, q in ((Y, Z), (Z, Y)):
                v = simplify_sub(sq, a, p, rec - 1, cxt)
                if v is not None:
                    w = simplify_sub(sq, v, q, rec - 1, cxt)
                    if w is not None:
                        return w
        sb = B if B is not None and B[0] == "sub" else None
        if sb is not None:  # Z - (X - Y) -> (Z - X) + Y
            _, X, Y = sb
            v = simplify_sub(sq, a, X, rec - 1, cxt)
            if v is not None:
                w = simplify_add(sq, v, Y, rec - 1, cxt)
                if w is not None:
                    return w
        if _bits(a) == 1:
            v = simplify_xor(sq, a, b, rec - 1, cxt)
            if v is not None:
                return v
    if rec != _RECURSION_LIMIT or cxt is None or sq.dom_cond.get(cxt.block, 0) is None:
        return None
    return simplify_by_dom_eq(sq, "sub", a, b, rec, cxt)


def simplify_mul(sq, a, b, rec, cxt):
    if type(a) is _CONSTANT or type(b) is _CONSTANT:
        if type(a) is _CONSTANT:
            if type(b) is _CONSTANT:
                c, a, b = fold_constants(sq, "mul", a, b)
                if c is not None:
                    return c
            elif _cval(a) is not None:  # (foldOrCommuteConstant moves the constant right)
                a, b = b, a
        cb = _cval(b)
        if cb == 0:
            return sq.const(0, a)
        if cb == 1:
            return a
    if rec and _bits(a) == 1:
        v = simplify_and(sq, a, b, rec - 1, cxt)
        if v is not None:
            return v
    bo = sq.bo
    if type(a) is _INSTRUCTION:
        A = bo.get(a)
        if A is None:
            A = sq._binop(a)
    else:
        A = False
    if type(b) is _INSTRUCTION:
        B = bo.get(b)
        if B is None:
            B = sq._binop(b)
    else:
        B = False
    oa, ob = A and A[0], B and B[0]
    if oa == "mul" or ob == "mul":
        v = simplify_associative(sq, "mul", a, b, rec, cxt, A, B)
        if v is not None:
            return v
    if oa == "add" or ob == "add":
        v = expand_commutative(sq, "mul", a, b, "add", rec, cxt, A, B)
        if v is not None:
            return v
    if (type(a) is _INSTRUCTION and a.opcode == "phi") or (type(b) is _INSTRUCTION and b.opcode == "phi"):
        return thread_over_phi(sq, "mul", a, b, rec, cxt)
    return None


def _simplify_shift(sq, opc, a, b, rec, cxt):
    """simplifyShift (the part shl, lshr and ashr share)."""
    if type(a) is _CONSTANT or type(b) is _CONSTANT:
        if type(a) is _CONSTANT and type(b) is _CONSTANT:
            c, a, b = fold_constants(sq, opc, a, b)  # (shifts do not commute: only a fold)
            if c is not None:
                return c
        if _cval(a) == 0:
            return sq.const(0, a)
        cb = _cval(b)
        if cb == 0:
            return a
        bits = _bits(a)
        if cb is not None and cb >= bits:
            return None  # poison: not modeled, left alone
    else:
        cb = None
        bits = _bits(a)
    if (type(a) is _INSTRUCTION and a.opcode == "phi") or (type(b) is _INSTRUCTION and b.opcode == "phi"):
        v = thread_over_phi(sq, opc, a, b, rec, cxt)
        if v is not None:
            return v
    if cb is not None:
        # (a constant amount below the width, not 0: never poison, and its trailing
        # zeros stop below log2(width), so the known-bits rules below say nothing)
        return None
    zb, ob = known_bits(sq, b)
    if ob >= bits:  # (the least possible amount)
        return None  # poison
    nz = ~zb & ((1 << bits) - 1)  # (the amount's possible ones: trailing zeros known)
    if (bits if nz == 0 else (nz & -nz).bit_length() - 1) >= (bits - 1).bit_length():
        return a
    return None


def simplify_shl(sq, a, b, rec, cxt):
    v = _simplify_shift(sq, "shl", a, b, rec, cxt)
    if v is not None:
        return v
    return None


def simplify_lshr(sq, a, b, rec, cxt):
    v = _simplify_shift(sq, "lshr", a, b, rec, cxt)
    if v is not None:
        return v
    if a is b or sq.same(a, b):
        return sq.const(0, a)
    return None


def simplify_ashr(sq, a, b, rec, cxt):
    v = _simplify_shift(sq, "ashr", a, b, rec, cxt)
    if v is not None:
        return v
    if a is b or sq.same(a, b):
        return sq.const(0, a)
    bits = _bits(a)
    m = (1 << bits) - 1
    if _cval(a) == m:
        return a
    sh = sq.binop(a, "shl")
    if sh is not None and _cval(sh[1]) == m and _same(sh[2], b):
        return sq.const(m, a)
    if num_sign_bits(sq, a) == bits:
        return a
    return None


def _logic_of_add_sub(sq, opc, a, b):
    """simplifyLogicOfAddSub: (X + C) op (~C - X)."""
    for p, q in ((a, b), (b, a)):
        ad, sb = sq.binop(p, "add"), sq.binop(q, "sub")
        if ad is None or sb is None:
            continue
        c1, c2 = _cval(ad[2]), _cval(sb[1])
        if c1 is None or c2 is None or not _same(ad[1], sb[2]):
            continue
        m = (1 << _bits(a)) - 1
        if ~c1 & m == c2:
            return sq.const(0 if opc == "and" else m, a)
    return None


def _and_commutative(sq, a, b, A):
    """The commuted part of simplifyAndInst for (a, b); ``A``: a's binop tuple."""
    oa = A and A[0]
    if oa == "xor" and _not_pair(A, b, a):  # ~A & A
        return sq.const(0, a)
    if oa == "or":
        if _same(A[1], b) or _same(A[2], b):  # (A | ?) & A
            return b
        # (X | ~Y) & (X | Y) -> X
        o2 = sq.binop(b, "or")
        if o2 is not None:
            for X, nY in ((A[1], A[2]), (A[2], A[1])):
                Y = sq.is_not(nY)
                if Y is None:
                    continue
                if (_same(o2[1], X) and _same(o2[2], Y)) or (_same(o2[2], X) and _same(o2[1], Y)):
                    return X
    if oa == "sub" and _cval(A[1]) == 0 and _same(A[2], b) and is_power_of_two(sq, b, True):  # -A & A
        return b
    if oa == "add":
        m = (1 << _bits(a)) - 1
        if _same(A[1], b) and _cval(A[2]) == m and is_power_of_two(sq, b, True):
            return sq.const(0, a)
    return None


def simplify_and(sq, a, b, rec, cxt):
    if type(a) is _CONSTANT or type(b) is _CONSTANT:
        if type(a) is _CONSTANT:
            if type(b) is _CONSTANT:
                c, a, b = fold_constants(sq, "and", a, b)
                if c is not None:
                    return c
                if sq.same(a, b):
                    return a
            elif _cval(a) is not None:  # (foldOrCommuteConstant moves the constant right)
                a, b = b, a
        bits = _bits(a)
        m = (1 << bits) - 1
        cb = _cval(b)
        if cb == 0:
            return sq.const(0, a)
        if cb == m:
            return a
    elif a is b:
        return a
    else:
        cb = None
    bo = sq.bo
    if type(a) is _INSTRUCTION:
        A = bo.get(a)
        if A is None:
            A = sq._binop(a)
    else:
        A = False
    if type(b) is _INSTRUCTION:
        B = bo.get(b)
        if B is None:
            B = sq._binop(b)
    else:
        B = False
    oa, ob = A and A[0], B and B[0]
    if not (oa or ob):
        if (type(a) is _INSTRUCTION and a.opcode == "phi") or (type(b) is _INSTRUCTION and b.opcode == "phi"):
            v = thread_over_phi(sq, "and", a, b, rec, cxt)
            if v is not None:
                return v
        if rec != _RECURSION_LIMIT or cxt is None or sq.dom_cond.get(cxt.block, 0) is None:
            return None
        return simplify_by_dom_eq(sq, "and", a, b, rec, cxt)
    # (its rules need an xor, or, sub or add operand)
    v = None
    if oa in _AND_COMMUTED:
        v = _and_commutative(sq, a, b, A)
    if v is None and ob in _AND_COMMUTED:
        v = _and_commutative(sq, b, a, B)
    if v is not None:
        return v
    if oa in _ADDSUB and ob in _ADDSUB and oa != ob:
        v = _logic_of_add_sub(sq, "and", a, b)
        if v is not None:
            return v
    if cb is not None:
        if oa == "shl" or oa == "lshr":
            s = _cval(A[2])
            if s is not None and s < bits:
                inv = ~cb & m
                if (oa == "shl" and (inv >> s) == 0) or (oa == "lshr" and ((inv << s) & m) == 0):
                    return a
        # and (2^x - 1), 2^C -> 0 when x <= C
        if cb & (cb - 1) == 0 and oa == "add" and _cval(A[2]) == m and is_power_of_two(sq, A[1], False):
            if cb.bit_length() >= (~known_bits(sq, A[1])[0] & m).bit_length():  # (the maximum)
                return sq.const(0, a)
    if oa == "and" or ob == "and":
        v = simplify_associative(sq, "and", a, b, rec, cxt, A, B)
        if v is not None:
            return v
    if oa == "or" or ob == "or":
        v = expand_commutative(sq, "and", a, b, "or", rec, cxt, A, B)
        if v is not None:
            return v
    if oa == "xor" or ob == "xor":
        v = expand_commutative(sq, "and", a, b, "xor", rec, cxt, A, B)
        if v is not None:
            return v
    if (type(a) is _INSTRUCTION and a.opcode == "phi") or (type(b) is _INSTRUCTION and b.opcode == "phi"):
        v = thread_over_phi(sq, "and", a, b, rec, cxt)
        if v is not None:
            return v
    # ((X | Y) ^ X) & ((X | Y) ^ Y) -> 0
    if oa == "xor" and ob == "xor":
        xa, xb = A, B
        for X, O in ((xa[1], xa[2]), (xa[2], xa[1])):
            o = sq.binop(O, "or")
            if o is None:
                continue
            for p, Y in ((o[1], o[2]), (o[2], o[1])):
                if _same(p, X) and ((xb[1] is O and _same(xb[2], Y)) or (xb[2] is O and _same(xb[1], Y))):
                    return sq.const(0, a)
        # (A ^ C) & (A ^ ~C) -> 0
        c1, c2 = _cval(xa[2]), _cval(xb[2])
        if c1 is not None and c2 is not None and _same(xa[1], xb[1]) and c2 == ~c1 & ((1 << _bits(a)) - 1):
            return sq.const(0, a)
    if rec != _RECURSION_LIMIT or cxt is None or sq.dom_cond.get(cxt.block, 0) is None:
        return None
    return simplify_by_dom_eq(sq, "and", a, b, rec, cxt)


def _or_logic(sq, x, y, X, Y):
    """simplifyOrLogic(X, Y); ``X``, ``Y``: their binop tuples (or False)."""
    ox, oy = X and X[0], Y and Y[0]
    if ox != "xor" and oy != "xor" and oy != "and":
        return None  # (every rule below needs one of these shapes)
    m = (1 << _bits(x)) - 1
    same = _same
    ny = _not_of(Y, m) if oy == "xor" else None
    NY = sq.binop(ny) if ny is not None else None
    if ny is not None:
        if same(ny, x):  # X | ~X
            return sq.const(m, x)
        if NY is not None and NY[0] == "and" and (same(NY[1], x) or same(NY[2], x)):  # X | ~(X & ?)
            return sq.const(m, x)
    if oy == "and" and (same(Y[1], x) or same(Y[2], x)):  # X | (X & ?)
        return x
    if ox == "xor" and oy == "or" and _pair(sq, Y, X[1], X[2]):  # (A ^ B) | (A | B)
        return y
    nx = _not_of(X, m) if ox == "xor" else None
    NX = sq.binop(nx) if nx is not None else None
    nox = NX and NX[0]
    if nox == "xor" and oy == "or" and _pair(sq, Y, NX[1], NX[2]):  # ~(A ^ B) | (A | B)
        return sq.const(m, x)
    if ox == "and" and oy == "xor":  # (A & ~B) | (A ^ B) -> A ^ B
        for A, nB in ((X[1], X[2]), (X[2], X[1])):
            B = sq.is_not(nB)
            if B is not None and _pair(sq, Y, A, B):
                return y
    if ox == "xor" and oy == "and":  # (~A ^ B) | (A & B) -> ~A ^ B
        for nA, B in ((X[1], X[2]), (X[2], X[1])):
            A = sq.is_not(nA)
            if A is not None and _pair(sq, Y, A, B):
                return x
    if ox == "or" and oy == "xor":  # (~A | B) | (A ^ B) -> -1
        for nA, B in ((X[1], X[2]), (X[2], X[1])):
            A = sq.is_not(nA)
            if A is not None and _pair(sq, Y, A, B):
                return sq.const(m, x)
    if ox == "and" and NY is not None and NY[0] == "or":  # (~A & B) | ~(A | B) -> ~A
        for nA, B in ((X[1], X[2]), (X[2], X[1])):
            A = sq.is_not(nA)
            if A is not None and _pair(sq, NY, A, B):
                return nA
    if nox == "xor" and oy == "and" and _pair(sq, Y, NX[1], NX[2]):  # ~(A ^ B) | (A & B)
        return x
    if nox == "and" and oy == "xor" and _pair(sq, Y, NX[1], NX[2]):  # ~(A & B) | (A ^ B)
        return x
    return None


def _pair(sq, bo, p, q) -> bool:
    """``bo``'s operands are p and q in either order."""
    return (_same(bo[1], p) and _same(bo[2], q)) or (_same(bo[1], q) and _same(bo[2], p))


def simplify_or(sq, a, b, rec, cxt):
    if type(a) is _CONSTANT or type(b) is _CONSTANT:
        if type(a) is _CONSTANT:
            if type(b) is _CONSTANT:
                c, a, b = fold_constants(sq, "or", a, b)
                if c is not None:
                    return c
            elif _cval(a) is not None:  # (foldOrCommuteConstant moves the constant right)
                a, b = b, a
        bits = _bits(a)
        m = (1 << bits) - 1
        cb = _cval(b)
        if cb == m:
            return sq.const(m, a)
        if cb == 0 or (type(a) is _CONSTANT and sq.same(a, b)):
            return a
    elif a is b:
        return a
    bo = sq.bo
    if type(a) is _INSTRUCTION:
        A = bo.get(a)
        if A is None:
            A = sq._binop(a)
    else:
        A = False
    if type(b) is _INSTRUCTION:
        B = bo.get(b)
        if B is None:
            B = sq._binop(b)
    else:
        B = False
    oa, ob = A and A[0], B and B[0]
    if not (oa or ob):
        if (type(a) is _INSTRUCTION and a.opcode == "phi") or (type(b) is _INSTRUCTION and b.opcode == "phi"):
            v = thread_over_phi(sq, "or", a, b, rec, cxt)
            if v is not None:
                return v
        if rec != _RECURSION_LIMIT or cxt is None or sq.dom_cond.get(cxt.block, 0) is None:
            return None
        return simplify_by_dom_eq(sq, "or", a, b, rec, cxt)
    # (simplifyOrLogic needs an xor on the left or an xor/and on the right)
    v = None
    if oa == "xor" or ob == "xor" or ob == "and":
        v = _or_logic(sq, a, b, A, B)
    if v is None and (ob == "xor" or oa == "xor" or oa == "and"):
        v = _or_logic(sq, b, a, B, A)
    if v is not None:
        return v
    if oa in _ADDSUB and ob in _ADDSUB and oa != ob:
        v = _logic_of_add_sub(sq, "or", a, b)
        if v is not None:
            return v
    if oa == "or" or ob == "or":
        v = simplify_associative(sq, "or", a, b, rec, cxt, A, B)
        if v is not None:
            return v
    if oa == "and" or ob == "and":
        v = expand_commutative(sq, "or", a, b, "and", rec, cxt, A, B)
        if v is not None:
            return v
    # (A & C1) | (B & C2) with C1 == ~C2: ((V + N) & C1) | (V & C2) -> V + N
    if oa == "and" and ob == "and":
        aa, ba = A, B
        c1, c2 = _cval(aa[2]), _cval(ba[2])
        m = (1 << _bits(a)) - 1
        if c1 is not None and c2 is not None and c1 == ~c2 & m:
            A_, B_ = aa[1], ba[1]
            for (P, Q, cm) in ((A_, B_, c2), (B_, A_, c1)):
                ad = sq.binop(P, "add")
                if cm and (cm & (cm + 1)) == 0 and ad is not None:
                    for x_, n_ in ((ad[1], ad[2]), (ad[2], ad[1])):
                        if _same(x_, Q) and known_bits(sq, n_)[0] & cm == cm:
                            return P
    if (type(a) is _INSTRUCTION and a.opcode == "phi") or (type(b) is _INSTRUCTION and b.opcode == "phi"):
        v = thread_over_phi(sq, "or", a, b, rec, cxt)
        if v is not None:
            return v
    if oa == "xor" and ob == "xor":  # (A ^ C) | (A ^ ~C) -> -1
        xa, xb = A, B
        c1, c2 = _cval(xa[2]), _cval(xb[2])
        m = (1 << _bits(a)) - 1
        if c1 is not None and c2 is not None and _same(xa[1], xb[1]) and c2 == ~c1 & m:
            return sq.const(m, a)
    if rec != _RECURSION_LIMIT or cxt is None or sq.dom_cond.get(cxt.block, 0) is None:
        return None
    return simplify_by_dom_eq(sq, "or", a, b, rec, cxt)


def _and_or_not(sq, x, y, X, Y):
    """simplifyXorInst's foldAndOrNot(X, Y); ``X``, ``Y``: their binop tuples."""
    ox, oy = X[0], Y[0]
    if ox == "and" and oy == "or":  # (~A & B) ^ (A | B) -> A
        for nA, B in ((X[1], X[2]), (X[2], X[1])):
            A = sq.is_not(nA)
            if A is not None and _pair(sq, Y, A, B):
                return A
    if ox == "or" and oy == "and":  # (~A | B) ^ (A & B) -> ~A
        for nA, B in ((X[1], X[2]), (X[2], X[1])):
            A = sq.is_not(nA)
            if A is not None and _pair(sq, Y, A, B):
                return nA
    return None


def simplify_xor(sq, a, b, rec, cxt):
    if type(a) is _CONSTANT:
        if type(b) is _CONSTANT:
            c, a, b = fold_constants(sq, "xor", a, b)
            if c is not None:
                return c
            if _cval(b) == 0:
                return a
            if sq.same(a, b):
                return sq.const(0, a)
        else:
            ca = _cval(a)
            if ca is not None:  # (foldOrCommuteConstant moves the constant right)
                if ca == 0:
                    return b
                a, b = b, a
    elif type(b) is _CONSTANT:
        # (foldOrCommuteConstant leaves a non-constant left operand where it is,
        # and a constant is not the same value as it)
        if _cval(b) == 0:
            return a
    elif a is b:
        return sq.const(0, a)
    bo = sq.bo
    if type(a) is _INSTRUCTION:
        A = bo.get(a)
        if A is None:
            A = sq._binop(a)
    else:
        A = False
    if type(b) is _INSTRUCTION:
        B = bo.get(b)
        if B is None:
            B = sq._binop(b)
    else:
        B = False
    if A or B:
        oa, ob = A and A[0], B and B[0]
        if (oa == "xor" and _not_pair(A, b, a)) or (ob == "xor" and _not_pair(B, a, b)):
            return sq.const(-1, a)
        if oa and ob:
            if oa in _ANDOR and ob in _ANDOR and oa != ob:
                v = _and_or_not(sq, a, b, A, B) or _and_or_not(sq, b, a, B, A)
                if v is not None:
                    return v
            if oa in _ADDSUB and ob in _ADDSUB and oa != ob:
                v = _logic_of_add_sub(sq, "xor", a, b)
                if v is not None:
                    return v
        if oa == "xor" or ob == "xor":
            v = simplify_associative(sq, "xor", a, b, rec, cxt, A, B)
            if v is not None:
                return v
    if rec != _RECURSION_LIMIT or cxt is None or sq.dom_cond.get(cxt.block, 0) is None:
        return None
    return simplify_by_dom_eq(sq, "xor", a, b, rec, cxt)


# --- compares -----------------------------------------------------------------------
def constant_range(sq, v, signed: bool, depth: int = 0):
    """computeConstantRange for the modeled ops: (lo, hi) inclusive, in the signed or
    unsigned order, or None (the full range)."""
    bits = _bits(v)
    m = (1 << bits) - 1
    c = _cval(v)
    if c is not None:
        x = _signed(c, bits) if signed else c
        return x, x
    if depth >= _MAX_DEPTH:
        return None
    bo = sq.binop(v)
    if bo is None:
        return _intrinsic_range(sq, v, signed, bits)
    opc, a, b = bo
    cb = _cval(b)
    lo: Any = None
    hi: Any = None
    # setLimitsForBinOp: the unsigned limits
    if opc == "and" and cb is not None:
        lo, hi = 0, cb
    elif opc == "or" and cb is not None:
        lo, hi = cb, m
    elif opc == "lshr" and cb is not None and cb < bits:
        lo, hi = 0, m >> cb
    elif opc == "lshr" and _cval(a) is not None:
        lo, hi = 0, _cval(a)
    elif opc == "shl" and _cval(a) is not None:
        ca = _cval(a)
        if ca >> (bits - 1) & 1:
            pass
        else:
            lo, hi = ca, (ca << _clz(ca, bits)) & m if ca else 0
    elif opc == "ashr" and cb is not None and cb < bits:
        smin, smax = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        slo, shi = smin >> cb, smax >> cb
        if signed:
            return slo, shi
        return None
    if lo is None:
        return None
    if signed:
        if hi >> (bits - 1) & 1 and not lo >> (bits - 1) & 1:
            return None  # wraps the signed range
        return _signed(lo, bits), _signed(hi, bits)
    return lo, hi


def _intrinsic_range(sq, v, signed: bool, bits: int):
    """setLimitsForIntrinsic: (lo, hi) of an intrinsic call in the asked order, or None."""
    kind = _intrinsic(v)
    if kind is None:
        return None
    if kind in ("ctpop", "ctlz", "cttz"):
        return 0, bits
    ops = sq.ops(v)
    smin, smax = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if kind == "abs":
        poison = _cval(ops[1]) == 1
        if signed:
            return (0, smax) if poison else None
        return 0, smax if poison else smax + 1
    if kind not in _MINMAX_PRED:
        return None
    c = _cval(ops[1])
    if c is None:
        c = _cval(ops[0])
    if c is None:
        return None
    if kind[0] == "u":
        lo, hi = (0, c) if kind == "umin" else (c, (1 << bits) - 1)
        if not signed:
            return lo, hi
        if hi >> (bits - 1) & 1 and not lo >> (bits - 1) & 1:
            return None
        return _signed(lo, bits), _signed(hi, bits)
    sc = _signed(c, bits)
    lo, hi = (smin, sc) if kind == "smin" else (sc, smax)
    if signed:
        return lo, hi
    if lo < 0 <= hi:
        return None
    return lo & ((1 << bits) - 1), hi & ((1 << bits) - 1)


def simplify_icmp(sq, pred, a, b, rec, cxt, truth: bool = False):
    """simplifyICmpInst for the modeled cases: the i1 constant it folds to (``cxt``
    an i1 instruction) or None; with ``truth`` True/False/None instead (what
    isICmpTrue asks, ``cxt`` the instruction asking)."""
    bits = _bits(a)
    ca: int | None = _cval(a)
    cb: int | None = _cval(b)
    if truth:
        one = _truth
    else:
        one = lambda t: sq.const(1 if t else 0, cxt) if cxt is not None and _bits(cxt) == 1 else None  # noqa: E731
    if ca is not None and cb is not None:
        return one(_compare(pred, ca, cb, bits))
    if ca is not None:
        a, b, pred = b, a, _SWAP[pred]
        cb = ca
        ca = None
    if sq.same(a, b):
        return one(pred in ("eq", "ule", "uge", "sle", "sge"))
    if cb is not None:
        signed = pred in ("slt", "sle", "sgt", "sge")
        rg = constant_range(sq, a, signed)
        if rg is not None:
            x = _signed(cb, bits) if signed else cb
            lo, hi = rg
            t = _range_cmp(pred, lo, hi, x)
            if t is not None:
                return one(t)
    if cb is None:
        # simplifyICmpWithBinOp: a binary operator on one side, the other side one
        # of its operands
        t = _icmp_with_binop(sq, pred, a, b)
        if t is None:
            t = _icmp_with_binop(sq, _SWAP[pred], b, a)
        if t is not None:
            return one(t)
    if pred in ("eq", "ne") and cb != 0:
        ka, kb = known_bits(sq, a), known_bits(sq, b)
        if (ka[0] & kb[1]) or (ka[1] & kb[0]):
            return one(pred == "ne")
    if cxt is not None:
        t = implied_by_dom_condition(sq, pred, a, b, cxt)
        if t is not None:
            return one(t)
    return None


def _icmp_with_binop(sq, pred, lhs, rhs):
    """simplifyICmpWithBinOpOnLHS for ``(lhs = X op Y) pred rhs`` with ``rhs`` one of
    X, Y: or (never below X unsigned; signed by the sign bits), and (never above
    X unsigned), lshr (x >>u y never above x)."""
    bo = sq.binop(lhs)
    if bo is None:
        return None
    opc, x, y = bo
    if opc == "or" or opc == "and":
        if sq.same(x, rhs):
            other = y
        elif sq.same(y, rhs):
            other = x
        else:
            return None
        if opc == "and":
            return False if pred == "ugt" else True if pred == "ule" else None
        if pred == "ult":
            return False
        if pred == "uge":
            return True
        if pred == "slt" or pred == "sge":
            bits = _bits(lhs)
            sign = 1 << (bits - 1)
            kr, ky = known_bits(sq, rhs), known_bits(sq, other)
            if kr[0] & sign and ky[1] & sign:  # rhs >= 0, y < 0
                return pred == "slt"
            if kr[1] & sign or ky[0] & sign:
                return pred != "slt"
        return None
    if opc == "lshr" and sq.same(x, rhs):
        return False if pred == "ugt" else True if pred == "ule" else None
    return None


def dom_edge(sq, blk):
    """getDomPredecessorCondition: (predicate true on the edge, l0, l1) of the icmp
    the single predecessor of ``blk`` branches on, or None."""
    hit = sq.dom_cond.get(blk, 0)
    if hit != 0:
        return hit
    res = None
    preds = blk.predecessors if blk is not None else ()
    if len(preds) == 1 and preds[0].instructions:
        term = preds[0].instructions[-1]
        targets = term.targets if term.opcode == "br" else ()
        if len(term.operands) == 1 and len(targets) == 2 and targets[0] is not targets[1] \
                and blk in targets:
            cond = sq.r(term.operands[0])
            if type(cond) is _INSTRUCTION and cond.opcode == "icmp" and cond.predicate in _INVERSE:
                lp = cond.predicate if blk is targets[0] else _INVERSE[cond.predicate]
                res = (lp, sq.r(cond.operands[0]), sq.r(cond.operands[1]))
    sq.dom_cond[blk] = res
    return res


def implied_by_dom_condition(sq, pred, a, b, cxt):
    """isImpliedByDomCondition: what the branch of ``cxt``'s block's single
    predecessor says about ``a pred b`` on the edge into the block."""
    e = dom_edge(sq, cxt.block)
    if e is None:
        return None
    return _implied(sq, e[0], e[1], e[2], pred, a, b)


def _implied(sq, lp, l0, l1, rp, r0, r1):
    """isImpliedCondICmps (the condition ``l0 lp l1`` is true)."""
    if sq.same(l0, r1) and not sq.same(l0, r0):
        r0, r1, rp = r1, r0, _SWAP[rp]
    if sq.same(r0, l1) and not sq.same(r0, l0):
        l0, l1, lp = l1, l0, _SWAP[lp]
    if sq.same(l1, r1) and not sq.same(l0, r0):
        l0, l1, lp = l1, l0, _SWAP[lp]
        r0, r1, rp = r1, r0, _SWAP[rp]
    bits = _bits(l0)
    c1, c2 = _cval(l1), _cval(r1)
    if sq.same(l0, r0) and (c1 is not None or c2 is not None):
        if c1 is not None and c2 is not None:
            # isImpliedCondCommonOperandWithConstants: the dominating region inside
            # the asked one -> true, the two disjoint -> false
            dom = _region(lp, c1, bits)
            sat = _region(rp, c2, bits)
            if _disjoint(dom, sat):
                return False
            if _subset(dom, sat):
                return True
            return None
    if sq.same(l0, r0) and sq.same(l1, r1):
        if lp == rp:
            return True
        if lp == _INVERSE[rp]:
            return False
        return _IMPLIES.get((lp, rp))
    return None











































# (lhs predicate true, rhs predicate on the same operands) -> rhs value
_IMPLIES: Final = {
    ("eq", "ule"): True, ("eq", "uge"): True, ("eq", "sle"): True, ("eq", "sge"): True,
    ("ult", "ule"): True, ("ult", "ne"): True, ("ugt", "uge"): True, ("ugt", "ne"): True,
    ("slt", "sle"): True, ("slt", "ne"): True, ("sgt", "sge"): True, ("sgt", "ne"): True,
    ("ult", "eq"): False, ("ugt", "eq"): False, ("slt", "eq"): False, ("sgt", "eq"): False,
    ("ult", "uge"): False, ("ugt", "ule"): False, ("slt", "sge"): False, ("sgt", "sle"): False,
    ("ult", "ugt"): False, ("ugt", "ult"): False, ("slt", "sgt"): False, ("sgt", "slt"): False,
    ("eq", "ult"): False, ("eq", "ugt"): False, ("eq", "slt"): False, ("eq", "sgt"): False,
    ("eq", "ne"): False,
}


_NO_EDGE: Final = object()  # (``dom_cond`` has no entry for the block yet)


def _truth(t):
    return t


# The integer intrinsics modeled (no memory access, not convergent: EarlyCSE's
# SimpleValue takes their calls, InstSimplify's simplifyIntrinsic folds them)
BINOP_SIMPLIFIERS: Final = {"add": simplify_add, "sub": simplify_sub, "mul": simplify_mul, "and": simplify_and, "or": simplify_or,
                             "xor": simplify_xor, "shl": simplify_shl, "lshr": simplify_lshr, "ashr": simplify_ashr}


def new_simplify_query(fn, idom: dict | None, rep: dict, dom: tuple | None = None) -> SimplifyQuery:
    """The simplifier's state for ``fn`` (``idom`` None: the analyses only, no dominance)."""
    return SimplifyQuery(fn, idom, rep, BINOP_SIMPLIFIERS, dom)


_PURE_INTRINSICS: Final = frozenset({"llvm.ctpop", "llvm.bitreverse", "llvm.bswap", "llvm.ctlz", "llvm.cttz", "llvm.abs",
                                     "llvm.smin", "llvm.smax", "llvm.umin", "llvm.umax"})
_MINMAX_PRED: Final = {"smax": "sge", "smin": "sle", "umax": "uge", "umin": "ule"}  # (the non-strict order)
_MINMAX_INVERSE: Final = {"smax": "smin", "smin": "smax", "umax": "umin", "umin": "umax"}
_MINMAX_KNOWN: Final = {"smax": smax_masks, "smin": smin_masks, "umax": umax_masks, "umin": umin_masks}


def _intrinsic(v):
    """``ctpop`` ... ``umax`` for a call of one of ``_PURE_INTRINSICS``, else None."""
    c = v.callee if type(v) is _INSTRUCTION else None
    if not c or not c.startswith("llvm."):
        return None
    base = c.rsplit(".", 1)[0]
    return base[5:] if base in _PURE_INTRINSICS else None


def _saturation(kind: str, bits: int) -> int:
    """MinMaxIntrinsic::getSaturationPoint, unsigned: the value min/max of anything with
    which is itself."""
    if kind == "umax":
        return (1 << bits) - 1
    if kind == "umin":
        return 0
    if kind == "smax":
        return (1 << (bits - 1)) - 1
    return 1 << (bits - 1)
_NOTHING: Final = (0, 0)  # known bits: nothing known
_CUT: Final = (_NOTHING, _MAX_DEPTH, _ANY_DEPTH)  # ``_kb`` of an integer instruction at the depth limit
_AND_COMMUTED: Final = frozenset({"xor", "or", "sub", "add"})  # (the shapes _and_commutative looks at)


def _lead_zeros(k: tuple, v) -> int:
    """KnownBits::countMinLeadingZeros of the known bits ``k`` of ``v``."""
    bits = _bits(v) or 1
    return bits - (~k[0] & ((1 << bits) - 1)).bit_length()


def _not_pair(T, x, v) -> bool:
    """``v`` (binop tuple ``T``, an ``xor``) is ``~x``: ``xor x, -1`` in either order."""
    a, b = T[1], T[2]
    if type(b) is _CONSTANT and (a is x or _same(a, x)) and _cval(b) == (1 << _bits(v)) - 1:
        return True
    return type(a) is _CONSTANT and (b is x or _same(b, x)) and _cval(a) == (1 << _bits(v)) - 1


def _is_phi(v) -> bool:
    return type(v) is _INSTRUCTION and v.opcode == "phi"


def _not_of(T, m: int):
    """X when the binop tuple ``T`` is ``xor X, -1`` (either operand order)."""
    if _cval(T[2]) == m:
        return T[1]
    if _cval(T[1]) == m:
        return T[2]
    return None


def _compare(pred: str, a: int, b: int, bits: int) -> bool:
    if pred[0] == "s":
        a, b = _signed(a, bits), _signed(b, bits)
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[
        pred if pred in ("eq", "ne") else pred[1:]]


def _range_cmp(pred: str, lo: int, hi: int, x: int):
    """ConstantRange::icmp for a range [lo, hi] against the constant x (None: unknown)."""
    p = pred if pred in ("eq", "ne") else pred[1:]
    if p == "eq" or p == "ne":
        if lo == hi == x:
            return p == "eq"
        if x < lo or x > hi:
            return p == "ne"
        return None
    if p == "lt":
        return True if hi < x else (False if lo >= x else None)
    if p == "le":
        return True if hi <= x else (False if lo > x else None)
    if p == "gt":
        return True if lo > x else (False if hi <= x else None)
    return True if lo >= x else (False if hi < x else None)


def _region(pred: str, c: int, bits: int) -> list[tuple[int, int]]:
    """ConstantRange::makeExactICmpRegion(pred, c): the values ``v`` (unsigned, ``bits``
    wide) for which ``v pred c`` holds, as sorted, disjoint, non-adjacent inclusive
    intervals of the unsigned line (a wrapped range is split at 0; the empty region is
    ``[]``)."""
    m = (1 << bits) - 1
    half = 1 << (bits - 1)

    def signed(lo: int, hi: int) -> list[tuple[int, int]]:
        # a signed interval [lo, hi] (lo <= hi, signed values) on the unsigned line
        if lo > hi:
            return []
        if hi < 0:
            return [(lo + m + 1, hi + m + 1)]
        if lo >= 0:
            return [(lo, hi)]
        return [(0, hi), (lo + m + 1, m)]

    sc = c - (m + 1) if c >= half else c
    if pred == "eq":
        out = [(c, c)]
    elif pred == "ne":
        out = [(0, c - 1), (c + 1, m)]
    elif pred == "ult":
        out = [(0, c - 1)]
    elif pred == "ule":
        out = [(0, c)]
    elif pred == "ugt":
        out = [(c + 1, m)]
    elif pred == "uge":
        out = [(c, m)]
    elif pred == "slt":
        out = signed(-half, sc - 1)
    elif pred == "sle":
        out = signed(-half, sc)
    elif pred == "sgt":
        out = signed(sc + 1, half - 1)
    elif pred == "sge":
        out = signed(sc, half - 1)
    else:  # pragma: no cover - icmp predicates only
        raise AssertionError(pred)
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(iv for iv in out if iv[0] <= iv[1]):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def _subset(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> bool:
    """Every value of region ``a`` lies in region ``b`` (``b`` merged: non-adjacent)."""
    return all(any(blo <= lo and hi <= bhi for blo, bhi in b) for lo, hi in a)


def _disjoint(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> bool:
    return not any(lo <= bhi and blo <= hi for lo, hi in a for blo, bhi in b)


def _trivially_dead(fn: Function) -> set:
    """Instructions without users and without side effects in the input (EarlyCSE
    deletes them when it reaches them, so they never become a CSE representative).
    The scan for a function whose ``_users`` lists are not known to be current
    (``_run`` reads those lists when ``fn.uses`` says they are)."""
    from patterns.dag.builder import _has_side_effect

    used: set = set()
    add = used.add
    for b in fn.blocks:
        for i in b.instructions:
            for v in i.operands:  # (a phi's incoming values are its operands)
                if type(v) is _INSTRUCTION:
                    add(v)
    return {i for b in fn.blocks for i in b.instructions
            if i.name is not None and i not in used and not _has_side_effect(i)}


def _cse_key(i, ops):
    """EarlyCSE's SimpleValue identity of ``i`` with resolved operands ``ops``
    (commutative operands and swapped compares unified)."""
    const = Constant
    if len(ops) == 2:
        x, y = ops
        kx = (0, _cval(x), x.type, x.text) if type(x) is const else (1, id(x), None, "")
        ky = (0, _cval(y), y.type, y.text) if type(y) is const else (1, id(y), None, "")
        pred = i.predicate
        opc = i.opcode
        if (kx[0], kx[1]) > (ky[0], ky[1]):
            if opc in _COMMUTATIVE:
                kx, ky = ky, kx
            elif opc == "icmp":
                kx, ky = ky, kx
                pred = _SWAP.get(pred, pred)
        return (opc, i.type, pred, kx, ky, tuple(i.indices) if i.indices else ())
    ks = tuple((0, _cval(o), o.type, o.text) if type(o) is const else (1, id(o), None, "") for o in ops)
    return (i.opcode, i.type, i.predicate, ks, tuple(i.indices) if i.indices else (), i.callee)


def _cse_keys():
    """A function ``(instruction, resolved operands) -> key`` whose keys are equal exactly
    when ``_cse_key``'s are, built cheaper for the common shape, a binary operator or
    compare with at most one constant operand: a non-constant operand is itself (an
    instruction or argument, which compare by identity) or its ``id``, a constant is
    (value, type, spelling), and a type is the number of the first equal type seen (so
    no dataclass is hashed per instruction). Other shapes use ``_cse_key``."""
    tids: dict = {}
    canon: dict = {}
    keep: list = []  # (the numbered type objects stay alive: their ids stay theirs)
    Inst, Arg, Const = Instruction, Argument, Constant
    comm, swap, binops = _COMMUTATIVE, _SWAP, _BINOPS

    def tkey(t):
        k = tids.get(id(t))
        if k is None:
            k = canon.get(t)
            if k is None:
                k = canon[t] = len(canon)
            tids[id(t)] = k
            keep.append(t)
        return k

    def key(i, ops):
        opc = i.opcode
        if len(ops) != 2 or (opc not in binops and opc != "icmp"):
            return _cse_key(i, ops)
        x, y = ops
        xc, yc = type(x), type(y)
        if xc is Const:
            if yc is Const:
                return _cse_key(i, ops)
            kx = (_cval(x), tkey(x.type), x.text)
            ky = y if yc is Inst or yc is Arg else id(y)
            swapped = False  # (a constant sorts first)
        elif yc is Const:
            kx = x if xc is Inst or xc is Arg else id(x)
            ky = (_cval(y), tkey(y.type), y.text)
            swapped = True
        else:
            swapped = id(x) > id(y)
            kx = x if xc is Inst or xc is Arg else id(x)
            ky = y if yc is Inst or yc is Arg else id(y)
        t = tkey(i.type)
        if opc == "icmp":
            pred = i.predicate
            if swapped:
                return (opc, t, swap.get(pred, pred), ky, kx)
            return (opc, t, pred, kx, ky)
        if swapped and opc in comm:
            return (opc, t, ky, kx)
        return (opc, t, kx, ky)

    return key


def simplify_function(fn, idom: dict, rep: dict | None = None) -> dict:
    """One EarlyCSE run over ``fn`` on top of ``rep`` (updated and returned)."""
    rep = {} if rep is None else rep
    if fn.blocks:
        _run(new_simplify_query(fn, idom, rep), fn)
    return rep


def _run(p: SimplifyQuery, fn) -> None:
    """The EarlyCSE walk: blocks in dominator-tree preorder, each live instruction
    simplified first (a binary operator straight through its opcode's simplifier), then
    looked up among the available values. A visited instruction's ``binop`` entry is
    recorded as it is visited (its operands are final by then: the tuple ``binop``
    would build on the first query).

    The table of available values is one dictionary for the whole walk: an entry is
    available to an instruction when its block dominates the instruction's (an earlier
    instruction of the same block does), which is what EarlyCSE's scoped table holds
    (an equal instruction in a dominating position would itself have been replaced, so
    at most one entry of a key dominates). A key seen in two blocks that do not dominate
    each other keeps a list."""
    from patterns.dag.builder import _has_side_effect

    i: Instruction
    rep = p.rep
    seeded = bool(rep)  # (a replacement made before this walk: skip the instruction)
    # dead: no users (the parser's user lists, when fn.uses says they are current)
    use_users = fn.uses is not None
    dead: Any = None if use_users else _trivially_dead(fn)
    table: dict = {}
    bo = p.bo
    r = p.r
    simplify = simplify_instruction
    phi = simplify_phi
    key_of = _cse_keys()
    handlers = p.h
    kids = p.kids
    pre, post = p.pre, p.post
    Inst, Int, Arg, Const = Instruction, IntType, Argument, Constant
    binops, cse_ops, simplified, comm = _BINOPS, _CSE_OPS, _SIMPLIFIED, _COMMUTATIVE
    limit = _RECURSION_LIMIT
    work: list = [fn.blocks[0]]
    while work:
        blk = work.pop()
        for i in blk.instructions:
            if i.name is None or (seeded and i in rep):
                continue
            if use_users:
                if i._users is None and not _has_side_effect(i):
                    continue
            elif i in dead:
                continue
            opc = i.opcode
            if opc in binops:
                x, y = i.operands
                if type(x) is Inst and x in rep:
                    x = r(x)
                if type(y) is Inst and y in rep:
                    y = r(y)
                if type(i.type) is Int:
                    v = handlers[opc](p, x, y, limit, i)
                    if v is not None and v is not i:
                        rep[i] = v
                        continue
                t = (opc, x, y)
                k: Any
                bo[i] = t if i.block is not None else False
                # the key: the parser checked that every operand has the instruction's
                # type, so a key with a value operand needs no type of its own
                xc, yc = type(x), type(y)
                if xc is Inst or xc is Arg:
                    if yc is Inst or yc is Arg:
                        k = (opc, y, x) if opc in comm and id(x) > id(y) else t
                    elif yc is Const:
                        k = (opc, x, _cval(y), y.text)
                    else:
                        k = key_of(i, (x, y))
                elif xc is Const and (yc is Inst or yc is Arg):
                    k = (opc, y, _cval(x), x.text) if opc in comm else (opc, _cval(x), x.text, y)
                else:
                    k = key_of(i, (x, y))
            else:
                ops = None
                if opc == "phi":
                    v = phi(p, i)
                    if v is not None and v is not i:
                        rep[i] = v
                        continue
                elif opc in simplified:
                    ops = [o if type(o) is not Inst or o not in rep else r(o) for o in i.operands]
                    v = simplify(p, i, ops)
                    if v is not None and v is not i:
                        rep[i] = v
                        continue
                bo[i] = False
                if opc not in cse_ops or (opc == "call" and _intrinsic(i) is None):
                    continue
                if ops is None:
                    ops = [o if type(o) is not Inst or o not in rep else r(o) for o in i.operands]
                k = key_of(i, ops)
            hit = table.get(k)
            if hit is None:
                table[k] = i
                continue
            cands: Any
            if type(hit) is list:
                cands = hit
            else:
                cands = (hit,)
            for h in cands:
                hb = h.block
                if hb is blk or (pre[hb] <= pre[blk] and post[blk] <= post[hb]):
                    rep[i] = h
                    break
            else:
                if type(hit) is list:
                    hit.append(i)
                else:
                    table[k] = [hit, i]
        ks = kids.get(blk)
        if ks:
            for c in reversed(ks):
                work.append(c)


_SIMPLIFIED: Final = _BINOPS | {"phi", "icmp", "select", "call"}


def _resimplify(p: SimplifyQuery, fn, users_ok: bool = False) -> None:
    """What llc's next EarlyCSE run adds: a phi visited before a value it reads over a
    back edge was replaced is simplified again, and so (transitively) are the users of
    every value replaced that way. (Every other instruction was visited after its
    operands, so it already saw their replacements.) ``users_ok``: the parser's user
    lists are current, so the phis reading a replaced value are found among its users
    rather than by a scan of the function."""
    rep = p.rep
    users: dict | None = None
    Inst = Instruction
    if users_ok:
        cand = set()
        for r in rep:
            us = r._users
            if us is None:
                continue
            for u in (us if type(us) is list else (us,)):
                if u.opcode == "phi" and u not in rep:
                    cand.add(u)
        work = []
        if cand:  # (in program order, as the scan finds them)
            pos = {b: k for k, b in enumerate(fn.blocks)}
            work = sorted(cand, key=lambda u: (pos[u.block], u.block.instructions.index(u)))
    else:
        work = []
        for b in fn.blocks:
            for i in b.instructions:
                if i.opcode == "phi" and i not in rep:
                    for v in i.operands:
                        if type(v) is Inst and v in rep:
                            work.append(i)
                            break
    budget = 4 * len(work) + 64
    while work and budget:
        budget -= 1
        i = work.pop()
        if i in rep or i.opcode not in _SIMPLIFIED or i not in p.bo:
            continue
        p.bo[i] = None
        v = simplify_instruction(p, i)
        if v is None or v is i:
            continue
        rep[i] = v
        if users is None:
            users = {}
            for blk in fn.blocks:
                for u in blk.instructions:
                    for x in u.operands:
                        if type(x) is Inst:
                            users.setdefault(x, []).append(u)
        for u in users.get(i, ()):
            if u in p.bo:
                p.bo[u] = None
            work.append(u)


def early_cse(fn, idom: dict | None = None, dom: tuple | None = None) -> dict:
    """EarlyCSE with InstSimplify as llc runs it (see the module docstring):
    instruction -> the value that replaces it (chains resolved). ``dom``: the
    ``_dom_tree`` of ``idom`` when the caller has it."""
    if not fn.blocks:
        return {}
    if idom is None:
        from patterns.dag.builder import immediate_dominators

        idom = immediate_dominators(fn)
    users_ok = fn.uses is not None
    p = new_simplify_query(fn, idom, {}, dom)
    _run(p, fn)
    if p.rep:
        _resimplify(p, fn, users_ok)
    return {i: p.r(v) for i, v in p.rep.items()}


def apply_early_cse(fn, idom: dict | None = None, dom: tuple | None = None, grew: dict | None = None,
                    keep_uses: bool = False) -> dict:
    """Run ``early_cse`` on ``fn`` and leave the IR as the pass leaves it: every use of a
    replaced instruction (operands, phi incoming values) reads its replacement, as
    LLVM's replaceAllUsesWith does. The replaced instructions stay in their blocks
    without users (dead-code removal, ``patterns.dag.builder``, drops them); the function's
    derived user lists are reset, or with ``keep_uses``, when they were current, made
    current again (``_move_users``). Returns the replacement map. ``grew``: see
    ``_rewrite``."""
    if getattr(fn, "is_declaration", False) or not fn.blocks:
        return {}
    uses = fn.uses  # (read before the pass: _rewrite resets it)
    rep = early_cse(fn, idom, dom)
    if rep:
        _rewrite(fn, rep, _candidate_users(rep, None) if uses is not None else None, grew)
        if keep_uses and uses is not None:
            _move_users(fn, rep)
            fn.uses = uses  # (no instruction or block added, removed or changed opcode)
    return rep


def _move_users(fn, rep: dict) -> None:
    """The user lists (``_users``, see ``Function.uses``) after ``_rewrite`` of ``rep`` on
    a function whose lists were current before: as the uniformity analysis's scan would
    make them. Only a replaced value and its replacement change: a reader of the
    replaced one reads the replacement now (unless it read it as a call's callee or
    bundle operand, which the rewrite leaves), in program order, each once."""
    from patterns.uniformity.analysis import _operand_values

    Inst, Arg = Instruction, Argument
    gained: dict = {}  # replacement -> the readers it gained
    for r, w in rep.items():
        us = r._users
        if us is None:
            continue
        if type(us) is not list:
            us = [us]
        keep = [u for u in us if any(x is r for x in _operand_values(u))]
        r._users = None if not keep else keep[0] if len(keep) == 1 else keep
        if type(w) is Inst or type(w) is Arg:
            new = [u for u in us if any(x is w for x in _operand_values(u))]
            if new:
                g = gained.get(w)
                if g is None:
                    gained[w] = new
                else:
                    g.extend(new)
    if not gained:
        return
    bpos = {b: k for k, b in enumerate(fn.blocks)}

    def pos(u):
        b = u.block
        return bpos[b], b.instructions.index(u)

    from bisect import bisect_left

    for w, new in gained.items():
        us = w._users
        lst = [] if us is None else [us] if type(us) is not list else list(us)
        for u in new:  # (into the list in program order: a value may have thousands)
            k = bisect_left(lst, pos(u), key=pos)
            if k == len(lst) or lst[k] is not u:
                lst.insert(k, u)
        w._users = lst[0] if len(lst) == 1 else lst


# --- LICM ------------------------------------------------------------------------------

# What canSinkOrHoistInst lets LICM move (binary operators, casts, compares, select, GEP,
# freeze, element and aggregate operations) and isSafeToSpeculativelyExecute calls safe
# anywhere: 1 = hoisted whenever its operands are invariant. 2 = a division, safe when
# its divisor is a constant that cannot trap (else only where it is guaranteed to run).
# 3 = a call, hoisted when the callee is an intrinsic that reads no memory and is not
# convergent (speculatable ones anywhere, the others where guaranteed to run).
_HOIST_KIND: Final[dict] = dict.fromkeys((
    "add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr",
    "fadd", "fsub", "fmul", "fdiv", "frem",
    "trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
    "ptrtoint", "inttoptr", "bitcast", "addrspacecast",
    "icmp", "fcmp", "select", "getelementptr", "freeze",
    "extractelement", "insertelement", "shufflevector", "extractvalue", "insertvalue"), 1)
_HOIST_KIND.update(dict.fromkeys(("udiv", "sdiv", "urem", "srem"), 2))
_HOIST_KIND["call"] = 3
# generic intrinsics Intrinsics.td declares IntrNoMem + IntrSpeculatable (a call of one
# is named with type suffixes: llvm.smin.i32)
_SPECULATABLE_INTRINSICS: Final = frozenset({
    "llvm.smin", "llvm.smax", "llvm.umin", "llvm.umax", "llvm.abs", "llvm.ctpop", "llvm.ctlz",
    "llvm.cttz", "llvm.bitreverse", "llvm.bswap", "llvm.fshl", "llvm.fshr"})
# the opcodes hoistArithmetics may rewrite: hoistMulAddAssociation, hoistAddSub, hoistGEP,
# hoistMinMax (an i1 and/or/select)
_REASSOCIATED: Final = {"mul": 1, "icmp": 2, "getelementptr": 3, "and": 4, "or": 4, "select": 4}
_BINARY_OPERATORS: Final = _BINOPS | {"udiv", "sdiv", "urem", "srem", "fadd", "fsub", "fmul", "fdiv", "frem"}
_SIGNED_PREDICATES: Final = frozenset({"slt", "sle", "sgt", "sge"})
# LICM's IntAssociationUpperLimit (-licm-max-num-int-reassociations): measured with opt-19,
# a sum of five products is rewritten, one of six is not
_INT_ASSOCIATION_LIMIT: Final = 5


def licm(fn, idom: dict | None = None, dom: tuple | None = None, ua=None, target=None) -> list:
    """Loop-invariant code motion as llc-19's LICM pass does it on code without memory
    operations (LICM.cpp, measured against ``opt-19 -passes='loop-mssa(licm)'``).

    Loops: every natural loop with a preheader (the header's one predecessor outside the
    loop, ending in an unconditional branch to it), innermost first (LLVM's loop pass
    manager order). In each, ``hoistRegion``: the loop's blocks in reverse post-order of
    the loop (LoopBlocksRPO: a depth-first walk from the header over successors in
    terminator order), skipping blocks of inner loops (they were done as their own loop;
    what that moved to their preheader, a block of this loop, is visited here), each
    block's instructions in order. An instruction is hoisted -- moved before the
    preheader's terminator -- when its operands are all defined outside the loop (or
    moved out already) and it is safe to run unconditionally: the opcodes of
    ``_HOIST_KIND`` that cannot trap, divisions by a constant that cannot trap
    (isSafeToSpeculativelyExecute), calls of speculatable intrinsics that read no memory
    (the target's, by their IntrNoMem/IntrSpeculatable properties, and LLVM's integer
    intrinsics), and a division or a non-speculatable readnone intrinsic call where it is
    guaranteed to run (``guaranteed_to_execute``). An instruction that stays is offered
    to ``hoistArithmetics``, LLVM 19's four reassociations in its order: hoistMinMax,
    hoistGEP, hoistAddSub, hoistMulAddAssociation (``hoist_min_max``, ``hoist_gep``,
    ``hoist_add_sub``, ``hoist_mul_add``; each applies to its own opcodes; LLVM 19 has no
    hoistBOAssociation: ``(x + a) + b`` stays). Their new instructions get LLVM's names
    (``factor.op.mul``, ``invariant.op``, ``invariant.smin``, ``invariant.gep``, ``gep``,
    ``X.reass``; a taken name gets the function's next unique number, as the
    ValueSymbolTable does) and a divergence verdict (``ua``: an operand divergent, or read
    outside a cycle with a divergent exit).

    Where the model stops: no memory operations (loads and stores stay; LLVM hoists and
    promotes them with MemorySSA), no sinking (sinkRegion moves an instruction used
    only after the loop into the exit blocks: never in testkit.iselgen kernels, checked
    on 1000 of them), no loop without a preheader (LoopSimplify would make one), no
    floating-point reassociation (hoistMulAddAssociation also takes reassoc+nsz fmul/fadd),
    ``guaranteed`` does not prove a branch untaken on the first iteration
    (CanProveNotTakenFirstIteration), and the constant ranges hoistAddSub's overflow
    checks use are those of ``constant_range``. One-use tests count the uses of
    instructions that are still alive (EarlyCSE's replaced instructions and trivially dead
    code, which LLVM has deleted by then, do not count: ``LicmState.is_dead``; when a
    reassociation erases an instruction, such dead readers of it go too).

    Mutates ``fn``; returns the instructions hoisted or created, and those the
    reassociations changed, in order (for the EarlyCSE that follows in llc)."""
    st = _licm(fn, idom, dom, ua, target)
    return st.result() if st is not None else []


def _loop_forest(fn: Function, dom: tuple):
    """The natural loops of ``fn`` (``dom``: its ``_dom_tree``) as LoopInfo holds them:
    (headers in LLVM's loop pass manager order, header -> body, header -> the headers
    of its sub-loops, block -> the header of its innermost loop); None without loops.

    A back edge b -> h has h dominating b; the body is h and what reaches b backwards
    without passing h. The forest: an enclosing loop is larger, so taken first, and a
    block's owner is its innermost loop. The order: a post-order walk of the forest, the
    top-level loops in reverse program order and the loops inside one in program order
    (LoopInfo keeps top-level loops in post-order of a depth-first walk of the CFG and
    sub-loops in reverse post-order; the pass manager's queue is a stack)."""
    _kids, pre, post = dom
    bodies: dict = {}
    for b in fn.blocks:
        pb = pre.get(b)
        if pb is None:
            continue
        qb = post[b]
        for h in b.successors:
            ph = pre.get(h)
            if ph is not None and ph <= pb and qb <= post[h]:  # a back edge b -> h
                body = bodies.get(h)
                if body is None:
                    body = bodies[h] = {h}
                stack = [b]
                while stack:
                    x = stack.pop()
                    if x in body or x not in pre:
                        continue
                    body.add(x)
                    stack.extend(x.predecessors)
    if not bodies:
        return None
    from patterns.ir.cfg import reverse_post_order

    rpo = {b: k for k, b in enumerate(reverse_post_order(fn))}
    innermost: dict = {}
    kids: dict = {h: [] for h in bodies}
    roots: list = []
    for h in sorted(bodies, key=lambda h: (-len(bodies[h]), rpo[h])):
        parent = innermost.get(h)
        (kids[parent] if parent is not None else roots).append(h)
        for b in bodies[h]:
            innermost[b] = h
    loops = []
    work = [(h, False) for h in sorted(roots, key=rpo.__getitem__)]  # (popped last first)
    while work:
        h, done = work.pop()
        if done:
            loops.append(h)
            continue
        work.append((h, True))
        work.extend((k, False) for k in sorted(kids[h], key=rpo.__getitem__, reverse=True))
    return loops, bodies, kids, innermost


def _licm(fn, idom, dom, ua, target, grew=None) -> "_LicmState | None":
    """``licm``'s work; the state (what moved, what is new), None without loops.
    ``grew`` (from ``run_ir_passes``): not None when the parser's user lists were
    current before EarlyCSE, whose rewrite recorded there the users it gave values;
    with it the readers of a value are found without a scan of the function."""
    blocks = fn.blocks
    if len(blocks) < 2:
        return None
    if dom is None:
        if idom is None:
            from patterns.dag.builder import immediate_dominators

            idom = immediate_dominators(fn)
        dom = _dom_tree(fn, idom)
    forest = _loop_forest(fn, dom)
    if forest is None:
        return None
    loops, bodies, _kids, innermost = forest
    st = _LicmState(fn, ua, target, grew)
    st.forest = forest  # (for LSR: LICM changes no block, nor any body)
    for h in loops:
        body = bodies[h]
        outside = [p for p in dict.fromkeys(h.predecessors) if p not in body]
        if len(outside) != 1 or len(outside[0].successors) != 1 or not outside[0].instructions:
            continue
        hoist_region(st, h, body, outside[0], innermost)
    if st.moved:
        fn.uses = None
        if st.recheck and ua is not None:
            st.note_divergence()
    return st


def _loop_rpo(h, body) -> list:
    """LoopBlocksRPO: the loop's blocks in reverse post-order of a depth-first walk from
    the header over successors (terminator order) inside the loop."""
    seen = {h}
    post = []
    stack = [(h, iter(h.successors))]
    while stack:
        b, it = stack[-1]
        for s in it:
            if s in body and s not in seen:
                seen.add(s)
                stack.append((s, iter(s.successors)))
                break
        else:
            stack.pop()
            post.append(b)
    post.reverse()
    return post


class _LicmState:
    """One function's LICM: the live use lists (built when a reassociation first asks),
    names, and what was moved or created."""

    def __init__(self, fn, ua, target, grew=None):
        self.fn = fn
        self.ua = ua
        self.target = target
        self.grew = grew
        self.lists_ok = grew is not None  # (see ``_licm``)
        self.forest: Any = None  # (the loop forest, for LSR; set by ``_licm``)
        self.full: dict | None = None  # (else: every instruction's users, from one scan)
        self.extra: dict = {}  # instruction -> users this pass gave it
        self.dead: dict = {}  # instruction -> whether LLVM has deleted it (``is_dead``)
        self.names: set | None = None
        self.last_unique = 0
        self.erased_names: list = []  # (the names of the instructions ``erase`` removed)
        self.named: list = []  # (the instructions ``new`` gave a name of its caller's)
        self.analysis: SimplifyQuery | None = None
        self.moved: list = []  # hoisted, created or rewritten, in order
        self.recheck: list = []  # new or rewritten: their divergence, in order
        self.call_kinds: dict = {}

    def result(self) -> list:
        """What moved, was created or rewritten, each once, in order (erased ones not)."""
        return [i for i in dict.fromkeys(self.moved) if i.block is not None]

    # --- use lists, names, new instructions ------------------------------------------
    def raw_users(self, v) -> list:
        """The instructions in the function that read ``v`` now, each once: from the
        parser's user lists and the users EarlyCSE's rewrite gave ``v`` (``grew``) when
        those lists were current, else from one scan of the function; plus the users
        this pass gave it; kept when they still read ``v``."""
        res = []
        for u in dict.fromkeys(self._candidates(v)):
            if u.block is not None:
                for o in u.operands:
                    if o is v:
                        res.append(u)
                        break
        return res

    def _candidates(self, v) -> list:
        """Instructions that may read ``v`` (see ``raw_users``), possibly repeated."""
        if self.lists_ok:
            us = v._users
            out = [] if us is None else [us] if type(us) is not list else list(us)
            g = self.grew.get(v) if self.grew else None
            if g:
                out.extend(g)
        else:
            full = self.full
            if full is None:
                full = self.full = {}
                Inst = Instruction
                for b in self.fn.blocks:
                    for i in b.instructions:
                        for o in i.operands:
                            if type(o) is Inst:
                                lst = full.get(o)
                                if lst is None:
                                    full[o] = [i]
                                elif lst[-1] is not i:
                                    lst.append(i)
            out = list(full.get(v, ()))
        e = self.extra.get(v)
        if e:
            out.extend(e)
        return out

    def is_dead(self, x) -> bool:
        """Whether LLVM has deleted ``x`` by the time LICM looks at it though it is still
        in our blocks: an instruction without side effects whose every reader is dead
        (none at all: EarlyCSE's replaced instructions, which ``_rewrite`` leaves without
        readers, and trivially dead code), repeatedly; a cycle of readers keeps its
        members alive. Asked on demand (a walk over the readers of ``x``, remembered):
        the few instructions the reassociations ask about, not the whole function.
        LICM's own rewrites never make an instruction dead, so what is remembered stays
        true."""
        memo = self.dead
        r = memo.get(x)
        if r is not None:
            return r
        from patterns.dag.builder import _has_side_effect

        def may_die(v) -> bool:
            return v.name is not None and v.block is not None and not _has_side_effect(v)

        if not may_die(x):
            memo[x] = False
            return False
        readers = self.raw_users
        active = {x}
        stack = [(x, iter(readers(x)))]
        while stack:
            v, it = stack[-1]
            live = False
            for u in it:
                d = memo.get(u)
                if d is None:
                    if u in active:  # (a cycle)
                        live = True
                        break
                    if not may_die(u):
                        memo[u] = False
                        live = True
                        break
                    active.add(u)
                    stack.append((u, iter(readers(u))))
                    break
                if not d:
                    live = True
                    break
            else:
                memo[v] = True  # (every reader dead)
                active.discard(v)
                stack.pop()
                continue
            if live:  # (a live reader: ``v`` and every reader chain below it on the stack live)
                for w, _it in stack:
                    memo[w] = False
                return False
        return memo[x]

    def one_use(self, v) -> bool:
        """hasOneUse among the live instructions (a user reading ``v`` twice uses it
        twice)."""
        if type(v) is not _INSTRUCTION:
            return False
        n = 0
        for u in self.raw_users(v):
            if self.is_dead(u):
                continue
            for o in u.operands:
                if o is v:
                    n += 1
            if n > 1:
                return False
        return n == 1

    def add_user(self, v, u) -> None:
        if type(v) is _INSTRUCTION:
            lst = self.extra.get(v)
            if lst is None:
                self.extra[v] = [u]
            else:
                lst.append(u)

    def unique_name(self, base: str) -> str:
        """The name LLVM's ValueSymbolTable gives a new value called ``base``: ``base``
        when free, else ``base`` followed by the function's next unused number."""
        names = self.names
        if names is None:
            i: Instruction
            fn = self.fn
            names = self.names = set()
            blocks: list = fn.blocks
            for b in blocks:
                insts: list = b.instructions
                for i in insts:
                    names.add(i.name)
            names.update(a.name for a in fn.args)
            names.update(b.name for b in blocks)
        name = base
        while name in names:
            self.last_unique += 1
            name = f"{base}{self.last_unique}"
        names.add(name)
        return name

    def new(self, opcode: str, base: str, type, operands: list, block, where: Any = None, name: Any = None, **fields):
        """A new instruction named after ``base`` (or exactly ``name``), in ``block``
        before ``where`` (at the preheader's end when None), its uses recorded."""
        i = Instruction(opcode, name if name is not None else self.unique_name(base), type, operands, block,
                        **fields)
        if name is not None:
            self.named.append(i)
        if where is None:
            insts = self.ph.instructions
            insts.insert(len(insts) - 1, i)
        else:
            insts = block.instructions
            insts.insert(insts.index(where), i)
        for o in operands:
            self.add_user(o, i)
        self.moved.append(i)
        self.recheck.append(i)
        return i

    def binop(self, opc: str, a, b, base: str, ph, flags=frozenset()):
        """IRBuilder's CreateBinOp in the preheader: two constants fold."""
        ca, cb = _cval(a), _cval(b)
        if ca is not None and cb is not None and opc in ("add", "sub", "mul"):
            r = ca + cb if opc == "add" else ca - cb if opc == "sub" else ca * cb
            return self.analyses().const(r, a)
        i = self.new(opc, base, a.type, [a, b], ph)
        if flags:
            i.flags = frozenset(flags)
        return i

    def set_operands(self, i, ops: list) -> None:
        for o in ops:
            self.add_user(o, i)
        i.operands = ops
        i._text = None

    def erase(self, i) -> None:
        """eraseFromParent; the instructions still reading ``i`` (dead ones: the live
        readers were given the replacement) go too, as LLVM had deleted them, so no
        instruction left in our blocks reads an erased one."""
        work = [i]
        while work:
            x = work.pop()
            if x.block is None:
                continue
            work.extend(self.raw_users(x))
            x.block.instructions.remove(x)
            x.block = None
            self.erased_names.append(x.name)

    def names_now(self) -> "set | None":
        """The names the function's values and blocks have now (None when ``unique_name``
        was never asked): its set, less the names of the erased instructions that no
        instruction left has (one ``new`` named after an erased one keeps it; other
        names are each one value's). Hands the set over (LSR's, see
        ``patterns.llc.lsr.loop_strength_reduce``): a scan of the function would give the
        same."""
        names = self.names
        if names is None:
            return None
        names.discard(None)  # (unnamed values)
        kept = {i.name for i in self.named if i.block is not None}
        for n in self.erased_names:
            if n not in kept:
                names.discard(n)
        self.names = None
        return names

    def replace_all_uses(self, old, new) -> None:
        """replaceAllUsesWith (the dead instructions reading ``old`` too: they stay in our
        blocks and must not read an erased instruction)."""
        for u in self.raw_users(old):
            u.operands = [new if o is old else o for o in u.operands]
            if u.opcode == "phi":
                u.incoming = [(new if v is old else v, blk) for v, blk in u.incoming]
            u._text = None
            self.add_user(new, u)
            if not self.is_dead(u):
                self.moved.append(u)

    def analyses(self) -> "SimplifyQuery":
        p = self.analysis
        if p is None:
            p = self.analysis = new_simplify_query(self.fn, None, {})
        return p

    # --- divergence of what changed --------------------------------------------------
    def note_divergence(self) -> None:
        """The uniformity analysis's verdict for each new or rewritten instruction, as
        llc's rerun before selection gives it: divergent when an operand is, or is read
        outside a cycle with a divergent exit that holds it (temporal divergence).
        Recorded in ``ua`` (a data step from that operand)."""
        ua = self.ua
        try:
            fu = ua.function(self.fn)
        except (KeyError, AttributeError):
            return
        table = getattr(ua, "_divergent", None)
        cycles = [c.block_set for c in getattr(ua, "cycles_with_divergent_exit", ())]
        Inst = Instruction
        for i in self.recheck:
            if i.block is None or ua.is_divergent(i):
                continue
            cause = None
            for o in i.operands:
                if type(o) is _CONSTANT:
                    continue
                if ua.is_divergent(o):
                    cause = o
                    break
                if cycles and type(o) is Inst and o.block is not None:
                    for c in cycles:
                        if o.block in c and i.block not in c:
                            cause = o
                            break
                    if cause is not None:
                        break
            if cause is not None:
                fu.divergent[i] = cause
                if table is not None and table is not fu.divergent:
                    table.add(i)


# --- what may move ---------------------------------------------------------------
def call_kind(st, i) -> int:
    """1: a call of a speculatable intrinsic that reads no memory; 2: of one that
    reads no memory and is not speculatable; 0: any other call."""
    callee = i.callee or ""
    k = st.call_kinds.get(callee)
    if k is not None:
        return k
    k = 0
    if callee.startswith("llvm."):
        parts = callee.split(".")
        known = getattr(st.target, "intrinsics_by_ir_name", None) or {}
        for n in range(len(parts), 1, -1):
            base = ".".join(parts[:n])
            if base in _SPECULATABLE_INTRINSICS:
                k = 1
                break
            rec = known.get(base)
            if rec is not None:
                props = {str(p) for p in rec.properties}
                if "IntrNoMem" in props and "IntrConvergent" not in props \
                        and "IntrHasSideEffects" not in props:
                    k = 1 if "IntrSpeculatable" in props else 2
                break
    st.call_kinds[callee] = k
    return k


def division_is_safe(i) -> bool:
    """isSafeToSpeculativelyExecute of a division: a constant divisor other than 0
    (and for a signed one other than -1, unless the dividend is a constant other
    than the smallest signed value)."""
    d = _cval(i.operands[1])
    if d is None or d == 0:
        return False
    if i.opcode in ("udiv", "urem"):
        return True
    bits = _bits(i)
    if d != (1 << bits) - 1:
        return True
    n = _cval(i.operands[0])
    return n is not None and n != 1 << (bits - 1)


def guaranteed_to_execute(i, b, h, body) -> bool:
    """isGuaranteedToExecute: no call of a non-intrinsic before ``i`` in its block (an
    instruction that may not return), and every path from the header that stays in
    the loop reaches ``b`` (allLoopPathsLeadToBlock: the header; else no latch among
    ``b``'s transitive predecessors in the loop, and no branch out of them to a block
    that is neither one of them nor ``b``)."""
    for x in b.instructions:
        if x is i:
            break
        if x.opcode == "call" and not (x.callee or "").startswith("llvm."):
            return False
    if b is h:
        return True
    preds = set(b.predecessors)
    stack = list(preds)
    while stack:
        x = stack.pop()
        if x is h:
            continue
        for p in x.predecessors:
            if p not in preds:
                preds.add(p)
                stack.append(p)
    for p in h.predecessors:
        if p in preds:
            return False
    for p in preds:
        for x in p.instructions:
            if x.opcode == "call" and not (x.callee or "").startswith("llvm."):
                return False
        for s in p.successors:
            if s is not b and s not in preds:
                return False
    return True


# --- hoistRegion -----------------------------------------------------------------
def hoist_region(st, h, body, ph, innermost) -> None:
    """LLVM's hoistRegion for the loop with header ``h``, blocks ``body`` and
    preheader ``ph`` (see ``licm``)."""
    Inst, Int = Instruction, IntType
    kinds = _HOIST_KIND
    roots = _REASSOCIATED
    signed = _SIGNED_PREDICATES
    i: Instruction
    o: Any
    pins = ph.instructions  # (each moved or new one goes before its terminator)
    st.ph = ph
    moved = st.moved
    for b in _loop_rpo(h, body):
        if innermost[b] is not h:
            continue  # (a block of an inner loop)
        insts: list = b.instructions
        gone: Any = None
        # (a snapshot: a reassociation erases the instruction visited or earlier
        # ones and inserts before them, so the walk goes on as LLVM's does)
        for i in insts[:]:
            if i.name is None or i.block is not b:  # (void, or erased since)
                continue
            opc = i.opcode
            kind = kinds.get(opc)
            if kind is None:
                continue
            for o in i.operands:
                if type(o) is Inst and o.block in body:
                    break
            else:
                if kind == 1:
                    ok = True
                elif kind == 2:
                    ok = division_is_safe(i) or guaranteed_to_execute(i, b, h, body)
                else:
                    ck = call_kind(st, i)
                    ok = ck == 1 or (ck == 2 and guaranteed_to_execute(i, b, h, body))
                if ok:
                    # (its block is the preheader from now on: a later
                    # instruction reading it can move too)
                    i.block = ph
                    pins.insert(len(pins) - 1, i)
                    moved.append(i)
                    if gone is None:
                        gone = set()
                    gone.add(i)
                    continue
            # hoistArithmetics (the cheap part of each precondition inline)
            r = roots.get(opc)
            if r is None:
                continue
            if r == 1:
                hoist_mul_add(st, i, body, ph)
            elif r == 2:
                if i.predicate in signed:
                    hoist_add_sub(st, i, body, ph)
            elif r == 3:
                hoist_gep(st, i, body, ph)
            else:
                t = i.type
                if type(t) is Int and t.bits == 1:
                    hoist_min_max(st, i, body, ph)
        if gone:
            insts[:] = [i for i in insts if i not in gone]


# --- hoistArithmetics: LLVM 19 tries hoistMinMax, hoistGEP, hoistAddSub,
# hoistMulAddAssociation in turn; each applies to other opcodes -----------------
def hoist_min_max(st, i, body, ph) -> bool:
    """hoistMinMax: ``(x < a) && (x < b)`` -> ``x < min(a, b)`` (and ``||`` with max;
    either compare's operands in either order, the same predicate after putting the
    variant side left; ``and``/``or`` of i1 or their select forms), the min/max
    intrinsic in the preheader, the new compare in place of ``i`` with its name."""
    t = i.type
    if type(t) is not _INT_TYPE or t.bits != 1:
        return False
    ops = i.operands
    if i.opcode == "select":
        c, tv, fv = ops
        if c.type is not t and _bits(c) != 1:
            return False
        if _cval(tv) == 1 and type(tv) is _CONSTANT:
            inverse, c1, c2 = True, c, fv  # (m_LogicalOr first)
        elif _cval(fv) == 0 and type(fv) is _CONSTANT:
            inverse, c1, c2 = False, c, tv
        else:
            return False
    else:
        inverse = i.opcode == "or"
        c1, c2 = ops

    def inv(v):
        return type(v) is not _INSTRUCTION or v.block not in body

    def match(c):  # (its one use is asked last, below)
        if type(c) is not _INSTRUCTION or c.opcode != "icmp":
            return None
        lhs, rhs = c.operands
        p = c.predicate
        if type(lhs.type) is not _INT_TYPE or p in ("eq", "ne"):
            return None
        if inv(lhs):
            lhs, rhs, p = rhs, lhs, _SWAP[p]
        if inv(lhs) or not inv(rhs):
            return None
        if inverse:
            p = _INVERSE[p]
        return p, lhs, rhs

    m1 = match(c1)
    if m1 is None:
        return False
    m2 = match(c2)
    if m2 is None or m1[0] != m2[0] or m1[1] is not m2[1]:
        return False
    # (LLVM has deleted a dead ``i``; the preconditions are a conjunction, so the
    # use counts, which cost most, come last)
    if st.is_dead(i) or not st.one_use(c1) or not st.one_use(c2):
        return False
    p, lhs, rhs1 = m1
    rhs2 = m2[2]
    use_min = p in ("slt", "sle", "ult", "ule")
    signed = p in _SIGNED_PREDICATES
    if i.opcode == "select":
        # (a new unconditional use of the second bound: frozen)
        base = rhs2.name if type(rhs2) in (Instruction, Argument) and rhs2.name \
            and not rhs2.name.isdigit() else ""
        rhs2 = st.new("freeze", base + ".fr", rhs2.type, [rhs2], ph)
    what = ("s" if signed else "u") + ("min" if use_min else "max")
    callee = f"llvm.{what}.{rhs1.type}"
    from patterns.ir.core import GlobalRef

    mm = st.new("call", "invariant." + what, rhs1.type, [rhs1, rhs2], ph, callee=callee,
                  callee_value=GlobalRef(callee), arg_attrs=[(), ()])
    # (the compare takes the name of ``i``, which goes)
    cmp = st.new("icmp", "", t, [lhs, mm], i.block, i, name=i.name, predicate=_INVERSE[p] if inverse else p)
    st.replace_all_uses(i, cmp)
    st.erase(i)
    st.erase(c1)
    st.erase(c2)
    return True


def hoist_gep(st, i, body, ph) -> bool:
    """hoistGEP: ``gep (gep p, i1), i2`` with ``p`` and ``i2`` invariant and the inner
    GEP used once -> ``gep (gep p, i2), i1``, the invariant one in the preheader
    (``invariant.gep``), the other (``gep``) in place of ``i``; inbounds kept when
    both were and every index is known non-negative."""
    src = i.operands[0]
    if type(src) is not _INSTRUCTION or src.opcode != "getelementptr" or src.block not in body:
        return False
    Inst = Instruction

    def inv(v):
        return type(v) is not Inst or v.block not in body

    if not inv(src.operands[0]) or not all(inv(x) for x in i.operands[1:]):
        return False
    if all(inv(x) for x in src.operands[1:]):
        return False
    if st.is_dead(i) or not st.one_use(src):
        return False
    inb = "inbounds" in src.flags and "inbounds" in i.flags
    if inb:
        p = st.analyses()
        for x in src.operands[1:] + i.operands[1:]:
            if type(x.type) is not _INT_TYPE:
                inb = False
                break
            z, _o = known_bits(p, x)
            if not (z >> (x.type.bits - 1)) & 1:
                inb = False
                break
    flags = frozenset({"inbounds"}) if inb else frozenset()
    new_src = st.new("getelementptr", "invariant.gep", i.type, [src.operands[0]] + i.operands[1:], ph,
                       source_type=i.source_type, flags=flags)
    g = st.new("getelementptr", "gep", i.type, [new_src] + src.operands[1:], i.block, i,
                 source_type=src.source_type, flags=flags)
    st.replace_all_uses(i, g)
    st.erase(i)
    st.erase(src)
    return True


def hoist_add_sub(st, i, body, ph) -> bool:
    """hoistAddSub: a signed compare of a once-used ``add nsw`` / ``sub nsw`` of a
    variant and an invariant value against an invariant one moves the invariant part
    to the other side when that cannot overflow: ``x + a < b`` -> ``x < b - a``,
    ``x - a < b`` -> ``x < a + b``, ``a - x < b`` -> ``x > a - b`` (the new operation
    ``invariant.op``, nsw, in the preheader; the compare rewritten in place, the add
    or sub erased)."""
    p = i.predicate
    if p not in _SIGNED_PREDICATES:
        return False
    lhs, rhs = i.operands
    Inst = Instruction

    def inv(v):
        return type(v) is not Inst or v.block not in body

    if inv(lhs):
        lhs, rhs, p = rhs, lhs, _SWAP[p]
    if inv(lhs) or not inv(rhs):
        return False
    if lhs.opcode not in ("add", "sub") or "nsw" not in lhs.flags or type(lhs.type) is not _INT_TYPE:
        return False
    if st.is_dead(i) or not st.one_use(lhs):
        return False
    var, c1 = lhs.operands
    if lhs.opcode == "add":  # hoistAdd
        if inv(var):
            var, c1 = c1, var
        if inv(var) or not inv(c1) or not no_signed_overflow(st, "sub", rhs, c1):
            return False
        new = st.binop("sub", rhs, c1, "invariant.op", ph, ("nsw",))
    else:  # hoistSub
        subtracted = False
        if inv(var):
            var, c1 = c1, var
            subtracted = True
            p = _SWAP[p]
        if inv(var) or not inv(c1):
            return False
        if subtracted:
            if not no_signed_overflow(st, "sub", c1, rhs):
                return False
            new = st.binop("sub", c1, rhs, "invariant.op", ph, ("nsw",))
        else:
            if not no_signed_overflow(st, "add", c1, rhs):
                return False
            new = st.binop("add", c1, rhs, "invariant.op", ph, ("nsw",))
    i.predicate = p
    st.set_operands(i, [var, new])
    st.erase(lhs)
    st.moved.append(i)
    return True


def no_signed_overflow(st, opc: str, a, b) -> bool:
    """computeOverflowForSignedAdd/Sub (``a`` op ``b``) says NeverOverflows: both have
    two sign bits or more, or their signed ranges (known bits intersected with
    computeConstantRange) cannot overflow; for a sub also ``a - (a srem y)`` and
    ``a - (a -nsw y)`` with ``a`` a constant (isGuaranteedNotToBeUndef)."""
    if opc == "sub" and type(b) is _INSTRUCTION and len(b.operands) == 2 and b.operands[0] is a \
            and (b.opcode == "srem" or (b.opcode == "sub" and "nsw" in b.flags)):
        if type(a) is _CONSTANT and a.kind == "int":
            return True
    p = st.analyses()
    if num_sign_bits(p, a) > 1 and num_sign_bits(p, b) > 1:
        return True
    ra, rb = signed_range(st, a), signed_range(st, b)
    if ra is None or rb is None:
        return True  # (an empty range: MayNotOverflow)
    bits = _bits(a)
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if opc == "add":
        return ra[0] + rb[0] >= lo and ra[1] + rb[1] <= hi
    return ra[0] - rb[1] >= lo and ra[1] - rb[0] <= hi


def signed_range(st, v):
    """computeConstantRangeIncludingKnownBits(v, ForSigned=true) as a signed interval
    (None when empty)."""
    p = st.analyses()
    bits = _bits(v)
    m = (1 << bits) - 1
    sb = 1 << (bits - 1)
    z, o = known_bits(p, v)
    if (z | o) & sb:
        lo, hi = _signed(o, bits), _signed(~z & m, bits)
    else:
        lo, hi = _signed(o | sb, bits), _signed(~z & m & ~sb, bits)
    r = constant_range(p, v, True)
    if r is not None:
        lo, hi = max(lo, r[0]), min(hi, r[1])
    return (lo, hi) if lo <= hi else None


def hoist_mul_add(st, i, body, ph) -> bool:
    """hoistMulAddAssociation (integers): ``i = V * C`` with ``C`` invariant, where
    ``V`` is a product ``x * a`` (``a`` invariant, either operand) or a sum of such
    products (adds whose two operands are binary operators), every node used once,
    at most five products: each product becomes ``x * (a * C)``, the invariant
    ``a * C`` (``factor.op.mul``) in the preheader, in the order a last-in first-out
    walk from ``V`` meets the products (second operand first), the rewritten product
    ``X.reass`` where ``X`` was with the operand in its place; the adds lose
    nuw/nsw; ``i``'s uses read ``V`` (or its rewrite)."""
    var, factor = i.operands
    Inst = Instruction
    # (one operand defined in the loop, the other not)
    if type(var) is not Inst or var.block not in body:
        var, factor = factor, var
        if type(var) is not Inst or var.block not in body:
            return False
    elif type(factor) is Inst and factor.block in body:
        return False
    if type(i.type) is not _INT_TYPE:
        return False

    def inv(v):
        return type(v) is not Inst or v.block not in body

    changes: list = []
    adds: list = []
    nodes: list = []
    binops = _BINARY_OPERATORS
    work = [var] if var.opcode in binops else []
    while work:
        bo = work.pop()
        nodes.append(bo)  # (each must be used once: asked last, below)
        if bo.opcode == "add":
            x, y = bo.operands
            if type(x) is Inst and x.opcode in binops and type(y) is Inst and y.opcode in binops:
                work.append(x)
                work.append(y)
                adds.append(bo)
                continue
        if bo.opcode != "mul" or inv(bo):
            return False
        x, y = bo.operands
        if inv(x):
            changes.append((bo, 0))
        elif inv(y):
            changes.append((bo, 1))
        else:
            return False
        if len(changes) > _INT_ASSOCIATION_LIMIT:
            return False
    if not changes or st.is_dead(i):
        return False
    for bo in nodes:
        if not st.one_use(bo):
            return False
    for a in adds:
        a.flags = a.flags - {"nuw", "nsw"}
        a._text = None
    for ins, k in changes:
        u = ins.operands[k]
        f = st.binop("mul", u, factor, "factor.op.mul", ph)
        ops = list(ins.operands)
        ops[k] = f
        base = ins.name if not ins.name.isdigit() else ""
        new = st.new("mul", base + ".reass", ins.type, ops, ins.block, ins)
        if var is ins:
            var = new
        st.replace_all_uses(ins, new)
        st.erase(ins)
    for a in adds[::-1]:  # (their divergence after the products', inner first)
        st.recheck.append(a)
    st.replace_all_uses(i, var)
    st.erase(i)
    return True


def mul24(fn: Function, ua, target=None, idom: dict | None = None) -> int:
    """AMDGPUCodeGenPrepare's replaceMulWithMul24: a divergent i32 ``mul`` whose operands
    both fit in 24 bits -- unsigned (known leading zeros), else signed (sign bits) --
    becomes a call of ``llvm.amdgcn.mul.u24`` / ``llvm.amdgcn.mul.i24`` (the instruction is
    rewritten in place). Uniform multiplies stay (s_mul_i32). Only when ``target`` lowers
    those intrinsics. ``ua``: the uniformity analysis of ``fn`` as it is now (llc's
    rerun after EarlyCSE; see ``run_ir_passes``). Returns how many were rewritten."""
    known = getattr(target, "intrinsics_by_ir_name", None) or {}
    if "llvm.amdgcn.mul.u24" not in known or ua is None:
        return 0
    is_div = ua.is_divergent
    div = [i for b in fn.blocks for i in b.instructions
           if i.opcode == "mul" and _bits(i) == 32 and is_div(i)]
    if not div:
        return 0
    p = new_simplify_query(fn, None, {})
    done = 0
    for i in div:
        x, y = i.operands
        # (numBitsUnsigned <= 24 for both, else numBitsSigned <= 24 for both)
        if _lead_zeros(known_bits(p, x), x) >= 8 and _lead_zeros(known_bits(p, y), y) >= 8:
            name = "llvm.amdgcn.mul.u24.i32"
        elif num_sign_bits(p, x) >= 9 and num_sign_bits(p, y) >= 9:
            name = "llvm.amdgcn.mul.i24.i32"
        else:
            continue
        i.opcode = "call"
        i.callee = name
        i._text = None
        done += 1
    if done:
        fn.uses = None
    return done


def run_ir_passes(fn, ua=None, target=None):
    """The IR passes of llc's pipeline modeled here, in its order, on ``fn`` in place:
    EarlyCSE (with InstSimplify), AMDGPUCodeGenPrepare's 24-bit multiplies, LICM, the
    modeled case of LoopStrengthReduce (``patterns.llc.lsr``), and EarlyCSE again when LICM
    moved code (llc's last EarlyCSE runs after its loop passes). The dominator tree is
    built once (none of the passes changes the CFG); the parser's user lists, when
    current, tell each rewrite which instructions read a replaced value.

    ``ua``: the uniformity analysis of ``fn`` as given, or None. As in llc, whose
    pipeline computes the analysis again after its first EarlyCSE runs (for
    AMDGPUCodeGenPrepare) and again before selection, it is (re)computed, in ``ua``'s
    mode, on the IR the pass that reads it sees: after EarlyCSE when there is a 32-bit
    multiply for mul24 to ask about, and at the end when the function changed since.
    Returns the analysis of the function as the passes leave it (``ua`` itself when
    nothing changed)."""
    if getattr(fn, "is_declaration", False) or not fn.blocks:
        return ua
    from patterns.dag.builder import immediate_dominators

    compat = getattr(ua, "llvm19_compat", False)
    stale = remove_unreachable_blocks(fn)  # (llc's UnreachableBlockElim comes first)
    idom = immediate_dominators(fn)
    dom = _dom_tree(fn, idom)
    grew: dict | None = {} if fn.uses is not None else None
    stale = stale or ua is None  # (``ua`` not the analysis of the IR as it is)
    # (EarlyCSE changes no opcode and leaves the instructions it replaces in place: the
    # multiplies are those it leaves)
    mul24_cands = _has_mul24_candidates(fn, target)
    # (LLVM erases what EarlyCSE replaces.) When the analysis is made next, for mul24
    # (``stale`` then, whenever EarlyCSE replaced anything), the parser's user lists are
    # brought up to date rather than left for the analysis to scan the function again:
    # the same lists, which LICM then reads as it would read the analysis's
    erased = apply_early_cse(fn, idom, dom, grew, keep_uses=mul24_cands)
    if erased:
        stale = True
    if mul24_cands:
        if stale:
            ua, stale = _analysis(fn, target, compat), False
        mul24(fn, ua, target, idom)  # (a mul -> mul24 call keeps its verdict)
    # (LICM and LSR are given no analysis: the one made at the end replaces the
    # verdicts they would note for what they move and make)
    st = _licm(fn, idom, dom, None, target, grew)
    from patterns.llc.lsr import loop_strength_reduce

    # (llc's LSR runs after LICM, before its last EarlyCSE; without LICM's state the
    # function has fewer than two blocks or no loop, and LSR nothing to do)
    readers: list = []
    if st is not None and loop_strength_reduce(fn, None, idom, dom, st.forest, readers, st.names_now()):
        grew = None  # (LSR rewired readers: its own reader map serves the rewrite below)
        stale = True
    if st is not None and st.moved:
        stale = True
        if grew is not None:
            for v, us in st.extra.items():  # (the users the reassociations gave values)
                grew.setdefault(v, []).extend(us)
        erased = {**erased, **_cse_moved(fn, [i for i in st.result() if i.block is not None], idom, dom, grew,
                                         readers[0] if readers else None)}
    # CodeGenPrepare, after the last EarlyCSE: its instruction step first (here the
    # shift sinking), then its branch folding; then UnreachableBlockElim (the phis
    # they replace are rewritten in one scan)
    if sink_extract_bits(fn, erased):
        stale = True
    gone: dict = {}
    if _fold_constant_branches(fn, gone):
        stale = True
    if _remove_unreachable_blocks(fn, gone):
        stale = True
    _replace_phis(fn, gone)
    if stale:
        ua = _analysis(fn, target, compat)
    return ua


# --- CodeGenPrepare's branch folding -----------------------------------------------------

_EXTRACT_SHIFTS: Final = frozenset({"lshr", "ashr"})


def sink_extract_bits(fn: Function, erased=()) -> bool:
    """CodeGenPrepare's OptimizeExtractBits (AMDGPU has a bit-field extract, so it runs):
    an ``lshr``/``ashr`` by a constant read in another block by a ``trunc``, or by an
    ``and`` with a low-bit mask constant (``m & (m + 1) == 0``) as its second operand, is
    copied to the top of that block (after its phis; one copy per block, a later shift's
    copy above an earlier one's) and the read goes to the copy, so the block's DAG sees
    the whole extract (v_bfe/s_bfe). Phis and other readers keep the shift (one left
    without readers is erased by CodeGenPrepare: patterns.dag.builder's model of the dead code
    llc keeps drops it). Shifts in program order. ``erased``: instructions LLVM has
    deleted by now that our passes leave in place (replaced by EarlyCSE): not readers.
    Not modeled: a ``trunc`` in the shift's own block to an illegal type
    (SinkShiftAndTruncate). Returns whether the function changed."""
    found: dict = {}  # shift -> its readers to redirect, in program order
    order: dict = {}  # shift -> position in program order
    shifts = _EXTRACT_SHIFTS
    k = 0
    for b in fn.blocks:
        for u in b.instructions:
            opc = u.opcode
            if opc in shifts:
                order[u] = k
                k += 1
            elif opc == "and" or opc == "trunc":
                sh = u.operands[0]
                if type(sh) is not _INSTRUCTION or sh.opcode not in shifts or sh.block is b or u in erased:
                    continue
                c = sh.operands[1] if len(sh.operands) == 2 else None
                if type(c) is not _CONSTANT or _cval(c) is None or not _extract_bits_reader(u, sh):
                    continue
                lst = found.get(sh)
                if lst is None:
                    found[sh] = [u]
                else:
                    lst.append(u)
    if not found:
        return False
    for sh in sorted(found, key=lambda x: order.get(x, -1)):
        copies: dict = {}
        for u in found[sh]:
            blk = u.block
            cp = copies.get(blk)
            if cp is None:
                a, c = sh.operands
                c2 = Constant(c.type, c.text, c.kind, c.value)
                cp = copies[blk] = Instruction(sh.opcode, None, sh.type, [a, c2], blk)
                # (made after llc's last EarlyCSE: the CSE of patterns.dag.builder's prepasses,
                # which stands for that pass, leaves it alone)
                setattr(cp, "cgp_copy", True)
                insts = blk.instructions
                j = 0
                while j < len(insts) and insts[j].opcode == "phi":
                    j += 1
                insts.insert(j, cp)
            u.operands = [cp if o is sh else o for o in u.operands]
            u._text = None
    number_unnamed(fn, True)  # (the copies are unnamed)
    fn.uses = None
    return True


def number_unnamed(fn: Function, unnamed: bool = False) -> list:
    """Name the unnamed values (and renumber the numbered ones) in program order, as
    LLVM numbers them when it prints: ``%0``, ``%1`` ... Returns the instructions renamed
    (the kept text of every instruction is dropped then: readers print the new names).
    ``unnamed``: the caller knows the function holds an unnamed value (which is renamed
    then), so the texts are dropped in the same walk."""
    i: Instruction
    k = 0
    renamed = []
    if unnamed:
        for b in fn.blocks:
            for i in b.instructions:
                i._text = None
                if i.type is not _VOID_TYPE and (i.name is None or _numbered(i.name)):
                    if i.name != str(k):
                        i.name = str(k)
                        i.slot = None
                        renamed.append(i)
                    k += 1
        return renamed
    for b in fn.blocks:
        for i in b.instructions:
            if i.type is not _VOID_TYPE and (i.name is None or _numbered(i.name)):
                if i.name != str(k):
                    i.name = str(k)
                    i.slot = None
                    renamed.append(i)
                k += 1
    if renamed:
        for b in fn.blocks:
            for i in b.instructions:
                i._text = None
    return renamed


def _numbered(name: str) -> bool:
    """A numbered value's name (``%0``, ``%12``)."""
    return name.isdigit()


def _extract_bits_reader(u, sh) -> bool:
    """isExtractBitsCandidateUse: a trunc, or ``and sh, m`` with m a low-bit mask."""
    if u.opcode == "trunc":
        return True
    if u.opcode != "and" or len(u.operands) != 2 or u.operands[0] is not sh:
        return False
    m = _cval(u.operands[1])
    return m is not None and not (m & (m + 1)) & ((1 << u.type.bits) - 1)


def fold_constant_branches(fn) -> bool:
    """``_fold_constant_branches`` with the phis it replaces rewritten."""
    gone: dict = {}
    changed = _fold_constant_branches(fn, gone)
    _replace_phis(fn, gone)
    return changed


def remove_unreachable_blocks(fn) -> bool:
    """``_remove_unreachable_blocks`` with the phis it replaces rewritten."""
    gone: dict = {}
    changed = _remove_unreachable_blocks(fn, gone)
    _replace_phis(fn, gone)
    return changed


def _replace_phis(fn: Function, rep: dict) -> None:
    """Every use of a phi of ``rep`` reads what replaces it; the phis are erased."""
    if not rep:
        return
    _rewrite(fn, {i: _resolve(rep, v) for i, v in rep.items()})
    for i in rep:
        if i.block is not None:
            i.block.instructions.remove(i)
            i.block = None


def _fold_constant_branches(fn: Function, rep: dict) -> bool:
    """What llc's CodeGenPrepare does to branches (its branch optimizations, on at -O2):
    every conditional ``br`` on a constant, or to the same block twice, becomes an
    unconditional ``br`` (ConstantFoldTerminator; the block left is told it lost a
    predecessor), blocks left without predecessors are deleted with the blocks only they
    reached (DeleteDeadBlock, a worklist taken from the back), and then, as something
    changed, each block (in function order, the entry aside) whose one predecessor ends
    in an unconditional ``br`` to it is merged into that predecessor
    (eliminateFallThrough / MergeBlockIntoPredecessor: its phis, one incoming value each,
    replaced by that value; a block with a phi reading itself is left). A block losing a
    predecessor loses that phi entry, and a phi then merging one value only (itself
    aside) is replaced by it (BasicBlock::removePredecessor). Returns whether the
    function changed. Not modeled: ``switch`` on a constant, and the rest of
    CodeGenPrepare (sinking, mostly-empty blocks, ...). EarlyCSE leaves a branch on a
    constant when InstSimplify folded its compare (``icmp sgt %x, %x``). ``rep`` gets
    each phi replaced -> the value replacing it (``_replace_phis`` rewrites them)."""
    blocks = fn.blocks
    if len(blocks) < 2:
        return False
    work: list = []  # blocks without predecessors (a set vector: each once)
    changed = False
    for b in list(blocks):
        t = b.instructions[-1] if b.instructions else None
        if t is None or t.opcode != "br" or len(t.targets) != 2:
            continue
        t0, t1 = t.targets
        c = t.operands[0] if t.operands else None
        if t0 is t1:
            keep, drop = t0, t0
        else:
            cv = _cval(c) if c is not None and type(c) is _CONSTANT else None
            if cv is None:
                continue
            keep, drop = (t0, t1) if cv else (t1, t0)
        changed = True
        t.operands = []
        t.targets = [keep]
        t._text = None
        b.successors = [keep]
        _remove_predecessor(drop, b, rep, drop is not keep)
        if not drop.predecessors and drop is not blocks[0] and drop not in work:
            work.append(drop)
    if not changed:
        return False
    dead: set = set()
    while work:
        d = work.pop()
        succs = list(dict.fromkeys(d.successors))
        _detach(d, d.successors, rep)
        dead.add(d)
        d.successors = []
        for sc in succs:
            if not sc.predecessors and sc is not blocks[0] and sc not in dead and sc not in work:
                work.append(sc)
    if dead:
        fn.blocks = blocks = [b for b in blocks if b not in dead]
        for d in dead:
            for i in d.instructions:  # (their uses elsewhere are in dead blocks too)
                i.block = None
    # eliminateFallThrough (blocks the entry does not reach -- a loop whose way in was
    # deleted -- are passed over)
    reach = _reachable(blocks[0])
    for bb in list(blocks[1:]):
        preds = bb.predecessors
        if len(preds) != 1 or bb not in reach:
            continue
        pred = preds[0]
        if pred is bb:
            continue
        t = pred.instructions[-1]
        if t.opcode != "br" or len(t.targets) != 1:
            continue
        phis = [i for i in bb.instructions if i.opcode == "phi"]
        if any(v is i for i in phis for v, _b in i.incoming):
            continue
        for i in phis:  # FoldSingleEntryPHINodes
            rep[i] = _resolve(rep, i.incoming[0][0])
            i.block = None
        pred.instructions.pop()
        for i in bb.instructions:
            if i.opcode != "phi":
                i.block = pred
                pred.instructions.append(i)
        pred.successors = bb.successors
        for sc in dict.fromkeys(bb.successors):
            sc.predecessors = [pred if p is bb else p for p in sc.predecessors]
            for i in sc.instructions:
                if i.opcode != "phi":
                    break
                i.incoming = [(v, pred if pb is bb else pb) for v, pb in i.incoming]
                i._text = None
        blocks.remove(bb)
        bb.instructions = []
    fn.blocks = blocks
    for k, b in enumerate(blocks):
        b.index = k
    fn.uses = None
    return True


def _remove_unreachable_blocks(fn: Function, rep: dict) -> bool:
    """llc's UnreachableBlockElim (EliminateUnreachableBlocks): the blocks the entry does
    not reach are deleted; each reachable block they branch to loses those predecessors
    (``_remove_predecessor``, the phis updated as there; ``rep`` gets the phis replaced).
    Returns whether any block was deleted."""
    blocks = fn.blocks
    if not blocks:
        return False
    reach = _reachable(blocks[0])
    if len(reach) == len(blocks):
        return False
    dead = [b for b in blocks if b not in reach]
    for d in dead:
        _detach(d, [sc for sc in d.successors if sc in reach], rep)
    for d in dead:
        for i in d.instructions:
            i.block = None
        d.successors = []
        d.predecessors = []
    fn.blocks = [b for b in blocks if b in reach]
    for k, b in enumerate(fn.blocks):
        b.index = k
    for b in fn.blocks:  # (a reachable block's predecessors are reachable)
        if any(p not in reach for p in b.predecessors):
            b.predecessors = [p for p in b.predecessors if p in reach]
    fn.uses = None
    return True


def _reachable(entry) -> set:
    """The blocks reachable from ``entry``."""
    reach = {entry}
    stack = [entry]
    while stack:
        for sc in stack.pop().successors:
            if sc not in reach:
                reach.add(sc)
                stack.append(sc)
    return reach


def _resolve(rep: dict, v):
    while v in rep:
        v = rep[v]
    return v


def _detach(d, succs: list, rep: dict) -> None:
    """Each edge of the deleted block ``d`` to a block of ``succs`` (one per entry) is
    removed as ``_remove_predecessor`` does, ``d`` leaving the predecessor list with its
    last edge."""
    left: dict = {}
    for sc in succs:
        left[sc] = left.get(sc, 0) + 1
    for sc in succs:
        left[sc] -= 1
        _remove_predecessor(sc, d, rep, not left[sc])


def _remove_predecessor(b, pred, rep: dict, last: bool) -> None:
    """BasicBlock::removePredecessor(pred): one edge from ``pred`` gone (``last``: its
    only one, so ``pred`` leaves ``b``'s predecessor list, which holds each block once);
    each phi of ``b`` loses its first entry for ``pred`` and, when the phis had more than
    one entry, a phi merging one value only (itself aside) is replaced by it (recorded in
    ``rep``; a phi left without entries by poison)."""
    if last:
        preds = b.predecessors
        for k, p in enumerate(preds):
            if p is pred:
                del preds[k]
                break
    n_before = None  # (the phis' entries before: one per edge into ``b``)
    for i in b.instructions:
        if i.opcode != "phi":
            break
        if i in rep:
            continue
        inc = i.incoming
        if n_before is None:
            n_before = len(inc)
        for k, (_v, pb) in enumerate(inc):
            if pb is pred:
                del inc[k]
                break
        i.operands = [v for v, _pb in inc]
        i._text = None
        if not inc:
            rep[i] = Constant(i.type, "poison", "poison")
            continue
        if n_before == 1:
            continue
        common = None
        for v, _pb in inc:
            v = _resolve(rep, v)
            if v is i:
                continue
            if common is None:
                common = v
            elif not (_same(v, common) or (type(v) is _CONSTANT and type(common) is _CONSTANT
                                           and v.type == common.type and v.text == common.text)):
                common = False  # (constants are one value in LLVM when their type and text are)
                break
        if common is False:
            continue
        rep[i] = Constant(i.type, "poison", "poison") if common is None else common


def _analysis(fn, target, llvm19_compat: bool):
    """The uniformity analysis of ``fn`` as it is now."""
    from patterns.uniformity.analysis import analyze

    return analyze(fn, target, llvm19_compat=llvm19_compat)


def _has_mul24_candidates(fn, target) -> bool:
    """Whether ``mul24`` has anything to ask the analysis about: the target lowers the
    24-bit multiply intrinsics and ``fn`` has a 32-bit ``mul``."""
    known = getattr(target, "intrinsics_by_ir_name", None) or {}
    if "llvm.amdgcn.mul.u24" not in known:
        return False
    return any(i.opcode == "mul" and _bits(i) == 32 for b in fn.blocks for i in b.instructions)


def _cse_moved(fn: Function, moved: list, idom: dict, dom: tuple | None = None, grew: dict | None = None,
               readers: dict | None = None) -> dict:
    """What llc's EarlyCSE after its loop passes finds for code LICM hoisted: a hoisted
    instruction equal to one that now dominates it (same key as EarlyCSE's) is replaced
    by it (every use rewritten). Only the hoisted instructions can have a new dominating
    equal (the rest kept their places), and only in the preheaders' dominator chains.
    ``grew``: from the earlier rewrite (see ``_rewrite``), None when the parser's user
    lists were not current. ``readers``: else, when LSR made it, LSR's map of the
    instructions that may read each one (``patterns.llc.lsr.loop_strength_reduce``)."""
    key_of = _cse_keys()
    wanted: dict = {}
    for i in moved:
        if i.opcode in _CSE_OPS and (i.opcode != "call" or _intrinsic(i) is not None):
            wanted.setdefault(key_of(i, i.operands), []).append(i)
    if not wanted:
        return {}
    _kids, pre, post = dom if dom is not None else _dom_tree(fn, idom)
    chain: set = set()
    for ph in {i.block for i in moved}:
        x = ph
        while x not in chain:
            chain.add(x)
            nx = idom.get(x)
            if nx is None or nx is x:
                break
            x = nx
    opcodes = {i.opcode for i in moved}
    # an instruction with the key of a hoisted one reads only values that one reads
    # (equal keys name the same non-constant operands)
    reads = set()
    for lst in wanted.values():
        for i in lst:
            for o in i.operands:
                if type(o) is not _CONSTANT:
                    reads.add(o)
    Const = Constant
    rep: dict = {}
    for b in fn.blocks:
        if b not in chain:
            continue
        insts = b.instructions
        for k, j in enumerate(insts):
            if j.opcode not in opcodes or j.name is None or j in rep:
                continue
            for o in j.operands:
                if type(o) is not Const and o not in reads:
                    break
            else:
                o = None
            if o is not None:
                continue
            cands = wanted.get(key_of(j, j.operands))
            if not cands:
                continue
            for i in cands:
                if i is j or i in rep:
                    continue
                if j.block is i.block:
                    if k < insts.index(i):
                        rep[i] = j
                else:
                    a, c = j.block, i.block
                    if a in pre and c in pre and pre[a] <= pre[c] and post[c] <= post[a]:
                        rep[i] = j
    if rep:
        if grew is not None:
            cands = _candidate_users(rep, grew)
        elif readers is not None:
            # (a superset of the readers: the rewrite picks those reading a replaced
            # instruction, whatever the order; the deleted ones are left alone, as a
            # scan of the function leaves them)
            cands = list(dict.fromkeys(u for i in rep for u in readers.get(i, ()) if u.block is not None))
        else:
            cands = None
        _rewrite(fn, rep, cands)
    return rep


def _candidate_users(rep: dict, grew: dict | None) -> list:
    """Every instruction that may read a replaced instruction of ``rep``, each once: its
    users in the parser's lists (``_users``, users in program order as parsed), plus
    those an earlier ``_rewrite`` gave it (``grew``)."""
    out: list = []
    for i in rep:
        us = i._users
        if us is not None:
            if type(us) is list:
                out.extend(us)
            else:
                out.append(us)
        if grew:
            g = grew.get(i)
            if g:
                out.extend(g)
    return list(dict.fromkeys(out))


def _rewrite(fn: Function, rep: dict, cands: list | None = None, grew: dict | None = None) -> None:
    """Every use of a replaced instruction reads its replacement (replaceAllUsesWith).
    ``cands``: the instructions that may read one (each once; every instruction when
    None). ``grew``, when given, collects for each instruction that became an operand
    the instructions now reading it (for a later rewrite's ``_candidate_users``)."""
    inst = Instruction
    if cands is None:
        cands = [i for b in fn.blocks for i in b.instructions]
    for i in cands:
        ops = i.operands
        for o in ops:
            if type(o) is inst and o in rep:
                break
        else:
            continue
        i.operands = [rep.get(o, o) if type(o) is inst else o for o in ops]
        if grew is not None:
            for o in ops:
                if type(o) is inst:
                    w = rep.get(o)
                    if w is not None and type(w) is inst:
                        g = grew.get(w)
                        if g is None:
                            grew[w] = [i]
                        else:
                            g.append(i)
        if i.opcode == "phi":
            i.incoming = [(rep.get(v, v) if type(v) is inst else v, blk) for v, blk in i.incoming]
        i._text = None
    fn.uses = None

"""Models of llc-19's IR passes that change the integer ALU code instruction selection sees.

``run_ir_passes(fn, ua, target)`` (called by ``patterns.sdag.build_function_dags``) runs
them in llc's order on the IR, in place (uses rewritten as replaceAllUsesWith leaves them,
hoisted instructions moved, a multiply turned into an intrinsic call): EarlyCSE with
InstSimplify (``early_cse``), AMDGPUCodeGenPrepare's replaceMulWithMul24 (``mul24``), LICM
(``licm``) and the CSE llc's last EarlyCSE finds for hoisted code. The parts not modeled
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
conflicting known bits (isKnownNonEqual) or by the branch condition of the single
predecessor (isImpliedByDomCondition).
"""

from __future__ import annotations

from .ir import Argument, Constant, Instruction, IntType
from .knownbits import add_carry_masks as _add_carry_masks, clz as _clz, mul_masks as _mul_masks, \
    shift_masks as _shift_masks

__all__ = ["early_cse", "simplify_function", "apply_early_cse", "licm", "run_ir_passes"]

_BINOPS = frozenset({"add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr"})
_ANDOR = frozenset({"and", "or"})

_ADDSUB = frozenset({"add", "sub"})
_COMMUTATIVE = frozenset({"add", "mul", "and", "or", "xor"})
_CSE_OPS = _BINOPS | {"icmp", "select", "zext", "sext", "trunc", "getelementptr", "freeze",
                      "udiv", "sdiv", "urem", "srem"}
_SWAP = {"eq": "eq", "ne": "ne", "slt": "sgt", "sgt": "slt", "sle": "sge", "sge": "sle",
         "ult": "ugt", "ugt": "ult", "ule": "uge", "uge": "ule"}
_INVERSE = {"eq": "ne", "ne": "eq", "slt": "sge", "sge": "slt", "sgt": "sle", "sle": "sgt",
            "ult": "uge", "uge": "ult", "ugt": "ule", "ule": "ugt"}
_MAX_DEPTH = 6  # ValueTracking's MaxAnalysisRecursionDepth
_RECURSION_LIMIT = 3  # InstSimplify's RecursionLimit
_ANY_DEPTH = 1 << 30  # the top of a memoized answer's depth range when no depth changes it


def _up(lo1: int, hi1: int, lo2: int, hi2: int) -> tuple[int, int]:
    """The query depths of a value whose operands were asked one level deeper and gave
    their answers for depths lo1..hi1 and lo2..hi2 (below the depth limit)."""
    lo = (lo1 if lo1 > lo2 else lo2) - 1
    hi = (hi1 if hi1 < hi2 else hi2) - 1
    return (lo if lo > 0 else 0), (hi if hi < _MAX_DEPTH else _MAX_DEPTH - 1)


def _bits(v) -> int | None:
    t = v.type
    return t.bits if t.__class__ is IntType else None


def _cval(v) -> int | None:
    """The unsigned value of an integer constant, else None."""
    if v.__class__ is not Constant:
        return None
    t = v.type
    if t.__class__ is not IntType:
        return None
    text = v.text
    if text == "true":
        return 1
    if text == "false":
        return 0
    if v.kind != "int":
        return None
    val = v.value
    if val.__class__ is not int and not isinstance(val, int):
        val = int(text, 0)
    return val & ((1 << t.bits) - 1)


def _same(a, b) -> bool:
    """The same value: one object, or integer constants of one width and value."""
    if a is b:
        return True
    if a.__class__ is Constant and b.__class__ is Constant:
        ca = _cval(a)
        return ca is not None and ca == _cval(b) and _bits(a) == _bits(b)
    return False


def _signed(u: int, bits: int) -> int:
    return u - (1 << bits) if u >> (bits - 1) else u


def _dom_tree(fn, idom: dict) -> tuple[dict, dict, dict]:
    """The dominator tree of ``idom`` as (children lists in source block order, preorder
    and postorder clock of each reachable block): ``a`` dominates ``b`` when
    ``pre[a] <= pre[b] and post[b] <= post[a]``. Built once per ``run_ir_passes`` and
    shared by its passes (none of them changes the CFG)."""
    kids: dict = {}
    for b in fn.blocks:
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
    pop, push = work.pop, work.append
    while work:
        x, done = pop()
        if done:
            post[x] = clock
            clock += 1
            continue
        pre[x] = clock
        clock += 1
        push((x, True))
        ks = kids.get(x)
        if ks:
            for k in reversed(ks):
                push((k, False))
    return kids, pre, post


class _Pass:
    """One function's EarlyCSE state: replacements, dominance, analyses."""

    def __init__(self, fn, idom: dict | None, rep: dict, dom: tuple | None = None):
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
        # the simplifier of each binary opcode (``binop_``)
        self.h = {opc: getattr(self, "_" + opc) for opc in _BINOPS}
        if idom is None:
            return  # (the analyses only: no dominance queries)
        self.kids, self.pre, self.post = dom if dom is not None else _dom_tree(fn, idom)

    # --- the IR as replaceAllUsesWith has left it -------------------------------------
    def r(self, v):
        if v.__class__ is not Instruction:
            return v  # (only instructions are replaced)
        rep = self.rep
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
        if v.__class__ is not Instruction:
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
        if a.__class__ is Constant and b.__class__ is Constant:
            ca, cb = _cval(a), _cval(b)
            return ca is not None and ca == cb and _bits(a) == _bits(b)
        return False

    def is_not(self, v, x=None):
        """``v`` is ``xor X, -1`` (either operand order): X (``x`` when given and equal)."""
        if v.__class__ is not Instruction:
            return None
        bo = self.bo.get(v)
        if bo is None:
            bo = self._binop(v)
        if bo is False or bo[0] != "xor":
            return None
        _, a, b = bo
        m = (1 << _bits(v)) - 1
        if b.__class__ is Constant and _cval(b) == m and (x is None or _same(a, x)):
            return a
        if a.__class__ is Constant and _cval(a) == m and (x is None or _same(b, x)):
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
    def known(self, v, depth: int = 0) -> tuple:
        """computeKnownBits: (known zero, known one) of ``v`` asked at ``depth``."""
        return self._kb(v, depth)[0]

    def _kb(self, v, depth: int) -> tuple:
        """(known bits, lo, hi): the answer at ``depth`` and the query depths giving it."""
        c = v.__class__
        if c is Instruction:
            t = v.type
            if t.__class__ is not IntType:
                return _NOTHING, 0, _ANY_DEPTH
            if depth >= _MAX_DEPTH:
                return _NOTHING, _MAX_DEPTH, _ANY_DEPTH
            memo = self.known_cache
            ent = memo.get(v)
            if ent is not None:
                if ent.__class__ is tuple:
                    if ent[1] <= depth <= ent[2]:
                        return ent
                else:
                    for e in ent:
                        if e[1] <= depth <= e[2]:
                            return e
            e = self._known(v, depth, t.bits)
            if ent is None:
                memo[v] = e
            elif ent.__class__ is tuple:
                memo[v] = [ent, e]
            else:
                ent.append(e)
            return e
        if c is Constant:
            cv = _cval(v)
            if cv is not None:  # (constants are answered before the depth limit)
                return (~cv & ((1 << v.type.bits) - 1), cv), 0, _ANY_DEPTH
        return _NOTHING, 0, _ANY_DEPTH  # arguments, undef, poison: nothing known

    def _known(self, v, depth: int, bits: int) -> tuple:
        """computeKnownBits of the integer instruction ``v`` at ``depth`` (below the
        limit) for the modeled opcodes, with the range of depths giving the same answer
        (see ``_kb``)."""
        opc = v.opcode
        if v.block is None:
            return _NOTHING, 0, _MAX_DEPTH - 1
        m = (1 << bits) - 1
        d1 = depth + 1
        kb_ = self._kb
        if opc in _BINOPS:
            bo = self.bo.get(v)
            if bo:
                a, b = bo[1], bo[2]
            else:
                ops = v.operands
                a, b = ops[0], ops[1]
                if self.rep:
                    a, b = self.r(a), self.r(b)
            # kb_(a, d1) and kb_(b, d1), with the memo's usual hit written out
            memo = self.known_cache
            Inst = Instruction
            if a.__class__ is Inst:
                e = memo.get(a)
                if e.__class__ is not tuple or not e[1] <= d1 <= e[2]:
                    e = kb_(a, d1)
                (za, oa), alo, ahi = e
            else:  # a constant or an argument: the same at every depth
                cv = _cval(a)
                za, oa = _NOTHING if cv is None else (~cv & m, cv)
                alo, ahi = 0, _ANY_DEPTH
            if b.__class__ is Inst:
                e = memo.get(b)
                if e.__class__ is not tuple or not e[1] <= d1 <= e[2]:
                    e = kb_(b, d1)
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
        r = self.r
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
                k = kb_(inc, _MAX_DEPTH - 1)[0]
                res = k if res is None else (res[0] & k[0], res[1] & k[1])
                if not (res[0] | res[1]):
                    break
            return (_NOTHING if res is None else res), 0, _MAX_DEPTH - 2
        if opc == "select":
            k1, lo1, hi1 = kb_(r(v.operands[1]), d1)
            k2, lo2, hi2 = kb_(r(v.operands[2]), d1)
            return (k1[0] & k2[0], k1[1] & k2[1]), *_up(lo1, hi1, lo2, hi2)
        if opc in ("zext", "sext", "trunc"):
            src = r(v.operands[0])
            sb = _bits(src)
            if sb is None:
                return _NOTHING, 0, _MAX_DEPTH - 1
            (z, o), slo, shi = kb_(src, d1)
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
            callee = v.callee or ""
            if callee.startswith(("llvm.ctpop", "llvm.ctlz", "llvm.cttz")):
                return (m & ~((1 << (bits.bit_length())) - 1), 0), 0, _MAX_DEPTH - 1
        return _NOTHING, 0, _MAX_DEPTH - 1

    def sign_bits(self, v, depth: int = 0) -> int:
        """ComputeNumSignBits of ``v`` asked at ``depth`` (memoized like ``known``)."""
        return self._sb(v, depth)[0]

    def _sb(self, v, depth: int) -> tuple:
        """(sign bits, lo, hi), as ``_kb``."""
        if depth >= _MAX_DEPTH:
            return 1, _MAX_DEPTH, _ANY_DEPTH  # (constants too: the limit is tested first)
        if v.__class__ is Instruction:
            t = v.type
            if t.__class__ is not IntType:
                return 1, 0, _ANY_DEPTH
            memo = self.sign_cache
            ent = memo.get(v)
            if ent is not None:
                if ent.__class__ is tuple:
                    if ent[1] <= depth <= ent[2]:
                        return ent
                else:
                    for e in ent:
                        if e[1] <= depth <= e[2]:
                            return e
            e = self._sign_bits(v, depth, t.bits)
            if ent is None:
                memo[v] = e
            elif ent.__class__ is tuple:
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

    def _sign_bits(self, v, depth: int, bits: int) -> tuple:
        """ComputeNumSignBitsImpl of the integer instruction ``v`` at ``depth`` (below
        the limit), in LLVM 19's order for the modeled opcodes: most operators answer
        from their operands and return; ``and``/``or``/``xor`` (and any operator whose
        own rule gave up) fall through to the known bits of ``v`` at the same depth,
        keeping the better answer. With the range of depths giving the same answer
        (see ``_kb``)."""
        opc = v.opcode
        d1 = depth + 1
        sb_, kb_ = self._sb, self._kb
        lo, hi = 0, _MAX_DEPTH - 1  # narrowed by every operand asked

        def ask(x, known=False):
            nonlocal lo, hi
            n, xlo, xhi = (kb_ if known else sb_)(x, d1)
            if xlo - 1 > lo:
                lo = xlo - 1
            if xhi - 1 < hi:
                hi = xhi - 1
            return n

        m = (1 << bits) - 1
        first = 1
        bo = self.bo.get(v)
        if bo is None:
            bo = self._binop(v)
        if bo:
            _, a, b = bo
            if opc == "ashr":
                # ashr x, C adds C sign bits; any other amount: x's (a constant amount
                # of the width or more gives up)
                t = ask(a)
                cb = _cval(b)
                if cb is None or cb < bits:
                    if cb is not None:
                        t = t + cb if t + cb < bits else bits
                    return t, lo, hi
            elif opc == "shl":
                cb = _cval(b)
                if cb is not None and cb < bits:
                    t = ask(a)
                    if cb < t:  # (else every sign bit is shifted out)
                        return t - cb, lo, hi
            elif opc == "and" or opc == "or" or opc == "xor":
                t = ask(a)
                if t != 1:
                    t2 = ask(b)
                    first = t if t < t2 else t2
            elif opc == "add":
                t = ask(a)
                if t != 1:
                    if _cval(b) == m:  # x + -1
                        z, _o = ask(a, True)
                        if (z | 1) == m:  # x is 0 or 1: the result is 0 or -1
                            return bits, lo, hi
                        if z >> (bits - 1) & 1:  # x >= 0: no carry out
                            return t, lo, hi
                    t2 = ask(b)
                    if t2 != 1:
                        return (t if t < t2 else t2) - 1, lo, hi
            elif opc == "sub":
                t2 = ask(b)
                if t2 != 1:
                    if _cval(a) == 0:  # the negation of b
                        z, _o = ask(b, True)
                        if (z | 1) == m:
                            return bits, lo, hi
                        if z >> (bits - 1) & 1:
                            return t2, lo, hi
                    t = ask(a)
                    if t != 1:
                        return (t if t < t2 else t2) - 1, lo, hi
            elif opc == "mul":
                s0 = ask(a)
                if s0 != 1:
                    s1 = ask(b)
                    if s1 != 1:
                        valid = (bits - s0 + 1) + (bits - s1 + 1)
                        return (1 if valid > bits else bits - valid + 1), lo, hi
        elif opc == "sext" or opc == "trunc":
            src = self.r(v.operands[0])
            sb = _bits(src)
            if sb is not None:
                t = ask(src)
                if opc == "sext":
                    return t + (bits - sb), lo, hi
                return (t - (sb - bits) if t > sb - bits else 1), lo, hi
        elif opc == "select":
            t = ask(self.r(v.operands[1]))
            if t != 1:
                t2 = ask(self.r(v.operands[2]))
                return (t if t < t2 else t2), lo, hi
        elif opc == "phi":
            inc = v.incoming
            if 0 < len(inc) <= 4:  # (larger in-degrees are not analyzed)
                t = bits
                for x, _b in inc:
                    if t == 1:
                        break
                    n = ask(self.r(x))
                    if n < t:
                        t = n
                return t, lo, hi
        # the known bits of ``v`` at the same depth: its leading copies of a known sign
        (z, o), klo, khi = kb_(v, depth)
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

    def power_of_two(self, v, or_zero: bool, depth: int = 0) -> bool:
        """isKnownToBeAPowerOfTwo for the shapes the modeled ops build."""
        c = _cval(v)
        if c is not None:
            return (c != 0 or or_zero) and c & (c - 1) == 0
        if depth >= _MAX_DEPTH:
            return False
        bo = self.binop(v)
        if bo is None:
            return False
        opc, a, b = bo
        if opc == "shl" and _cval(a) == 1:
            return or_zero
        if opc == "lshr" and _cval(a) == 1 << (_bits(v) - 1):
            return or_zero
        if opc == "and" and or_zero:
            if self.is_neg(b, a) is not None or self.is_neg(a, b) is not None:
                return True
            return self.power_of_two(a, True, depth + 1) or self.power_of_two(b, True, depth + 1)
        return False

    # --- InstSimplify -------------------------------------------------------------------
    # The simplifiers below keep InstructionSimplify.cpp's order of rules. What they
    # add is cheap tests that skip a group of
    # rules only when none of them could apply: a rule about a constant operand when
    # neither operand is constant, a rule about an operand's opcode when neither operand
    # is such an instruction. ``A``/``B`` are the ``binop`` tuples of the two operands
    # (False for anything else), read from ``bo`` directly.
    def simplify(self, i, ops=None):
        """simplifyInstruction for the modeled instructions: a replacement value or None.
        ``ops``: the instruction's operands, resolved (``ops(i)``) when the caller has them."""
        opc = i.opcode
        if ops is None:
            ops = self.ops(i)
        if opc in _BINOPS:
            if _bits(i) is None:
                return None
            a, b = ops
            v = self.h[opc](a, b, _RECURSION_LIMIT, i)
            return None if v is i else v
        if opc == "phi":
            return self.phi(i)
        if opc == "icmp":
            a, b = ops
            if _bits(a) is None:
                return None
            return self.icmp(i.predicate, a, b, _RECURSION_LIMIT, i)
        if opc == "select":
            c, t, f = ops
            cv = _cval(c)
            if cv is not None:
                return t if cv else f
            if self.same(t, f):
                return t
        return None

    def phi(self, p):
        common = None
        rep = self.rep
        for v, _b in p.incoming:
            if v.__class__ is Instruction and v in rep:
                v = self.r(v)
            if v is p:
                continue
            if v.__class__ is Constant and v.kind in ("undef", "poison"):
                return None  # (only the plain all-equal case is modeled)
            if common is not None and not (v is common or _same(v, common)):
                return None
            common = v
        if common is None:
            return None
        return common

    def binop_(self, opc, a, b, rec, cxt):
        return self.h[opc](a, b, rec, cxt)

    def _fold(self, opc, a, b):
        """foldOrCommuteConstant: (folded constant, a, b) with a constant moved right."""
        if a.__class__ is not Constant and b.__class__ is not Constant:
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
            return self.const(r & m, a), a, b
        if ca is not None and opc in _COMMUTATIVE:
            a, b = b, a
        return None, a, b

    def _assoc(self, opc, lhs, rhs, rec, cxt, L, R):
        """simplifyAssociativeBinOp; ``L``, ``R``: the operands' binop tuples (or False)."""
        if rec <= 0:
            return None
        rec -= 1
        f = self.h[opc]
        op0 = L if L and L[0] == opc else None
        op1 = R if R and R[0] == opc else None
        if op0 is not None:  # (A op B) op C -> A op (B op C)
            _, A, B = op0
            v = f(B, rhs, rec, cxt)
            if v is not None:
                if v is B or _same(v, B):
                    return lhs
                w = f(A, v, rec, cxt)
                if w is not None:
                    return w
        if op1 is not None:  # A op (B op C) -> (A op B) op C
            _, B, C = op1
            v = f(lhs, B, rec, cxt)
            if v is not None:
                if v is B or _same(v, B):
                    return rhs
                w = f(v, C, rec, cxt)
                if w is not None:
                    return w
        if opc not in _COMMUTATIVE:
            return None
        if op0 is not None:  # (A op B) op C -> (C op A) op B
            _, A, B = op0
            v = f(rhs, A, rec, cxt)
            if v is not None:
                if v is A or _same(v, A):
                    return lhs
                w = f(v, B, rec, cxt)
                if w is not None:
                    return w
        if op1 is not None:  # A op (B op C) -> B op (C op A)
            _, B, C = op1
            v = f(C, lhs, rec, cxt)
            if v is not None:
                if v is C or _same(v, C):
                    return rhs
                w = f(B, v, rec, cxt)
                if w is not None:
                    return w
        return None

    def _expand(self, opc, lhs, rhs, over, rec, cxt, L, R):
        """expandCommutativeBinOp: distribute ``opc`` over ``over`` when it simplifies;
        ``L``, ``R``: the operands' binop tuples (or False)."""
        if rec <= 0:
            return None
        rec -= 1
        f = self.h[opc]
        for v, other, bo in ((lhs, rhs, L), (rhs, lhs, R)):
            if not bo or bo[0] != over:
                continue
            _, b0, b1 = bo
            l_ = f(b0, other, rec, cxt)
            if l_ is None:
                continue
            r_ = f(b1, other, rec, cxt)
            if r_ is None:
                continue
            if (_same(l_, b0) and _same(r_, b1)) or (over in _COMMUTATIVE and _same(l_, b1) and _same(r_, b0)):
                return v
            s = self.h[over](l_, r_, rec, cxt)
            if s is not None:
                return s
        return None

    def _thread_phi(self, opc, lhs, rhs, rec, cxt):
        """threadBinOpOverPHI: the same simplified value on every incoming edge."""
        if rec <= 0:
            return None
        rec -= 1
        if lhs.__class__ is Instruction and lhs.opcode == "phi":
            pi, other, left = lhs, rhs, True
        else:
            pi, other, left = rhs, lhs, False
        if not self.value_dominates_phi(other, pi):
            return None
        f = self.h[opc]
        common = None
        for inc, _blk in pi.incoming:
            inc = self.r(inc)
            if inc is pi:
                continue
            v = f(inc, other, rec, None) if left else f(other, inc, rec, None)
            if v is None or (common is not None and not _same(v, common)):
                return None
            common = v
        return common

    def _dom_eq(self, opc, a, b, rec, cxt):
        """simplifyByDomEq (top level only)."""
        if rec != _RECURSION_LIMIT or cxt is None:
            return None
        blk = cxt.block
        e = self.dom_cond.get(blk, _NO_EDGE)
        if e is _NO_EDGE:
            e = self._edge(blk)
        if e is None:
            return None
        e1, e2 = e[1], e[2]
        if not (e1 is a or e1 is b or e2 is a or e2 is b or _same(e1, a) or _same(e1, b) or _same(e2, a)
                or _same(e2, b)):
            return None
        if self.implied_by_dom_condition("eq", a, b, cxt) is True:
            if opc in ("sub", "xor"):
                return self.const(0, a)
            if opc in ("and", "or"):
                return b
        return None

    def _add(self, a, b, rec, cxt):
        if a.__class__ is Constant:
            if b.__class__ is Constant:
                c, a, b = self._fold("add", a, b)
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
        elif b.__class__ is Constant and _cval(b) == 0:
            return a
        bo = self.bo
        if a.__class__ is Instruction:
            A = bo.get(a)
            if A is None:
                A = self._binop(a)
        else:
            A = False
        if b.__class__ is Instruction:
            B = bo.get(b)
            if B is None:
                B = self._binop(b)
        else:
            B = False
        oa, ob = A and A[0], B and B[0]
        if not (oa or ob):
            if _bits(a) == 1 and rec:
                return self._xor(a, b, rec - 1, cxt)
            return None
        sa = A if oa == "sub" else None
        sb = B if ob == "sub" else None
        # isKnownNegation: x + (0 - x), (a - b) + (b - a)
        if (sa is not None and _cval(sa[1]) == 0 and _same(sa[2], b)) \
                or (sb is not None and _cval(sb[1]) == 0 and _same(sb[2], a)):
            return self.const(0, a)
        if sa is not None and sb is not None and _same(sa[1], sb[2]) and _same(sa[2], sb[1]):
            return self.const(0, a)
        # X + (Y - X) -> Y ; (Y - X) + X -> Y
        if sb is not None and _same(sb[2], a):
            return sb[1]
        if sa is not None and _same(sa[2], b):
            return sa[1]
        if (oa == "xor" and _not_pair(A, b, a)) or (ob == "xor" and _not_pair(B, a, b)):
            return self.const(-1, a)
        if rec and _bits(a) == 1:
            v = self._xor(a, b, rec - 1, cxt)
            if v is not None:
                return v
        if oa == "add" or ob == "add":
            return self._assoc("add", a, b, rec, cxt, A, B)
        return None

    def _sub(self, a, b, rec, cxt):
        if a.__class__ is Constant or b.__class__ is Constant:
            if a.__class__ is Constant and b.__class__ is Constant:
                c, a, b = self._fold("sub", a, b)  # (sub does not commute: only a fold)
                if c is not None:
                    return c
            if _cval(b) == 0:
                return a
            if self.same(a, b):
                return self.const(0, a)
            if _cval(a) == 0:
                bits = _bits(a)
                if self.known(b)[0] == ((1 << (bits - 1)) - 1):  # 0 or the minimum signed value
                    return b
        elif a is b:
            return self.const(0, a)
        if rec:
            A, B = self.binop(a), self.binop(b)
            ad = A if A is not None and A[0] == "add" else None
            if ad is not None:  # (X + Y) - Z -> X + (Y - Z) or Y + (X - Z)
                _, X, Y = ad
                for p, q in ((X, Y), (Y, X)):
                    v = self._sub(q, b, rec - 1, cxt)
                    if v is not None:
                        w = self._add(p, v, rec - 1, cxt)
                        if w is not None:
                            return w
            ad = B if B is not None and B[0] == "add" else None
            if ad is not None:  # X - (Y + Z) -> (X - Y) - Z or (X - Z) - Y
                _, Y, Z = ad
                for p, q in ((Y, Z), (Z, Y)):
                    v = self._sub(a, p, rec - 1, cxt)
                    if v is not None:
                        w = self._sub(v, q, rec - 1, cxt)
                        if w is not None:
                            return w
            sb = B if B is not None and B[0] == "sub" else None
            if sb is not None:  # Z - (X - Y) -> (Z - X) + Y
                _, X, Y = sb
                v = self._sub(a, X, rec - 1, cxt)
                if v is not None:
                    w = self._add(v, Y, rec - 1, cxt)
                    if w is not None:
                        return w
            if _bits(a) == 1:
                v = self._xor(a, b, rec - 1, cxt)
                if v is not None:
                    return v
        if rec != _RECURSION_LIMIT or cxt is None or self.dom_cond.get(cxt.block, 0) is None:
            return None
        return self._dom_eq("sub", a, b, rec, cxt)

    def _mul(self, a, b, rec, cxt):
        if a.__class__ is Constant or b.__class__ is Constant:
            if a.__class__ is Constant:
                if b.__class__ is Constant:
                    c, a, b = self._fold("mul", a, b)
                    if c is not None:
                        return c
                elif _cval(a) is not None:  # (foldOrCommuteConstant moves the constant right)
                    a, b = b, a
            cb = _cval(b)
            if cb == 0:
                return self.const(0, a)
            if cb == 1:
                return a
        if rec and _bits(a) == 1:
            v = self._and(a, b, rec - 1, cxt)
            if v is not None:
                return v
        bo = self.bo
        if a.__class__ is Instruction:
            A = bo.get(a)
            if A is None:
                A = self._binop(a)
        else:
            A = False
        if b.__class__ is Instruction:
            B = bo.get(b)
            if B is None:
                B = self._binop(b)
        else:
            B = False
        oa, ob = A and A[0], B and B[0]
        if oa == "mul" or ob == "mul":
            v = self._assoc("mul", a, b, rec, cxt, A, B)
            if v is not None:
                return v
        if oa == "add" or ob == "add":
            v = self._expand("mul", a, b, "add", rec, cxt, A, B)
            if v is not None:
                return v
        if (a.__class__ is Instruction and a.opcode == "phi") or (b.__class__ is Instruction and b.opcode == "phi"):
            return self._thread_phi("mul", a, b, rec, cxt)
        return None

    def _shift(self, opc, a, b, rec, cxt):
        """simplifyShift (the part shl, lshr and ashr share)."""
        if a.__class__ is Constant or b.__class__ is Constant:
            if a.__class__ is Constant and b.__class__ is Constant:
                c, a, b = self._fold(opc, a, b)  # (shifts do not commute: only a fold)
                if c is not None:
                    return c
            if _cval(a) == 0:
                return self.const(0, a)
            cb = _cval(b)
            if cb == 0:
                return a
            bits = _bits(a)
            if cb is not None and cb >= bits:
                return None  # poison: not modeled, left alone
        else:
            cb = None
            bits = _bits(a)
        if (a.__class__ is Instruction and a.opcode == "phi") or (b.__class__ is Instruction and b.opcode == "phi"):
            v = self._thread_phi(opc, a, b, rec, cxt)
            if v is not None:
                return v
        if cb is not None:
            # (a constant amount below the width, not 0: never poison, and its trailing
            # zeros stop below log2(width), so the known-bits rules below say nothing)
            return None
        zb, ob = self.known(b)
        if ob >= bits:  # (the least possible amount)
            return None  # poison
        nz = ~zb & ((1 << bits) - 1)  # (the amount's possible ones: trailing zeros known)
        if (bits if nz == 0 else (nz & -nz).bit_length() - 1) >= (bits - 1).bit_length():
            return a
        return None

    def _shl(self, a, b, rec, cxt):
        v = self._shift("shl", a, b, rec, cxt)
        if v is not None:
            return v
        return None

    def _lshr(self, a, b, rec, cxt):
        v = self._shift("lshr", a, b, rec, cxt)
        if v is not None:
            return v
        if a is b or self.same(a, b):
            return self.const(0, a)
        return None

    def _ashr(self, a, b, rec, cxt):
        v = self._shift("ashr", a, b, rec, cxt)
        if v is not None:
            return v
        if a is b or self.same(a, b):
            return self.const(0, a)
        bits = _bits(a)
        m = (1 << bits) - 1
        if _cval(a) == m:
            return a
        sh = self.binop(a, "shl")
        if sh is not None and _cval(sh[1]) == m and _same(sh[2], b):
            return self.const(m, a)
        if self.sign_bits(a) == bits:
            return a
        return None

    def _logic_add_sub(self, opc, a, b):
        """simplifyLogicOfAddSub: (X + C) op (~C - X)."""
        for p, q in ((a, b), (b, a)):
            ad, sb = self.binop(p, "add"), self.binop(q, "sub")
            if ad is None or sb is None:
                continue
            c1, c2 = _cval(ad[2]), _cval(sb[1])
            if c1 is None or c2 is None or not _same(ad[1], sb[2]):
                continue
            m = (1 << _bits(a)) - 1
            if ~c1 & m == c2:
                return self.const(0 if opc == "and" else m, a)
        return None

    def _and_commutative(self, a, b, A):
        """The commuted part of simplifyAndInst for (a, b); ``A``: a's binop tuple."""
        oa = A and A[0]
        if oa == "xor" and _not_pair(A, b, a):  # ~A & A
            return self.const(0, a)
        if oa == "or":
            if _same(A[1], b) or _same(A[2], b):  # (A | ?) & A
                return b
            # (X | ~Y) & (X | Y) -> X
            o2 = self.binop(b, "or")
            if o2 is not None:
                for X, nY in ((A[1], A[2]), (A[2], A[1])):
                    Y = self.is_not(nY)
                    if Y is None:
                        continue
                    if (_same(o2[1], X) and _same(o2[2], Y)) or (_same(o2[2], X) and _same(o2[1], Y)):
                        return X
        if oa == "sub" and _cval(A[1]) == 0 and _same(A[2], b) and self.power_of_two(b, True):  # -A & A
            return b
        if oa == "add":
            m = (1 << _bits(a)) - 1
            if _same(A[1], b) and _cval(A[2]) == m and self.power_of_two(b, True):
                return self.const(0, a)
        return None

    def _and(self, a, b, rec, cxt):
        if a.__class__ is Constant or b.__class__ is Constant:
            if a.__class__ is Constant:
                if b.__class__ is Constant:
                    c, a, b = self._fold("and", a, b)
                    if c is not None:
                        return c
                    if self.same(a, b):
                        return a
                elif _cval(a) is not None:  # (foldOrCommuteConstant moves the constant right)
                    a, b = b, a
            bits = _bits(a)
            m = (1 << bits) - 1
            cb = _cval(b)
            if cb == 0:
                return self.const(0, a)
            if cb == m:
                return a
        elif a is b:
            return a
        else:
            cb = None
        bo = self.bo
        if a.__class__ is Instruction:
            A = bo.get(a)
            if A is None:
                A = self._binop(a)
        else:
            A = False
        if b.__class__ is Instruction:
            B = bo.get(b)
            if B is None:
                B = self._binop(b)
        else:
            B = False
        oa, ob = A and A[0], B and B[0]
        if not (oa or ob):
            if (a.__class__ is Instruction and a.opcode == "phi") or (b.__class__ is Instruction and b.opcode == "phi"):
                v = self._thread_phi("and", a, b, rec, cxt)
                if v is not None:
                    return v
            if rec != _RECURSION_LIMIT or cxt is None or self.dom_cond.get(cxt.block, 0) is None:
                return None
            return self._dom_eq("and", a, b, rec, cxt)
        # (its rules need an xor, or, sub or add operand)
        v = None
        if oa in _AND_COMMUTED:
            v = self._and_commutative(a, b, A)
        if v is None and ob in _AND_COMMUTED:
            v = self._and_commutative(b, a, B)
        if v is not None:
            return v
        if oa in _ADDSUB and ob in _ADDSUB and oa != ob:
            v = self._logic_add_sub("and", a, b)
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
            if cb & (cb - 1) == 0 and oa == "add" and _cval(A[2]) == m and self.power_of_two(A[1], False):
                if cb.bit_length() >= (~self.known(A[1])[0] & m).bit_length():  # (the maximum)
                    return self.const(0, a)
        if oa == "and" or ob == "and":
            v = self._assoc("and", a, b, rec, cxt, A, B)
            if v is not None:
                return v
        if oa == "or" or ob == "or":
            v = self._expand("and", a, b, "or", rec, cxt, A, B)
            if v is not None:
                return v
        if oa == "xor" or ob == "xor":
            v = self._expand("and", a, b, "xor", rec, cxt, A, B)
            if v is not None:
                return v
        if (a.__class__ is Instruction and a.opcode == "phi") or (b.__class__ is Instruction and b.opcode == "phi"):
            v = self._thread_phi("and", a, b, rec, cxt)
            if v is not None:
                return v
        # ((X | Y) ^ X) & ((X | Y) ^ Y) -> 0
        if oa == "xor" and ob == "xor":
            xa, xb = A, B
            for X, O in ((xa[1], xa[2]), (xa[2], xa[1])):
                o = self.binop(O, "or")
                if o is None:
                    continue
                for p, Y in ((o[1], o[2]), (o[2], o[1])):
                    if _same(p, X) and ((xb[1] is O and _same(xb[2], Y)) or (xb[2] is O and _same(xb[1], Y))):
                        return self.const(0, a)
            # (A ^ C) & (A ^ ~C) -> 0
            c1, c2 = _cval(xa[2]), _cval(xb[2])
            if c1 is not None and c2 is not None and _same(xa[1], xb[1]) and c2 == ~c1 & ((1 << _bits(a)) - 1):
                return self.const(0, a)
        if rec != _RECURSION_LIMIT or cxt is None or self.dom_cond.get(cxt.block, 0) is None:
            return None
        return self._dom_eq("and", a, b, rec, cxt)

    def _or_logic(self, x, y, X, Y):
        """simplifyOrLogic(X, Y); ``X``, ``Y``: their binop tuples (or False)."""
        ox, oy = X and X[0], Y and Y[0]
        if ox != "xor" and oy != "xor" and oy != "and":
            return None  # (every rule below needs one of these shapes)
        m = (1 << _bits(x)) - 1
        same = _same
        ny = _not_of(Y, m) if oy == "xor" else None
        NY = self.binop(ny) if ny is not None else None
        if ny is not None:
            if same(ny, x):  # X | ~X
                return self.const(m, x)
            if NY is not None and NY[0] == "and" and (same(NY[1], x) or same(NY[2], x)):  # X | ~(X & ?)
                return self.const(m, x)
        if oy == "and" and (same(Y[1], x) or same(Y[2], x)):  # X | (X & ?)
            return x
        if ox == "xor" and oy == "or" and self._pair(Y, X[1], X[2]):  # (A ^ B) | (A | B)
            return y
        nx = _not_of(X, m) if ox == "xor" else None
        NX = self.binop(nx) if nx is not None else None
        nox = NX and NX[0]
        if nox == "xor" and oy == "or" and self._pair(Y, NX[1], NX[2]):  # ~(A ^ B) | (A | B)
            return self.const(m, x)
        if ox == "and" and oy == "xor":  # (A & ~B) | (A ^ B) -> A ^ B
            for A, nB in ((X[1], X[2]), (X[2], X[1])):
                B = self.is_not(nB)
                if B is not None and self._pair(Y, A, B):
                    return y
        if ox == "xor" and oy == "and":  # (~A ^ B) | (A & B) -> ~A ^ B
            for nA, B in ((X[1], X[2]), (X[2], X[1])):
                A = self.is_not(nA)
                if A is not None and self._pair(Y, A, B):
                    return x
        if ox == "or" and oy == "xor":  # (~A | B) | (A ^ B) -> -1
            for nA, B in ((X[1], X[2]), (X[2], X[1])):
                A = self.is_not(nA)
                if A is not None and self._pair(Y, A, B):
                    return self.const(m, x)
        if ox == "and" and NY is not None and NY[0] == "or":  # (~A & B) | ~(A | B) -> ~A
            for nA, B in ((X[1], X[2]), (X[2], X[1])):
                A = self.is_not(nA)
                if A is not None and self._pair(NY, A, B):
                    return nA
        if nox == "xor" and oy == "and" and self._pair(Y, NX[1], NX[2]):  # ~(A ^ B) | (A & B)
            return x
        if nox == "and" and oy == "xor" and self._pair(Y, NX[1], NX[2]):  # ~(A & B) | (A ^ B)
            return x
        return None

    def _pair(self, bo, p, q) -> bool:
        """``bo``'s operands are p and q in either order."""
        return (_same(bo[1], p) and _same(bo[2], q)) or (_same(bo[1], q) and _same(bo[2], p))

    def _or(self, a, b, rec, cxt):
        if a.__class__ is Constant or b.__class__ is Constant:
            if a.__class__ is Constant:
                if b.__class__ is Constant:
                    c, a, b = self._fold("or", a, b)
                    if c is not None:
                        return c
                elif _cval(a) is not None:  # (foldOrCommuteConstant moves the constant right)
                    a, b = b, a
            bits = _bits(a)
            m = (1 << bits) - 1
            cb = _cval(b)
            if cb == m:
                return self.const(m, a)
            if cb == 0 or (a.__class__ is Constant and self.same(a, b)):
                return a
        elif a is b:
            return a
        bo = self.bo
        if a.__class__ is Instruction:
            A = bo.get(a)
            if A is None:
                A = self._binop(a)
        else:
            A = False
        if b.__class__ is Instruction:
            B = bo.get(b)
            if B is None:
                B = self._binop(b)
        else:
            B = False
        oa, ob = A and A[0], B and B[0]
        if not (oa or ob):
            if (a.__class__ is Instruction and a.opcode == "phi") or (b.__class__ is Instruction and b.opcode == "phi"):
                v = self._thread_phi("or", a, b, rec, cxt)
                if v is not None:
                    return v
            if rec != _RECURSION_LIMIT or cxt is None or self.dom_cond.get(cxt.block, 0) is None:
                return None
            return self._dom_eq("or", a, b, rec, cxt)
        # (simplifyOrLogic needs an xor on the left or an xor/and on the right)
        v = None
        if oa == "xor" or ob == "xor" or ob == "and":
            v = self._or_logic(a, b, A, B)
        if v is None and (ob == "xor" or oa == "xor" or oa == "and"):
            v = self._or_logic(b, a, B, A)
        if v is not None:
            return v
        if oa in _ADDSUB and ob in _ADDSUB and oa != ob:
            v = self._logic_add_sub("or", a, b)
            if v is not None:
                return v
        if oa == "or" or ob == "or":
            v = self._assoc("or", a, b, rec, cxt, A, B)
            if v is not None:
                return v
        if oa == "and" or ob == "and":
            v = self._expand("or", a, b, "and", rec, cxt, A, B)
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
                    ad = self.binop(P, "add")
                    if cm and (cm & (cm + 1)) == 0 and ad is not None:
                        for x_, n_ in ((ad[1], ad[2]), (ad[2], ad[1])):
                            if _same(x_, Q) and self.known(n_)[0] & cm == cm:
                                return P
        if (a.__class__ is Instruction and a.opcode == "phi") or (b.__class__ is Instruction and b.opcode == "phi"):
            v = self._thread_phi("or", a, b, rec, cxt)
            if v is not None:
                return v
        if oa == "xor" and ob == "xor":  # (A ^ C) | (A ^ ~C) -> -1
            xa, xb = A, B
            c1, c2 = _cval(xa[2]), _cval(xb[2])
            m = (1 << _bits(a)) - 1
            if c1 is not None and c2 is not None and _same(xa[1], xb[1]) and c2 == ~c1 & m:
                return self.const(m, a)
        if rec != _RECURSION_LIMIT or cxt is None or self.dom_cond.get(cxt.block, 0) is None:
            return None
        return self._dom_eq("or", a, b, rec, cxt)

    def _and_or_not(self, x, y, X, Y):
        """simplifyXorInst's foldAndOrNot(X, Y); ``X``, ``Y``: their binop tuples."""
        ox, oy = X[0], Y[0]
        if ox == "and" and oy == "or":  # (~A & B) ^ (A | B) -> A
            for nA, B in ((X[1], X[2]), (X[2], X[1])):
                A = self.is_not(nA)
                if A is not None and self._pair(Y, A, B):
                    return A
        if ox == "or" and oy == "and":  # (~A | B) ^ (A & B) -> ~A
            for nA, B in ((X[1], X[2]), (X[2], X[1])):
                A = self.is_not(nA)
                if A is not None and self._pair(Y, A, B):
                    return nA
        return None

    def _xor(self, a, b, rec, cxt):
        if a.__class__ is Constant:
            if b.__class__ is Constant:
                c, a, b = self._fold("xor", a, b)
                if c is not None:
                    return c
                if _cval(b) == 0:
                    return a
                if self.same(a, b):
                    return self.const(0, a)
            else:
                ca = _cval(a)
                if ca is not None:  # (foldOrCommuteConstant moves the constant right)
                    if ca == 0:
                        return b
                    a, b = b, a
        elif b.__class__ is Constant:
            # (foldOrCommuteConstant leaves a non-constant left operand where it is,
            # and a constant is not the same value as it)
            if _cval(b) == 0:
                return a
        elif a is b:
            return self.const(0, a)
        bo = self.bo
        if a.__class__ is Instruction:
            A = bo.get(a)
            if A is None:
                A = self._binop(a)
        else:
            A = False
        if b.__class__ is Instruction:
            B = bo.get(b)
            if B is None:
                B = self._binop(b)
        else:
            B = False
        if A or B:
            oa, ob = A and A[0], B and B[0]
            if (oa == "xor" and _not_pair(A, b, a)) or (ob == "xor" and _not_pair(B, a, b)):
                return self.const(-1, a)
            if oa and ob:
                if oa in _ANDOR and ob in _ANDOR and oa != ob:
                    v = self._and_or_not(a, b, A, B) or self._and_or_not(b, a, B, A)
                    if v is not None:
                        return v
                if oa in _ADDSUB and ob in _ADDSUB and oa != ob:
                    v = self._logic_add_sub("xor", a, b)
                    if v is not None:
                        return v
            if oa == "xor" or ob == "xor":
                v = self._assoc("xor", a, b, rec, cxt, A, B)
                if v is not None:
                    return v
        if rec != _RECURSION_LIMIT or cxt is None or self.dom_cond.get(cxt.block, 0) is None:
            return None
        return self._dom_eq("xor", a, b, rec, cxt)

    # --- compares -----------------------------------------------------------------------
    def range_of(self, v, signed: bool, depth: int = 0):
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
        bo = self.binop(v)
        if bo is None:
            return None
        opc, a, b = bo
        cb = _cval(b)
        lo = hi = None
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

    def icmp(self, pred, a, b, rec, cxt):
        """simplifyICmpInst for the modeled cases."""
        bits = _bits(a)
        ca, cb = _cval(a), _cval(b)
        one = lambda t: self.const(1 if t else 0, cxt) if cxt is not None and _bits(cxt) == 1 else None  # noqa: E731
        if ca is not None and cb is not None:
            return one(_compare(pred, ca, cb, bits))
        if ca is not None:
            a, b, pred, ca, cb = b, a, _SWAP[pred], None, ca
        if self.same(a, b):
            return one(pred in ("eq", "ule", "uge", "sle", "sge"))
        if cb is not None:
            signed = pred in ("slt", "sle", "sgt", "sge")
            rg = self.range_of(a, signed)
            if rg is not None:
                x = _signed(cb, bits) if signed else cb
                lo, hi = rg
                t = _range_cmp(pred, lo, hi, x)
                if t is not None:
                    return one(t)
        if pred in ("eq", "ne") and cb != 0:
            ka, kb = self.known(a), self.known(b)
            if (ka[0] & kb[1]) or (ka[1] & kb[0]):
                return one(pred == "ne")
        if cxt is not None:
            t = self.implied_by_dom_condition(pred, a, b, cxt)
            if t is not None:
                return one(t)
        return None

    def _edge(self, blk):
        """getDomPredecessorCondition: (predicate true on the edge, l0, l1) of the icmp
        the single predecessor of ``blk`` branches on, or None."""
        hit = self.dom_cond.get(blk, 0)
        if hit != 0:
            return hit
        res = None
        preds = blk.predecessors if blk is not None else ()
        if len(preds) == 1 and preds[0].instructions:
            term = preds[0].instructions[-1]
            targets = term.targets if term.opcode == "br" else ()
            if len(term.operands) == 1 and len(targets) == 2 and targets[0] is not targets[1] \
                    and blk in targets:
                cond = self.r(term.operands[0])
                if cond.__class__ is Instruction and cond.opcode == "icmp" and cond.predicate in _INVERSE:
                    lp = cond.predicate if blk is targets[0] else _INVERSE[cond.predicate]
                    res = (lp, self.r(cond.operands[0]), self.r(cond.operands[1]))
        self.dom_cond[blk] = res
        return res

    def implied_by_dom_condition(self, pred, a, b, cxt):
        """isImpliedByDomCondition: what the branch of ``cxt``'s block's single
        predecessor says about ``a pred b`` on the edge into the block."""
        e = self._edge(cxt.block)
        if e is None:
            return None
        return self._implied(e[0], e[1], e[2], pred, a, b)

    def _implied(self, lp, l0, l1, rp, r0, r1):
        """isImpliedCondICmps (the condition ``l0 lp l1`` is true)."""
        if self.same(l0, r1) and not self.same(l0, r0):
            r0, r1, rp = r1, r0, _SWAP[rp]
        if self.same(r0, l1) and not self.same(r0, l0):
            l0, l1, lp = l1, l0, _SWAP[lp]
        if self.same(l1, r1) and not self.same(l0, r0):
            l0, l1, lp = l1, l0, _SWAP[lp]
            r0, r1, rp = r1, r0, _SWAP[rp]
        bits = _bits(l0)
        c1, c2 = _cval(l1), _cval(r1)
        if self.same(l0, r0) and (c1 is not None or c2 is not None):
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
        if self.same(l0, r0) and self.same(l1, r1):
            if lp == rp:
                return True
            if lp == _INVERSE[rp]:
                return False
            return _IMPLIES.get((lp, rp))
        return None


# (lhs predicate true, rhs predicate on the same operands) -> rhs value
_IMPLIES = {
    ("eq", "ule"): True, ("eq", "uge"): True, ("eq", "sle"): True, ("eq", "sge"): True,
    ("ult", "ule"): True, ("ult", "ne"): True, ("ugt", "uge"): True, ("ugt", "ne"): True,
    ("slt", "sle"): True, ("slt", "ne"): True, ("sgt", "sge"): True, ("sgt", "ne"): True,
    ("ult", "eq"): False, ("ugt", "eq"): False, ("slt", "eq"): False, ("sgt", "eq"): False,
    ("ult", "uge"): False, ("ugt", "ule"): False, ("slt", "sge"): False, ("sgt", "sle"): False,
    ("ult", "ugt"): False, ("ugt", "ult"): False, ("slt", "sgt"): False, ("sgt", "slt"): False,
    ("eq", "ult"): False, ("eq", "ugt"): False, ("eq", "slt"): False, ("eq", "sgt"): False,
    ("eq", "ne"): False,
}


_NO_EDGE = object()  # (``dom_cond`` has no entry for the block yet)
_NOTHING = (0, 0)  # known bits: nothing known
_AND_COMMUTED = frozenset({"xor", "or", "sub", "add"})  # (the shapes _and_commutative looks at)


def _lead_zeros(k: tuple, v) -> int:
    """KnownBits::countMinLeadingZeros of the known bits ``k`` of ``v``."""
    bits = _bits(v) or 1
    return bits - (~k[0] & ((1 << bits) - 1)).bit_length()


def _not_pair(T, x, v) -> bool:
    """``v`` (binop tuple ``T``, an ``xor``) is ``~x``: ``xor x, -1`` in either order."""
    a, b = T[1], T[2]
    if b.__class__ is Constant and (a is x or _same(a, x)) and _cval(b) == (1 << _bits(v)) - 1:
        return True
    return a.__class__ is Constant and (b is x or _same(b, x)) and _cval(a) == (1 << _bits(v)) - 1


def _is_phi(v) -> bool:
    return v.__class__ is Instruction and v.opcode == "phi"


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


def _trivially_dead(fn) -> set:
    """Instructions without users and without side effects in the input (EarlyCSE
    deletes them when it reaches them, so they never become a CSE representative).
    The scan for a function whose ``_users`` lists are not known to be current
    (``_run`` reads those lists when ``fn.uses`` says they are)."""
    from .sdag import _has_side_effect

    used = set()
    add = used.add
    for b in fn.blocks:
        for i in b.instructions:
            for v in i.operands:  # (a phi's incoming values are its operands)
                if v.__class__ is Instruction:
                    add(v)
    return {i for b in fn.blocks for i in b.instructions
            if i.name is not None and i not in used and not _has_side_effect(i)}


def _cse_key(i, ops):
    """EarlyCSE's SimpleValue identity of ``i`` with resolved operands ``ops``
    (commutative operands and swapped compares unified)."""
    const = Constant
    if len(ops) == 2:
        x, y = ops
        kx = (0, _cval(x), x.type, x.text) if x.__class__ is const else (1, id(x), None, "")
        ky = (0, _cval(y), y.type, y.text) if y.__class__ is const else (1, id(y), None, "")
        pred = i.predicate
        opc = i.opcode
        if (kx[0], kx[1]) > (ky[0], ky[1]):
            if opc in _COMMUTATIVE:
                kx, ky = ky, kx
            elif opc == "icmp":
                kx, ky = ky, kx
                pred = _SWAP.get(pred, pred)
        return (opc, i.type, pred, kx, ky, tuple(i.indices) if i.indices else ())
    ks = tuple((0, _cval(o), o.type, o.text) if o.__class__ is const else (1, id(o), None, "") for o in ops)
    return (i.opcode, i.type, i.predicate, ks, tuple(i.indices) if i.indices else ())


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
        xc, yc = x.__class__, y.__class__
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
        _run(_Pass(fn, idom, rep), fn)
    return rep


def _run(p: _Pass, fn) -> None:
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
    from .sdag import _has_side_effect

    rep = p.rep
    seeded = bool(rep)  # (a replacement made before this walk: skip the instruction)
    # dead: no users (the parser's user lists, when fn.uses says they are current)
    use_users = fn.uses is not None
    dead = None if use_users else _trivially_dead(fn)
    table: dict = {}
    bo = p.bo
    r = p.r
    simplify = p.simplify
    phi = p.phi
    key_of = _cse_keys()
    handlers = p.h
    kids = p.kids
    pre, post = p.pre, p.post
    Inst, Int, Arg, Const = Instruction, IntType, Argument, Constant
    binops, cse_ops, simplified, comm = _BINOPS, _CSE_OPS, _SIMPLIFIED, _COMMUTATIVE
    limit = _RECURSION_LIMIT
    work: list = [fn.blocks[0]]
    pop, push = work.pop, work.append
    while work:
        blk = pop()
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
                if x.__class__ is Inst and x in rep:
                    x = r(x)
                if y.__class__ is Inst and y in rep:
                    y = r(y)
                if i.type.__class__ is Int:
                    v = handlers[opc](x, y, limit, i)
                    if v is not None and v is not i:
                        rep[i] = v
                        continue
                t = (opc, x, y)
                bo[i] = t if i.block is not None else False
                # the key: the parser checked that every operand has the instruction's
                # type, so a key with a value operand needs no type of its own
                xc, yc = x.__class__, y.__class__
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
                    v = phi(i)
                    if v is not None and v is not i:
                        rep[i] = v
                        continue
                elif opc in simplified:
                    ops = [o if o.__class__ is not Inst or o not in rep else r(o) for o in i.operands]
                    v = simplify(i, ops)
                    if v is not None and v is not i:
                        rep[i] = v
                        continue
                bo[i] = False
                if opc not in cse_ops:
                    continue
                if ops is None:
                    ops = [o if o.__class__ is not Inst or o not in rep else r(o) for o in i.operands]
                k = key_of(i, ops)
            hit = table.get(k)
            if hit is None:
                table[k] = i
                continue
            if hit.__class__ is list:
                cands = hit
            else:
                cands = (hit,)
            for h in cands:
                hb = h.block
                if hb is blk or (pre[hb] <= pre[blk] and post[blk] <= post[hb]):
                    rep[i] = h
                    break
            else:
                if hit.__class__ is list:
                    hit.append(i)
                else:
                    table[k] = [hit, i]
        ks = kids.get(blk)
        if ks:
            for c in reversed(ks):
                push(c)


_SIMPLIFIED = _BINOPS | {"phi", "icmp", "select"}


def _resimplify(p: _Pass, fn, users_ok: bool = False) -> None:
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
            for u in (us if us.__class__ is list else (us,)):
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
                        if v.__class__ is Inst and v in rep:
                            work.append(i)
                            break
    budget = 4 * len(work) + 64
    while work and budget:
        budget -= 1
        i = work.pop()
        if i in rep or i.opcode not in _SIMPLIFIED or i not in p.bo:
            continue
        p.bo[i] = None
        v = p.simplify(i)
        if v is None or v is i:
            continue
        rep[i] = v
        if users is None:
            users = {}
            for blk in fn.blocks:
                for u in blk.instructions:
                    for x in u.operands:
                        if x.__class__ is Inst:
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
        from .sdag import immediate_dominators

        idom = immediate_dominators(fn)
    users_ok = fn.uses is not None
    p = _Pass(fn, idom, {}, dom)
    _run(p, fn)
    if p.rep:
        _resimplify(p, fn, users_ok)
    return {i: p.r(v) for i, v in p.rep.items()}


def apply_early_cse(fn, idom: dict | None = None, dom: tuple | None = None, grew: dict | None = None) -> dict:
    """Run ``early_cse`` on ``fn`` and leave the IR as the pass leaves it: every use of a
    replaced instruction (operands, phi incoming values) reads its replacement, as
    LLVM's replaceAllUsesWith does. The replaced instructions stay in their blocks
    without users (dead-code removal, ``patterns.sdag``, drops them); the function's
    derived user lists are reset. Returns the replacement map. ``grew``: see
    ``_rewrite``."""
    if getattr(fn, "is_declaration", False) or not fn.blocks:
        return {}
    users_ok = fn.uses is not None  # (read before the pass: _rewrite resets it)
    rep = early_cse(fn, idom, dom)
    if rep:
        _rewrite(fn, rep, _candidate_users(rep, None) if users_ok else None, grew)
    return rep


_HOISTABLE = _BINOPS | {"icmp", "select", "zext", "sext", "trunc", "bitcast", "getelementptr", "freeze"}


def licm(fn, idom: dict | None = None, dom: tuple | None = None) -> list:
    """Loop-invariant code motion as llc's LICM pass does it for speculatable code: in
    every natural loop (innermost first) with a preheader (the header's one predecessor
    outside the loop, branching only to the header), the instructions whose operands are
    all defined outside the loop -- integer ops that cannot trap, compares, selects,
    casts, GEPs -- move to the end of the preheader, visited in the loop's dominator-tree
    order (so a chain of invariant instructions moves together). Mutates ``fn``; returns
    the instructions moved, in order."""
    blocks = fn.blocks
    if len(blocks) < 2:
        return []
    if dom is None:
        if idom is None:
            from .sdag import immediate_dominators

            idom = immediate_dominators(fn)
        dom = _dom_tree(fn, idom)
    _kids, pre, post = dom  # (preorder clocks sort blocks in dominator-tree order)

    bodies: dict = {}
    for b in blocks:
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
    moved = []
    Inst = Instruction
    hoistable = _HOISTABLE
    for h in sorted(bodies, key=lambda h: len(bodies[h])):  # innermost first
        body = bodies[h]
        outside = [p for p in dict.fromkeys(h.predecessors) if p not in body]
        if len(outside) != 1 or len(outside[0].successors) != 1 or not outside[0].instructions:
            continue
        ph = outside[0]
        for b in sorted(body, key=pre.__getitem__):
            insts = b.instructions
            hoist = None
            for i in insts:
                if i.opcode not in hoistable or i.name is None:
                    continue
                for o in i.operands:
                    if o.__class__ is Inst and o.block in body:
                        break
                else:
                    # (its block is the preheader from now on: a later instruction
                    # reading it can move too)
                    if hoist is None:
                        hoist = []
                    hoist.append(i)
                    i.block = ph
            if hoist is None:
                continue
            gone = set(hoist)
            insts[:] = [i for i in insts if i not in gone]
            pins = ph.instructions
            pins[len(pins) - 1:len(pins) - 1] = hoist
            moved.extend(hoist)
    if moved:
        fn.uses = None
    return moved


def mul24(fn, ua, target=None, idom: dict | None = None) -> int:
    """AMDGPUCodeGenPrepare's replaceMulWithMul24: a divergent i32 ``mul`` whose operands
    both fit in 24 bits -- unsigned (known leading zeros), else signed (sign bits) --
    becomes a call of ``llvm.amdgcn.mul.u24`` / ``llvm.amdgcn.mul.i24`` (the instruction is
    rewritten in place). Uniform multiplies stay (s_mul_i32). Only when ``target`` lowers
    those intrinsics. Returns how many were rewritten. ``idom`` (when given) tells
    whether every block is reachable, which lets the divergence be asked for the
    multiplies only."""
    known = getattr(target, "intrinsics_by_ir_name", None) or {}
    if "llvm.amdgcn.mul.u24" not in known or ua is None:
        return 0
    muls = [i for b in fn.blocks for i in b.instructions if i.opcode == "mul"]
    if not muls:
        return 0
    wide = [i for i in muls if _bits(i) == 32]
    if idom is not None and len(idom) == len(fn.blocks):
        div = _divergent_after_simplification(wide, ua)
    else:
        div_of = _divergence_after_simplification(fn, ua)
        div = [i for i in wide if div_of.get(i, False)]
    if not div:
        return 0
    p = _Pass(fn, None, {})
    done = 0
    for i in div:
        x, y = i.operands
        # (numBitsUnsigned <= 24 for both, else numBitsSigned <= 24 for both)
        if _lead_zeros(p.known(x), x) >= 8 and _lead_zeros(p.known(y), y) >= 8:
            name = "llvm.amdgcn.mul.u24.i32"
        elif p.sign_bits(x) >= 9 and p.sign_bits(y) >= 9:
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


_KEEP_DIVERGENCE = frozenset({"phi", "load", "call"})


def _divergence_after_simplification(fn, ua) -> dict:
    """The uniformity analysis as llc reruns it after EarlyCSE (for AMDGPUCodeGenPrepare),
    for data dependence: an instruction the analysis called divergent is divergent only if
    one of its operands still is after the rewrites (phis, loads and calls keep the
    analysis's answer: control dependence, memory, sources). Blocks in reverse post-order,
    so operands are answered before their users."""
    from .cfg import reverse_post_order

    div: dict = {}
    keep = _KEEP_DIVERGENCE
    order = reverse_post_order(fn)
    seen = set(order)
    for b in order + [b for b in fn.blocks if b not in seen]:
        for i in b.instructions:
            d = bool(ua.is_divergent(i))
            if d and i.opcode not in keep:
                d = False
                for o in i.operands:
                    if o.__class__ is Instruction:
                        od = div.get(o)
                        if od is None:
                            od = bool(ua.is_divergent(o))
                    elif o.__class__ is Constant:
                        od = False
                    else:
                        od = bool(ua.is_divergent(o))
                    if od:
                        d = True
                        break
            div[i] = d
    return div


def _divergent_after_simplification(insts: list, ua) -> list:
    """The instructions of ``insts`` that ``_divergence_after_simplification`` calls
    divergent, asking only the values they depend on (a function whose blocks are all
    reachable: every non-phi instruction's operands dominate it, so they come earlier
    in reverse post-order and the answers are the same)."""
    memo: dict = {}
    keep = _KEEP_DIVERGENCE
    is_div = ua.is_divergent
    Inst, Const = Instruction, Constant
    out = []
    for root in insts:
        d = memo.get(root)
        if d is None:
            stack = [root]
            while stack:
                i = stack[-1]
                if i in memo:
                    stack.pop()
                    continue
                if not is_div(i):
                    memo[i] = False
                    stack.pop()
                    continue
                if i.opcode in keep:
                    memo[i] = True
                    stack.pop()
                    continue
                # (an operand answered without looking further decides first; else the
                # first one that needs its own operands is answered, then ``i`` again)
                d = False
                todo = None
                for o in i.operands:
                    c = o.__class__
                    if c is Inst:
                        od = memo.get(o)
                        if od is None:
                            if o.opcode in keep:
                                od = memo[o] = bool(is_div(o))
                            else:
                                if todo is None:
                                    todo = o
                                continue
                    elif c is Const:
                        od = False
                    else:
                        od = bool(is_div(o))
                    if od:
                        d = True
                        break
                if not d and todo is not None:
                    stack.append(todo)
                    continue
                memo[i] = d
                stack.pop()
            d = memo[root]
        if d:
            out.append(root)
    return out


def run_ir_passes(fn, ua=None, target=None) -> None:
    """The IR passes of llc's pipeline modeled here, in its order, on ``fn`` in place:
    EarlyCSE (with InstSimplify), AMDGPUCodeGenPrepare's 24-bit multiplies, LICM, and
    EarlyCSE again when LICM moved code (llc's last EarlyCSE runs after its loop
    passes). The dominator tree is built once (none of the passes changes the CFG);
    the parser's user lists, when current, tell each rewrite which instructions read a
    replaced value."""
    if getattr(fn, "is_declaration", False) or not fn.blocks:
        return
    from .sdag import immediate_dominators

    idom = immediate_dominators(fn)
    dom = _dom_tree(fn, idom)
    grew: dict | None = {} if fn.uses is not None else None
    apply_early_cse(fn, idom, dom, grew)
    mul24(fn, ua, target, idom)
    moved = licm(fn, idom, dom)
    if moved:
        _cse_moved(fn, moved, idom, dom, grew)


def _cse_moved(fn, moved: list, idom: dict, dom: tuple | None = None, grew: dict | None = None) -> None:
    """What llc's EarlyCSE after its loop passes finds for code LICM hoisted: a hoisted
    instruction equal to one that now dominates it (same key as EarlyCSE's) is replaced
    by it (every use rewritten). Only the hoisted instructions can have a new dominating
    equal (the rest kept their places), and only in the preheaders' dominator chains.
    ``grew``: from the earlier rewrite (see ``_rewrite``), None when the parser's user
    lists were not current."""
    key_of = _cse_keys()
    wanted: dict = {}
    for i in moved:
        if i.opcode in _CSE_OPS:
            wanted.setdefault(key_of(i, i.operands), []).append(i)
    if not wanted:
        return
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
                if o.__class__ is not Constant:
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
                if o.__class__ is not Const and o not in reads:
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
        _rewrite(fn, rep, _candidate_users(rep, grew) if grew is not None else None)


def _candidate_users(rep: dict, grew: dict | None) -> list:
    """Every instruction that may read a replaced instruction of ``rep``, each once: its
    users in the parser's lists (``_users``, users in program order as parsed), plus
    those an earlier ``_rewrite`` gave it (``grew``)."""
    out: list = []
    for i in rep:
        us = i._users
        if us is not None:
            if us.__class__ is list:
                out.extend(us)
            else:
                out.append(us)
        if grew:
            g = grew.get(i)
            if g:
                out.extend(g)
    return list(dict.fromkeys(out))


def _rewrite(fn, rep: dict, cands: list | None = None, grew: dict | None = None) -> None:
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
            if o.__class__ is inst and o in rep:
                break
        else:
            continue
        i.operands = [rep.get(o, o) if o.__class__ is inst else o for o in ops]
        if grew is not None:
            for o in ops:
                if o.__class__ is inst:
                    w = rep.get(o)
                    if w is not None and w.__class__ is inst:
                        g = grew.get(w)
                        if g is None:
                            grew[w] = [i]
                        else:
                            g.append(i)
        if i.opcode == "phi":
            i.incoming = [(rep.get(v, v) if v.__class__ is inst else v, blk) for v, blk in i.incoming]
        i._text = None
    fn.uses = None

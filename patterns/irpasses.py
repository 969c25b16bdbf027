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
It answers ``instruction -> replacement`` (an instruction, argument or constant), the map
``patterns.sdag`` reads every operand through. The pass is repeated until it changes
nothing (llc runs it three times; a phi whose back-edge value simplified is seen then).

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
the modeled operations (depth limit 6). Compares fold when their operands are equal,
constant, decided by the constant range of the left side (computeConstantRange), by
conflicting known bits (isKnownNonEqual) or by the branch condition of the single
predecessor (isImpliedByDomCondition).
"""

from __future__ import annotations

from .ir import Constant, Instruction, IntType
from .knownbits import Known as _Known, add_carry as _add_carry, clz as _clz, const_known as _const_known, \
    mul_known as _mul_known, shift_known as _shift_known

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


def _bits(v) -> int | None:
    t = v.type
    return t.bits if t.__class__ is IntType else None


def _cval(v) -> int | None:
    """The unsigned value of an integer constant, else None."""
    if v.__class__ is not Constant or v.kind != "int" and v.text not in ("true", "false"):
        return None
    bits = _bits(v)
    if bits is None:
        return None
    if v.text == "true":
        return 1
    if v.text == "false":
        return 0
    val = v.value if isinstance(v.value, int) else int(v.text, 0)
    return val & ((1 << bits) - 1)


def _signed(u: int, bits: int) -> int:
    return u - (1 << bits) if u >> (bits - 1) else u


class _Pass:
    """One function's EarlyCSE state: replacements, dominance, analyses."""

    def __init__(self, fn, idom: dict | None, rep: dict):
        self.fn = fn
        self.idom = idom
        self.rep = rep
        self.known_cache: dict = {}  # value -> (depth, KnownBits): facts stay true under replacement
        self.sign_cache: dict = {}
        self.bo: dict = {}  # visited instruction -> (opcode, a, b) or False (see binop)
        self.visited: set = set()
        self.dom_cond: dict = {}  # block -> its single predecessor's branch condition (see _edge)
        self.pre, self.post, self.kids = {}, {}, {}
        if idom is None:
            return  # (the analyses only: no dominance queries)
        kids: dict = {}
        entry = fn.blocks[0]
        for b in fn.blocks:
            p = idom.get(b)
            if p is not None and p is not b:
                kids.setdefault(p, []).append(b)
        self.kids = kids
        self.pre, self.post = {}, {}
        clock = 0
        work = [(entry, False)]
        while work:
            x, done = work.pop()
            if done:
                self.post[x] = clock
                clock += 1
                continue
            self.pre[x] = clock
            clock += 1
            work.append((x, True))
            work.extend((k, False) for k in reversed(kids.get(x, ())))

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
            if v.opcode not in _BINOPS or v.block is None or len(v.operands) != 2:
                bo = False
            else:
                a, b = v.operands
                bo = (v.opcode, self.r(a), self.r(b))
            if v in self.visited:
                self.bo[v] = bo
        if bo is False or (opc is not None and bo[0] != opc):
            return None
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
        bo = self.binop(v, "xor")
        if bo is None:
            return None
        _, a, b = bo
        m = (1 << _bits(v)) - 1
        for p, q in ((a, b), (b, a)):
            if _cval(q) == m and (x is None or self.same(p, x)):
                return p
        return None

    def is_neg(self, v, x=None):
        bo = self.binop(v, "sub")
        if bo is None or _cval(bo[1]) != 0:
            return None
        return bo[2] if x is None or self.same(bo[2], x) else None

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
    def known(self, v, depth: int = 0) -> _Known:
        if v.__class__ is not Instruction and v.__class__ is not Constant:
            return _Known(0, 0, _bits(v) or 1)  # arguments: nothing known
        bits = _bits(v)
        c = _cval(v)
        if c is not None:
            return _const_known(c, bits)
        if depth >= _MAX_DEPTH or bits is None:
            return _Known(0, 0, bits or 1)
        # computed once per value, at the depth of the first query (a later query from
        # another depth gets the same answer; the limit rarely decides anything)
        hit = self.known_cache.get(v)
        if hit is not None:
            return hit[1]
        k = self._known(v, depth, bits)
        self.known_cache[v] = (depth, k)
        return k

    def _known(self, v, depth: int, bits: int) -> _Known:
        unknown = _Known(0, 0, bits)
        opc = getattr(v, "opcode", None)
        if opc is None or v.block is None:
            return unknown
        m = (1 << bits) - 1
        if opc in _BINOPS:
            a, b = self.r(v.operands[0]), self.r(v.operands[1])
            ka = self.known(a, depth + 1)
            kb = self.known(b, depth + 1)
            if opc == "and":
                return _Known(ka.zero | kb.zero, ka.one & kb.one, bits)
            if opc == "or":
                return _Known(ka.zero & kb.zero, ka.one | kb.one, bits)
            if opc == "xor":
                return _Known((ka.zero & kb.zero) | (ka.one & kb.one), (ka.zero & kb.one) | (ka.one & kb.zero), bits)
            if opc == "add":
                return _add_carry(ka, kb, True, False)
            if opc == "sub":
                return _add_carry(ka, _Known(kb.one, kb.zero, bits), False, True)
            if opc == "mul":
                return _mul_known(ka, kb)
            return _shift_known(ka, opc, kb)
        if opc == "phi":
            # ComputeKnownBits of a phi: the common bits of its incoming values, each
            # looked at with one level of recursion left
            if depth >= _MAX_DEPTH - 1:
                return unknown
            res = None
            for inc, _blk in v.incoming:
                inc = self.r(inc)
                if inc is v:
                    continue
                k = self.known(inc, _MAX_DEPTH - 1)
                res = k if res is None else res.intersect(k)
                if res.unknown():
                    break
            return res or unknown
        if opc == "select":
            return self.known(self.r(v.operands[1]), depth + 1).intersect(self.known(self.r(v.operands[2]), depth + 1))
        if opc in ("zext", "sext", "trunc"):
            src = self.r(v.operands[0])
            sb = _bits(src)
            if sb is None:
                return unknown
            k = self.known(src, depth + 1)
            if opc == "trunc":
                return _Known(k.zero & m, k.one & m, bits)
            if opc == "zext":
                return _Known(k.zero | (m & ~((1 << sb) - 1)), k.one, bits)
            hi = m & ~((1 << sb) - 1)
            z, o = k.zero, k.one
            if k.zero >> (sb - 1) & 1:
                z |= hi
            if k.one >> (sb - 1) & 1:
                o |= hi
            return _Known(z, o, bits)
        if opc == "icmp":
            return unknown
        if opc == "call":
            callee = v.callee or ""
            if callee.startswith(("llvm.ctpop", "llvm.ctlz", "llvm.cttz")):
                return _Known(m & ~((1 << (bits.bit_length())) - 1), 0, bits)
        return unknown

    def sign_bits(self, v, depth: int = 0) -> int:
        """ComputeNumSignBits (cached like ``known``)."""
        if v.__class__ is Instruction:
            hit = self.sign_cache.get(v)
            if hit is None:
                hit = self.sign_cache[v] = (depth, self._sign_bits(v, depth))
            return hit[1]
        return self._sign_bits(v, depth)

    def _sign_bits(self, v, depth: int) -> int:
        bits = _bits(v)
        c = _cval(v)
        if c is not None:
            s = _signed(c, bits)
            return _clz(~s & ((1 << bits) - 1) if s < 0 else s, bits)
        if depth >= _MAX_DEPTH or bits is None:
            return 1
        first = 1
        bo = self.binop(v)
        opc = getattr(v, "opcode", None)
        if bo is not None:
            _, a, b = bo
            cb = _cval(b)
            if opc == "ashr":
                t = self.sign_bits(a, depth + 1)
                amt = cb if cb is not None and cb < bits else self.known(b, depth + 1).min_value()
                first = min(bits, t + (amt if amt < bits else 0))
            elif opc == "shl" and cb is not None and cb < bits:
                t = self.sign_bits(a, depth + 1)
                first = t - cb if cb < t else 1
            elif opc in ("and", "or", "xor"):
                t = self.sign_bits(a, depth + 1)
                if t != 1:
                    first = min(t, self.sign_bits(b, depth + 1))
            elif opc == "add":
                t = self.sign_bits(a, depth + 1)
                if t != 1:
                    t2 = self.sign_bits(b, depth + 1)
                    if t2 != 1:
                        first = min(t, t2) - 1
            elif opc == "sub":
                t2 = self.sign_bits(b, depth + 1)
                if t2 != 1:
                    t = self.sign_bits(a, depth + 1)
                    if t != 1:
                        first = min(t, t2) - 1
            elif opc == "mul":
                s0 = self.sign_bits(a, depth + 1)
                if s0 != 1:
                    s1 = self.sign_bits(b, depth + 1)
                    if s1 != 1:
                        valid = (bits - s0 + 1) + (bits - s1 + 1)
                        first = bits - valid + 1 if valid < bits else 1
        elif opc == "phi":
            inc = [self.r(x) for x, _b in v.incoming]
            if 0 < len(inc) <= 4:
                first = min(self.sign_bits(x, depth + 1) for x in inc)
        elif opc == "select":
            first = min(self.sign_bits(self.r(v.operands[1]), depth + 1),
                        self.sign_bits(self.r(v.operands[2]), depth + 1))
        first = max(first, 1)
        if first == bits:
            return first
        k = self.known(v, depth)
        if k.zero >> (bits - 1) & 1:
            mask = k.zero
        elif k.one >> (bits - 1) & 1:
            mask = k.one
        else:
            return first
        return max(first, _clz(~mask & ((1 << bits) - 1), bits))

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
            v = self.binop_(opc, a, b, _RECURSION_LIMIT, i)
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
        for v, _b in p.incoming:
            v = self.r(v)
            if v is p:
                continue
            if v.__class__ is Constant and v.kind in ("undef", "poison"):
                return None  # (only the plain all-equal case is modeled)
            if common is not None and not self.same(v, common):
                return None
            common = v
        if common is None:
            return None
        return common

    def binop_(self, opc, a, b, rec, cxt):
        return getattr(self, "_" + opc)(a, b, rec, cxt)

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

    def _assoc(self, opc, lhs, rhs, rec, cxt):
        """simplifyAssociativeBinOp."""
        if rec <= 0:
            return None
        rec -= 1
        op0, op1 = self.binop(lhs, opc), self.binop(rhs, opc)
        if op0 is not None:  # (A op B) op C -> A op (B op C)
            _, A, B = op0
            v = self.binop_(opc, B, rhs, rec, cxt)
            if v is not None:
                if self.same(v, B):
                    return lhs
                w = self.binop_(opc, A, v, rec, cxt)
                if w is not None:
                    return w
        if op1 is not None:  # A op (B op C) -> (A op B) op C
            _, B, C = op1
            v = self.binop_(opc, lhs, B, rec, cxt)
            if v is not None:
                if self.same(v, B):
                    return rhs
                w = self.binop_(opc, v, C, rec, cxt)
                if w is not None:
                    return w
        if opc not in _COMMUTATIVE:
            return None
        if op0 is not None:  # (A op B) op C -> (C op A) op B
            _, A, B = op0
            v = self.binop_(opc, rhs, A, rec, cxt)
            if v is not None:
                if self.same(v, A):
                    return lhs
                w = self.binop_(opc, v, B, rec, cxt)
                if w is not None:
                    return w
        if op1 is not None:  # A op (B op C) -> B op (C op A)
            _, B, C = op1
            v = self.binop_(opc, C, lhs, rec, cxt)
            if v is not None:
                if self.same(v, C):
                    return rhs
                w = self.binop_(opc, B, v, rec, cxt)
                if w is not None:
                    return w
        return None

    def _expand(self, opc, lhs, rhs, over, rec, cxt):
        """expandCommutativeBinOp: distribute ``opc`` over ``over`` when it simplifies."""
        if rec <= 0:
            return None
        rec -= 1
        for v, other in ((lhs, rhs), (rhs, lhs)):
            bo = self.binop(v, over)
            if bo is None:
                continue
            _, b0, b1 = bo
            l_ = self.binop_(opc, b0, other, rec, cxt)
            if l_ is None:
                continue
            r_ = self.binop_(opc, b1, other, rec, cxt)
            if r_ is None:
                continue
            if (self.same(l_, b0) and self.same(r_, b1)) or (over in _COMMUTATIVE and self.same(l_, b1) and self.same(r_, b0)):
                return v
            s = self.binop_(over, l_, r_, rec, cxt)
            if s is not None:
                return s
        return None

    def _thread_phi(self, opc, lhs, rhs, rec, cxt):
        """threadBinOpOverPHI: the same simplified value on every incoming edge."""
        if rec <= 0:
            return None
        rec -= 1
        if getattr(lhs, "opcode", None) == "phi":
            pi, other, left = lhs, rhs, True
        else:
            pi, other, left = rhs, lhs, False
        if not self.value_dominates_phi(other, pi):
            return None
        common = None
        for inc, _blk in pi.incoming:
            inc = self.r(inc)
            if inc is pi:
                continue
            v = self.binop_(opc, inc, other, rec, None) if left else self.binop_(opc, other, inc, rec, None)
            if v is None or (common is not None and not self.same(v, common)):
                return None
            common = v
        return common

    def _dom_eq(self, opc, a, b, rec, cxt):
        """simplifyByDomEq (top level only)."""
        if rec != _RECURSION_LIMIT or cxt is None:
            return None
        e = self._edge(cxt.block)
        if e is None or not (self.same(e[1], a) or self.same(e[1], b) or self.same(e[2], a) or self.same(e[2], b)):
            return None
        if self.implied_by_dom_condition("eq", a, b, cxt) is True:
            if opc in ("sub", "xor"):
                return self.const(0, a)
            if opc in ("and", "or"):
                return b
        return None

    def _add(self, a, b, rec, cxt):
        c, a, b = self._fold("add", a, b)
        if c is not None:
            return c
        if _cval(b) == 0:
            return a
        A, B = self.binop(a), self.binop(b)
        oa, ob = A and A[0], B and B[0]
        if not (oa or ob):
            if _bits(a) == 1 and rec:
                return self._xor(a, b, rec - 1, cxt)
            return None
        # isKnownNegation: x + (0 - x), (a - b) + (b - a)
        if self.is_neg(a, b) is not None or self.is_neg(b, a) is not None:
            return self.const(0, a)
        sa, sb = self.binop(a, "sub"), self.binop(b, "sub")
        if sa is not None and sb is not None and self.same(sa[1], sb[2]) and self.same(sa[2], sb[1]):
            return self.const(0, a)
        # X + (Y - X) -> Y ; (Y - X) + X -> Y
        if sb is not None and self.same(sb[2], a):
            return sb[1]
        if sa is not None and self.same(sa[2], b):
            return sa[1]
        if self.is_not(a, b) is not None or self.is_not(b, a) is not None:
            return self.const(-1, a)
        if _bits(a) == 1 and rec:
            v = self._xor(a, b, rec - 1, cxt)
            if v is not None:
                return v
        if oa == "add" or ob == "add":
            return self._assoc("add", a, b, rec, cxt)
        return None

    def _sub(self, a, b, rec, cxt):
        c, a, b = self._fold("sub", a, b)
        if c is not None:
            return c
        if _cval(b) == 0:
            return a
        if self.same(a, b):
            return self.const(0, a)
        bits = _bits(a)
        if _cval(a) == 0:
            k = self.known(b)
            if k.zero == ((1 << (bits - 1)) - 1):  # 0 or the minimum signed value
                return b
        if rec:
            ad = self.binop(a, "add")
            if ad is not None:  # (X + Y) - Z -> X + (Y - Z) or Y + (X - Z)
                _, X, Y = ad
                for p, q in ((X, Y), (Y, X)):
                    v = self._sub(q, b, rec - 1, cxt)
                    if v is not None:
                        w = self._add(p, v, rec - 1, cxt)
                        if w is not None:
                            return w
            ad = self.binop(b, "add")
            if ad is not None:  # X - (Y + Z) -> (X - Y) - Z or (X - Z) - Y
                _, Y, Z = ad
                for p, q in ((Y, Z), (Z, Y)):
                    v = self._sub(a, p, rec - 1, cxt)
                    if v is not None:
                        w = self._sub(v, q, rec - 1, cxt)
                        if w is not None:
                            return w
            sb = self.binop(b, "sub")
            if sb is not None:  # Z - (X - Y) -> (Z - X) + Y
                _, X, Y = sb
                v = self._sub(a, X, rec - 1, cxt)
                if v is not None:
                    w = self._add(v, Y, rec - 1, cxt)
                    if w is not None:
                        return w
            if bits == 1:
                v = self._xor(a, b, rec - 1, cxt)
                if v is not None:
                    return v
        return self._dom_eq("sub", a, b, rec, cxt)

    def _mul(self, a, b, rec, cxt):
        c, a, b = self._fold("mul", a, b)
        if c is not None:
            return c
        cb = _cval(b)
        if cb == 0:
            return self.const(0, a)
        if cb == 1:
            return a
        if _bits(a) == 1 and rec:
            v = self._and(a, b, rec - 1, cxt)
            if v is not None:
                return v
        A, B = self.binop(a), self.binop(b)
        oa, ob = A and A[0], B and B[0]
        if oa == "mul" or ob == "mul":
            v = self._assoc("mul", a, b, rec, cxt)
            if v is not None:
                return v
        if oa == "add" or ob == "add":
            v = self._expand("mul", a, b, "add", rec, cxt)
            if v is not None:
                return v
        if _is_phi(a) or _is_phi(b):
            return self._thread_phi("mul", a, b, rec, cxt)
        return None

    def _shift(self, opc, a, b, rec, cxt):
        """simplifyShift (the part shl, lshr and ashr share)."""
        c, a, b = self._fold(opc, a, b)
        if c is not None:
            return c
        bits = _bits(a)
        if _cval(a) == 0:
            return self.const(0, a)
        cb = _cval(b)
        if cb == 0:
            return a
        if cb is not None and cb >= bits:
            return None  # poison: not modeled, left alone
        if _is_phi(a) or _is_phi(b):
            v = self._thread_phi(opc, a, b, rec, cxt)
            if v is not None:
                return v
        ka = self.known(b)
        if ka.min_value() >= bits:
            return None  # poison
        if ka.trail_zeros() >= (bits - 1).bit_length():
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
        if self.same(a, b):
            return self.const(0, a)
        return None

    def _ashr(self, a, b, rec, cxt):
        v = self._shift("ashr", a, b, rec, cxt)
        if v is not None:
            return v
        if self.same(a, b):
            return self.const(0, a)
        bits = _bits(a)
        m = (1 << bits) - 1
        if _cval(a) == m:
            return a
        sh = self.binop(a, "shl")
        if sh is not None and _cval(sh[1]) == m and self.same(sh[2], b):
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
            if c1 is None or c2 is None or not self.same(ad[1], sb[2]):
                continue
            m = (1 << _bits(a)) - 1
            if ~c1 & m == c2:
                return self.const(0 if opc == "and" else m, a)
        return None

    def _and_commutative(self, a, b):
        if self.is_not(a, b) is not None:  # ~A & A
            return self.const(0, a)
        o = self.binop(a, "or")
        if o is not None and (self.same(o[1], b) or self.same(o[2], b)):  # (A | ?) & A
            return b
        if o is not None:  # (X | ~Y) & (X | Y) -> X
            o2 = self.binop(b, "or")
            if o2 is not None:
                for X, nY in ((o[1], o[2]), (o[2], o[1])):
                    Y = self.is_not(nY)
                    if Y is None:
                        continue
                    if (self.same(o2[1], X) and self.same(o2[2], Y)) or (self.same(o2[2], X) and self.same(o2[1], Y)):
                        return X
        if self.is_neg(a, b) is not None and self.power_of_two(b, True):  # -A & A
            return b
        ad = self.binop(a, "add")
        m = (1 << _bits(a)) - 1
        if ad is not None and self.same(ad[1], b) and _cval(ad[2]) == m and self.power_of_two(b, True):
            return self.const(0, a)
        return None

    def _and(self, a, b, rec, cxt):
        c, a, b = self._fold("and", a, b)
        if c is not None:
            return c
        bits = _bits(a)
        m = (1 << bits) - 1
        cb = _cval(b)
        if self.same(a, b):
            return a
        if cb == 0:
            return self.const(0, a)
        if cb == m:
            return a
        A, B = self.binop(a), self.binop(b)
        oa, ob = A and A[0], B and B[0]
        if not (oa or ob):
            if _is_phi(a) or _is_phi(b):
                v = self._thread_phi("and", a, b, rec, cxt)
                if v is not None:
                    return v
            return self._dom_eq("and", a, b, rec, cxt)
        v = self._and_commutative(a, b) or self._and_commutative(b, a)
        if v is not None:
            return v
        if oa in _ADDSUB and ob in _ADDSUB and oa != ob:
            v = self._logic_add_sub("and", a, b)
            if v is not None:
                return v
        if cb is not None:
            sh = self.binop(a)
            if sh is not None and sh[0] in ("shl", "lshr"):
                s = _cval(sh[2])
                if s is not None and s < bits:
                    inv = ~cb & m
                    if (sh[0] == "shl" and (inv >> s) == 0) or (sh[0] == "lshr" and ((inv << s) & m) == 0):
                        return a
            # and (2^x - 1), 2^C -> 0 when x <= C
            ad = self.binop(a, "add")
            if cb & (cb - 1) == 0 and ad is not None and _cval(ad[2]) == m and self.power_of_two(ad[1], False):
                if cb.bit_length() >= self.known(ad[1]).max_value().bit_length():
                    return self.const(0, a)
        if oa == "and" or ob == "and":
            v = self._assoc("and", a, b, rec, cxt)
            if v is not None:
                return v
        if oa == "or" or ob == "or":
            v = self._expand("and", a, b, "or", rec, cxt)
            if v is not None:
                return v
        if oa == "xor" or ob == "xor":
            v = self._expand("and", a, b, "xor", rec, cxt)
            if v is not None:
                return v
        if _is_phi(a) or _is_phi(b):
            v = self._thread_phi("and", a, b, rec, cxt)
            if v is not None:
                return v
        # ((X | Y) ^ X) & ((X | Y) ^ Y) -> 0
        xa, xb = self.binop(a, "xor"), self.binop(b, "xor")
        if xa is not None and xb is not None:
            for X, O in ((xa[1], xa[2]), (xa[2], xa[1])):
                o = self.binop(O, "or")
                if o is None:
                    continue
                for p, Y in ((o[1], o[2]), (o[2], o[1])):
                    if self.same(p, X) and ((xb[1] is O and self.same(xb[2], Y)) or (xb[2] is O and self.same(xb[1], Y))):
                        return self.const(0, a)
            # (A ^ C) & (A ^ ~C) -> 0
            c1, c2 = _cval(xa[2]), _cval(xb[2])
            if c1 is not None and c2 is not None and self.same(xa[1], xb[1]) and c2 == ~c1 & m:
                return self.const(0, a)
        return self._dom_eq("and", a, b, rec, cxt)

    def _or_logic(self, x, y, X, Y):
        """simplifyOrLogic(X, Y); ``X``, ``Y``: their binop tuples (or None)."""
        m = (1 << _bits(x)) - 1
        ox, oy = X and X[0], Y and Y[0]
        same = self.same
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
        return (self.same(bo[1], p) and self.same(bo[2], q)) or (self.same(bo[1], q) and self.same(bo[2], p))

    def _or(self, a, b, rec, cxt):
        c, a, b = self._fold("or", a, b)
        if c is not None:
            return c
        bits = _bits(a)
        m = (1 << bits) - 1
        cb = _cval(b)
        if cb == m:
            return self.const(m, a)
        if self.same(a, b) or cb == 0:
            return a
        A, B = self.binop(a), self.binop(b)
        oa, ob = A and A[0], B and B[0]
        if not (oa or ob):
            if _is_phi(a) or _is_phi(b):
                v = self._thread_phi("or", a, b, rec, cxt)
                if v is not None:
                    return v
            return self._dom_eq("or", a, b, rec, cxt)
        v = self._or_logic(a, b, A, B) or self._or_logic(b, a, B, A)
        if v is not None:
            return v
        if oa in _ADDSUB and ob in _ADDSUB and oa != ob:
            v = self._logic_add_sub("or", a, b)
            if v is not None:
                return v
        if oa == "or" or ob == "or":
            v = self._assoc("or", a, b, rec, cxt)
            if v is not None:
                return v
        if oa == "and" or ob == "and":
            v = self._expand("or", a, b, "and", rec, cxt)
            if v is not None:
                return v
        # (A & C1) | (B & C2) with C1 == ~C2: ((V + N) & C1) | (V & C2) -> V + N
        aa, ba = self.binop(a, "and"), self.binop(b, "and")
        if aa is not None and ba is not None:
            c1, c2 = _cval(aa[2]), _cval(ba[2])
            if c1 is not None and c2 is not None and c1 == ~c2 & m:
                A, B = aa[1], ba[1]
                for (P, Q, cm) in ((A, B, c2), (B, A, c1)):
                    ad = self.binop(P, "add")
                    if cm and (cm & (cm + 1)) == 0 and ad is not None:
                        for x_, n_ in ((ad[1], ad[2]), (ad[2], ad[1])):
                            if self.same(x_, Q) and self.known(n_).zero & cm == cm:
                                return P
        if _is_phi(a) or _is_phi(b):
            v = self._thread_phi("or", a, b, rec, cxt)
            if v is not None:
                return v
        xa, xb = self.binop(a, "xor"), self.binop(b, "xor")
        if xa is not None and xb is not None:  # (A ^ C) | (A ^ ~C) -> -1
            c1, c2 = _cval(xa[2]), _cval(xb[2])
            if c1 is not None and c2 is not None and self.same(xa[1], xb[1]) and c2 == ~c1 & m:
                return self.const(m, a)
        return self._dom_eq("or", a, b, rec, cxt)

    def _and_or_not(self, x, y):
        """simplifyXorInst's foldAndOrNot(X, Y)."""
        xa, yo = self.binop(x, "and"), self.binop(y, "or")
        if xa is not None and yo is not None:  # (~A & B) ^ (A | B) -> A
            for nA, B in ((xa[1], xa[2]), (xa[2], xa[1])):
                A = self.is_not(nA)
                if A is not None and self._pair(yo, A, B):
                    return A
        xo, ya = self.binop(x, "or"), self.binop(y, "and")
        if xo is not None and ya is not None:  # (~A | B) ^ (A & B) -> ~A
            for nA, B in ((xo[1], xo[2]), (xo[2], xo[1])):
                A = self.is_not(nA)
                if A is not None and self._pair(ya, A, B):
                    return nA
        return None

    def _xor(self, a, b, rec, cxt):
        c, a, b = self._fold("xor", a, b)
        if c is not None:
            return c
        m = (1 << _bits(a)) - 1
        if _cval(b) == 0:
            return a
        if self.same(a, b):
            return self.const(0, a)
        A, B = self.binop(a), self.binop(b)
        oa, ob = A and A[0], B and B[0]
        if oa or ob:
            if (oa == "xor" and self.is_not(a, b) is not None) or (ob == "xor" and self.is_not(b, a) is not None):
                return self.const(m, a)
            if oa and ob:
                if oa in _ANDOR and ob in _ANDOR and oa != ob:
                    v = self._and_or_not(a, b) or self._and_or_not(b, a)
                    if v is not None:
                        return v
                if oa in _ADDSUB and ob in _ADDSUB and oa != ob:
                    v = self._logic_add_sub("xor", a, b)
                    if v is not None:
                        return v
            if oa == "xor" or ob == "xor":
                v = self._assoc("xor", a, b, rec, cxt)
                if v is not None:
                    return v
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
            if (ka.zero & kb.one) or (ka.one & kb.zero):
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
    deletes them when it reaches them, so they never become a CSE representative)."""
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


def simplify_function(fn, idom: dict, rep: dict | None = None) -> dict:
    """One EarlyCSE run over ``fn`` on top of ``rep`` (updated and returned)."""
    rep = {} if rep is None else rep
    if fn.blocks:
        _run(_Pass(fn, idom, rep), fn)
    return rep


def _run(p: _Pass, fn) -> None:
    rep = p.rep
    dead = _trivially_dead(fn)
    table: dict = {}
    undo: list = []
    visited = p.visited
    simplify = p.simplify
    r = p.r
    work = [("enter", fn.blocks[0])]
    while work:
        kind, item = work.pop()
        if kind == "leave":
            while len(undo) > item:
                table.pop(undo.pop(), None)
            continue
        b = item
        work.append(("leave", len(undo)))
        for i in b.instructions:
            if i.name is None or i in rep or i in dead:
                continue
            opc = i.opcode
            ops = None
            if opc in _SIMPLIFIED:
                ops = [o if o.__class__ is not Instruction or o not in rep else r(o) for o in i.operands]
                v = simplify(i, ops)
                if v is not None and v is not i:
                    rep[i] = v
                    continue
            visited.add(i)
            if opc not in _CSE_OPS:
                continue
            if ops is None:
                ops = [o if o.__class__ is not Instruction or o not in rep else r(o) for o in i.operands]
            key = _cse_key(i, ops)
            hit = table.get(key)
            if hit is not None:
                rep[i] = hit
            else:
                table[key] = i
                undo.append(key)
        for c in reversed(p.kids.get(b, ())):
            work.append(("enter", c))


_SIMPLIFIED = _BINOPS | {"phi", "icmp", "select"}


def _resimplify(p: _Pass, fn) -> None:
    """What llc's next EarlyCSE run adds: a phi visited before a value it reads over a
    back edge was replaced is simplified again, and so (transitively) are the users of
    every value replaced that way. (Every other instruction was visited after its
    operands, so it already saw their replacements.)"""
    rep = p.rep
    users: dict | None = None
    work = [i for b in fn.blocks for i in b.instructions
            if i.opcode == "phi" and i not in rep and any(v in rep for v in i.operands)]
    budget = 4 * len(work) + 64
    while work and budget:
        budget -= 1
        i = work.pop()
        if i in rep or i.opcode not in _SIMPLIFIED or i not in p.visited:
            continue
        p.bo.pop(i, None)
        v = p.simplify(i)
        if v is None or v is i:
            continue
        rep[i] = v
        if users is None:
            users = {}
            for blk in fn.blocks:
                for u in blk.instructions:
                    for x in u.operands:
                        if x.__class__ is Instruction:
                            users.setdefault(x, []).append(u)
        for u in users.get(i, ()):
            p.bo.pop(u, None)
            work.append(u)


def early_cse(fn, idom: dict | None = None) -> dict:
    """EarlyCSE with InstSimplify as llc runs it (see the module docstring):
    instruction -> the value that replaces it (chains resolved)."""
    if not fn.blocks:
        return {}
    if idom is None:
        from .sdag import immediate_dominators

        idom = immediate_dominators(fn)
    p = _Pass(fn, idom, {})
    _run(p, fn)
    if p.rep:
        _resimplify(p, fn)
    return {i: p.r(v) for i, v in p.rep.items()}


def apply_early_cse(fn, idom: dict | None = None) -> dict:
    """Run ``early_cse`` on ``fn`` and leave the IR as the pass leaves it: every use of a
    replaced instruction (operands, phi incoming values) reads its replacement, as
    LLVM's replaceAllUsesWith does. The replaced instructions stay in their blocks
    without users (dead-code removal, ``patterns.sdag``, drops them); the function's
    derived user lists are reset. Returns the replacement map."""
    if getattr(fn, "is_declaration", False) or not fn.blocks:
        return {}
    rep = early_cse(fn, idom)
    if rep:
        _rewrite(fn, rep)
    return rep


_HOISTABLE = _BINOPS | {"icmp", "select", "zext", "sext", "trunc", "bitcast", "getelementptr", "freeze"}


def licm(fn, idom: dict | None = None) -> list:
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
    if idom is None:
        from .sdag import immediate_dominators

        idom = immediate_dominators(fn)
    kids: dict = {}
    for b in blocks:
        p = idom.get(b)
        if p is not None and p is not b:
            kids.setdefault(p, []).append(b)
    pre, post, order = {}, {}, {}
    clock = 0
    work = [(blocks[0], False)]
    while work:
        x, done = work.pop()
        if done:
            post[x] = clock
            clock += 1
            continue
        order[x] = len(order)
        pre[x] = clock
        clock += 1
        work.append((x, True))
        work.extend((k, False) for k in reversed(kids.get(x, ())))

    def dominates(a, b):
        return a in pre and b in pre and pre[a] <= pre[b] and post[b] <= post[a]

    bodies: dict = {}
    for b in blocks:
        for h in b.successors:
            if dominates(h, b):  # a back edge b -> h
                body = bodies.setdefault(h, {h})
                stack = [b]
                while stack:
                    x = stack.pop()
                    if x in body or x not in pre:
                        continue
                    body.add(x)
                    stack.extend(x.predecessors)
    moved = []
    for h in sorted(bodies, key=lambda h: len(bodies[h])):  # innermost first
        body = bodies[h]
        outside = [p for p in dict.fromkeys(h.predecessors) if p not in body]
        if len(outside) != 1 or len(outside[0].successors) != 1 or not outside[0].instructions:
            continue
        ph = outside[0]
        for b in sorted(body, key=order.__getitem__):
            for i in list(b.instructions):
                if i.opcode not in _HOISTABLE or i.name is None:
                    continue
                if any(o.__class__ is Instruction and o.block in body for o in i.operands):
                    continue
                b.instructions.remove(i)
                ph.instructions.insert(len(ph.instructions) - 1, i)
                i.block = ph
                moved.append(i)
    if moved:
        fn.uses = None
    return moved


def mul24(fn, ua, target=None) -> int:
    """AMDGPUCodeGenPrepare's replaceMulWithMul24: a divergent i32 ``mul`` whose operands
    both fit in 24 bits -- unsigned (known leading zeros), else signed (sign bits) --
    becomes a call of ``llvm.amdgcn.mul.u24`` / ``llvm.amdgcn.mul.i24`` (the instruction is
    rewritten in place). Uniform multiplies stay (s_mul_i32). Only when ``target`` lowers
    those intrinsics. Returns how many were rewritten."""
    known = getattr(target, "intrinsics_by_ir_name", None) or {}
    if "llvm.amdgcn.mul.u24" not in known or ua is None:
        return 0
    p = _Pass(fn, None, {})
    if not any(i.opcode == "mul" for b in fn.blocks for i in b.instructions):
        return 0
    div = _divergence_after_simplification(fn, ua)
    done = 0
    for b in fn.blocks:
        for i in b.instructions:
            if i.opcode != "mul" or _bits(i) != 32 or not div.get(i, False):
                continue
            x, y = i.operands
            # (numBitsUnsigned <= 24 for both, else numBitsSigned <= 24 for both)
            if p.known(x).lead_zeros() >= 8 and p.known(y).lead_zeros() >= 8:
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


def _divergence_after_simplification(fn, ua) -> dict:
    """The uniformity analysis as llc reruns it after EarlyCSE (for AMDGPUCodeGenPrepare),
    for data dependence: an instruction the analysis called divergent is divergent only if
    one of its operands still is after the rewrites (phis, loads and calls keep the
    analysis's answer: control dependence, memory, sources). Blocks in reverse post-order,
    so operands are answered before their users."""
    from .cfg import reverse_post_order

    div: dict = {}
    keep = ("phi", "load", "call")
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


def run_ir_passes(fn, ua=None, target=None) -> None:
    """The IR passes of llc's pipeline modeled here, in its order, on ``fn`` in place:
    EarlyCSE (with InstSimplify), AMDGPUCodeGenPrepare's 24-bit multiplies, LICM, and
    EarlyCSE again when LICM moved code (llc's last EarlyCSE runs after its loop
    passes)."""
    if getattr(fn, "is_declaration", False) or not fn.blocks:
        return
    from .sdag import immediate_dominators

    idom = immediate_dominators(fn)  # (none of the passes changes the CFG)
    apply_early_cse(fn, idom)
    mul24(fn, ua, target)
    moved = licm(fn, idom)
    if moved:
        _cse_moved(fn, moved, idom)


def _cse_moved(fn, moved: list, idom: dict) -> None:
    """What llc's EarlyCSE after its loop passes finds for code LICM hoisted: a hoisted
    instruction equal to one that now dominates it (same key as EarlyCSE's) is replaced
    by it (every use rewritten). Only the hoisted instructions can have a new dominating
    equal (the rest kept their places), and only in the preheaders' dominator chains."""
    wanted: dict = {}
    for i in moved:
        if i.opcode in _CSE_OPS:
            wanted.setdefault(_cse_key(i, i.operands), []).append(i)
    if not wanted:
        return
    p = _Pass(fn, idom, {})
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
    rep: dict = {}
    for b in fn.blocks:
        if b not in chain:
            continue
        insts = b.instructions
        for k, j in enumerate(insts):
            if j.opcode not in opcodes or j.name is None or j in rep:
                continue
            cands = wanted.get(_cse_key(j, j.operands))
            if not cands:
                continue
            for i in cands:
                if i is j or i in rep:
                    continue
                if j.block is i.block:
                    if k < insts.index(i):
                        rep[i] = j
                elif p.dominates_block(j.block, i.block):
                    rep[i] = j
    if rep:
        _rewrite(fn, rep)


def _rewrite(fn, rep: dict) -> None:
    """Every use of a replaced instruction reads its replacement (replaceAllUsesWith)."""
    inst = Instruction
    for b in fn.blocks:
        for i in b.instructions:
            ops = i.operands
            for o in ops:
                if o.__class__ is inst and o in rep:
                    break
            else:
                continue
            i.operands = [rep.get(o, o) if o.__class__ is inst else o for o in ops]
            if i.opcode == "phi":
                i.incoming = [(rep.get(v, v) if v.__class__ is inst else v, blk) for v, blk in i.incoming]
            i._text = None
    fn.uses = None

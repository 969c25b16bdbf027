"""LoopStrengthReduce's rewrite in the modeled case: SCEVExpander (``Expander``: the
sums, products and negations it emits, in the operand order CompareValueComplexity
gives, ``complexity``), whether the formula LSR would pick is the one modeled
(``decided``, ``pins_decided``, ``shares_part``) and where an expansion is inserted
(``insert_point``).
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import Constant
from patterns.ir.function import Argument, Instruction
from patterns.llc.lsr_claim import computed, found_values, pinned_by
from patterns.llc.lsr_scev import const_int, no_int_min, scale_of, scev_kind, signed_range_of, umax_of


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction


# LLVM's Instruction opcode numbers for the kinds CompareValueComplexity meets here
# (Value IDs of instructions are InstructionVal + opcode): only their order matters.
_OPCODE_ORDER: Final = {op: k for k, op in enumerate((
    "ret", "br", "switch", "indirectbr", "invoke", "resume", "unreachable", "cleanupret", "catchret",
    "catchswitch", "callbr", "fneg", "add", "fadd", "sub", "fsub", "mul", "fmul", "udiv", "sdiv", "fdiv",
    "urem", "srem", "frem", "shl", "lshr", "ashr", "and", "or", "xor", "alloca", "load", "store",
    "getelementptr", "fence", "cmpxchg", "atomicrmw", "trunc", "zext", "sext", "fptoui", "fptosi",
    "uitofp", "sitofp", "fptrunc", "fpext", "ptrtoint", "inttoptr", "bitcast", "addrspacecast",
    "cleanuppad", "catchpad", "icmp", "fcmp", "phi", "call", "select"))}


def complexity(a, b, depth: dict, level: int = 0) -> int:
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
        r = complexity(oa, ob, depth, level + 1)
        if r:
            return r
    return 0


class Expander:
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
            if o.opcode == opc and o.flags == flags and len(o.operands) == 2 and same_scev_value(o.operands[0], a) \
                    and same_scev_value(o.operands[1], b):
                return o
        for h in self.home.get(block, []):
            if not (self.invariant_in(a, h) and self.invariant_in(b, h)):
                break
            pre = preheader_of(h, self.bodies[h])
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

        return sorted(p.operands, key=functools.cmp_to_key(lambda a, b: complexity(a, b, self.depth)))

    def scev_cmp(self, s, t) -> int:
        """CompareSCEVComplexity on two terms: constants, then products (fewer operands
        first, then operand by operand: the constant -1 before values), then values."""
        kr = {"c": 0, "n": 6, "p": 6, "np": 6, "nd": 6, "s": 6, "ns": 6, "d": 7, "u": 15}
        if kr[s[0]] != kr[t[0]]:
            return kr[s[0]] - kr[t[0]]
        if s[0] == "c":
            return 0
        if s[0] == "u":
            return complexity(s[1], t[1], self.depth)
        if s[0] == "d":
            return self.udiv_cmp(s[1], t[1], 1)

        def ops(term):
            # (the operands of the product: constants as ints, unsigned)
            kind, x = term
            if kind in ("s", "ns"):
                k = scale_of(x)
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
            r = self.udiv_cmp(x, y, 2) if dx else complexity(x, y, self.depth, 1)
            if r:
                return r
        return 0

    def udiv_cmp(self, x, y, level: int) -> int:
        """Two quotients x /u 2^C: the dividends, then the divisors (unsigned)."""
        r = complexity(x.operands[0], y.operands[0], self.depth, level)
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
                pre = preheader_of(h, self.bodies[h])
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
        flags = frozenset({"nsw", "nuw"}) if umax_of(x, 0) <= 1 else \
            frozenset({"nsw"}) if no_int_min(x) else frozenset()
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
        x, k = v.operands[0], scale_of(v)
        flags = set()
        if umax_of(x, 0) <= 1:
            flags = {"nsw", "nuw"}
        else:
            lo, hi = signed_range_of(x)
            if -(1 << 31) <= -k * hi and -k * lo <= (1 << 31) - 1:
                flags = {"nsw"}
        return self.binop("mul", x, Constant(self.ty, str(-k), "int", -k), anchor, frozenset(flags))


def decided(c, ex, dom) -> bool:
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
        found = found_values(c, var)
        if found:
            # (an instruction with W's SCEV that may dominate the expansion: reused when
            # its SCEV was computed, which the model only knows for IVUsers' values)
            lowest = reader if reader.opcode != "phi" else \
                next(blk for x, blk in reader.incoming if x is value).terminator
            maybe = [x for x in found if dominates(x, lowest)]
            if maybe and (len(found) > 1 or maybe[0].flags or maybe[0] not in computed(c)):
                return False
        for group in (var, inv):
            if not distinct([(scev_kind(x, k), x) for x, k in group.items()]):
                return False
        for x in var:
            if scale_of(x):
                # (C * x: the expander finds the atom, its SCEV computed with the sum's,
                # when no other value has that SCEV; -C * x finds no value: visitMulExpr)
                if x not in computed(c) or any(y is not x and _same_scaled(y, x) for b in c.body
                                               for y in b.instructions):
                    return False
            elif x.opcode == "mul":
                fa, fb = ex.factors(x)
                if complexity(fa, fb, ex.depth) == 0:
                    return False  # (factors tying: their order is the one SCEV built)
                if any(y is not x and y.opcode == "mul" and set(y.operands) == set(x.operands)
                       for b in c.body for y in b.instructions):
                    return False  # (another value with the product's SCEV)
            if x.opcode == "lshr" and any(y is not x and y.opcode == "lshr" and y.operands[0] is x.operands[0]
                                          and same_scev_value(y.operands[1], x.operands[1])
                                          for b in c.body for y in b.instructions):
                return False  # (another value with the quotient's SCEV)
            if var[x] == -1 and x.opcode in ("mul", "shl") and any(_negation_of(c, y, x) for b in c.body for y in b.instructions):
                return False  # (a value with the SCEV -1 * x the expander of -x could find)
        if len(var) == 1 and next(iter(var.values())) == 1:
            (x,) = var
            if step == 1:
                if complexity(x, c.iv, ex.depth) == 0:
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
    """``y`` is another constant multiple with ``x``'s SCEV C * v (``scale_of``), flags
    or not."""
    if type(y) is not _INSTRUCTION or y.opcode not in ("mul", "shl") or len(y.operands) != 2 or \
            y.operands[0] is not x.operands[0]:
        return False
    k = const_int(y.operands[1])
    if k is None:
        return False
    return (1 << k if y.opcode == "shl" and k < 32 else k if y.opcode == "mul" else None) == scale_of(x)


def pins_decided(c, dom) -> bool:
    """Whether the model knows each up-counting use's formula given the loop-invariant
    values LSR pins in registers of their own (``pinned_by``): with a pinned invariant
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
                p = pinned_by(c, next(iter(inv)), dom)
                if p is None:
                    return False
                if p:
                    c.pinned_readers.add(reader)
    return True


def shares_part(c) -> bool:
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


def insert_point(reader, value, idom, dom, home, depth, inserted):
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


def same_scev_value(x, y) -> bool:
    """The same value (constants by value: LLVM uniques them)."""
    return x is y or (type(x) is _CONSTANT and type(y) is _CONSTANT and x == y)


def preheader_of(h, body):
    outside = [p for p in dict.fromkeys(h.predecessors) if p not in body]
    if len(outside) != 1 or len(outside[0].successors) != 1:
        return None
    return outside[0]

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

The case modeled (``claim`` and ``decided`` say when it applies):

* the loop is innermost, has a preheader (the header's one outside predecessor,
  branching only to it) and one latch, its only exiting block, ending in ``br i1 %c``
  on ``%c = icmp <not eq/ne> %inext, <loop invariant>`` read only by that branch;
* ``%i = phi [0, preheader], [%inext, latch]``, ``%inext = add %i, 1`` (no flags), read
  only by ``%i`` and ``%c``; the other header phis take from the latch a value SCEV
  sees as opaque (a SCEVUnknown, ``opaque``: a phi, an opaque operation of two
  values, ``ashr x, C`` of an x that is not an add or shl);
* the interesting values (``Scev``: sums of +-1 times opaque values, products, quotients,
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
  multiply only by a value certainly loop-variant (``Scev.varies``) or of a value
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
  I + c; no two terms of a sum tie in SCEV complexity (``decided``).

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
loop (``pinned_by``), so reg(I) costs no register and reg(I+c) one more; where a reader
of I is one SCEV may see through -- a no-op, a mask, a select, a phi -- the model
declines: ``pins_decided``), expanded as LSR's Expand drives SCEVExpander
(``Expander``): the registers each expanded, then their sum, then the immediate
added. A new induction variable ``%lsr.iv = phi [%lsr.iv.next, latch], [start,
preheader]`` at the top of the header (incoming values in the header's
predecessor-list order, most recent branch first), made when the first use of it is
expanded, ``%lsr.iv.next = add %lsr.iv, -1`` right before ``%c``; a loop-invariant
register (the start, an I + c) expanded at the end of the preheader of the outermost
loop it is invariant in, once per insertion point (InsertedExpressions); W and the
sums at the use's insertion point (``insert_point``: AdjustInsertPositionForExpand,
which climbs the dominator tree from the reader -- for a phi, from the end of the
block the value comes from: RewriteForPHI -- to right after the replaced value). Before
building W, SCEVExpander looks its SCEV up among the values ScalarEvolution knows
(FindValueInExprValueMap): an instruction of the loop with that SCEV dominating the
insertion point is used instead (the model claims the loop only when it is the only
one, has no flags and is an operand of an interesting value, whose SCEV IVUsers
computed: ``found_values``, ``decided``); so it finds a product term's ``mul``
itself, a quotient's ``lshr`` and a constant multiple's ``mul``/``shl`` (a leading
-1 * x * y is multiplied out as visitMulExpr does, ``Expander.neg_product``: -1 and the
loop-invariant factors first, ``sub 0, Prod`` for -1, then ``mul``; a leading -C * x is
``mul x, -C``, with the nsw/nuw StrengthenNoWrapFlags
gives it from x's ranges, ``Expander.neg_scaled``; constant operands of products
compare unsigned). A sum is emitted as visitAddExpr does: the
terms in SCEV order (GroupByComplexity: constants, then products -- -1 * x and x * y
before -1 * x * y, the constant -1 before quotients before values, then the values'
complexity --, then quotients -- dividends, then divisors --,
then values by CompareValueComplexity -- constants, arguments, instructions by
opcode, then loop depth, operand count, operands to depth 2), reversed, stably
sorted by loop (invariant terms first) with negated terms last; then left to right,
``sub`` for a negated term, ``mul x, -1`` (``sub 0, x`` outside loops) for a leading
one, ``mul nsw`` where x's signed range leaves out INT_MIN (``no_int_min``: the
known-bits and sign-bits facts the model follows, sign bits also from known-zero top
bits as ComputeNumSignBits falls back on them), ``mul nuw nsw`` where x is at most
1 (``umax_of``); each binop reuses an equal instruction among the six before the insertion point
and is hoisted out of loops its operands are invariant in (InsertBinop); an expression
(a sum, a negated term) expanded before at the same insertion point -- a second reader
of the same value -- is reused however far back (InsertedExpressions, ``Expander.cache``). The reads of
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
reg(W') + reg(%i) (the solver requires that register of it: ``shares_part``),
values SCEV does not see as opaque (products of sums or of more values, quotients
of sums, ``and`` with a mask, constant multiples of sums or with flags ...), sums where
getAddExpr factors products or merges multiples of one value, uses read by header phis,
select-like phis, phis over critical edges or outside the loop, an instruction with
W's SCEV whose SCEV the model cannot tell was computed, coefficients other than +-1
(multiplies and shifts of the recurrence by constants), equality exit compares, equality compares
with a constant, an interesting value or beside a down-counting use, IV chains,
address uses, nested outer-loop recurrences. Known bits beyond ``no_int_min``'s are
taken as unknown. The cost model and the solver are not modeled; neither is what
llc's later EarlyCSE does to the expanded code.
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import Constant
from patterns.ir.function import Instruction
from patterns.llc.lsr_claim import claim, dead_code, found_values, LiveUsers, lsr_loops, users_of
from patterns.llc.lsr_expand import decided, Expander, insert_point, pins_decided, preheader_of, shares_part
from patterns.llc.lsr_scev import scev_kind


# (the IR classes as finals: a compiled build reads a final name without a dictionary lookup)
_CONSTANT: Final = Constant
_INSTRUCTION: Final = Instruction


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
    the caller keeps them (LICM's ``LicmState.names_now``); taken over."""
    if getattr(fn, "is_declaration", False) or len(fn.blocks) < 2:
        return []
    if dom is None:
        from patterns.llc.analyses import dom_tree

        if idom is None:
            from patterns.ir.dominators import immediate_dominators

            idom = immediate_dominators(fn)
        dom = dom_tree(fn, idom)
    loops, depth, bodies = lsr_loops(fn, idom, dom, forest)
    if not loops:
        return []
    _kids, dpre, dpost = dom

    def dominates(a, b):
        return dpre[a] <= dpre[b] and dpost[b] <= dpost[a]
    everyone = users_of(fn)
    dead0 = dead_code(fn, everyone)
    users = LiveUsers(everyone, dead0)
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
    ex = Expander(fn, i32, bodies, home, depth, created)
    claims = [c for c in claims if decided(c, ex, dom) and pins_decided(c, dom) and not shares_part(c)]
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
            pre = preheader_of(h, bodies[h])
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
            terms = [(scev_kind(x, k), x) for x, k in var.items()]
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
                ip = insert_point(lowest, value, idom, dom, home, depth, {i for i, _ in created})
                w = None
                for x in found_values(c, var):
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

"""LLVM 19's LowerSwitch: every ``switch`` rewritten as a balanced binary search over its case ranges, made of ``br`` blocks.

A target that runs StructurizeCFG (which handles ``br`` only) has llc lower its
switches first (``lower_switches``; llc's AMDGPU pipeline runs it in CodeGenPrepare's
group, after the LoadStoreVectorizer). For each block ending in a ``switch``, in
function order (blocks the pass makes are not visited), as LLVM 19 does it (facts of
the pass, written anew):

- a switch in a block that is unreachable (no predecessor, not the entry; or its one
  predecessor itself) is not lowered: the block is deleted at the end;
- *clusters*: the cases that do not go to the default, sorted by signed value, with
  neighbours (value + 1) going to the same block merged into one range;
- no cluster: a ``br`` to the default, its phis keeping one entry from the block;
- *bounds*: an unreachable default (a block of phis and ``unreachable``) bounds the
  value by the clusters themselves; otherwise by the condition's range (known bits met
  with LazyValueInfo: ``patterns.llc.lowerswitch_range``, which says where LVI can be
  tighter than the model) widened to the clusters; when that range holds no value
  outside the cases the default is unreachable too;
- an unreachable default: its phis lose the switch's entries (``removePredecessor``,
  which folds a phi left with one value), the most popular destination (most case
  values, the first in case order on a tie) becomes the default and its clusters are
  dropped (all of them gone: a ``br`` to it, its phis keeping one entry); the gaps
  between clusters are then known unreachable, which lets a left subtree keep a tighter
  upper bound;
- *the tree*: ``NodeBlock`` tests ``icmp slt %v, pivot`` (pivot: the low end of the
  middle cluster, left half below); a leaf whose cluster fills the bounds left for it
  is its destination itself (no test); else a ``LeafBlock`` tests ``icmp eq`` (one
  value), ``sle hi`` (the range starts at the lower bound), ``sge lo`` (it ends at the
  upper bound), ``ule hi`` (it starts at 0), or ``add %v, -lo`` (``%v.off``) then
  ``ule hi-lo``, and branches to the destination or the default. Names ``NodeBlock``,
  ``LeafBlock``, ``Pivot``, ``SwitchLeaf`` made unique as LLVM's symbol table does (one
  counter per function; a block's name when it is inserted, a node after its subtrees,
  its ``Pivot`` after it). Every new block goes right after the switch's block when it
  is made, so the tree reads root first, then the right subtree's blocks before the
  left one's, each leaf after the nodes above it;
- *phis*: each leaf adds an entry to the default's phis (the switch block's value) and
  turns one of its destination's switch entries into its own, dropping the entries of
  the other values of its range; a destination reached without a test has its first
  entry turned into the node's and the range's others dropped; the default's remaining
  switch entries are dropped; the switch block branches to the root;
- the old default, when nothing branches to it any more, is deleted at the end with the
  blocks marked unreachable (``DeleteDeadBlock``: its successors' phis lose its entries,
  its values' uses become ``poison``).
"""

from __future__ import annotations

from patterns.ir.core import VOID, Constant, IntType
from patterns.ir.function import BasicBlock, Instruction
from patterns.support.intops import signed_of_unsigned

_ALL = 1 << 80  # (FixPhis' "every entry": UnsignedMax)


def lower_switches(fn) -> bool:
    """Run the pass on ``fn`` in place; True when the function had a ``switch``."""
    if getattr(fn, "is_declaration", False) or not fn.blocks:
        return False
    if not any(b.instructions and b.instructions[-1].opcode == "switch" for b in fn.blocks):
        return False
    st = _Lowering(fn)
    for cur in list(fn.blocks):
        if cur in st.dead:
            continue
        t = cur.instructions[-1] if cur.instructions else None
        if t is not None and t.opcode == "switch":
            st.process(t)
    for b in st.dead_order:
        st.delete_dead_block(b)
    from patterns.llc.cfgedit import EditableCFG

    EditableCFG(fn, {}).finish()
    return True


class _Case:
    __slots__ = ("lo", "hi", "bb")

    def __init__(self, lo: int, hi: int, bb) -> None:
        self.lo, self.hi, self.bb = lo, hi, bb


def _phis(b) -> list:
    out = []
    for i in b.instructions:
        if i.opcode != "phi":
            break
        out.append(i)
    return out


class _Lowering:
    def __init__(self, fn) -> None:
        self.fn = fn
        self.names: set = {a.name for a in fn.args} | {b.name for b in fn.blocks}
        for b in fn.blocks:
            for i in b.instructions:
                if i.name is not None:
                    self.names.add(i.name)
        self.last = 0
        self.dead: set = set()
        self.dead_order: list = []

    # -- the IR
    def unique(self, base: str) -> str:
        name = base
        while name in self.names:
            self.last += 1
            name = f"{base}{self.last}"
        self.names.add(name)
        return name

    def preds(self, b) -> list:
        """``b``'s predecessor edges (one per edge)."""
        out = []
        for p in self.fn.blocks:
            t = p.instructions[-1] if p.instructions else None
            if t is not None and t.opcode in ("br", "switch", "callbr"):
                out.extend(p for s in t.targets if s is b)
        return out

    def insert_after(self, orig, b) -> None:
        blocks = self.fn.blocks
        at = next(k for k, x in enumerate(blocks) if x is orig) + 1
        blocks.insert(at, b)

    def append(self, b, inst) -> Instruction:
        inst.block = b
        b.instructions.append(inst)
        return inst

    def branch(self, b, targets: list, cond=None, span=None) -> Instruction:
        t = Instruction("br", None, VOID, [cond] if cond is not None else [], b, span)
        t.targets = list(targets)
        return self.append(b, t)

    def erase(self, inst) -> None:
        b = inst.block
        if b is not None:
            b.instructions = [i for i in b.instructions if i is not inst]
        if inst.name is not None:
            self.names.discard(inst.name)
        inst.block = None

    def replace_all_uses(self, old, new) -> None:
        for b in self.fn.blocks:
            for i in b.instructions:
                if any(o is old for o in i.operands):
                    i.operands = [new if o is old else o for o in i.operands]
                    if i.opcode == "phi":
                        i.incoming = [(new if v is old else v, p) for v, p in i.incoming]
                    i._text = None

    def set_incoming(self, phi, inc: list) -> None:
        phi.incoming = inc
        phi.operands = [v for v, _b in inc]
        phi._text = None

    def remove_incoming(self, phi, k: int) -> None:
        """PHINode::removeIncomingValue (the phi deleted when left empty)."""
        inc = list(phi.incoming)
        del inc[k]
        self.set_incoming(phi, inc)
        if not inc:
            self.replace_all_uses(phi, Constant(phi.type, "poison", "poison"))
            self.erase(phi)

    def remove_predecessor(self, b, pred) -> None:
        """BasicBlock::removePredecessor: one entry of ``pred`` out of each phi; a phi
        then merging one value (itself aside) replaced by it."""
        phis = _phis(b)
        if not phis:
            return
        n = len(phis[0].incoming)
        for phi in phis:
            k = next(k for k, (_v, p) in enumerate(phi.incoming) if p is pred)
            self.remove_incoming(phi, k)
            if n == 1 or phi.block is None:
                continue
            v = _constant_value(phi)
            if v is not None:
                self.replace_all_uses(phi, v)
                self.erase(phi)

    def fix_phis(self, succ, orig, new, merged: int) -> None:
        """FixPhis: the first entry of ``orig`` turned into ``new``'s (when ``new``),
        then up to ``merged`` further ``orig`` entries dropped."""
        for phi in _phis(succ):
            inc = list(phi.incoming)
            e = len(inc)
            k = 0
            if new is not None:
                while k < e:
                    if inc[k][1] is orig:
                        inc[k] = (inc[k][0], new)
                        break
                    k += 1
                k += 1
            drop = []
            left = merged
            while left > 0 and k < e:
                if inc[k][1] is orig:
                    drop.append(k)
                    left -= 1
                k += 1
            self.set_incoming(phi, inc)
            for j in reversed(drop):
                self.remove_incoming(phi, j)

    def mark_dead(self, b) -> None:
        if b not in self.dead:
            self.dead.add(b)
            self.dead_order.append(b)

    def delete_dead_block(self, b) -> None:
        t = b.instructions[-1] if b.instructions else None
        if t is not None and t.opcode in ("br", "switch", "callbr"):
            for s in list(t.targets):
                self.remove_predecessor(s, b)
        while b.instructions:
            i = b.instructions[-1]
            if i.type is not VOID:
                self.replace_all_uses(i, Constant(i.type, "poison", "poison"))
            self.erase(i)
        self.fn.blocks = [x for x in self.fn.blocks if x is not b]
        self.names.discard(b.name)

    # -- the pass
    def process(self, sw) -> None:
        fn = self.fn
        orig = sw.block
        default = sw.targets[0]
        preds = self.preds(orig)
        if (orig is not fn.blocks[0] and not preds) or (len(preds) == 1 and preds[0] is orig):
            self.mark_dead(orig)
            return
        val = sw.operands[0]
        bits = val.type.bits
        cases, n_simple = _clusterify(sw, bits)
        if not cases:
            self.erase(sw)
            self.branch(orig, [default], span=sw.span)
            self.fix_phis(default, orig, orig, _ALL)
            return
        body = [i for i in default.instructions if i.opcode != "phi"]
        ranges: list = []
        if body and body[0].opcode == "unreachable":
            lower, upper = cases[0].lo, cases[-1].hi
            unreachable = True
        else:
            from patterns.llc.lowerswitch_range import condition_range

            lo, hi = condition_range(fn, val, sw)
            lower, upper = min(lo, cases[0].lo), max(hi, cases[-1].hi)
            unreachable = (lower + n_simple - 1 - upper) % (1 << bits) == 0
        if unreachable:
            smin, smax = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
            ranges = [[smin, smax]]
            pop: dict = {}
            most, popular = 0, None
            for c in cases:
                last = ranges[-1]
                if last[0] == c.lo:
                    ranges.pop()
                else:
                    last[1] = c.lo - 1
                if c.hi != smax:
                    ranges.append([c.hi + 1, smax])
                pop[c.bb] = pop.get(c.bb, 0) + c.hi - c.lo + 1
                if pop[c.bb] > most:
                    most, popular = pop[c.bb], c.bb
            for _ in range(len(sw.cases) + 1 - n_simple):
                self.remove_predecessor(default, orig)
            default = popular
            cases = [c for c in cases if c.bb is not popular]
            if not cases:
                self.erase(sw)
                self.branch(orig, [default], span=sw.span)
                for _ in range(most - 1):
                    self.remove_predecessor(popular, orig)
                return
            val = sw.operands[0]
        root = self.convert(cases, lower, upper, val, orig, orig, default, ranges, sw.span)
        if root is not default:
            self.fix_phis(default, orig, None, _ALL)
        old_default = sw.targets[0]
        self.erase(sw)
        self.branch(orig, [root], span=sw.span)
        if not self.preds(old_default):
            self.mark_dead(old_default)

    def convert(self, cases: list, lower: int, upper: int, val, pred, orig, default, ranges: list, span):
        """SwitchConvert: the tree over ``cases`` with ``lower``..``upper`` already known."""
        if len(cases) == 1:
            c = cases[0]
            if c.lo == lower and c.hi == upper:
                self.fix_phis(c.bb, orig, pred, upper - lower)
                return c.bb
            return self.leaf(c, val, lower, upper, orig, default, span)
        mid = len(cases) // 2
        lhs, rhs = cases[:mid], cases[mid:]
        pivot = rhs[0].lo
        new_upper = pivot - 1
        if ranges:
            gap = (lhs[-1].hi + 1, pivot - 1)
            if gap[1] >= gap[0] and _in_ranges(gap, ranges):
                new_upper = lhs[-1].hi
        node = BasicBlock("NodeBlock", [], self.fn)
        left = self.convert(lhs, lower, new_upper, val, node, orig, default, ranges, span)
        right = self.convert(rhs, pivot, upper, val, node, orig, default, ranges, span)
        node.name = self.unique("NodeBlock")
        self.insert_after(orig, node)
        ty = val.type
        cmp = Instruction("icmp", self.unique("Pivot"), IntType(1), [val, _const(ty, pivot)], node, span,
                          predicate="slt")
        self.append(node, cmp)
        self.branch(node, [left, right], cmp, span)
        return node

    def leaf(self, c: _Case, val, lower: int, upper: int, orig, default, span):
        """NewLeafBlock: the test of one cluster, to its destination or the default."""
        b = BasicBlock(self.unique("LeafBlock"), [], self.fn)
        self.insert_after(orig, b)
        ty = val.type
        bits = ty.bits
        if c.lo == c.hi:
            pred, lhs, rhs = "eq", val, _const(ty, c.lo)
        elif c.lo == lower:
            pred, lhs, rhs = "sle", val, _const(ty, c.hi)
        elif c.hi == upper:
            pred, lhs, rhs = "sge", val, _const(ty, c.lo)
        elif c.lo == 0:
            pred, lhs, rhs = "ule", val, _const(ty, c.hi)
        else:
            base = getattr(val, "name", None)
            base = "" if base is None or not isinstance(base, str) or base.isdigit() or \
                isinstance(val, Constant) else base
            lhs = self.append(b, Instruction("add", self.unique(base + ".off"), ty, [val, _const(ty, -c.lo)],
                                             b, span))
            pred, rhs = "ule", _const(ty, c.hi - c.lo)
        cmp = self.append(b, Instruction("icmp", self.unique("SwitchLeaf"), IntType(1), [lhs, rhs], b, span,
                                         predicate=pred))
        self.branch(b, [c.bb, default], cmp, span)
        for phi in _phis(default):
            v = next(v for v, p in phi.incoming if p is orig)
            self.set_incoming(phi, list(phi.incoming) + [(v, b)])
        width = (c.hi - c.lo) % (1 << bits)
        drops = width if width < 1 << (bits - 1) else 0  # (LLVM counts them with a signed compare)
        for phi in _phis(c.bb):
            for _ in range(drops):
                k = next(k for k, (_v, p) in enumerate(phi.incoming) if p is orig)
                self.remove_incoming(phi, k)
            inc = list(phi.incoming)
            k = next(k for k, (_v, p) in enumerate(inc) if p is orig)
            inc[k] = (inc[k][0], b)
            self.set_incoming(phi, inc)
        return b


def _clusterify(sw, bits: int) -> tuple:
    """The sorted, merged case ranges that do not go to the default, and the number of
    cases that do not."""
    default = sw.targets[0]
    cases = []
    for c, bb in sw.cases:
        if bb is default:
            continue
        v = signed_of_unsigned(c._u, bits)
        cases.append(_Case(v, v, bb))
    n = len(cases)
    cases.sort(key=lambda c: c.lo)
    out: list = []
    for c in cases:
        if out and c.lo == out[-1].hi + 1 and c.bb is out[-1].bb:
            out[-1].hi = c.hi
        else:
            out.append(c)
    return out, n


def _in_ranges(r: tuple, ranges: list) -> bool:
    """Whether the ranges (sorted, disjoint) cover ``r``."""
    for lo, hi in ranges:
        if hi >= r[1]:
            return lo <= r[0]
    return False


def _const(ty, v: int) -> Constant:
    bits = ty.bits
    u = v & ((1 << bits) - 1)
    if bits == 1:
        return Constant(ty, "true" if u else "false", "int", 1 if u else 0)
    s = signed_of_unsigned(u, bits)
    return Constant(ty, str(s), "int", s)


def _constant_value(phi):
    """PHINode::hasConstantValue: the one value the phi merges (itself aside), poison
    when it merges only itself, else None."""
    first = phi.incoming[0][0]
    common = first
    for v, _b in phi.incoming[1:]:
        if v is not common and not _same_const(v, common) and v is not phi:
            if common is not phi:
                return None
            common = v
    if common is phi:
        return Constant(phi.type, "poison", "poison")
    return common


def _same_const(a, b) -> bool:
    return isinstance(a, Constant) and isinstance(b, Constant) and a == b


__all__ = ["lower_switches"]

"""Matcher-table compiler: a target's selection patterns as sorted check chains, switched on opcode.

Built once per target (cached in memory by target identity), in the manner of LLVM's
DAGISelEmitter:

1. Each ``SelectionPattern`` source DAG is resolved into a pattern tree (``PNode``):
   PatFrags are inlined (their predicate -- divergence predicates included -- attaches to
   the fragment's root), operators become ISD/target opcodes, leaves become typed
   operands, immediates or integer constants. Commutative operators with a non-leaf
   child also get their commuted variant, as TableGen's GenerateVariants does.
2. Complexity is LLVM's ``getPatternSize`` + ``AddedComplexity``: 3 per node, +2 for a
   constant root, +1 for a node with a predicate, +5 for an integer child, +1 for a leaf
   child with a predicate; patterns are stable-sorted by (vector result, FP result,
   -complexity, result instruction count, result CodeSize, source order with every
   commuted variant after the patterns as written) -- the PatternSortingPredicate order
   (the variants' IDs are the last ones TableGen hands out).
3. Each pattern is lowered to a flat chain of checks (``pattern.lower_checks``:
   ``child``, ``opcode``, ``type``, ``predicate``, ``integer``, ``same-as``), each with a
   text used by ``explain``.
4. The chains are grouped into a table keyed by the root opcode (LLVM's SwitchOpcode), so
   matching a node only tries the patterns rooted at its opcode, in complexity order.
   Each group is compiled (on first use) into one Python function
   (``patterns.select.matchgen``): a switch on the root type when its patterns check
   different ones (SwitchType), then the chains with the checks that consecutive
   patterns share tested once (FactorNodes' scopes). The selector
   (patterns.select.selgen) compiles the same code with each pattern's result DAG
   written in where it matches. Compiled code is kept per process by source text
   (``patterns.select.codecache``) and can come from the on-disk target cache.

The pattern records are ``patterns.select.pattern``'s, step 1 is
``patterns.select.patsrc``; predicates are executable (``patterns.select.predicates``:
immediate code translated from C++ by ``tdgen.cppexpr``), and so are the SDNodeXForms in
result DAGs (``patterns.select.xform``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from tdgen.errors import Diagnostics

from patterns.select.matchgen import compile_switch
from patterns.select.pattern import CompiledPattern, lower_checks
from patterns.select.predicates import eval_predicate

__all__ = ["MatchResult", "MatcherTable", "build_table", "adopt_table", "sort_patterns"]


@dataclass
class MatchResult:
    pattern: CompiledPattern
    slots: list
    bindings: dict


class MatcherTable:
    """Patterns grouped by root opcode, each group in LLVM's sort order; ``slot_maps``:
    by ``id`` of each pattern, the check-chain slot of each name it binds."""

    def __init__(self, patterns: list[CompiledPattern]):
        self.patterns = patterns
        self.by_opcode: dict[str, list[CompiledPattern]] = {}
        for p in patterns:
            self.by_opcode.setdefault(p.root_opcode, []).append(p)
        self.slot_maps = {id(p): lower_checks(p.src)[1] for p in patterns}
        self._compiled: dict[str, Callable | None] = {}
        self._emit_caches: dict[int, tuple] = {}

    def __getstate__(self):
        return {"patterns": self.patterns, "bindings": [self.slot_maps[id(p)] for p in self.patterns]}

    def __setstate__(self, state):
        pats = state["patterns"]
        bindings = state.get("bindings")
        if bindings is None or len(bindings) != len(pats):
            self.__init__(pats)
            return
        self.patterns = pats
        self.by_opcode = {}
        for p in pats:
            self.by_opcode.setdefault(p.root_opcode, []).append(p)
        self.slot_maps = {id(p): b for p, b in zip(pats, bindings)}
        self._compiled = {}
        self._emit_caches = {}

    def candidates(self, opcode: str) -> list[CompiledPattern]:
        return self.by_opcode.get(opcode, [])

    def run(self, p: CompiledPattern, node, slots=None) -> tuple[bool, int, list]:
        """Run ``p``'s checks on ``node``: (matched, index of first failing check, slots)."""
        if slots is None:
            slots = [None] * 17
        slots[0] = node
        for i, chk in enumerate(p.checks):
            k = chk[0]
            n = slots[chk[1]]
            if k == "child":
                ops = n.ops
                if chk[2] >= len(ops):
                    return False, i, slots
                if chk[3] >= len(slots):
                    slots.extend([None] * 16)
                slots[chk[3]] = ops[chk[2]]
            elif k == "opcode":
                if n.opcode != chk[2]:
                    return False, i, slots
            elif k == "type":
                if n.vt != chk[2]:
                    return False, i, slots
            elif k == "int":
                if n.value != chk[2] or n.opcode not in ("ISD::Constant", "ISD::TargetConstant"):
                    return False, i, slots
            elif k == "pred":
                if not eval_predicate(chk[2], n):
                    return False, i, slots
            elif k == "same":
                if slots[chk[2]] is not n:
                    return False, i, slots
            elif k == "predops":
                if not eval_predicate(chk[2], n, [slots[s] if s >= 0 else None for s in chk[4]]):
                    return False, i, slots
        return True, len(p.checks), slots

    def match(self, node) -> MatchResult | None:
        """The first pattern (in table order) whose checks all pass on ``node``."""
        fn = self.matcher_for(node.opcode)
        if fn is None:
            return None
        hit = fn(node)
        if hit is None:
            return None
        p, env = hit
        b = self.slot_maps[id(p)]
        slots = [None] * (max(b.values(), default=0) + 1)
        slots[0] = node
        for name, s in b.items():
            slots[s] = env[name]
        return MatchResult(p, slots, b)

    def matcher_for(self, opcode: str):
        """The compiled matcher of the patterns rooted at ``opcode``, or None when there are
        none: ``fn(node) -> (pattern, {bound name: node}) | None``. Compiled on first use
        (only the opcodes a DAG contains are ever compiled)."""
        fn = self._compiled.get(opcode, _UNCOMPILED)
        if fn is _UNCOMPILED:
            pats = self.by_opcode.get(opcode)
            fn = compile_switch(pats, self.slot_maps) if pats else None
            self._compiled[opcode] = fn
        return fn

    def bindings(self, p: CompiledPattern) -> dict:
        return self.slot_maps[id(p)]

    def emit_cache(self, target) -> tuple[dict, dict]:
        """Two dictionaries the selector (patterns.select.isel) keeps its compiled result plans
        and emitters in, keyed by ``id`` of this table's patterns, for ``target``: shared by
        every function selected with this table, so each is compiled once per process."""
        hit = self._emit_caches.get(id(target))
        if hit is None or hit[0] is not target:
            hit = self._emit_caches[id(target)] = (target, {}, {})
        return hit[1], hit[2]


_UNCOMPILED = object()


# ---------------------------------------------------------------------------------------
# Building from a target


_CACHE: dict[int, tuple[object, MatcherTable]] = {}


def build_table(target, *, multiply: int = 1, same_root: bool = False) -> MatcherTable:
    """The target's matcher table (built once per target object and cached);
    ``multiply``/``same_root`` make the enlarged tables of bench/isel.py (``_multiply``)."""
    key = (id(target), multiply, same_root)
    hit = _CACHE.get(key)  # type: ignore[arg-type]
    if hit is not None and hit[0] is target:
        return hit[1]
    full = getattr(type(target), "full_target", None)
    if full is not None:  # a patterns.select.isel.IselView: the patterns are read from its target
        table = build_table(full(target), multiply=multiply, same_root=same_root)
        _CACHE[key] = (target, table)  # type: ignore[index]
        return table
    from patterns.select.patsrc import resolve_patterns

    diags = Diagnostics()
    pats = resolve_patterns(target, diags)
    diags.check()
    if multiply > 1:
        pats = _multiply(pats, multiply, same_root)
    table = MatcherTable(sort_patterns(pats))
    _CACHE[key] = (target, table)  # type: ignore[index]
    return table


def adopt_table(target, table: MatcherTable) -> None:
    """Make ``table`` (e.g. unpickled from the on-disk cache) what ``build_table(target)``
    returns for this target object, so later callers do not rebuild it."""
    _CACHE[(id(target), 1, False)] = (target, table)  # type: ignore[index]


def sort_patterns(pats: list[CompiledPattern]) -> list[CompiledPattern]:
    def key(p: CompiledPattern):
        vt = p.result_vt or ""
        is_vec = vt.startswith("v")
        is_fp = vt.startswith(("f", "bf")) or (is_vec and "f" in vt[1:])
        # the last tie-break is the PatternToMatch's ID: GenerateVariants appends the
        # commuted variants after every pattern as written, so at equal complexity all
        # patterns as written come first (source order), then the variants
        return (is_vec, is_fp, -p.complexity, p.dst_cost, p.dst_size, p.variant != 0, p.order, p.variant)

    out = sorted(pats, key=key)
    for i, p in enumerate(out):
        p.index = i
    return out


def _multiply(pats: list[CompiledPattern], k: int, same_root: bool = False) -> list[CompiledPattern]:
    """``k`` copies of the pattern set that never match real nodes -- only the table grows.

    Default: copies 1..k-1 are rooted at fresh opcodes (``<opcode>#copyN``), a target with
    10x the opcodes. ``same_root``: the copies keep their root opcode but check a type no
    node has right after it, a target with 10x the patterns per opcode (the worst case for
    the per-opcode pattern lists, which try those copies one comparison each)."""
    out = list(pats)
    for c in range(1, k):
        for p in pats:
            q = CompiledPattern(**{**p.__dict__})
            if same_root:
                first = [ch for ch in p.checks if ch[0] == "opcode" and ch[1] == 0][:1]
                rest = [ch for ch in p.checks if not (ch[0] == "opcode" and ch[1] == 0)] if first else list(p.checks)
                q.checks = tuple(first + [("type", 0, f"copy{c}", f"root has type copy{c}")] + rest)
            else:
                q.root_opcode = f"{p.root_opcode}#copy{c}"
                q.checks = tuple((ch[0], ch[1], q.root_opcode, ch[3]) if ch[0] == "opcode" and ch[1] == 0 else ch
                                 for ch in p.checks)
            q.order = p.order + c * 100000
            out.append(q)
    return out

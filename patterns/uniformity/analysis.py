"""Uniformity (divergence) analysis of LLVM IR functions, as LLVM's UniformityAnalysis.

Which values may differ between the lanes of a wave, and which branches split a wave.
``analyze(module_or_function, target) -> UniformityInfo``.

Seeds come from the target's ``UniformityModel`` (tdgen/hw.py): sources of divergence
(workitem ids, atomics, private/flat loads, arguments not passed in scalar registers,
calls, inline asm with vector outputs, intrinsics by rule) and always-uniform values
(readfirstlane, ballot, ...). A worklist then propagates:

- data: a user of a divergent value is divergent (unless always uniform);
- divergent terminator: a branch/switch on a divergent value; its *join blocks* (blocks
  reached from the branch by two disjoint paths, computed by label propagation over a
  cycle-aware post-order, see ``_Propagator``) make their phis divergent (sync);
- temporal: a cycle left through a divergent exit makes every use outside the cycle of
  a value defined inside it divergent (lanes leave in different iterations);
- irreducible cycles entered divergently at several entries are assumed divergent as a
  whole (every definition in them).

Joins versus the legacy analysis: LLVM's older DivergenceAnalysis made only the phis in
the immediate post-dominator of a divergent branch divergent. Disjoint-path joins can
lie before it: in ``entry: br %div, A, B; A: br %uni, C, D; B: br C; C: br D`` the
post-dominator of ``entry`` is D, yet C is reached from entry through A and through B
by disjoint paths, so C's phis are divergent too (and D's phis are divergent only if D
is itself a join, which it is here via A->D and C->D). We follow the current analysis
(join blocks), as opt-19 does.

Where we deliberately differ from opt-19 (``llvm19_compat=False``, the default): LLVM 19
stops label propagation early using a "floor" index in the modified post-order: after a
block pushes a label different from the previous one, the floor rises to that block's
lowest successor; when one side of a divergent branch is a chain of blocks whose
post-order indices all lie above the other side's (an if/else whose arms are unmerged
block chains), the floor passes the other side's pending blocks and the loop ends
before the second label reaches the join, so the join's phis stay uniform (LLVM issue
137277; corpus phi_div_branch.ll, phi_div_loop.ll, unstructured-branch.ll). For each
divergent branch we run the propagation twice and take the union: once with LLVM 19's
floor (so we are never less divergent than opt-19, which matters for irreducible
cycles: its exit check compares the labels left by the early stop) and once without
the floor, stopping only once every pending path has merged into one block that lies
in no cycle (beyond it no second label can arrive: at the latest the first
post-dominator of the branch outside every cycle; inside irreducible cycles we do not
stop at all). The result therefore equals opt-19's plus the joins its early stop
misses. ``llvm19_compat=True`` runs only the floor version and reproduces
opt-19 exactly (the differential test checks that on generated kernels).

Cost: every value and edge is visited a bounded number of times by the worklist; each
divergent branch's propagation is bounded by its region up to that merge point (the
floor version by LLVM's own bound), with no post-dominator tree to build. Kept cheap per value (bench/divergence.py): the
user lists and the seed candidates (only the opcodes ``_Model.classify`` answers for)
come from the direct builder (``Function.uses`` and each value's ``_users``, made while
parsing, when the objects are still in the cache; so do the predecessor lists in LLVM's
use-list order), else from one pass over the instructions; the worklist tests a user's
verdict first (one lookup for a user already divergent); a data step stores just the operand it came
from as its cause (reason ``Step`` objects are made only for ``why``/JSON); the
dominator tree is built only if a join inside an irreducible cycle asks for it; the
cyclic garbage collector is off while the analysis runs and the new objects are moved
to the oldest generation afterwards (otherwise the first collection after it walks
every object of the AST and the analysis once more, which made the 50k-instruction
case grow faster than its work).
"""

from __future__ import annotations

import gc
import heapq
from fnmatch import fnmatchcase
from operator import attrgetter
from typing import Any, Final, Iterable

from tdgen.hw import DivergenceKind, UniformityModel

from patterns.ir.cycles import Cycle, CycleInfo, DomTree, modified_post_order
from patterns.uniformity.facts import DivergenceFacts, Step
from patterns.ir.core import TERMINATORS, Constant
from patterns.ir.function import Argument, Instruction



_GLOB_CHARS: Final = frozenset("*?[")
_MATCHERS: Final[dict[int, tuple]] = {}


def _matcher(pattern: str) -> Any:
    """A test equal to ``fnmatchcase(name, pattern)``, without compiling a regular
    expression for the usual ``prefix*`` and exact patterns."""
    if not _GLOB_CHARS.intersection(pattern):
        return pattern.__eq__
    if pattern.endswith("*") and not _GLOB_CHARS.intersection(pattern[:-1]):
        return lambda name, prefix=pattern[:-1]: name.startswith(prefix)
    return lambda name: fnmatchcase(name, pattern)


def first_rule(model: UniformityModel, ir_name: str) -> Any:
    """``model.intrinsic_rule(ir_name)`` (the first rule whose glob matches), with the
    globs turned into string tests once per rule set."""
    hit = _MATCHERS.get(id(model))
    if hit is None or hit[0] is not model:
        # keyed by identity; the entry keeps ``model`` alive so its id stays its own
        hit = _MATCHERS[id(model)] = (model, [(_matcher(r.pattern), r) for r in model.rules])
    for test, rule in hit[1]:
        if test(ir_name):
            return rule
    return None


# ----------------------------------------------------------------------------- helpers


def _is_local(v: Any) -> bool:
    """Instruction or Argument (values that can be divergent)."""
    return isinstance(v, (Instruction, Argument))


def _is_inst(v: Any) -> bool:
    return isinstance(v, Instruction)


def operand_values_of(inst: Any) -> list[Any]:
    if inst.opcode == "phi":
        return [v for v, _b in inst.incoming]
    vals = inst.operands
    cv = getattr(inst, "callee_value", None)
    # bundles: read without making the list (the property would allocate one)
    bundles = inst._bundles
    if cv is None and not bundles:
        return vals
    vals = list(vals)
    if cv is not None:
        vals.append(cv)
    for _tag, bvals in bundles or ():
        vals.extend(bvals)
    return vals


def _is_undef(v: Any) -> bool:
    return isinstance(v, Constant) and v.kind in ("undef", "poison")


def _value_name(v: Any) -> Any:
    if _is_local(v):
        return v.ref
    return getattr(v, "ref", None) or getattr(v, "text", "?")


def _inst_text(inst: Any) -> str:
    """The instruction text indented by two spaces (``Instruction._text``, made by the
    first read of ``text`` unless the parser kept the source line)."""
    t = inst._text
    if t is None:
        inst.text
        t = inst._text
    return t


def _term_name(block: Any) -> str:
    return f"terminator of block {block.slot}"


def _asm_outputs(constraints: str) -> list[str]:
    outs = []
    for part in constraints.split(","):
        part = part.strip()
        if part.startswith("="):
            outs.append(part)
    return outs


_SUCCESSORS: Final = attrgetter("successors")

# the opcodes ``_Model.classify`` can answer for (every other instruction follows its
# operands)
_SEED_OPCODES: Final = frozenset({"load", "atomicrmw", "cmpxchg", "call", "invoke", "callbr", "extractvalue"})


class _Model:
    """Target facts as the analysis asks them."""

    def __init__(self, target: Any) -> None:
        if target is None:
            from tdgen.commands.divergence import default_model

            target = default_model()
        if isinstance(target, UniformityModel):
            self.m = target
            self._intrinsic = None
        else:
            self.m = target.uniformity
            self._intrinsic = getattr(target, "intrinsic_divergence", None)
        self._cache: dict[str, tuple[DivergenceKind, str]] = {}

    def intrinsic(self, name: str) -> tuple[DivergenceKind, str]:
        hit = self._cache.get(name)
        if hit is not None:
            return hit
        rule = first_rule(self.m, name)
        if self._intrinsic is not None:
            kind = self._intrinsic(name)
        else:
            kind = rule.kind if rule is not None else DivergenceKind.FOLLOWS_OPERANDS
        note = rule.note if rule is not None and rule.kind == kind else ""
        self._cache[name] = (kind, note)
        return kind, note

    def is_intrinsic(self, name: str | None) -> bool:
        return name is not None and name.startswith(self.m.intrinsic_prefix)

    def single_lane(self, fn: Any) -> bool:
        wanted = self.m.single_lane_function_attrs
        if not wanted:
            return False
        return any(a.replace('"', "").replace(" ", "") in wanted for a in fn.attrs)

    def arg_uniform(self, fn: Any, arg: Any) -> bool:
        cc = fn.cc
        m = self.m
        if cc in m.uniform_arg_ccs:
            return True
        # attribute names, without arguments: 'byval(i32)' -> 'byval'
        attrs = {a.split("(", 1)[0] for a in arg.attrs}
        if cc in m.shader_ccs:
            return any(a in attrs for a in m.shader_uniform_arg_attrs)
        return any(a in attrs for a in m.default_uniform_arg_attrs)

    def asm_divergent(self, inst: Any, index: int | None = None) -> bool:
        asm = inst.inline_asm
        outs = _asm_outputs(asm.constraints)
        if index is not None:
            if index >= len(outs):
                return True
            outs = [outs[index]]
        return any(not self.m.asm_output_uniform(o) for o in outs)

    def classify(self, inst: Any) -> tuple[str, str] | None:
        """('source'|'uniform', why) for a seed, None when it follows its operands."""
        op = inst.opcode
        m = self.m
        if op == "load":
            if inst.addrspace in m.divergent_load_address_spaces:
                return "source", f"load from address space {inst.addrspace}"
            return None
        if op in ("atomicrmw", "cmpxchg"):
            if m.atomics_divergent:
                return "source", f"{op} result (lanes are serialised)"
            return None
        if op in ("call", "invoke", "callbr"):
            if getattr(inst, "inline_asm", None) is not None:
                if self.asm_divergent(inst):
                    return "source", "inline asm with a non-scalar output"
                return "uniform", "inline asm with only scalar outputs"
            callee = inst.callee
            if self.is_intrinsic(callee) and op == "call":
                kind, note = self.intrinsic(callee)
                if kind is DivergenceKind.SOURCE:
                    return "source", f"@{callee}" + (f" ({note})" if note else "")
                if kind is DivergenceKind.ALWAYS_UNIFORM:
                    return "uniform", f"@{callee}" + (f" ({note})" if note else "")
                return None
            if m.calls_divergent:
                return "source", f"call to @{callee}" if callee else "indirect call"
            return None
        if op == "extractvalue":
            agg = inst.operands[0] if inst.operands else None
            idx = getattr(inst, "indices", None)
            if agg is not None and _is_inst(agg) and agg.opcode == "call" and idx:
                if getattr(agg, "inline_asm", None) is not None:
                    if len(idx) == 1 and not self.asm_divergent(agg, idx[0]):
                        return "uniform", "scalar output of inline asm"
                    return None
                callee = agg.callee
                if callee is not None:
                    for glob, field in m.uniform_extracts:
                        if len(idx) == 1 and idx[0] == field and fnmatchcase(callee, glob):
                            return "uniform", f"field {field} of @{callee} (exec mask)"
        return None


# ----------------------------------------------------------------------------- results


class FunctionUniformity:
    """The verdicts for one function."""

    def __init__(self, fn: Any) -> None:
        self.function = fn
        self.divergent: dict[Any, Any] = {}  # value -> cause
        self.uniform_override: set[Any] = set()
        self.divergent_term_blocks: dict[Any, Any] = {}  # block -> cause
        self.divergent_exit_cycles: list[Cycle] = []
        self.assumed_divergent: list[Cycle] = []
        self.cycles: CycleInfo | None = None
        # work counters (deterministic evidence of linear scaling, see bench/)
        self.stats = {"worklist_pops": 0, "propagation_steps": 0}

    def is_divergent(self, v: Any) -> bool:
        if _is_inst(v) and v.block is not None and v is v.block.terminator:
            return v.block in self.divergent_term_blocks
        return v in self.divergent


class UniformityInfo:
    """Verdicts for every analysed function; ``is_divergent`` is a dict lookup."""

    def __init__(self, functions: list[FunctionUniformity]) -> None:
        self.functions = functions
        self._by_fn = {f.function: f for f in functions}
        self.llvm19_compat = False  # (the mode ``analyze`` ran in: a rerun uses the same)
        self.divergent_blocks: set[Any] = set()  # blocks with a divergent terminator
        for f in functions:
            self.divergent_blocks.update(f.divergent_term_blocks)
        # membership only: one function's own dict serves as is (no copy of a big map)
        self._divergent: Any
        if len(functions) == 1:
            self._divergent = functions[0].divergent
        else:
            self._divergent = set()
            for f in functions:
                self._divergent.update(f.divergent)

    def is_divergent(self, value: Any) -> bool:
        """Whether ``value`` (instruction, argument, terminator) may differ across lanes;
        for a terminator: whether it is a divergent branch. Constants: never."""
        if value in self._divergent:
            return True
        if isinstance(value, Instruction) and value.is_terminator:
            return value.block in self.divergent_blocks
        return False

    def is_uniform(self, value: Any) -> bool:
        return not self.is_divergent(value)

    def has_divergent_terminator(self, block: Any) -> bool:
        return block in self.divergent_blocks

    @property
    def cycles_assumed_divergent(self) -> list[Cycle]:
        return [c for f in self.functions for c in f.assumed_divergent]

    @property
    def cycles_with_divergent_exit(self) -> list[Cycle]:
        return [c for f in self.functions for c in f.divergent_exit_cycles]

    def function(self, fn: Any) -> FunctionUniformity:
        return self._by_fn[fn]

    def why(self, value: Any) -> list[Step]:
        """The reason chain of a divergent value, from its source to the value itself."""
        for f in self.functions:
            if (_is_inst(value) and value.block is not None and value.block.function is f.function) or (
                not _is_inst(value) and getattr(value, "function", None) is f.function
            ):
                return _why(f, value)
        return []


def _describe_value(v: Any) -> str:
    if _is_inst(v):
        if v.block is not None and v is v.block.terminator:
            return _term_name(v.block)
        return _value_name(v) if v.name is not None else v.text
    return _value_name(v)


def _cause(fu: FunctionUniformity, value: Any) -> tuple[Step, Any] | None:
    """The step that made ``value`` divergent and the value it came from (None for a
    source), or None when ``value`` is uniform."""
    cause: Any
    if isinstance(value, Instruction) and value.is_terminator:
        cause = fu.divergent_term_blocks.get(value.block)
    else:
        cause = fu.divergent.get(value)
    if cause is None:
        return None
    if type(cause) is not tuple:  # compact form of ("data", operand, None)
        cause = ("data", cause, None)
    kind, parent, detail = cause
    if detail is None:
        verb = "branches on" if kind == "terminator" else "uses"
        detail = f"{verb} divergent {_describe_value(parent)}"
    return Step(kind, _describe_value(value), detail), parent


def _why(fu: FunctionUniformity, value: Any) -> list[Step]:
    steps: list[Step] = []
    seen: set[int] = set()
    cur: Any = value
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        c = _cause(fu, cur)
        if c is None:
            break
        steps.append(c[0])
        cur = c[1]
    steps.reverse()
    return steps


# ----------------------------------------------------------------------------- analysis


class _Propagator:
    """Join blocks and divergent cycle exits of one divergent branch (LLVM's
    DivergencePropagator: labels flow in modified reverse post-order; a block reached
    by two different labels is a join; a reducible cycle header containing the
    branch hands its label straight to the cycle's exits)."""

    # The walk's state lives on the object (one per analysed function, reused for each
    # divergent branch); the helpers below serve the rare paths (cycle exits,
    # irreducible cycles), the hot edge visit is inlined in ``run``.
    __slots__ = ("ctx", "index", "labels", "fresh", "heap", "joins", "join_set", "cycle_exits",
                 "cycle_exit_set", "irreducible")
    index: dict
    labels: dict
    fresh: set
    heap: list
    joins: list
    join_set: set
    cycle_exits: list
    cycle_exit_set: set
    irreducible: list

    def __init__(self, ctx: "_FunctionAnalysis") -> None:
        self.ctx = ctx

    def mark_fresh(self, b: Any) -> None:
        i = self.index[b]
        if i not in self.fresh:
            self.fresh.add(i)
            heapq.heappush(self.heap, -i)

    def compute_join(self, succ: Any, label: Any) -> bool:
        labels = self.labels
        old = labels.get(succ)
        if old is None:
            labels[succ] = label
            self.mark_fresh(succ)
            return False
        if old is label:
            return False
        if old is not succ:
            self.mark_fresh(succ)
        labels[succ] = succ
        return True

    def visit_edge(self, succ: Any, label: Any) -> bool:
        if not self.compute_join(succ, label):
            return False
        if succ not in self.join_set:
            self.join_set.add(succ)
            self.joins.append(succ)
        return True

    def add_exit(self, ex: Any) -> None:
        if ex not in self.cycle_exit_set:
            self.cycle_exit_set.add(ex)
            self.cycle_exits.append(ex)

    def visit_exit_edge(self, succ: Any, label: Any) -> bool:
        if not self.compute_join(succ, label):
            return False
        self.add_exit(succ)
        return True

    def irreducible_exit_check(self) -> None:
        # An exit of an irreducible cycle around the branch whose label differs from
        # the header's is a divergent exit.
        labels = self.labels
        for cyc in self.irreducible:
            hl = labels.get(cyc.header)
            for ex in self.ctx.exits(cyc):
                if labels.get(ex) is not hl:
                    self.add_exit(ex)

    def run(self, div_block: Any) -> tuple[list[Any], list[Any]]:
        """Join blocks and divergent cycle exits of the branch ending ``div_block``.

        Compat mode stops where LLVM 19 stops (its floor rule). Otherwise the same walk
        goes on past that point: LLVM 19's early part is a prefix of it, so its joins
        and header-forwarded exits are found too; only its irreducible-exit check
        depends on where it stopped, so that check is also made at that moment.

        Outside irreducible cycles the walk ends once the only pending block X lies in
        no cycle. The modified post-order numbers every block reachable from such an X
        below X, and blocks are taken highest number first; a labelled block reachable
        from X that is no longer pending would have been taken before X was pushed,
        which needs a path back up the order, i.e. a cycle through X. So nothing
        reachable from X carries a label yet, only X's label can travel on, and no
        further join or exit can appear: the result is the unbounded walk's. (This is
        the first post-dominator of the branch that lies in no cycle, or an earlier
        point where all remaining paths have merged.) Inside irreducible cycles the walk
        is never cut."""
        ctx = self.ctx
        compat = ctx.llvm19_compat
        self.index = index = ctx.po_index
        blocks_po = ctx.po
        ci = ctx.ci
        labels: dict = {}
        fresh: set = set()
        heap: list = []
        joins: list = []
        join_set: set = set()
        cycle_exits: list = []
        self.labels, self.fresh, self.heap, self.joins = labels, fresh, heap, joins
        self.join_set, self.cycle_exits, self.cycle_exit_set = join_set, cycle_exits, set()

        irreducible = []  # irreducible cycles around the branch, innermost first
        div_cycle = ci.block_cycle.get(div_block)
        c = div_cycle
        while c is not None:
            if not c.reducible:
                irreducible.append(c)
            c = c.parent
        self.irreducible = irreducible

        floor_idx = len(blocks_po) - 1
        for s in div_block.successors:
            if div_cycle is not None and s not in div_cycle.block_set:
                self.add_exit(s)
            i = index[s]
            old = labels.get(s)
            if old is None:  # ``visit_edge(s, s)`` for a block without a label yet
                labels[s] = s
                if i not in fresh:
                    fresh.add(i)
                    heapq.heappush(heap, -i)
            elif old is not s:
                self.visit_edge(s, s)
            if i < floor_idx:
                floor_idx = i

        # Outside compat mode and irreducible cycles the walk ends as soon as its only
        # pending block lies in no cycle (see ``run``'s docstring)
        may_stop = not compat and not irreducible
        track_floor = compat or bool(irreducible)
        floor_label = None
        div_idx = index[div_block]
        heappush = heapq.heappush
        headers = ctx.reducible_headers
        block_cycle = ci.block_cycle
        steps = 0
        while heap:
            idx = -heap[0]
            if may_stop and len(heap) == 1 and idx != div_idx and blocks_po[idx] not in block_cycle:
                break
            if track_floor and idx < floor_idx:
                # LLVM 19 stops here.
                if compat:
                    break
                self.irreducible_exit_check()
                track_floor = False
            heapq.heappop(heap)
            fresh.discard(idx)
            steps += 1
            if idx == div_idx:
                continue
            block = blocks_po[idx]
            label = labels[block]
            caused_join = False
            lowered = floor_idx
            cyc = None
            if block in headers:
                c = block_cycle.get(block)
                if c is not None and div_block in c.block_set:
                    cyc = c
            if cyc is not None:
                for ex in ctx.exits(cyc):
                    caused_join |= self.visit_exit_edge(ex, label)
                    lowered = min(lowered, index[ex])
            else:
                # visit_edge inlined (the hot case: one call per edge)
                for s in block.successors:
                    i = index[s]
                    old = labels.get(s)
                    if old is None:
                        labels[s] = label
                        if i not in fresh:
                            fresh.add(i)
                            heappush(heap, -i)
                    elif old is not label:
                        if old is not s and i not in fresh:
                            fresh.add(i)
                            heappush(heap, -i)
                        labels[s] = s
                        caused_join = True
                        if s not in join_set:
                            join_set.add(s)
                            joins.append(s)
                    if i < lowered:
                        lowered = i
            if caused_join:
                floor_idx = lowered
            elif floor_label is not label:
                floor_idx = lowered
                floor_label = label

        if irreducible:
            self.irreducible_exit_check()
        ctx.res.stats["propagation_steps"] += steps
        return joins, cycle_exits


class _FunctionAnalysis:
    def __init__(self, fn: Any, model: _Model, llvm19_compat: bool) -> None:
        self.fn = fn
        self.model = model
        self.llvm19_compat = llvm19_compat
        self.res = FunctionUniformity(fn)
        self.worklist: list[Any] = []
        self._exits: dict[Cycle, list[Any]] = {}
        self._dt: DomTree | None = None
        self._propagator = _Propagator(self)
        self._exit_cycle_set: set[Cycle] = set()  # ``res.divergent_exit_cycles`` as a set

    # -- structure
    def succs(self, b: Any) -> list[Any]:
        return b.successors

    def exits(self, c: Cycle) -> list[Any]:
        e = self._exits.get(c)
        if e is None:
            e = self._exits[c] = c.exit_blocks(_SUCCESSORS)
        return e

    def build(self) -> None:
        inst: Instruction
        insts: list
        vals: list
        fn = self.fn
        entry = fn.blocks[0]
        uses = getattr(fn, "uses", None)
        if uses is not None and uses[3] != sum(len(b.instructions) for b in fn.blocks):
            uses = None  # stale
        # LLVM walks predecessors through the block's use list, newest use first:
        # the reverse of the order in which the branches naming it were parsed.
        if uses is not None and uses[4]:
            # no branch names a block twice: each block's predecessors (each once, in
            # block order, as parsed) reversed
            preds: dict[Any, list[Any]] = {b: b.predecessors[::-1] for b in fn.blocks}
        else:
            preds = {b: [] for b in fn.blocks}
            for b in fn.blocks:
                for s in b.successors:
                    preds.setdefault(s, []).append(b)
            for lst in preds.values():
                lst.reverse()
        self.preds = preds
        self.ci = CycleInfo(entry, _SUCCESSORS, preds.__getitem__)
        self.res.cycles = self.ci
        po, self.reducible_headers = modified_post_order(entry, _SUCCESSORS, self.ci)
        self.po = po
        self.po_index = {b: i for i, b in enumerate(po)}
        # users (each user once per value, in program order); on the same pass, the
        # instructions whose opcode can make them a seed (``_Model.classify``)
        if uses is not None:
            # the same lists, built by the direct builder while parsing (the user lists
            # are on the values themselves)
            self.users = None
            self.seed_candidates, terms_list = uses[1:3]
            self.terms = set(terms_list)
            return
        Inst = Instruction
        Arg = Argument
        operand_values = operand_values_of
        seed_ops = _SEED_OPCODES
        self.seed_candidates = cands = []
        terms = set()
        term_ops = TERMINATORS
        # the lists go straight onto the values, in the direct builder's form (the user
        # itself when it is the only one), after every value's old list is dropped
        for a in fn.args:
            a._users = None
        for b in fn.blocks:
            for inst in b.instructions:
                inst._users = None
        for b in fn.blocks:
            insts = b.instructions
            for inst in insts:
                op = inst.opcode
                if op in seed_ops:
                    cands.append(inst)
                    # only call-like instructions have a callee value or bundles (read
                    # without making the list, which no other instruction needs)
                    vals = (operand_values(inst) if inst.callee_value is not None or inst._bundles
                            else inst.operands)
                elif op == "phi":
                    vals = [v for v, _b in inst.incoming]
                else:
                    vals = inst.operands
                for v in vals:
                    c = type(v)
                    if c is Inst or c is Arg:
                        u = v._users
                        if u is None:
                            v._users = inst
                        elif type(u) is list:
                            if u[-1] is not inst:
                                u.append(inst)
                        elif u is not inst:
                            v._users = [u, inst]
            if insts:
                t = insts[-1]
                if t.opcode in term_ops:
                    terms.add(t)
        self.users = None
        self.terms = terms

    def dom(self) -> DomTree:
        """The dominator tree, built on first use (only joins inside irreducible
        cycles ask for it)."""
        if self._dt is None:
            self._dt = DomTree(self.fn.blocks[0], lambda b: b.successors)
        return self._dt

    # -- marking
    def mark(self, inst: Any, cause: tuple) -> bool:
        res = self.res
        if inst in res.uniform_override:
            return False
        b = inst.block
        if inst in self.terms:
            if b in res.divergent_term_blocks:
                return False
            res.divergent_term_blocks[b] = cause
        else:
            if inst in res.divergent:
                return False
            res.divergent[inst] = cause
        self.worklist.append(inst)
        return True

    def push_users(self, v: Any) -> None:
        # The hot loop: ``mark`` inlined for data steps, whose cause is stored as the
        # bare operand (``_cause`` reads it as ("data", v, None)); terminator causes
        # keep only the operand too; _why words them.
        us = v._users
        if us is None:
            return
        if type(us) is not list:  # the only user
            us = (us,)
        terms = self.terms
        res = self.res
        div = res.divergent
        override = res.uniform_override
        wl = self.worklist
        for u in us:
            if u not in div:
                if u in terms:
                    self.mark(u, ("terminator", v, None))
                elif u not in override:
                    div[u] = v
                    wl.append(u)

    # -- the analysis
    def run(self) -> FunctionUniformity:
        fn = self.fn
        res = self.res
        model = self.model
        if model.single_lane(fn):
            return res
        self.build()
        seeds: list[Any] = []
        for a in fn.args:
            if not model.arg_uniform(fn, a):
                res.divergent[a] = ("source", None, _arg_reason(fn))
                seeds.append(a)
        for inst in self.seed_candidates:  # program order
            c = model.classify(inst)
            if c is None:
                continue
            kind, why = c
            b = inst.block
            if kind == "uniform":
                res.uniform_override.add(inst)
            elif inst is b.terminator:
                res.divergent_term_blocks[b] = ("source", None, why)
                seeds.append(inst)
            else:
                res.divergent[inst] = ("source", None, why)
                seeds.append(inst)
        n_quiet = len(res.divergent)  # the seeds that are not pushed (their users are)
        for s in seeds:
            if s in self.terms:
                self.worklist.append(s)
            else:
                self.push_users(s)
        # The worklist loop, with ``push_users`` inlined (it runs once per divergent
        # value). A user already in ``divergent`` needs no other test (terminators are
        # never in it: their verdict is ``divergent_term_blocks``); the test of
        # ``uniform_override`` is left out when it is empty (marks only add to
        # ``divergent``), so the usual user costs one or two lookups.
        wl: list = self.worklist
        terms: set = self.terms
        div: dict = res.divergent
        override: set = res.uniform_override
        while wl:
            v = wl.pop()
            if v in terms:
                self.control_divergence(v)
                continue
            us = v._users
            if us is None:
                continue
            if type(us) is not list:  # the only user (the common case)
                if us not in div:
                    if us in terms:
                        self.mark(us, ("terminator", v, None))
                    elif us not in override:
                        div[us] = v
                        wl.append(us)
                continue
            if override:
                for u in us:
                    if u not in div:
                        if u in terms:
                            self.mark(u, ("terminator", v, None))
                        elif u not in override:
                            div[u] = v
                            wl.append(u)
            else:
                for u in us:
                    if u not in div:
                        if u in terms:
                            self.mark(u, ("terminator", v, None))
                        else:
                            div[u] = v
                            wl.append(u)
        # every value or terminator pushed was new in ``divergent`` or
        # ``divergent_term_blocks``, and each entry made after the seeds was pushed once
        res.stats["worklist_pops"] = len(div) - n_quiet + len(res.divergent_term_blocks)
        return res

    def control_divergence(self, term: Any) -> None:
        block = term.block
        if block not in self.po_index:  # unreachable from the entry
            return
        if len(block.successors) < 2:
            return
        joins, cycle_exits = self._propagator.run(block)
        div_cycles: list[Cycle] = []
        for j in joins:
            outer = self.outermost_divergent_cycle(self.ci.cycle(j), block, j)
            if outer is not None:
                div_cycles.append(outer)
                continue
            self.taint_phis(j, term)
        if len(div_cycles) > 1:
            div_cycles.sort(key=lambda c: -c.depth)
        for c in div_cycles:
            if c in self.res.assumed_divergent:
                continue
            self.res.assumed_divergent.append(c)
            detail = f"in cycle {c.describe(_bname)} entered divergently by branch of block {block.slot}"
            for b in c.blocks:
                for inst in b.instructions:
                    if inst is b.terminator:
                        break
                    self.mark(inst, ("cycle", term, detail))
        branch_cycle = self.ci.cycle(block)
        for ex in cycle_exits:
            self.cycle_exit_divergence(ex, branch_cycle, term)

    def taint_phis(self, join: Any, term: Any) -> None:
        if join.instructions[0].opcode != "phi":
            return
        detail = f"phi at join block {join.slot} of divergent branch in block {term.block.slot}"
        for inst in join.instructions:
            if inst.opcode != "phi":
                break
            if _constant_or_undef_phi(inst):
                continue
            self.mark(inst, ("sync", term, detail))

    def outermost_divergent_cycle(self, cycle: Cycle | None, div_block: Any, join: Any) -> Cycle | None:
        if cycle is None:
            return None
        ext = _ext_div_cycle(cycle, div_block, join)
        intc = self._int_div_cycle(cycle, div_block, join)
        return intc if intc is not None else ext

    def _int_div_cycle(self, cycle: Cycle, div_block: Any, join: Any) -> Cycle | None:
        # the cycle tests first: they need no dominator tree, and in reducible code
        # they always answer (so the tree is never built)
        c: Cycle | None = cycle
        while c is not None and not c.contains(div_block):
            c = c.parent
        if c is None or c.reducible:
            return None
        dt = self.dom()
        if dt.properly_dominates(div_block, join):
            return None
        if dt.properly_dominates(c.header, join):
            return None
        parent = c.parent
        while parent is not None and not dt.properly_dominates(parent.header, join):
            c = parent
            parent = parent.parent
        return c

    def cycle_exit_divergence(self, div_exit: Any, inner: Cycle | None, term: Any) -> None:
        if inner is None:
            return
        exit_cycle = self.ci.cycle(div_exit)
        exit_depth = exit_cycle.depth if exit_cycle is not None else 0
        c: Cycle | None = inner
        outer = inner
        while c is not None and c.depth > exit_depth:
            outer = c
            c = c.parent
        if outer in self._exit_cycle_set:
            return
        self._exit_cycle_set.add(outer)
        self.res.divergent_exit_cycles.append(outer)
        for a in self.res.assumed_divergent:
            if a.contains_cycle(outer):
                return
        self.analyze_cycle_exit(outer, term)

    def analyze_cycle_exit(self, cycle: Cycle, term: Any) -> None:
        detail_base = f"cycle {cycle.describe(_bname)} has a divergent exit (branch in block {term.block.slot})"
        inside = cycle.block_set
        for ex in self.exits(cycle):
            for inst in ex.instructions:
                if inst.opcode != "phi":
                    break
                if any(_is_inst(v) and v.block in inside for v, _b in inst.incoming):
                    self.mark(inst, ("temporal", term, f"phi at exit {ex.slot}: {detail_base}"))
        res = self.res
        div = res.divergent
        override = res.uniform_override
        terms = self.terms
        div_terms = res.divergent_term_blocks
        for b in cycle.blocks:
            for inst in b.instructions:
                if inst in div:
                    continue
                us = inst._users
                if us is None:
                    continue
                for u in (us if type(us) is list else (us,)):
                    if u.block in inside:
                        continue
                    # the reason text is made only for a user ``mark`` will change
                    if u in override or (u.block in div_terms if u in terms else u in div):
                        continue
                    self.mark(
                        u,
                        ("temporal", term, f"uses {_describe_value(inst)} defined inside {detail_base}"),
                    )


def _bname(b: Any) -> str:
    return b.slot


def _arg_reason(fn: Any) -> str:
    cc = fn.cc or "default"
    return f"argument of a {cc} function not passed in scalar registers"


def _constant_or_undef_phi(phi: Any) -> bool:
    seen = None
    for v, _b in phi.incoming:
        if v is phi or _is_undef(v):
            continue
        if seen is not None and not (seen is v or (not _is_local(v) and seen == v)):
            return False
        seen = v
    return True


def _ext_div_cycle(cycle: Cycle, div_block: Any, join: Any) -> Cycle | None:
    if cycle.contains(div_block):
        return None
    parent = cycle.parent
    while parent is not None and not parent.contains(div_block):
        cycle = parent
        parent = cycle.parent
    if cycle.reducible:
        return None
    return cycle


# ----------------------------------------------------------------------------- entry


def analyze(module_or_function: Any, target: Any = None, *, llvm19_compat: bool = False) -> UniformityInfo:
    """Analyse a Module (every defined function) or one Function.

    ``target``: a tdgen Target (``.uniformity`` + ``.intrinsic_divergence``), a bare
    ``UniformityModel``, or None for amdgpu."""
    model = _Model(target)
    if hasattr(module_or_function, "functions"):
        fns: Iterable[Any] = module_or_function.functions
    else:
        fns = [module_or_function]
    results = []
    # The analysis allocates many small objects and frees nothing cyclic while it
    # runs: the cyclic collector would only rescan the (large) AST over and over.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for fn in fns:
            if fn.is_declaration or not fn.blocks:
                continue
            results.append(_FunctionAnalysis(fn, model, llvm19_compat).run())
        info = UniformityInfo(results)
        info.llvm19_compat = llvm19_compat
        if gc_was_enabled and gc.get_freeze_count() == 0:
            # The objects allocated above still count as young: the first allocation
            # after gc.enable() would start a collection that walks them all, and the
            # AST with them (0.08 s at 50k instructions). Move everything tracked to the
            # oldest generation instead (no traversal; still collectable by full
            # collections), as patterns/ir/core.py does after parsing.
            gc.freeze()
            gc.unfreeze()
    finally:
        if gc_was_enabled:
            gc.enable()
    return info

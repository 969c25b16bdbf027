"""Uniformity (divergence) analysis of LLVM IR functions, as LLVM's UniformityAnalysis.

Which values may differ between the lanes of a wave, and which branches split a wave.
``analyze(module_or_function, target) -> UniformityInfo`` (patterns/uniformity/results.py).

Seeds come from the target's ``UniformityModel`` (tdgen/hw.py), asked through
``patterns.uniformity.seeds.SeedModel``: sources of divergence (workitem ids, atomics,
private/flat loads, arguments not passed in scalar registers, calls, inline asm with
vector outputs, intrinsics by rule) and always-uniform values (readfirstlane, ballot,
...). A worklist then propagates:

- data: a user of a divergent value is divergent (unless always uniform);
- divergent terminator: a branch/switch on a divergent value; its *join blocks* (blocks
  reached from the branch by two disjoint paths, computed by label propagation over a
  cycle-aware post-order, see patterns/uniformity/joins.py, which also says where we
  deliberately differ from opt-19) make their phis divergent (sync);
- temporal: a cycle left through a divergent exit makes every use outside the cycle of
  a value defined inside it divergent (lanes leave in different iterations);
- irreducible cycles entered divergently at several entries are assumed divergent as a
  whole (every definition in them).

Cost: every value and edge is visited a bounded number of times by the worklist; each
divergent branch's propagation is bounded by its region (joins.py). Kept cheap per value
(bench/divergence.py): the user lists and the seed candidates (only the opcodes
``SeedModel.classify`` answers for) come from the direct builder (``Function.uses`` and
each value's ``_users``, made while parsing, when the objects are still in the cache; so
do the predecessor lists in LLVM's use-list order), else from one pass over the
instructions; the worklist tests a user's verdict first (one lookup for a user already
divergent); a data step stores just the operand it came from as its cause (reason
``Step`` objects are made only for ``why``/JSON, by patterns/uniformity/explain.py); the
dominator tree is built only if a join inside an irreducible cycle asks for it; the
cyclic garbage collector is off while the analysis runs and the new objects are moved
to the oldest generation afterwards (otherwise the first collection after it walks
every object of the AST and the analysis once more, which made the 50k-instruction
case grow faster than its work). Compiled (patterns/native/__init__.py).
"""

from __future__ import annotations

import gc
from operator import attrgetter
from typing import Any, Final, Iterable

from patterns.ir.cycles import Cycle, CycleInfo, modified_post_order
from patterns.ir.dominators import DomTree
from patterns.ir.core import TERMINATORS, Constant
from patterns.ir.function import Argument, Instruction
from patterns.uniformity.explain import describe_value
from patterns.uniformity.joins import JoinPropagator
from patterns.uniformity.results import FunctionUniformity, UniformityInfo
from patterns.uniformity.seeds import SEED_OPCODES, SeedModel


# ----------------------------------------------------------------------------- helpers


def _is_local(v: Any) -> bool:
    """Instruction or Argument (values that can be divergent)."""
    return isinstance(v, (Instruction, Argument))


def _is_inst(v: Any) -> bool:
    return isinstance(v, Instruction)


def operand_values(inst: Any) -> list[Any]:
    """The values ``inst`` reads: a phi's incoming values, else its operands plus a
    call's callee value and operand bundle values."""
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


_SUCCESSORS: Final = attrgetter("successors")


# ----------------------------------------------------------------------------- analysis


class FunctionAnalysis:
    """The analysis of one function: ``build`` (its structure, user lists and seed
    candidates), then ``run`` (seeds and the worklist) -> ``FunctionUniformity``."""

    _propagator: JoinPropagator  # (made by ``build``)

    def __init__(self, fn: Any, model: SeedModel, llvm19_compat: bool) -> None:
        self.fn = fn
        self.model = model
        self.llvm19_compat = llvm19_compat
        self.res = FunctionUniformity(fn)
        self.worklist: list[Any] = []
        self._dt: DomTree | None = None
        self._exit_cycle_set: set[Cycle] = set()  # ``res.divergent_exit_cycles`` as a set

    # -- structure
    def succs(self, b: Any) -> list[Any]:
        return b.successors

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
        self._propagator = JoinPropagator(po, self.po_index, self.ci, self.reducible_headers, self.llvm19_compat,
                                          self.res.stats)
        # users (each user once per value, in program order); on the same pass, the
        # instructions whose opcode can make them a seed (``SeedModel.classify``)
        if uses is not None:
            # the same lists, built by the direct builder while parsing (the user lists
            # are on the values themselves)
            self.users = None
            self.seed_candidates, terms_list = uses[1:3]
            self.terms = set(terms_list)
            return
        Inst = Instruction
        Arg = Argument
        values_of = operand_values
        seed_ops = SEED_OPCODES
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
                    vals = (values_of(inst) if inst.callee_value is not None or inst._bundles
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
        # bare operand (``explain.cause`` reads it as ("data", v, None)); terminator causes
        # keep only the operand too; ``explain`` words them.
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
        for ex in self._propagator.exits(cycle):
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
                        ("temporal", term, f"uses {describe_value(inst)} defined inside {detail_base}"),
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
    model = SeedModel(target)
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
            results.append(FunctionAnalysis(fn, model, llvm19_compat).run())
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

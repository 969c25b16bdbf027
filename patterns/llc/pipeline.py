"""Models of llc-19's IR passes that change the integer ALU code instruction selection sees.

``run_ir_passes(fn, ua, target)`` (run before the DAGs are built) runs
them in llc's order on the IR, in place (uses rewritten as replaceAllUsesWith leaves them,
hoisted instructions moved, an instruction rewritten by the target's own passes):
UnreachableBlockElim (``remove_unreachable_blocks``), EarlyCSE with InstSimplify
(``early_cse``), the target's IR passes (``TargetHooks.ir_passes``, tdgen.hooks), LICM
(``licm``), LoopStrengthReduce's modeled case (``lsr``), the CSE llc's last EarlyCSE finds
for hoisted code, CodeGenPrepare's shift sinking (``sink_extract_bits``), switch
conditions widened (``widen_switch_conditions``) and folding of branches and switches
(``fold_constant_branches``) and UnreachableBlockElim again; the
uniformity analysis is made again where llc's pipeline makes it. The parts not modeled
are listed in the report of bench/isel_triage.py ``--pass-cause`` (NaryReassociate/SLSR,
CodeGenPrepare's block and compare sinking).

Each pass is a module of this package: ``unreachable``, ``earlycse`` (over ``instsimplify``),
``licm``, ``lsr``, ``codegenprepare``; ``run_ir_passes`` below calls them in order. A
target's IR pass is called as ``f(fn, ctx)`` with ``ctx`` an ``IRPassContext``.
"""

from __future__ import annotations

from patterns.llc.analyses import dom_tree
from patterns.llc.codegenprepare import fold_constant_branches_into, sink_extract_bits
from patterns.llc.earlycse import apply_early_cse, cse_moved, move_users
from patterns.llc.licm import run_licm
from patterns.llc.unreachable import remove_unreachable_blocks, remove_unreachable_blocks_into, replace_phis
from tdgen.hooks import target_hooks


class IRPassContext:
    """What a target's IR pass (``TargetHooks.ir_passes``) is given besides the function:
    ``target``, ``idom`` (the immediate dominators, unchanged by the passes) and
    ``analysis()``, the uniformity analysis of the function as it is now (made again,
    in the mode of the one given, when the IR changed since: as llc's pipeline computes
    it again for the target's passes). A pass that changes the IR without changing any
    value's verdict leaves the analysis as it is."""

    def __init__(self, fn, target, idom: dict, ua, stale: bool, compat: bool, moved: tuple | None):
        self.fn = fn
        self.target = target
        self.idom = idom
        self.ua = ua
        self.stale = stale
        self.compat = compat
        # (EarlyCSE's replacements and the parser's user lists before it, when they were
        # current: brought up to date when the analysis is made, rather than left for
        # the analysis to scan the function again)
        self.moved = moved

    def analysis(self):
        if self.stale:
            if self.moved is not None:
                rep, uses = self.moved
                self.moved = None
                move_users(self.fn, rep)
                self.fn.uses = uses  # (no instruction or block added, removed or changed opcode)
            self.ua, self.stale = _analysis(self.fn, self.target, self.compat), False
        return self.ua


def run_ir_passes(fn, ua=None, target=None, *, pre_isel: bool = True):
    """The IR passes of llc's pipeline modeled here, in its order, on ``fn`` in place:
    EarlyCSE (with InstSimplify), the target's IR passes (``TargetHooks.ir_passes``), LICM, the
    modeled case of LoopStrengthReduce (``patterns.llc.lsr``), and EarlyCSE again when LICM
    moved code (llc's last EarlyCSE runs after its loop passes). The dominator tree is
    built once (none of the passes changes the CFG); the parser's user lists, when
    current, tell each rewrite which instructions read a replaced value.

    ``ua``: the uniformity analysis of ``fn`` as given, or None. As in llc, whose
    pipeline computes the analysis again after its first EarlyCSE runs (for the
    target's passes) and again before selection, it is (re)computed, in ``ua``'s
    mode, on the IR the pass that reads it sees: after EarlyCSE when a target pass asks
    for it (``IRPassContext.analysis``), and at the end when the function changed since.
    Returns the analysis of the function as the passes leave it (``ua`` itself when
    nothing changed). ``pre_isel``: run the target's passes just before selection
    (``TargetHooks.pre_isel_passes``: AMDGPU's StructurizeCFG) at the end; False stops
    before them, where llc's Sink runs (which the DAG builder models afterwards: the
    one place the engine's order differs from llc's, Sink then seeing the Flow blocks'
    phis as uses in their incoming blocks, as it would see the original phis)."""
    if getattr(fn, "is_declaration", False) or not fn.blocks:
        return ua
    from patterns.ir.dominators import immediate_dominators

    compat = getattr(ua, "llvm19_compat", False)
    stale = remove_unreachable_blocks(fn)  # (llc's UnreachableBlockElim comes first)
    idom = immediate_dominators(fn)
    dom = dom_tree(fn, idom)
    grew: dict | None = {} if fn.uses is not None else None
    stale = stale or ua is None  # (``ua`` not the analysis of the IR as it is)
    passes = target_hooks(target).ir_passes
    uses = fn.uses  # (read before EarlyCSE, whose rewrite resets it)
    erased = apply_early_cse(fn, idom, dom, grew)
    if erased:
        stale = True
    if passes:
        # (LLVM erases what EarlyCSE replaces.) When the analysis is made next, for a
        # target pass (``stale`` then, whenever EarlyCSE replaced anything), the parser's
        # user lists are brought up to date rather than left for the analysis to scan the
        # function again: the same lists, which LICM then reads as it would read the
        # analysis's
        ctx = IRPassContext(fn, target, idom, ua, stale, compat,
                            (erased, uses) if erased and uses is not None else None)
        for f in passes:
            f(fn, ctx)
        ua, stale = ctx.ua, ctx.stale
    # (LICM and LSR are given no analysis: the one made at the end replaces the
    # verdicts they would note for what they move and make)
    st = run_licm(fn, idom, dom, None, target, grew)
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
        erased = {**erased, **cse_moved(fn, [i for i in st.result() if i.block is not None], idom, dom, grew,
                                        readers[0] if readers else None)}
    # CodeGenPrepare, after the last EarlyCSE: its mostly-empty blocks folded into their
    # successors, its instruction step (here the shift sinking), then its branch folding; then UnreachableBlockElim (the phis
    # they replace are rewritten in one scan)
    from patterns.llc.emptyblocks import eliminate_mostly_empty_blocks

    if eliminate_mostly_empty_blocks(fn):
        stale = True
    if sink_extract_bits(fn, erased):
        stale = True
    from patterns.llc.cgp_switch import widen_switch_conditions

    if widen_switch_conditions(fn, target):  # (optimizeSwitchType)
        stale = True
    gone: dict = {}
    if fold_constant_branches_into(fn, gone):
        stale = True
    if remove_unreachable_blocks_into(fn, gone):
        stale = True
    replace_phis(fn, gone)
    # the target's passes just before selection (AMDGPU: StructurizeCFG), given the
    # analysis of the IR as it is then, made on first ask
    late = target_hooks(target).pre_isel_passes if pre_isel else ()
    if late:
        now = [None if stale else ua]

        def current():
            if now[0] is None:
                now[0] = _analysis(fn, target, compat)
            return now[0]

        for f in late:
            if f(fn, current):
                stale = True
                now[0] = None
            elif now[0] is not None:
                ua, stale = now[0], False
    if stale:
        ua = _analysis(fn, target, compat)
    return ua


def _analysis(fn, target, llvm19_compat: bool):
    """The uniformity analysis of ``fn`` as it is now."""
    from patterns.uniformity.analysis import analyze

    return analyze(fn, target, llvm19_compat=llvm19_compat)

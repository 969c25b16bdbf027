"""The AMDGPU pass configuration's last IR passes before selection (``TargetHooks.pre_isel_passes``).

LowerSwitch (``lower_switch``) first: llc-19's AMDGPUPassConfig::addCodeGenPrepare runs
it after the LoadStoreVectorizer (then UnreachableBlockElim), so StructurizeCFG sees
``br`` only. Then llc-19's GCNPassConfig::addPreISel runs, in order:
AMDGPUUnifyDivergentExitNodes (one exit for the returns and unreachables reached by divergent branches), FixIrreducible,
UnifyLoopExits, StructurizeCFG (patterns.llc.structurize, on every region: uniform ones
too, llc's AMDGPU pipeline does not skip them), then SIAnnotateControlFlow (the EXEC-mask
pseudos, made at selection: divergent_cf.py) and LCSSA (``lcssa``: patterns.llc.lcssa;
the exit phis that carry a loop's uniform values to lanes that left it earlier).
Modelled: LowerSwitch, StructurizeCFG, LCSSA, and AMDGPUUnifyDivergentExitNodes for
returns (``unify_returns``). Refused where they would
change the function: unreachable blocks among the exits of a function with an exit
reached through a divergent branch (the unified unreachable block and
llvm.amdgcn.unreachable), an endless loop (its DummyReturnBlock exit), an irreducible
cycle (FixIrreducible).
"""

from __future__ import annotations

from patterns.llc.lcssa import form_lcssa
from patterns.llc.lowerswitch import lower_switches
from patterns.llc.structurize import structurize_cfg
from tdgen.errors import VerifyError, expected

from .divergent_cf import endless_loop_error


def lower_switch(fn, analysis) -> bool:
    """LowerSwitch (patterns.llc.lowerswitch), then the UnreachableBlockElim llc runs
    after it (the blocks it leaves unreached: an unreachable default whose cases all
    went to one block, the successors of a deleted default)."""
    if not lower_switches(fn):
        return False
    from patterns.llc.unreachable import remove_unreachable_blocks

    remove_unreachable_blocks(fn)
    return True


def structurize(fn, analysis) -> bool:
    err = endless_loop_error(fn)
    if err is not None:
        raise err
    changed = False
    exits = [b for b in fn.blocks if b.instructions and b.instructions[-1].opcode in ("ret", "unreachable")]
    if len(exits) > 1:
        ua = analysis()
        if any(not _uniformly_reached(ua, b) for b in exits):
            stuck = next((b for b in exits if b.instructions[-1].opcode == "unreachable"), None)
            if stuck is not None:
                t = stuck.instructions[-1]
                raise VerifyError(t.span, expected(
                    f"exits of @{fn.name} that return, when one is reached through a divergent branch",
                    f"the 'unreachable' of %{stuck.name} (AMDGPUUnifyDivergentExitNodes' unified unreachable block "
                    f"and llvm.amdgcn.unreachable: not modelled)"))
            unify_returns(fn, exits)
            changed = True
    return structurize_cfg(fn) or changed


def lcssa(fn, analysis) -> bool:
    """GCNPassConfig::addPreISel's last pass: loop-closed SSA form on the structurized CFG
    (a value of a divergently exited loop read after it goes through an exit phi, which
    the uniformity analysis finds divergent)."""
    return form_lcssa(fn)


def unify_returns(fn, returning: list) -> None:
    """AMDGPUUnifyDivergentExitNodes' return unification: a new last block
    ``UnifiedReturnBlock`` returns (the value of a phi ``UnifiedRetVal`` over the returned
    values), each returning block (the post-dominator tree's roots, in function order)
    branches to it instead; then the SimplifyCFG the pass runs on each of them: a block
    left empty has its predecessors branch to the new block directly, a block whose one
    predecessor branches only to it is merged into that predecessor."""
    from patterns.ir.dominators import immediate_dominators
    from patterns.ir.function import Instruction
    from patterns.llc.cfgedit import EditableCFG

    cfg = EditableCFG(fn, immediate_dominators(fn))
    new = cfg.new_block("UnifiedReturnBlock", None)
    phi = None
    if fn.ret_type is not None and str(fn.ret_type) != "void":
        phi = Instruction("phi", cfg.unique_name("UnifiedRetVal"), fn.ret_type, [], new)
        phi.incoming = []
        new.instructions.append(phi)
    ret = Instruction("ret", None, fn.ret_type, [phi] if phi is not None else [], new)
    new.instructions.append(ret)
    for b in returning:
        old = cfg.kill_terminator(b)
        if phi is not None:
            phi.incoming = phi.incoming + [(old.operands[0], b)]
            phi.operands = [v for v, _b in phi.incoming]
        cfg.make_branch(b, [new], None, None, old.span)
    for b in returning:
        _simplify_return_block(cfg, fn, b, new, phi)
    cfg.finish()


def _simplify_return_block(cfg, fn, b, new, phi) -> None:
    preds = cfg.preds(b)
    if len(b.instructions) == 1 and b is not fn.blocks[0] and preds:
        # (TryToSimplifyUncondBranchFromEmptyBlock: the predecessors go to the new block;
        # with a phi there, only when no predecessor already reaches it)
        if phi is not None and any(p in cfg.preds(new) for p in preds):
            return
        v = next((x for x, p in phi.incoming if p is b), None) if phi is not None else None
        for p in preds:
            cfg.retarget(p.instructions[-1], b, new)
            if phi is not None:
                phi.incoming = [(x, q) for x, q in phi.incoming if q is not b] + [(v, p)]
                phi.operands = [x for x, _q in phi.incoming]
        cfg.kill_terminator(b)
        fn.blocks.remove(b)
        return
    if len(set(map(id, preds))) == 1 and not any(i.opcode == "phi" for i in b.instructions):
        p = preds[0]
        if len(set(map(id, cfg.succs(p)))) == 1 and p is not b:
            cfg.merge_into_predecessor(b, p)  # (MergeBlockIntoPredecessor)
            if phi is not None:
                phi.incoming = [(x, p if q is b else q) for x, q in phi.incoming]


def _uniformly_reached(ua, b) -> bool:
    """Every branch on every path to ``b`` is uniform."""
    work = list(b.predecessors)
    seen = set(work)
    while work:
        x = work.pop()
        if ua.has_divergent_terminator(x):
            return False
        for p in x.predecessors:
            if p not in seen:
                seen.add(p)
                work.append(p)
    return True

"""The reference interpreter: LLVM IR executed by every work-item of a launch, in waves,
with SIMT semantics -- the meaning a compiled kernel must reproduce on every lane.

**Work-groups** run one after another. Inside a work-group, execution is split into
**barrier regions** as Native CPU's WorkItemLoopsPass splits a kernel: each wave runs until
it reaches a barrier (or returns); when every wave of the group stands at a barrier,
the LDS race tracking is reset and all continue. A barrier reached by only some lanes of
a wave, or by some waves while others returned, is undefined behaviour (reported).

**Inside a wave** the lanes run in lock-step over a reconvergence stack of (block, lane
mask, reconvergence block) entries (patterns/run/simt.py). A conditional branch or switch
whose active lanes disagree splits them: **the choice of dynamic instance is made
there** -- each successor's lanes run alone until they reach the branch block's immediate
post-dominator, where they wait for the others and continue together (for IR without
convergence tokens: the threads that reach the same dynamic instance of a convergent
operation are the lanes of the wave that are in the same stack entry when it executes).
The successors run in terminator order (true side first; switch: cases in order, then
the default), which matters only for cross-lane operations' inactive lanes and for the
order of atomics. Lanes that return leave every entry.

Each instruction computes over all lanes of its wave and writes only the active ones; a
value is ``(bits, poison)`` (patterns/run/ops.py). Poison (and undef, treated as poison)
propagates; it is undefined behaviour once it reaches a branch condition, a store's
value or address, a load's address, or a call of an intrinsic that needs a defined
operand. Immediate undefined behaviour (division by zero, ``unreachable``, a false
``llvm.assume``, out-of-bounds memory, LDS races) stops the run with a report naming the
work-item, lane and instruction. What the model does not cover is a ``NotModeled`` error.
Intrinsics are in patterns/run/intrinsics.py (LLVM's generic ones and the NVVM forms)
and, for a target's own, in the table the target's hooks give (``run_intrinsics``).

Where LLVM leaves the semantics open, this model chooses (each choice is also written
where it is made):

- convergence: the dynamic instance of a convergent operation is the set of lanes of
  one wave in one stack entry; divergent lanes reconverge at the branch's immediate
  post-dominator; the true side (switch: the cases in order, then the default) runs
  first (simt.py);
- cross-lane reads of an inactive lane, a DS permute slot nobody wrote, a readlane of
  an inactive or out-of-range lane: poison (the hardware reads 0); a readlane index that
  varies across the active lanes: undefined behaviour (lanes.py); a 32-bit shfl.sync
  membermask in wave64 names lane i by bit i mod 32 (lanes.py);
- undef is poison; ``freeze`` of poison is reported (never a chosen value);
- a NaN produced by arithmetic is the positive quiet NaN with a zero payload;
  subnormals are kept (ops.py); minnum/maxnum order -0 < +0; fmuladd is fused
  (intrinsics.py);
- the active lanes of one atomic apply in increasing lane order, waves of a group in
  order, work-groups one after another (atomics.py);
- ``inbounds``/``nuw``/``nusw`` of a GEP are not checked at the GEP: an address outside
  its object is reported where it is accessed (instr.py);
- memory (memory.py, launch.py): LDS variables laid out in source order at their ABI
  alignment; flat apertures for LDS and private; a segment's null for addrspacecast is
  0xffffffff; the implicit-argument and dispatch-packet fields listed in launch.py are
  written, the rest uninitialised (poison when read); global races are not tracked, nor
  races between an atomic and a plain LDS access;
- barriers: every lane of a wave and every wave of the group must reach a barrier in
  the same region (any barrier instruction counts as the same one).
"""

from __future__ import annotations

from patterns.run.launch import Launch, build_memory, global_space
from patterns.run.memory import LDS
from patterns.run.result import Result, Store, canonical
from patterns.run.simt import Program, run_group
from patterns.run.ub import NotModeled, Undefined


def run_reference(module, launch: Launch, target=None, *, intrinsics=None) -> Result:
    """Execute ``launch`` on ``module`` by the IR's own semantics; ``intrinsics``: the
    target's intrinsic table (default: from ``target``'s hooks)."""
    try:
        fn = module.function(launch.kernel)
    except KeyError:
        from tdgen.errors import Span, UsageError, expected

        raise UsageError(Span(module.path), expected("a function named in the launch",
                                                     f"no function @{launch.kernel}")) from None
    if fn.is_declaration:
        raise NotModeled(fn.span, f"running the declaration @{fn.name}")
    if intrinsics is None:
        intrinsics = target_intrinsics(target)
    prog = Program(fn, module, launch, intrinsics)
    mem, seg = build_memory(launch, fn, module, private_size=prog.private_size)
    prog.bind_memory(mem, seg, {g.name: a.address for g in module.globals.values()
                                if global_space(g) == LDS for a in mem.lds.allocations if a.name == g.name})
    undefined = None
    try:
        for group in range(launch.groups):
            run_group(prog, group)
    except Undefined as u:
        undefined = u
    records = mem.store_records(mem.allocation_name)
    stores = canonical(Store(space, buf, off, g, loc, ty, val, origin)
                       for g, loc, space, buf, off, ty, val, origin in records)
    return Result("reference", fn.name, stores, undefined)


def target_intrinsics(target) -> dict:
    """The target's intrinsic semantics for the reference interpreter (its hooks'
    ``run_intrinsics``), empty without a target."""
    if target is None:
        return {}
    from tdgen.hooks import target_hooks

    make = getattr(target_hooks(target), "run_intrinsics", None)
    return dict(make()) if make is not None else {}

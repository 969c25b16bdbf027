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
"""

from __future__ import annotations

import numpy as np

from patterns.ir.core import FloatType, IntType, PtrType, StructType, VectorType
from patterns.run import ops
from patterns.run.launch import Launch, build_memory, global_space
from patterns.run.memory import LDS
from patterns.run.result import Result, Store, canonical
from patterns.run.simt import Program, run_group
from patterns.run.ub import NotModeled, Undefined

MAX_STEPS = 2_000_000


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


# ====================================================================== one instruction


def poison_or(*vals) -> np.ndarray:
    out = vals[0][1]
    for v in vals[1:]:
        out = out | v[1]
    return out


def exec_binop(inst, a, b):
    """The value of a binary operator ``inst`` on lane values ``a`` and ``b``."""
    t = inst.type.scalar
    op = inst.opcode
    if isinstance(t, IntType):
        if t.bits > 64:
            raise NotModeled(inst.span, f"integers wider than 64 bits ({t})")
        r, pz = ops.int_binop(op, a[0], b[0], t.bits, inst.flags)
        return r, pz | a[1] | b[1]
    if isinstance(t, FloatType) and t.name in ops.FLOAT_DTYPES:
        x, y = ops.as_float(a[0], t.name), ops.as_float(b[0], t.name)
        f = ops.float_binop(op, x, y)
        return ops.from_float(f, t.name), a[1] | b[1] | ops.fast_math_poison(inst.flags, x, y, f)
    raise NotModeled(inst.span, f"'{op}' on {inst.type}")


def exec_cmp(inst, a, b):
    t = inst.operands[0].type.scalar
    if inst.opcode == "icmp":
        bits = 64 if isinstance(t, PtrType) else t.bits
        r = ops.icmp(inst.predicate, a[0], b[0], bits)
        return r.astype(np.uint64), a[1] | b[1]
    if not (isinstance(t, FloatType) and t.name in ops.FLOAT_DTYPES):
        raise NotModeled(inst.span, f"fcmp on {t}")
    x, y = ops.as_float(a[0], t.name), ops.as_float(b[0], t.name)
    r = ops.fcmp(inst.predicate, x, y)
    return r.astype(np.uint64), a[1] | b[1] | ops.fast_math_poison(inst.flags, x, y)


def exec_cast(inst, a):
    src, dst = inst.operands[0].type.scalar, inst.type.scalar
    for t in (src, dst):
        if isinstance(t, IntType) and t.bits > 64 or isinstance(t, FloatType) and t.name not in ops.FLOAT_DTYPES:
            raise NotModeled(inst.span, f"'{inst.opcode}' from {inst.operands[0].type} to {inst.type}")
    if inst.opcode == "bitcast" and (inst.type.is_vector != inst.operands[0].type.is_vector):
        raise NotModeled(inst.span, f"bitcast between {inst.operands[0].type} and {inst.type}")
    if inst.opcode == "addrspacecast":
        return addrspace_cast(inst, a)
    r, pz = ops.cast(inst.opcode, a[0], src, dst, inst.flags)
    return r, pz | a[1]


def addrspace_cast(inst, a):
    """Flat <-> LDS/private casts through this model's apertures (patterns/run/memory.py)."""
    from patterns.run.memory import APERTURE_MASK, FLAT, LDS_APERTURE, PRIVATE, PRIVATE_APERTURE

    src, dst = inst.operands[0].type.addrspace, inst.type.addrspace
    bits = a[0]
    null = bits == 0
    if dst == FLAT and src in (LDS, PRIVATE):
        ap = np.uint64(LDS_APERTURE if src == LDS else PRIVATE_APERTURE)
        return np.where(null, bits, bits | ap), a[1]
    if src == FLAT and dst in (LDS, PRIVATE):
        return np.where(null, bits, bits & np.uint64(~APERTURE_MASK & 0xFFFFFFFF)), a[1]
    if {src, dst} <= {0, 1, 4}:
        return bits, a[1]
    raise NotModeled(inst.span, f"addrspacecast from address space {src} to {dst}")


def exec_select(inst, c, a, b):
    cond = c[0]
    if cond.ndim < a[0].ndim:
        cond = cond[:, None]
        cp = c[1][:, None]
    else:
        cp = c[1]
    if isinstance(a, tuple) and isinstance(a[0], tuple):
        raise NotModeled(inst.span, "select of aggregates")
    sel = cond.astype(bool)
    return np.where(sel, a[0], b[0]), cp | np.where(sel, a[1], b[1])


def gep_address(inst, dl, base, indices, source_type):
    """(address, poison) of a GEP: ``base`` plus each index times its type's size (struct
    fields: their offsets), wrapped to the pointer's width. ``inbounds`` is not checked
    here: an address outside its buffer is reported where it is accessed."""
    from patterns.run.values import struct_offsets

    ptr_t = inst.type.scalar if inst is not None else None
    width = 32 if getattr(ptr_t, "addrspace", 0) in (3, 5) else 64
    addr = base[0].astype(np.uint64)
    poison = base[1]
    t = source_type
    for k, (iv, ity) in enumerate(indices):
        bits = ity.scalar.bits if isinstance(ity.scalar, IntType) else 64
        idx = ops.sext(iv[0], bits).astype(np.int64) if bits < 64 else iv[0].astype(np.int64)
        poison = poison | iv[1]
        if k == 0:
            size = dl.alloc_size(t)
            addr = addr + (idx * size).astype(np.uint64)
            continue
        if isinstance(t, StructType):
            if not np.all(idx == idx.flat[0]):
                raise NotModeled(getattr(inst, "span", None), "a struct GEP index that varies")
            f = int(idx.flat[0])
            addr = addr + np.uint64(struct_offsets(dl, t)[f])
            t = t.elems[f]
        elif hasattr(t, "elem"):
            t = t.elem
            addr = addr + (idx * dl.alloc_size(t)).astype(np.uint64)
        else:
            raise NotModeled(getattr(inst, "span", None), f"a GEP index into {t}")
    if addr.ndim > 1 and base[0].ndim == 1:
        pass
    return ops.wrap(addr, width), poison


def value_type_bits(t) -> int:
    if isinstance(t, VectorType):
        t = t.elem
    if isinstance(t, (IntType, FloatType)):
        return t.bits
    return 64

"""The value instructions of the reference interpreter, over the lanes of a wave: binary
operators, comparisons, casts (``addrspacecast`` through the memory model's apertures),
``select`` and the address arithmetic of ``getelementptr``, on lane values
``(bits, poison)`` (patterns/run/ops.py), poison propagated from the operands."""

from __future__ import annotations

import numpy as np

from patterns.ir.core import FloatType, IntType, PtrType, StructType, VectorType
from patterns.run import ops
from patterns.run.ub import NotModeled


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
    """Flat <-> LDS/private casts through this model's apertures (patterns/run/memory.py).
    LDS and private address 0 is a valid address, so a segment's null for these casts is
    0xffffffff (the choice AMDGPU makes), which maps to the flat null 0 and back."""
    from patterns.run.memory import APERTURE_MASK, FLAT, LDS, LDS_APERTURE, PRIVATE, PRIVATE_APERTURE

    src, dst = inst.operands[0].type.addrspace, inst.type.addrspace
    bits = a[0]
    seg_null = np.uint64(0xFFFFFFFF)
    if dst == FLAT and src in (LDS, PRIVATE):
        ap = np.uint64(LDS_APERTURE if src == LDS else PRIVATE_APERTURE)
        return np.where(bits == seg_null, np.uint64(0), bits | ap), a[1]
    if src == FLAT and dst in (LDS, PRIVATE):
        return np.where(bits == 0, seg_null, bits & np.uint64(~APERTURE_MASK & 0xFFFFFFFF)), a[1]
    if {src, dst} <= {0, 1, 4}:
        return bits, a[1]
    raise NotModeled(inst.span, f"addrspacecast from address space {src} to {dst}")


def exec_select(inst, c, a, b):
    if isinstance(a[0], tuple):
        raise NotModeled(inst.span, "select of aggregates")
    cond = c[0]
    if cond.ndim < a[0].ndim:
        cond = cond[:, None]
        cp = c[1][:, None]
    else:
        cp = c[1]
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

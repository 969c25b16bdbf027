"""``atomicrmw`` and ``cmpxchg`` in the reference interpreter, on global and LDS memory.

The active lanes of one atomic instruction apply their operations one after another in
increasing lane order (LLVM orders them only by the memory model's total order on the
location; this lane order is the model's choice, and the machine interpreters follow
it, so an atomic's returned old values compare exactly). Each lane's read-modify-write is
recorded as a store of the value it writes (``cmpxchg``: only when it succeeds). Atomic
accesses do not take part in the LDS race tracking. ``fadd``/``fsub``/``fmax``/``fmin``
use the float rules of patterns/run/ops.py; ``uinc_wrap``/``udec_wrap`` LangRef's.
"""

from __future__ import annotations

import numpy as np

from patterns.ir.core import FloatType, IntType
from patterns.run import ops
from patterns.run.ub import NotModeled, Undefined
from patterns.run.values import bytes_scalar, scalar_bytes

U64 = np.uint64


def _rmw(op: str, old: int, val: int, t) -> int:
    if isinstance(t, FloatType):
        name = t.name
        x = ops.as_float(np.array([old], dtype=U64), name)
        y = ops.as_float(np.array([val], dtype=U64), name)
        if op in ("fadd", "fsub"):
            r = ops.float_binop(op, x, y)
        elif op in ("fmax", "fmin"):
            r = np.fmax(x, y) if op == "fmax" else np.fmin(x, y)
        elif op == "xchg":
            return val
        else:
            raise NotModeled(None, f"atomicrmw {op} on {t}")
        return int(ops.from_float(r, name)[0])
    bits = t.bits if isinstance(t, IntType) else 64
    mk = (1 << bits) - 1

    def s(v):
        return v - (1 << bits) if v >> (bits - 1) else v

    if op == "xchg":
        return val
    if op == "add":
        return (old + val) & mk
    if op == "sub":
        return (old - val) & mk
    if op == "and":
        return old & val
    if op == "or":
        return old | val
    if op == "xor":
        return old ^ val
    if op == "nand":
        return ~(old & val) & mk
    if op == "max":
        return old if s(old) >= s(val) else val
    if op == "min":
        return old if s(old) <= s(val) else val
    if op == "umax":
        return max(old, val)
    if op == "umin":
        return min(old, val)
    if op == "uinc_wrap":
        return 0 if old >= val else old + 1
    if op == "udec_wrap":
        return val if old == 0 or old > val else old - 1
    raise NotModeled(None, f"atomicrmw {op}")


def atomic(w, inst, m):
    """The value of an ``atomicrmw``/``cmpxchg`` for lanes ``m`` (wave ``w``)."""
    prog = w.prog
    dl = prog.dl
    ptr = w.get(inst.operands[0])
    w.need_defined(ptr, m, "the atomic's address")
    space = w.space_of(inst.operands[0].type)
    cmpx = inst.opcode == "cmpxchg"
    t = inst.operands[1].type
    if not isinstance(t, (IntType, FloatType)) and not t.is_ptr:
        raise NotModeled(inst.span, f"{inst.opcode} of {t}")
    n = dl.store_size(t)
    bits_w = t.bits if isinstance(t, (IntType, FloatType)) else 64
    args = [w.get(v) for v in inst.operands[1:]]
    for a in args:
        w.need_defined(a, m, f"an operand of {inst.opcode}")
    old = np.zeros(w.W, dtype=U64)
    ok = np.zeros(w.W, dtype=bool)
    for lane in np.flatnonzero(m):
        one = np.zeros(w.W, dtype=bool)
        one[lane] = True
        data, init = prog.mem.load(space, ptr[0], n, one, w.group, w.local, atomic=True)
        if not init[lane].all():
            raise Undefined("uninitialised", f"{inst.opcode} on memory never written", lane=int(lane))
        cur = int(bytes_scalar(data, bits_w)[lane])
        old[lane] = U64(cur)
        if cmpx:
            expect, new = int(args[0][0][lane]), int(args[1][0][lane])
            if cur != expect:
                continue
            ok[lane] = True
            nv = new
        else:
            nv = _rmw(inst.rmw_op, cur, int(args[0][0][lane]), t)
        vals = np.zeros(w.W, dtype=U64)
        vals[lane] = U64(nv)
        prog.mem.store(space, ptr[0], scalar_bytes(vals, n), one, w.group, w.local, str(t), atomic=True,
                         origin=inst)
    zero = np.zeros(w.W, dtype=bool)
    if cmpx:
        return ((old, zero), (ok.astype(U64), zero))
    return old, zero


_CL_OPS = {"add": "add", "sub": "sub", "inc": "add", "dec": "sub", "and": "and", "or": "or", "xor": "xor",
           "xchg": "xchg", "min": "min", "max": "max"}


def opencl_atomic(op: str, signed: bool):
    """The OpenCL C built-in ``atomic_<op>(volatile p, [v])`` (``atomic_inc``/``dec``: v = 1;
    ``min``/``max`` of unsigned ints: ``umin``/``umax``), returning the old value."""
    rmw = _CL_OPS[op]
    if rmw in ("min", "max") and not signed:
        rmw = "u" + rmw

    def h(w, inst, args, m):
        t = inst.type
        ptr = args[0]
        w.need_defined(ptr, m, f"the address of {inst.callee}")
        if op in ("inc", "dec"):
            vals = np.ones(w.W, dtype=U64)
        else:
            w.need_defined(args[1], m, f"the operand of {inst.callee}")
            vals = args[1][0]
        space = w.space_of(inst.operands[0].type)
        old = np.zeros(w.W, dtype=U64)
        n = w.prog.dl.store_size(t)
        for lane in np.flatnonzero(m):
            one = np.zeros(w.W, dtype=bool)
            one[lane] = True
            data, init = w.prog.mem.load(space, ptr[0], n, one, w.group, w.local, atomic=True)
            if not init[lane].all():
                raise Undefined("uninitialised", f"{inst.callee} on memory never written", lane=int(lane))
            cur = int(bytes_scalar(data, t.bits)[lane])
            old[lane] = U64(cur)
            new = np.zeros(w.W, dtype=U64)
            new[lane] = U64(_rmw(rmw, cur, int(vals[lane]), t))
            w.prog.mem.store(space, ptr[0], scalar_bytes(new, n), one, w.group, w.local, str(t), atomic=True,
                             origin=inst)
        return old, np.zeros(w.W, dtype=bool)
    return h

"""A kernel's arguments as llc-19 loads them: AMDGPULowerKernelArguments, Sink, then the LoadStoreVectorizer.

LowerFormalArguments of an ``amdgpu_kernel`` (``-mtriple=amdgcn``, gfx900): the kernarg
segment pointer is the live-in SGPR pair $sgpr2_sgpr3 ($sgpr0_sgpr1 holds the dispatch
pointer) and the explicit arguments start at byte 36 of the segment, each at its ABI
alignment. AMDGPULowerKernelArguments turns every used argument into an invariant load
from the segment in the entry block; the LoadStoreVectorizer merges the loads of
arguments of the same size that lie next to each other in the segment into one wider
load (its chains are per element size: pointers and 64-bit values apart from 32-bit
ones; a ``noalias`` argument's load, which carries alias-scope metadata, is not merged),
split into power-of-two counts (three dwords are one load widened to four: the segment
is dereferenceable); llc's
Sink pass then moves each (merged) load towards its users, which changes no opcode.
The result per merged load is S_LOAD_DWORD_IMM (4 bytes), S_LOAD_DWORDX2_IMM_ec,
S_LOAD_DWORDX4_IMM_ec, S_LOAD_DWORDX8_IMM_ec (8, 16, 32 bytes; the forms without
``_ec`` when the offset is aligned to the size), and each argument's
register is the load's result (a load of one argument) or a COPY of its part (its
sub-registers joined by REG_SEQUENCE for a 64-bit argument inside a wider load), as
InstrEmitter leaves them. All are emitted at the top of
the entry block (their block only decides how they merge: the opcode multiset is llc's).

A vector argument (2, 4 or 8 elements of 32 or 64 bits, at most 32 bytes, aligned to its
size) is one load of its own defining its register. Not modelled (a "not modelled"
error at the argument): arguments of other sizes and other vectors, a vector argument
next to an argument of its element size (the vectorizer may merge them), one whose only
user is an extractelement (the combiner narrows the load to that element), chains
longer than 32 bytes.
"""

from __future__ import annotations

from tdgen.errors import VerifyError, expected

_LOAD = {4: ("S_LOAD_DWORD_IMM", "SReg_32_XM0_XEXEC"), 8: ("S_LOAD_DWORDX2_IMM_ec", "SReg_64_XEXEC"),
         16: ("S_LOAD_DWORDX4_IMM_ec", "SGPR_128"), 32: ("S_LOAD_DWORDX8_IMM_ec", "SGPR_256")}
_SUB = tuple(f"sub{k}" for k in range(8))


def _error(fn, a, what: str) -> VerifyError:
    return VerifyError(getattr(a, "span", None) or getattr(fn, "span", None),
                       expected(f"an argument of @{fn.name} the amdgpu target passes", f"%{a.name}: {what} (not modelled)"),
                       record=f"%{a.name}")


def lower_kernel_arguments(sf, sel, diags, mk) -> None:
    """The argument loads of kernel ``sf`` (see the module docstring); ``mk(opcode, dst,
    regclass, operands, ir)`` appends one instruction to the entry block's head."""
    fn = sel.fdags.function
    vregs = sel.fdags.vregs
    args = []
    offset = 0
    vectors = {}
    for a in fn.args:
        size = _size(a.type)
        if size is None:
            diags.add(_error(fn, a, f"a kernel argument of type {a.type}"))
            return
        if type(a.type).__name__ == "VectorType":
            # (a vector's ABI alignment is its store size rounded up to a power of two)
            align = 4
            while align < size:
                align *= 2
            offset = (offset + align - 1) // align * align
            vectors[a] = (36 + offset, size, _size(a.type.elem))
            offset += size
            continue
        offset = (offset + size - 1) // size * size
        if a in vregs:
            args.append((a, 36 + offset, size))
        offset += size
    if not args and not any(a in vregs for a in vectors):
        return
    kp = f"%{sel.fresh()}"
    sf.liveins.setdefault("$sgpr2_sgpr3", "SGPR_64")
    mk("COPY", kp, "SGPR_64", ["$sgpr2_sgpr3"], None)
    # (the LoadStoreVectorizer runs before Sink: the loads of the entry block merge, per
    # element size, and Sink then moves each merged load as a whole)
    # (a vector argument is one load of its own; the vectorizer's merge of it with an
    # adjacent argument of its element size is not modelled)
    for a, (off, size, elt) in vectors.items():
        if any(s2 == elt and (o2 + s2 == off or off + size == o2) for _a2, o2, s2 in args) or \
                any(b is not a and e2 == elt and (o2 + s2 == off or off + size == o2)
                    for b, (o2, s2, e2) in vectors.items() if b in vregs):
            diags.add(_error(fn, a, f"a kernel argument of type {a.type} next to one of its element size"))
            return
    for a, (off, size, _elt) in vectors.items():
        if a not in vregs:
            continue
        users = [i for b in fn.blocks for i in b.instructions
                 if any(o is a for o in (i.operands or ())) or any(v is a for v, _b in (i.incoming or ()))]
        if len(users) == 1 and users[0].opcode == "extractelement":
            # (the DAG combiner turns the only extract of a loaded vector into a load of
            # that element: not modelled)
            diags.add(_error(fn, a, f"a kernel argument of type {a.type} read by one extractelement"))
            return
        if size not in _LOAD:
            diags.add(_error(fn, a, f"a kernel argument of type {a.type}"))
            return
        op, rc = _LOAD[size]
        if size > 4 and min(16, off & -off) >= size:
            op = op[:-3]
        mk(op, f"%{vregs[a]}", rc, [kp, str(off), "0"], f"%{a.name}")
    groups: dict = {}
    for a, off, size in args:
        groups.setdefault(size, []).append((off, a))
    for size, items in sorted(groups.items(), key=lambda kv: kv[1][0][0]):
        items.sort(key=lambda x: x[0])
        run: list = []
        for off, a in items:
            alone = "noalias" in (getattr(a, "attrs", ()) or ())
            if run and (alone or off != run[-1][0] + size or "noalias" in (getattr(run[-1][1], "attrs", ()) or ())):
                _emit_run(sel, fn, run, size, kp, mk, diags)
                run = []
            run.append((off, a))
        if run:
            _emit_run(sel, fn, run, size, kp, mk, diags)


def _emit_run(sel, fn, run, size, kp, mk, diags) -> None:
    """One merged load of the contiguous arguments ``run`` (offset, argument) of ``size``
    bytes each, and the COPY of each argument's part; a run longer than 32 bytes is
    split into loads of at most 32."""
    vregs = sel.fdags.vregs
    k = 0
    while k < len(run):
        left = len(run) - k
        # (three dwords load as <3 x i32>, widened to four; other runs split into
        # power-of-two counts from the start)
        count = 3 if size == 4 and left == 3 else next(c for c in (8, 4, 2, 1) if c <= left and c * size <= 32)
        part = run[k:k + count]
        k += count
        total = len(part) * size
        width = 4
        while width < total:
            width *= 2
        op, rc = _LOAD[width]
        # (the _ec form -- an early-clobber result -- when the load is less aligned than
        # its size: the segment is 16-byte aligned, the offset gives the rest)
        start = part[0][0]
        align = min(16, start & -start)
        if width > 4 and align >= width:
            op = op[:-3]
        if width == size:  # (one argument: the load defines its register)
            a = part[0][1]
            mk(op, f"%{vregs[a]}", rc, [kp, str(start), "0"], f"%{a.name}")
            continue
        t = f"%{sel.fresh()}"
        mk(op, t, rc, [kp, str(start), "0"], f"%{part[0][1].name}")
        for j, (off, a) in enumerate(part):
            dst = f"%{vregs[a]}"
            if size == 4:
                mk("COPY", dst, "SReg_32", [f"{t}.{_SUB[j]}"], f"%{a.name}")
            else:
                lo, hi = f"%{sel.fresh()}", f"%{sel.fresh()}"
                mk("COPY", lo, "SReg_32", [f"{t}.{_SUB[2 * j]}"], f"%{a.name}")
                mk("COPY", hi, "SReg_32", [f"{t}.{_SUB[2 * j + 1]}"], f"%{a.name}")
                mk("REG_SEQUENCE", dst, "SReg_64", [lo, "%subreg.sub0", hi, "%subreg.sub1"], f"%{a.name}")


def _size(ty) -> int | None:
    cls = type(ty).__name__
    if cls == "IntType" and ty.bits in (32, 64):
        return ty.bits // 8
    if cls == "FloatType" and ty.name in ("float", "double"):
        return 4 if ty.name == "float" else 8
    if cls == "PtrType":
        return 8 if ty.addrspace in (0, 1, 4) else 4
    if cls == "VectorType" and ty.count in (2, 4, 8):
        elt = _size(ty.elem)
        return None if elt is None or elt * ty.count > 32 else elt * ty.count
    return None

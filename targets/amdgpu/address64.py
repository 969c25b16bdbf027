"""The 64-bit VGPR address of a divergent global access whose i32 index may be negative.

The selection step ``select.py`` calls for such an address: what type legalization's
expansion of the i64 pointer add and llc-19's patterns make of it on gfx900 (checked
with ``llc-19 -stop-after=finalize-isel``; tests/test_mir_llc.py verifies the MIR).
"""

from __future__ import annotations

_EXEC_USE = ("implicit $exec",)


def address_64(sel, n, p, base, idx, size: int, out, *, zext: bool = False, consume: bool = True) -> str:
    """The 64-bit VGPR address ``base + ext(idx) * size`` of a divergent GEP over the i32
    index ``idx`` (``zext``: zero-extended, else sign-extended), as type legalization
    expands it and llc-19 selects it: the index widened to a pair -- the high half
    ``V_ASHRREV_I32 31`` of it, or for a zero extension ``V_MOV_B32_e32 0`` (beside the
    ``S_MOV_B32 0`` and IMPLICIT_DEF the lowering leaves unused) -- scaled by the one
    64-bit VALU shift (``V_LSHLREV_B64`` by the size's log2, an S_MOV_B32 amount), both
    made once per index and size (CSE shares them between accesses); then per access the
    uniform base added half by half (``V_ADD_CO_U32`` whose carry feeds ``V_ADDC_U32``,
    the base's halves copied to the VALU) and the halves joined by REG_SEQUENCE.
    ``consume``: the access folds the GEP ``p`` (its use of it ends here); False when
    ``n`` is the GEP itself, selected for its value (``ptradd``)."""
    from patterns.select.machine import reg_operand, release

    shared: list = []

    def v(op, rc, ops, sub, share=False, **kw):
        d = f"%{sel.fresh()}"
        out.append(sel.instr(op, d, rc, ops, n, sub=sub, **kw))
        if share:  # (shared between accesses: no IR value of its own)
            out[-1].ir = None
            shared.append(out[-1])
        return d

    # (the shared part is ordered with the access that comes first in the block: accesses
    # are selected last first, so a later-selected earlier access takes it over)
    memo = sel.target_state.setdefault("wide_offsets", {})
    key = (id(idx), zext, size)
    got = memo.get(key)
    if consume:
        base.uses += 1
    if got is None:
        idx.uses += 1
        i = reg_operand(sel, idx)
        if zext:
            v("S_MOV_B32", "SReg_32", ["0"], 1, True)
            v("IMPLICIT_DEF", "SReg_32", [], 2, True)
            hi = v("V_MOV_B32_e32", "VGPR_32", ["0"], 3, True, implicit=_EXEC_USE)
        else:
            hi = v("COPY", "VGPR_32", [v("V_ASHRREV_I32_e64", "VGPR_32", ["31", i], 3, True, implicit=_EXEC_USE)],
                   4, True)
        wide = v("REG_SEQUENCE", "VReg_64", [i, "%subreg.sub0", hi, "%subreg.sub1"], 5, True)
        if size > 1:
            amount = v("S_MOV_B32", "SReg_32", [str(size.bit_length() - 1)], 6, True)
            wide = v("V_LSHLREV_B64_e64", "VReg_64", [amount, wide], 7, True, implicit=_EXEC_USE)
        memo[key] = [wide, shared, n.id]
    else:
        wide, made, anchor = got
        if n.id < anchor:
            low = min(mi.order for mi in made)
            for mi in made:
                mi.order = n.id * 64 + 32 + 1 + (mi.order - low)
            got[2] = n.id
    b = reg_operand(sel, base)
    b_lo = v("COPY", "SReg_32_XM0_XEXEC", [f"{b}.sub0"], 8)
    o_lo = v("COPY", "VGPR_32", [f"{wide}.sub0"], 9)
    b_hi = v("COPY", "SReg_32_XM0_XEXEC", [f"{b}.sub1"], 10)
    o_hi = v("COPY", "VGPR_32", [f"{wide}.sub1"], 11)
    carry = f"%{sel.fresh()}"
    lo = f"%{sel.fresh()}"
    out.append(sel.instr("V_ADD_CO_U32_e64", lo, "VGPR_32", [b_lo, o_lo, "0"], n, more_defs=((carry, "SReg_64_XEXEC"),),
                         implicit=_EXEC_USE, sub=12))
    b_hi_v = v("COPY", "VGPR_32", [b_hi], 13)
    hi_sum = f"%{sel.fresh()}"
    out.append(sel.instr("V_ADDC_U32_e64", hi_sum, "VGPR_32", [b_hi_v, o_hi, carry, "0"], n,
                         more_defs=((f"%{sel.fresh()}", "SReg_64_XEXEC"),), implicit=_EXEC_USE, sub=14))
    addr = v("REG_SEQUENCE", "VReg_64", [lo, "%subreg.sub0", hi_sum, "%subreg.sub1"], 15)
    if consume:
        p.uses -= 1
        if p.uses == 0:
            for o in p.ops:
                release(o)
    return addr


def ptradd(n, sel, out) -> bool:
    """A divergent GEP selected for its value (used by another block, a phi or a call):
    the 64-bit address of ``address_64`` in the node's VReg_64 -- its uniform base plus
    the i32 index sign-extended, or an i64 index extended from i32 (the extension folded
    in), scaled by the element size. Other GEPs (a uniform one: S_ADD_U32 / S_ADDC_U32;
    a divergent base) are left to the "cannot select" report."""
    from patterns.select.machine import release

    if not n.divergent or len(n.ops) != 2 or n.ops[0].divergent or n.vt != "i64":
        return False
    base, idx = n.ops
    size = elem_bytes(getattr(n.ir, "source_type", None))
    if size is None or size & (size - 1):
        return False
    if idx.vt == "i64" and idx.opcode in ("ISD::ZERO_EXTEND", "ISD::SIGN_EXTEND") and idx.ops[0].vt == "i32":
        inner, zext = idx.ops[0], idx.opcode == "ISD::ZERO_EXTEND"
        inner.uses += 1  # (read here instead of through the extension, which is folded)
        release(idx)
    elif idx.vt == "i32":
        inner, zext = idx, False
    else:
        return False
    addr = address_64(sel, n, n, base, inner, size, out, zext=zext, consume=False)
    out.append(sel.instr("COPY", sel.vreg(n), "VReg_64", [addr], n, sub=16))
    return True


def elem_bytes(ty) -> int | None:
    """The store size in bytes of a GEP's element type (None: not a sized scalar here)."""
    cls = type(ty).__name__
    if cls == "IntType" and ty.bits % 8 == 0:
        return ty.bits // 8
    if cls == "FloatType":
        return {"half": 2, "float": 4, "double": 8}.get(ty.name)
    if cls == "PtrType":
        return 8 if ty.addrspace in (0, 1, 4) else 4
    return None

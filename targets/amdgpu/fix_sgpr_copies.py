"""SIFixSGPRCopies' moveToVALU: an SALU instruction that reads a VGPR is rewritten to its VALU form.

After the DAG selector, a uniform node may read a value that lives in a VGPR: the result
of an instruction that has only a VALU form (V_MAD_U32_U24 for a uniform 24-bit multiply,
the clamped V_ADD_U32 of a saturating add ...). llc's selector leaves an SALU instruction
reading a VGPR->SGPR COPY there, which is illegal (the value differs per lane as far as
the hardware knows) unless the value is made uniform with V_READFIRSTLANE_B32;
SIFixSGPRCopies instead moves the user to the VALU (SIInstrInfo::moveToVALU): its
opcode becomes the VALU equivalent (getVALUOp), its result a VGPR, and every SALU user
of that result is moved in turn. Modelled for the 32-bit SALU ALU ops of the reference
target (the table below: the shifts swap their operands into the *REV forms, adds/subs
gain the clamp operand); a cross-block COPY of a moved value becomes a VGPR copy and its
users in other blocks are moved as well; a REG_SEQUENCE of a scalar class with a VGPR
part becomes the vector class of its size. An SALU instruction with no VALU form here
(S_CMP, S_CSELECT, S_XNOR on gfx900 ...) reading a VGPR is a "not modelled" error.

Every move is recorded in the selected function's ``notes`` (``tdgen explain`` prints
the ones of the value it explains). The pass runs after selection; ``stop_after
="amdgpu-isel"`` (llc's ``-stop-after=amdgpu-isel``, the selector's own choice) skips it.
"""

from __future__ import annotations

from tdgen.errors import VerifyError, expected

# SALU opcode -> (VALU opcode, operand order: indices into the SALU operands, extra operands)
VALU_OF = {
    "S_ADD_I32": ("V_ADD_U32_e64", (0, 1), ("0",)),
    "S_SUB_I32": ("V_SUB_U32_e64", (0, 1), ("0",)),
    "S_AND_B32": ("V_AND_B32_e64", (0, 1), ()),
    "S_OR_B32": ("V_OR_B32_e64", (0, 1), ()),
    "S_XOR_B32": ("V_XOR_B32_e64", (0, 1), ()),
    "S_MUL_I32": ("V_MUL_LO_U32_e64", (0, 1), ()),
    "S_LSHL_B32": ("V_LSHLREV_B32_e64", (1, 0), ()),
    "S_LSHR_B32": ("V_LSHRREV_B32_e64", (1, 0), ()),
    "S_ASHR_I32": ("V_ASHRREV_I32_e64", (1, 0), ()),
    "S_NOT_B32": ("V_NOT_B32_e32", (0,), ()),
}


def _v_cmp_of() -> dict:
    from .control import S_CMP, V_CMP

    return {S_CMP[cc]: V_CMP[cc] for cc in S_CMP}


V_CMP_OF = _v_cmp_of()  # S_CMP_<cc>_<type> -> V_CMP_<cc>_<type>_e64


def _compare_to_valu(sf, sel, mi) -> None:
    """An SALU compare reading a VGPR becomes the VALU compare writing a lane mask; the
    SCC branch after it branches on that mask through VCC (``$vcc = S_AND_B64 $exec,
    mask``, S_CBRANCH_VCCNZ / VCCZ), as moveToVALU rewrites an SCC user."""
    from patterns.select.mir import MachineInstr

    blk = next(b for b in sf.blocks if any(x is mi for x in b.instrs))
    old = mi.opcode
    mi.opcode = V_CMP_OF[old]
    mi.dst = f"%{sel.fresh()}"
    mi.regclass, mi.file = "SReg_64_XEXEC", "scalar"
    mi.implicit = ("implicit $exec",)
    sf.notes.append(f"SIFixSGPRCopies: {old} reads a VGPR: moved to the VALU as {mi.opcode}, its SCC users "
                    f"branch on {mi.dst} through VCC")
    at = next(k for k, x in enumerate(blk.instrs) if x is mi)
    for k in range(at + 1, len(blk.instrs)):
        u = blk.instrs[k]
        if u.opcode in ("S_CBRANCH_SCC1", "S_CBRANCH_SCC0"):
            vcc = MachineInstr("S_AND_B64", "$vcc", None, "scalar", ["$exec", mi.dst], u.ir, None, None, 0)
            vcc.implicit = ("implicit-def $scc",)
            blk.instrs.insert(k, vcc)
            u.opcode = "S_CBRANCH_VCCNZ" if u.opcode == "S_CBRANCH_SCC1" else "S_CBRANCH_VCCZ"
            u.implicit = ("implicit $vcc",)
            break
        if any("$scc" in i for i in getattr(u, "implicit", ()) or ()):
            break


def fix_sgpr_copies(sf, sel, diags) -> None:
    if getattr(sel, "stop_after", None) == "amdgpu-isel":
        return
    rcs = sel.rcs
    defs: dict = {}
    users: dict = {}
    for blk in sf.blocks:
        for mi in blk.instrs:
            if mi.dst:
                defs[mi.dst] = mi
            for o in mi.operands:
                if isinstance(o, str) and o.startswith("%"):
                    users.setdefault(o.split(".")[0], []).append(mi)

    def vector(reg: str) -> bool:
        d = defs.get(reg)
        rc = rcs.get(d.regclass) if d is not None and d.regclass else None
        return rc is not None and rc.file == "vector"

    # a REG_SEQUENCE built in a scalar class from a VGPR part (v_mad_u64_u32's widened
    # addend) is a VGPR tuple of the same size (processRegSequence / moveToVALU)
    for blk in sf.blocks:
        for mi in blk.instrs:
            rc = rcs.get(mi.regclass) if mi.opcode == "REG_SEQUENCE" and mi.regclass else None
            if rc is not None and rc.file == "scalar" and any(
                    isinstance(o, str) and o.startswith("%") and vector(o.split(".")[0]) for o in mi.operands[::2]):
                bits = max((t.bits for t in rc.types), default=0)
                wide = next((c for c in rcs.values() if c.file == "vector"
                             and max((t.bits for t in c.types), default=0) == bits), None)
                if wide is not None:
                    mi.regclass, mi.file = wide.name, "vector"
    work = [mi for blk in sf.blocks for mi in blk.instrs
            if mi.opcode.startswith("S_") and any(isinstance(o, str) and vector(o.split(".")[0]) for o in mi.operands)]
    # a VGPR -> SGPR COPY read only by SALU compares (the zext of a lane mask compared
    # in a branch): the compares are moved to the VALU reading the VGPR, and the copy,
    # left without readers, is an IMPLICIT_DEF (lowerVGPR2SGPRCopies)
    for blk in sf.blocks:
        for mi in blk.instrs:
            if mi.opcode == "COPY" and mi.file == "scalar" and mi.operands and vector(str(mi.operands[0])) and \
                    users.get(mi.dst) and all(u.opcode in V_CMP_OF for u in users[mi.dst]):
                src = mi.operands[0]
                for u in users[mi.dst]:
                    u.operands = [src if o == mi.dst else o for o in u.operands]
                    work.append(u)
                mi.opcode, mi.operands = "IMPLICIT_DEF", []
    seen: set = set()
    while work:
        mi = work.pop(0)
        if id(mi) in seen:
            continue
        if mi.opcode in V_CMP_OF:
            seen.add(id(mi))
            _compare_to_valu(sf, sel, mi)
            continue
        if mi.opcode == "COPY":  # (a cross-block copy of a moved value: now a VGPR copy)
            seen.add(id(mi))
            if mi.regclass and rcs.get(mi.regclass) is not None and rcs[mi.regclass].file == "scalar":
                mi.regclass, mi.file = sel.vector_rc, "vector"
                work.extend(users.get(mi.dst, ()))
            continue
        if not mi.opcode.startswith("S_"):
            continue
        seen.add(id(mi))
        src = next((o for o in mi.operands if isinstance(o, str) and vector(o.split(".")[0])), None)
        row = VALU_OF.get(mi.opcode)
        if row is None:
            diags.add(VerifyError(None, expected(f"an SALU instruction the amdgpu target can move to the VALU "
                                                 f"(SIFixSGPRCopies) in @{sf.name}",
                                                 f"{mi.opcode} ({mi.ir or 'no IR value'}) reading the VGPR {src} "
                                                 f"(not modelled)")))
            continue
        op, order, extra = row
        old = mi.opcode
        mi.opcode = op
        mi.operands = [mi.operands[k] for k in order] + list(extra)
        mi.regclass, mi.file = sel.vector_rc, "vector"
        mi.implicit = ()
        d = defs.get(src.split(".")[0]) if src else None
        sf.notes.append(f"SIFixSGPRCopies: {old} ({mi.ir or mi.dst}) reads the VGPR {src}"
                        + (f" ({d.opcode}{', ' + d.ir if d.ir else ''})" if d is not None else "")
                        + f": moved to the VALU as {op}")
        if mi.dst:
            work.extend(users.get(mi.dst, ()))

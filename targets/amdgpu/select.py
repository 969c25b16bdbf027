"""AMDGPU's own Select steps (``TargetHooks.select``): the nodes whose machine code no pattern expresses.

These stand for the C++ of AMDGPUDAGToDAGISel::Select and SITargetLowering that llc-19
-mcpu=gfx900 runs for the nodes the engine's DAG leaves for the target: constants
(S_MOV_B32, S_MOV_B64 / S_MOV_B64_IMM_PSEUDO), uniform compares feeding a branch or a
select (S_CMP_* setting SCC, then S_CBRANCH_SCC1 / S_CSELECT_B32), divergent compares
(V_CMP_*_e64, a lane mask) and selects (V_CNDMASK_B32_e64), branches (S_BRANCH; none to
the layout successor), returns (S_ENDPGM 0 from a kernel, SI_RETURN otherwise), uniform
loads from the constant address space (S_LOAD_DWORD_IMM with the GEP's constant byte
offset folded) and global stores (GLOBAL_STORE_DWORD_SADDR with a zero VGPR offset from
V_MOV_B32_e32 when the base is uniform; the stored value COPY'd into a VGPR when it is in
an SGPR, as InstrEmitter does for a VGPR-only operand).

Where it stops, with a "not modelled" error at the node (never a guess):
- a divergent branch (llc runs StructurizeCFG and SIAnnotateControlFlow first and
  selects SI_IF / SI_ELSE / SI_LOOP / SI_END_CF: not modelled here);
- loads and stores other than the forms above (divergent addresses need the 64-bit
  address arithmetic of the DAG's type legalization; LDS, scratch, wider types);
- returns of values from non-kernel functions.
When llc's condition inversion applies (the true successor is the layout successor:
SelectionDAGBuilder branches to the false block on the inverse condition) it is modelled.
"""

from __future__ import annotations

from tdgen.errors import VerifyError, expected

from .address64 import address_64, elem_bytes, ptradd
from .control import S_CMP, S_CMP64, V_CMP
from .divergent_cf import divergent_branch
from .kernargs import lower_kernel_arguments

_INVERSE = {"SETEQ": "SETNE", "SETNE": "SETEQ", "SETLT": "SETGE", "SETGE": "SETLT", "SETLE": "SETGT",
            "SETGT": "SETLE", "SETULT": "SETUGE", "SETUGE": "SETULT", "SETULE": "SETUGT", "SETUGT": "SETULE"}
_SCC_DEF = ("implicit-def $scc",)
_SCC_USE = ("implicit $scc",)
_EXEC_USE = ("implicit $exec",)


def _not_modelled(n, what: str) -> VerifyError:
    from patterns.select.explain import node_text

    return VerifyError(getattr(n.ir, "span", None), expected(f"a form of {node_text(n)} the amdgpu target selects",
                                                             f"{what} (not modelled)"), record=n.ir_name())


def _take(sel, n, reads) -> list[str]:
    """``n`` is replaced by instructions reading ``reads`` (nodes, as registers): they
    keep a use each, ``n``'s operands lose theirs (a folded inner node dies)."""
    from patterns.select.machine import reg_operand, release

    for r in reads:
        r.uses += 1
    for o in n.ops:
        release(o)
    return [reg_operand(sel, r) for r in reads]


def constant(n, sel, out) -> bool:
    """S_MOV_B32 / S_MOV_B64 (S_MOV_B64_IMM_PSEUDO beyond the inline range); a divergent
    constant (a divergent phi's incoming value, whose register is a VGPR: VGPRImm) is a
    V_MOV_B32_e32."""
    v = n.value
    if not isinstance(v, int):
        from patterns.select.explain import node_text

        blk = sel.dag.block if sel.dag is not None else None
        text = str(getattr(n.ir, "text", None) or v)
        raise VerifyError(getattr(blk, "span", None),
                          expected(f"a form of {node_text(n)} the amdgpu target selects",
                                   f"a constant expression or global address ({text[:60]}{'...' if len(text) > 60 else ''}"
                                   ": the global-address lowering, SI_PC_ADD_REL_OFFSET) (not modelled)"),
                          record=f"@{sel.fdags.function.name}:%{getattr(blk, 'name', '?')}")
    if n.divergent and n.vt in ("i32", "i16"):
        out.append(sel.instr("V_MOV_B32_e32", sel.vreg(n), "VGPR_32", [str(v)], n, implicit=_EXEC_USE))
        return True
    if n.vt in ("i32", "i16"):
        out.append(sel.instr("S_MOV_B32", sel.vreg(n), "SReg_32", [str(v)], n))
        return True
    if n.vt == "i1" and not n.divergent:  # (a uniform i1 is a lane mask: all lanes or none)
        out.append(sel.instr("S_MOV_B64", sel.vreg(n), "SReg_64", ["-1" if v else "0"], n))
        return True
    if n.vt == "i64":
        op = "S_MOV_B64" if -16 <= v <= 64 else "S_MOV_B64_IMM_PSEUDO"
        out.append(sel.instr(op, sel.vreg(n), "SReg_64", [str(v)], n))
        return True
    raise _not_modelled(n, f"a constant of type {n.vt}")


def _vgpr_imm(sel, c, n, out, sub: int) -> str | None:
    """A 32-bit constant whose only user is a VGPR-only operand is selected as
    V_MOV_B32_e32 (AMDGPU's VGPRImm leaf: every use needs a VGPR); its register, or None
    when ``c`` is not such a constant."""
    if c.opcode != "ISD::Constant" or c.uses != 1 or c.vt not in ("i32", "i16"):
        return None
    reg = sel.vreg(c)
    c.uses = 0  # (selected here: the loop passes over it)
    out.append(sel.instr("V_MOV_B32_e32", reg, "VGPR_32", [str(c.value)], n, implicit=_EXEC_USE, sub=sub))
    return reg


def _next_block(sel, n) -> int:
    return sel.block_index(n.block) + 1


def branch(n, sel, out) -> bool:
    targets = getattr(n.ir, "targets", None) or ()
    if n.ir is None or n.ir.opcode != "br" or len(targets) != 1:
        raise _not_modelled(n, f"a '{getattr(n.ir, 'opcode', '?')}' terminator")
    to = sel.block_index(targets[0])
    if to != _next_block(sel, n):
        out.append(sel.instr("S_BRANCH", None, None, [f"%bb.{to}"], n))
    return True


def _compare(sel, c, cc: str, sub: int, n):
    """``S_CMP_<cc> a, b`` (implicit-def $scc) for the uniform SETCC ``c`` (folded)."""
    a, b = c.ops
    table = S_CMP if a.vt == "i32" else S_CMP64 if a.vt == "i64" else {}
    op = table.get(cc)
    if op is None:
        raise _not_modelled(c, f"a uniform {a.vt} compare {cc}")
    regs = _take(sel, c, (a, b))
    return sel.instr(op, None, None, regs, n, implicit=_SCC_DEF, sub=sub)


def brcond(n, sel, out) -> bool:
    (c,) = n.ops
    targets = n.ir.targets
    if n.divergent or c.divergent:
        return divergent_branch(n, sel, out)
    t, f = sel.block_index(targets[0]), sel.block_index(targets[1])
    if c.opcode != "ISD::SETCC":
        return _branch_on_mask(n, c, sel, out, t, f)
    if c.uses != 1:
        raise _not_modelled(n, "a uniform branch on a compare with other users")
    cc = c.cc
    if cc not in _INVERSE:
        raise _not_modelled(n, f"a uniform branch on a {c.ops[0].vt} compare {cc}")
    cmp = None
    if t == _next_block(sel, n):  # branch to the false block on the inverse condition
        cc, t, f = _INVERSE[cc], f, t
        cmp = _canonical_compare(sel, c, cc, n, out)
    if cmp is None:
        cmp = _compare(sel, c, cc, 0, n)
    for o in n.ops:  # (the compare is folded into the branch)
        o.uses -= 1
    out.append(cmp)
    out.append(sel.instr("S_CBRANCH_SCC1", None, None, [f"%bb.{t}"], n, implicit=_SCC_USE, sub=1))
    # (llc ends the block with the unconditional branch to the other successor, the
    # layout successor included, at this stage)
    out.append(sel.instr("S_BRANCH", None, None, [f"%bb.{f}"], n, sub=2))
    return True


# the DAG combine's GE/LE canonicalization of the inverted compare (SelectionDAGBuilder
# inverts before the combine runs): condition -> (new condition, constant step, signed)
_CANONICAL = {"SETGE": ("SETGT", -1, True), "SETUGE": ("SETUGT", -1, False),
              "SETLE": ("SETLT", 1, True), "SETULE": ("SETULT", 1, False)}


def _canonical_compare(sel, c, cc: str, n, out):
    """The S_CMP of the inverted compare ``c`` as the combine leaves it: ``X >= C`` as
    ``X > C-1``, ``X <= C`` as ``X < C+1`` (the new constant made here, the old one left
    to die); None when that does not apply (no constant on the right, another condition,
    a bound that would fold the compare to true)."""
    from patterns.dag.nodes import SDNode
    from patterns.select.machine import reg_operand, release

    a, b = c.ops
    row = _CANONICAL.get(cc)
    if row is None or b.opcode != "ISD::Constant" or not isinstance(b.value, int) or a.vt != "i32":
        return None
    new_cc, step, signed = row
    v = b.value if signed else b.value & 0xFFFFFFFF
    bound = (-(1 << 31) if signed else 0) if step < 0 else ((1 << 31) - 1 if signed else 0xFFFFFFFF)
    if v == bound:
        return None
    v += step
    if v >= 1 << 31:
        v -= 1 << 32
    k = SDNode(-1, "ISD::Constant", "i32", (), v)
    k.uses, k.divergent, k.block, k.ir = 1, False, n.block, c.ir
    constant(k, sel, out)
    a.uses += 1
    for o in c.ops:
        release(o)
    regs = [reg_operand(sel, a), sel.vreg(k)]
    return sel.instr(S_CMP[new_cc], None, None, regs, n, implicit=_SCC_DEF)


def _branch_on_mask(n, c, sel, out, t: int, f: int) -> bool:
    """A uniform branch on an i1 register (a lane mask in an SGPR pair: StructurizeCFG's
    Flow phis). Without inversion, SelectBRCOND's VCC form: ``$vcc = S_AND_B64 $exec,
    %c`` and S_CBRANCH_VCCNZ. With it (the true successor is the layout successor),
    SelectionDAGBuilder's ``xor %c, true`` becomes ``setcc ne (zext %c), 1`` (the combine's
    rebuildSetCC, then the i1 compare promoted to i32): the zext is V_CNDMASK_B32 0/1 on
    the mask, read through a COPY into an SGPR by S_CMP_LG_U32 and S_CBRANCH_SCC1 to the
    false successor (SIFixSGPRCopies then moves the compare to the VALU)."""
    from patterns.select.machine import reg_operand

    if c.vt != "i1":
        raise _not_modelled(n, f"a uniform branch on a {c.vt} value")
    mask = reg_operand(sel, c)
    if t != _next_block(sel, n):
        out.append(sel.instr("S_AND_B64", "$vcc", None, ["$exec", mask], n, implicit=_SCC_DEF))
        out.append(sel.instr("S_CBRANCH_VCCNZ", None, None, [f"%bb.{t}"], n, implicit=("implicit $vcc",), sub=1))
        out.append(sel.instr("S_BRANCH", None, None, [f"%bb.{f}"], n, sub=2))
        return True
    wide, one, copy = (f"%{sel.fresh()}" for _ in range(3))
    out.append(sel.instr("V_CNDMASK_B32_e64", wide, "VGPR_32", ["0", "0", "0", "1", mask], n, implicit=_EXEC_USE))
    out.append(sel.instr("S_MOV_B32", one, "SReg_32", ["1"], n, sub=1))
    out.append(sel.instr("COPY", copy, "SReg_32", [wide], n, sub=2))
    out.append(sel.instr("S_CMP_LG_U32", None, None, [copy, one], n, implicit=_SCC_DEF, sub=3))
    out.append(sel.instr("S_CBRANCH_SCC1", None, None, [f"%bb.{f}"], n, implicit=_SCC_USE, sub=4))
    out.append(sel.instr("S_BRANCH", None, None, [f"%bb.{t}"], n, sub=5))
    return True


def setcc(n, sel, out) -> bool:
    a, b = n.ops
    if not n.divergent:
        # a uniform i1 kept as a value (read in another block, a Flow phi's input): the
        # compare sets SCC, S_CSELECT_B64 makes it the lane mask of all lanes or none
        # (what SIFixSGPRCopies makes of llc's ``COPY $scc``)
        op = (S_CMP if a.vt == "i32" else S_CMP64 if a.vt == "i64" else {}).get(n.cc)
        if op is None:
            raise _not_modelled(n, f"a uniform {a.vt} compare {n.cc} kept as a value")
        regs = _take(sel, n, (a, b))
        out.append(sel.instr(op, None, None, regs, n, implicit=_SCC_DEF))
        out.append(sel.instr("S_CSELECT_B64", sel.vreg(n), "SReg_64_XEXEC", ["-1", "0"], n, implicit=_SCC_USE,
                             sub=1))
        return True
    op = V_CMP.get(n.cc) if a.vt == "i32" else None
    if op is None:
        raise _not_modelled(n, f"a divergent {a.vt} compare {n.cc}")
    regs = _take(sel, n, (a, b))
    out.append(sel.instr(op, sel.vreg(n), "SReg_64_XEXEC", regs, n, implicit=_EXEC_USE))
    return True


def select(n, sel, out) -> bool:
    c, t, f = n.ops
    if n.vt != "i32":
        raise _not_modelled(n, f"a select of {n.vt}")
    if c.divergent:
        regs = _take(sel, n, (c, t, f))
        out.append(sel.instr("V_CNDMASK_B32_e64", sel.vreg(n), "VGPR_32", ["0", regs[2], "0", regs[1], regs[0]], n,
                             implicit=_EXEC_USE))
        return True
    if n.divergent:
        raise _not_modelled(n, "a divergent select on a uniform condition")
    if c.opcode != "ISD::SETCC" or c.uses != 1:
        raise _not_modelled(n, "a uniform select on an i1 that is not a single-use compare")
    c.uses += 1  # (kept while the select's operands are taken; the compare then folds)
    regs = _take(sel, n, (t, f))
    out.append(_compare(sel, c, c.cc, 0, n))
    c.uses -= 1
    out.append(sel.instr("S_CSELECT_B32", sel.vreg(n), "SReg_32", regs, n, implicit=_SCC_USE, sub=1))
    return True


def ret(n, sel, out) -> bool:
    """A kernel ends with S_ENDPGM 0; another function returns with SI_RETURN, its
    value first copied into $vgpr0 (and $vgpr1 for the high half of a 64-bit one), which
    the return reads (LowerReturn of the C calling convention)."""
    fn = sel.fdags.function
    if getattr(fn, "cc", None) == "amdgpu_kernel":
        out.append(sel.instr("S_ENDPGM", None, None, ["0"], n))
        return True
    if not n.ops:
        out.append(sel.instr("SI_RETURN", None, None, [], n))
        return True
    (v,) = n.ops
    if v.vt not in ("i32", "f32", "i16", "i64", "f64") or len(n.ops) != 1:
        raise _not_modelled(n, f"a return of {v.vt}")
    reg = _vgpr_imm(sel, v, n, out, 0)
    if reg is None:
        (reg,) = _take(sel, n, (v,))
    if v.vt in ("i64", "f64"):
        out.append(sel.instr("COPY", "$vgpr0", None, [f"{reg}.sub0"], n, sub=0))
        out.append(sel.instr("COPY", "$vgpr1", None, [f"{reg}.sub1"], n, sub=1))
        out.append(sel.instr("SI_RETURN", None, None, ["implicit $vgpr0", "implicit $vgpr1"], n, sub=2))
        return True
    out.append(sel.instr("COPY", "$vgpr0", None, [reg], n, sub=0))
    out.append(sel.instr("SI_RETURN", None, None, ["implicit $vgpr0"], n, sub=1))
    return True


def _address(p):
    """(base node, constant byte offset, folded) of address ``p``: a GEP of one constant
    index over a sized element folds its offset, any other address is its own base."""
    if p.opcode == "ISD::PTRADD" and p.uses == 1 and len(p.ops) == 2 and p.ops[1].opcode == "ISD::Constant":
        size = elem_bytes(getattr(p.ir, "source_type", None))
        if size is not None:
            return p.ops[0], p.ops[1].value * size, True
    return p, 0, False


def _addrspace(ir, k: int) -> int:
    return getattr(ir.operands[k].type, "addrspace", 0)


def _known_lz(sel, x) -> int:
    from patterns.dag.combine.driver import dag_target
    from patterns.dag.combine.known import known_lz

    ctx = sel.target_state.get("dag_target")
    if ctx is None:
        ctx = sel.target_state["dag_target"] = dag_target(sel.t)
    return known_lz(x, ctx)


def _non_negative(sel, idx) -> bool:
    if idx.opcode == "ISD::Constant":
        return idx.value >= 0
    if idx.vt != "i32":
        return False
    return _known_lz(sel, idx) >= 1


def _global_address(sel, n, p, out):
    """The operands (vaddr, saddr, offset) of a global access at ``p`` with a uniform
    base (SelectGlobalSAddr): a uniform address is its own base with a zero VGPR offset
    (V_MOV_B32_e32 0) and the constant byte offset of its GEP folded; a GEP of a uniform
    base by a divergent i32 index known non-negative scales the index in a VGPR
    (V_LSHLREV_B32_e64 by the element size's log2, the shift amount an S_MOV_B32 as the
    pattern's register operand; one per index and size, as CSE leaves it); one whose
    i32 index may be negative gets the 64-bit address arithmetic (``address64.py``: a
    VGPR pair, saddr None: GLOBAL_STORE_DWORD / GLOBAL_LOAD_DWORD). Not modelled: a
    divergent base, an i64 index, a GEP's address used as a value."""
    from patterns.select.machine import reg_operand, release

    if not p.divergent:
        base, off, folded = _address(p)
        if not -4096 <= off < 4096:
            raise _not_modelled(n, f"a global access at offset {off} (outside the 13-bit signed immediate)")
        saddr = _take_address(sel, n, p, base, folded)
        vaddr = f"%{sel.fresh()}"
        out.append(sel.instr("V_MOV_B32_e32", vaddr, "VGPR_32", ["0"], n, implicit=_EXEC_USE, sub=0))
        return vaddr, saddr, off
    if p.opcode != "ISD::PTRADD" and p.vt == "i64":  # (an address computed elsewhere: its VGPR pair)
        return reg_operand(sel, p), None, 0
    if p.opcode != "ISD::PTRADD" or len(p.ops) != 2 or p.ops[0].divergent:
        raise _not_modelled(n, "a global access at a divergent address not of the form (uniform base + index)")
    base, idx = p.ops
    size = elem_bytes(getattr(p.ir, "source_type", None))
    if size is None or size & (size - 1):
        raise _not_modelled(n, f"a global access through a GEP over {size}-byte elements")
    x, amount_of = idx, size.bit_length() - 1
    if idx.vt == "i64" and idx.opcode in ("ISD::ZERO_EXTEND", "ISD::SIGN_EXTEND") and idx.ops[0].vt == "i32":
        # an i64 index extended from i32 (clang's zext/sext of a 32-bit id): the scaled
        # index is a zero-extended 32-bit offset when its scaling loses no set bit (the
        # combine's (shl (zext x), c) -> (zext (shl x, c)); sext of a non-negative value is
        # zext); a sign extension of a value that may be negative is the 64-bit address
        inner = idx.ops[0]
        lz = _known_lz(sel, inner)
        if lz >= max(amount_of, 1 if idx.opcode == "ISD::SIGN_EXTEND" else 0):
            x = inner
        elif idx.opcode == "ISD::SIGN_EXTEND":
            return address_64(sel, n, p, base, inner, size, out), None, 0
        else:
            return address_64(sel, n, p, base, inner, size, out, zext=True), None, 0
    elif not _non_negative(sel, idx):
        if idx.vt != "i32":
            raise _not_modelled(n, f"a global access at a divergent address with an {idx.vt} index")
        return address_64(sel, n, p, base, idx, size, out), None, 0
    memo = sel.target_state.setdefault("voffsets", {})
    # the index's own left shifts by constants fold into the scaling (the combiner's
    # (shl (shl x, c1), c2) -> (shl x, c1 + c2) on the address arithmetic)
    while x.opcode == "ISD::SHL" and x.ops[1].opcode == "ISD::Constant" and amount_of + x.ops[1].value < 32:
        amount_of += x.ops[1].value
        x = x.ops[0]
    key = (id(x), amount_of)
    got = memo.get(key)
    base.uses += 1
    if got is None:
        x.uses += 1
        ireg = reg_operand(sel, x)
        made: list = []
        if amount_of == 0:
            vaddr = ireg
        else:
            amount, vaddr = f"%{sel.fresh()}", f"%{sel.fresh()}"
            # (ordered with the access that comes first in the block, before its own
            # instructions: accesses are selected last first, so a later-selected earlier
            # access takes them over; neither stands for an IR value)
            out.append(sel.instr("S_MOV_B32", amount, "SReg_32", [str(amount_of)], n, sub=0))
            out.append(sel.instr("V_LSHLREV_B32_e64", vaddr, "VGPR_32", [amount, ireg], n, implicit=_EXEC_USE,
                                 sub=1))
            out[-2].ir = out[-1].ir = None
            made = out[-2:]
        memo[key] = [vaddr, made, n.id]
    else:
        vaddr, made, anchor = got
        if n.id < anchor:
            for k, mi in enumerate(made):
                mi.order = n.id * 64 + 32 + k
            got[2] = n.id
    p.uses -= 1
    if p.uses == 0:
        for o in p.ops:
            release(o)
    return vaddr, reg_operand(sel, base), 0


def _noclobber(n) -> bool:
    """AMDGPUAnnotateUniformValues' "amdgpu-noclobber" for a load of a kernel: no
    instruction that may write memory (a store, an atomic, a call) comes before it in
    its block or in any block that reaches it (a simple stand-in for MemorySSA's walk,
    exact for these straight-line and loop-free cases, conservative otherwise)."""
    ins = n.ir
    blk = ins.block
    writes = ("store", "atomicrmw", "cmpxchg", "call", "fence")
    for x in blk.instructions:
        if x is ins:
            break
        if x.opcode in writes and not (x.opcode == "call" and _pure_call(x)):
            return False
    seen, work = {id(blk)}, list(blk.predecessors)
    while work:
        b = work.pop()
        if id(b) in seen:
            continue
        seen.add(id(b))
        if any(x.opcode in writes and not (x.opcode == "call" and _pure_call(x)) for x in b.instructions):
            return False
        work.extend(b.predecessors)
    return True


def _pure_call(x) -> bool:
    callee = getattr(x, "callee", None)
    name = callee if isinstance(callee, str) else getattr(callee, "name", "") or ""
    return name.startswith(("llvm.amdgcn.workitem.id", "llvm.amdgcn.workgroup.id"))


def _scalar_load(sel, n) -> tuple | None:
    """(base node, byte offset, folded) when ``n`` is a load llc selects to S_LOAD: a
    uniform i32 load from the constant address space, or from the global one in a kernel
    when nothing may clobber it (AMDGPUAnnotateUniformValues' noclobber), at a constant
    offset from its base."""
    if n.opcode != "ISD::LOAD" or n.vt != "i32" or n.divergent or n.uses <= 0:
        return None
    (p,) = n.ops
    space = _addrspace(n.ir, 0)
    kernel = getattr(sel.fdags.function, "cc", None) == "amdgpu_kernel"
    if p.divergent or not (space == 4 or (space == 1 and kernel and _noclobber(n))):
        return None
    base, off, folded = _address(p)
    return (base, off, folded) if 0 <= off < (1 << 20) else None


_SMEM = {1: ("S_LOAD_DWORD_IMM", "SReg_32_XM0_XEXEC"), 2: ("S_LOAD_DWORDX2_IMM", "SReg_64_XEXEC"),
         4: ("S_LOAD_DWORDX4_IMM", "SGPR_128"), 8: ("S_LOAD_DWORDX8_IMM", "SGPR_256")}


def _merged_loads(sel, n, base, out) -> dict:
    """The LoadStoreVectorizer's merge of the block's scalar loads from ``base``: the
    contiguous runs of their offsets, split into loads of 8, 4, 2 or 1 dwords from the
    start (the ``_ec`` form when the load is less aligned than its size); offset ->
    (register, sub-register index or None). Made when the block's first such load is
    selected, each merged load placed with its lowest node (before all its users)."""
    from patterns.select.machine import reg_operand

    memo = sel.target_state.setdefault("smem", {})
    key = (id(sel.dag), id(base))
    got = memo.get(key)
    if got is not None:
        return got
    loads = []
    for m in sel.dag.nodes:
        a = _scalar_load(sel, m) if m.opcode == "ISD::LOAD" else None
        if a is not None and a[0] is base:
            loads.append((a[1], m))
    loads.sort(key=lambda x: (x[0], x[1].id))
    got = {}
    k = 0
    while k < len(loads):
        run = [loads[k]]
        j = k + 1
        while j < len(loads) and loads[j][0] == run[-1][0] + 4:
            run.append(loads[j])
            j += 1
        while j < len(loads) and loads[j][0] == run[-1][0]:  # (the same offset twice: CSE'd)
            j += 1
        k = j
        at = 0
        while at < len(run):
            size = next(w for w in (8, 4, 2, 1) if w <= len(run) - at)
            part = run[at:at + size]
            at += size
            op, rc = _SMEM[size]
            start = part[0][0]
            align = min([getattr(m.ir, "align", None) or 4 for _o, m in part] + [start & -start or 1 << 20])
            if size > 1 and align < 4 * size:
                op += "_ec"
            first = min((m for _o, m in part), key=lambda m: m.id)
            base.uses += 1
            # (a load of one dword defines its node's own register)
            reg = sel.vreg(part[0][1]) if size == 1 else f"%{sel.fresh()}"
            out.append(sel.instr(op, reg, rc, [reg_operand(sel, base), str(start), "0"], first, sub=20))
            for i, (o, _m) in enumerate(part):
                got[o] = (reg, None if size == 1 else f"sub{i}")
    memo[key] = got
    return got


def load(n, sel, out) -> bool:
    from patterns.select.machine import release

    (p,) = n.ops
    space = _addrspace(n.ir, 0)
    if n.vt not in ("i32", "f32"):  # (a 32-bit float is loaded as its bits)
        raise _not_modelled(n, f"a load of {n.vt}")
    mem = getattr(n, "mem", None)
    narrow = mem is not None and mem.size < 4
    a = _scalar_load(sel, n)
    if narrow and (a is None or a[1] % 4 or n.cc not in ("ZEXTLOAD", "EXTLOAD") or mem.align < 4):
        raise _not_modelled(n, f"a {mem.size}-byte {n.cc or 'load'} (llc's sub-dword loads: only a uniform "
                               f"zero- or any-extending one of an aligned dword, S_LOAD_DWORD + S_AND_B32, is here)")
    if a is not None:
        base, off, folded = a
        reg, sub = _merged_loads(sel, n, base, out)[off]
        if narrow and n.cc == "ZEXTLOAD":  # (the dword's low bytes: S_AND_B32 with the mask as llc selects it)
            part = f"%{sel.fresh()}"
            own = next((mi for mi in out if mi.dst == reg and mi.opcode.startswith("S_LOAD")), None) \
                if sub is None and reg == sel.vreg(n) else None
            if own is not None:  # (the load defined the node's register: it defines the part instead)
                own.dst = part
            else:
                out.append(sel.instr("COPY", part, "SReg_32", [reg if sub is None else f"{reg}.{sub}"], n, sub=21))
            mask = f"%{sel.fresh()}"
            out.append(sel.instr("S_MOV_B32", mask, "SReg_32", [str((1 << (8 * mem.size)) - 1)], n, sub=22))
            out.append(sel.instr("S_AND_B32", sel.vreg(n), "SReg_32", [part, mask], n,
                                 implicit=("implicit-def dead $scc",), sub=23))
            if folded:
                for o in p.ops:
                    release(o)
            p.uses -= 1
            return True
        if folded:  # (the load's own use of its address ends: the merged load reads the base)
            for o in p.ops:
                release(o)
        p.uses -= 1
        if sub is not None or reg != sel.vreg(n):  # (else: a load of its own defined the register)
            out.append(sel.instr("COPY", sel.vreg(n), "SReg_32", [reg if sub is None else f"{reg}.{sub}"], n,
                                 sub=21))  # (a CSE'd twin of a one-dword load reads its register)
        return True
    if space == 1:
        vaddr, saddr, off = _global_address(sel, n, p, out)
        if saddr is None:  # (a 64-bit VGPR address)
            out.append(sel.instr("GLOBAL_LOAD_DWORD", sel.vreg(n), "VGPR_32", [vaddr, str(off), "0"], n,
                                 implicit=_EXEC_USE, sub=20))
            return True
        out.append(sel.instr("GLOBAL_LOAD_DWORD_SADDR", sel.vreg(n), "VGPR_32", [saddr, vaddr, str(off), "0"], n,
                             implicit=_EXEC_USE, sub=20))
        return True
    raise _not_modelled(n, f"a {'divergent' if n.divergent else 'uniform'} load from address space {space}")


def _take_address(sel, n, p, base, folded) -> str:
    from patterns.select.machine import reg_operand, release

    base.uses += 1
    if folded:
        for o in p.ops:
            release(o)
        p.uses -= 1
    else:
        p.uses -= 1
    return reg_operand(sel, base)


def store(n, sel, out) -> bool:
    from patterns.select.machine import reg_operand

    v, p = n.ops
    space = _addrspace(n.ir, 1)
    if v.vt not in ("i32", "f32") or space != 1:
        raise _not_modelled(n, f"a store of {v.vt} to address space {space}")
    imm = _vgpr_imm(sel, v, n, out, 1)
    val = imm if imm is not None else reg_operand(sel, v)  # (the store's use of the value passes on)
    vaddr, saddr, off = _global_address(sel, n, p, out)
    if imm is None and not v.divergent:  # an SGPR value into the VGPR-only vdata operand
        copy = f"%{sel.fresh()}"
        out.append(sel.instr("COPY", copy, "VGPR_32", [val], n, sub=1))
        val = copy
    if saddr is None:  # (a 64-bit VGPR address)
        out.append(sel.instr("GLOBAL_STORE_DWORD", None, None, [vaddr, val, str(off), "0"], n,
                             implicit=_EXEC_USE, sub=20))
        return True
    out.append(sel.instr("GLOBAL_STORE_DWORD_SADDR", None, None, [vaddr, val, saddr, str(off), "0"], n,
                         implicit=_EXEC_USE, sub=20))
    return True


def _argument_error(fn, a, what: str) -> VerifyError:
    return VerifyError(getattr(a, "span", None) or getattr(fn, "span", None),
                       expected(f"an argument of @{fn.name} the amdgpu target passes", f"%{a.name}: {what} (not modelled)"),
                       record=f"%{a.name}")


def lower_arguments(sf, sel, diags) -> None:
    """LowerFormalArguments as llc-19 leaves it for gfx900 (``-mtriple=amdgcn``): a
    kernel reads the arguments it uses from the kernarg segment (``kernargs.py``: the
    loads as Sink and the LoadStoreVectorizer leave them); a function of another calling
    convention receives its 32-bit arguments in $vgpr0, $vgpr1, ... (a 64-bit one in two,
    joined by REG_SEQUENCE)."""
    from patterns.select.mir import MachineInstr

    fn = sel.fdags.function
    vregs = sel.fdags.vregs
    out: list = []

    def mk(op, dst, rc, ops, ir):
        out.append(MachineInstr(op, dst, rc, sel._file(rc), ops, ir, None, "LowerFormalArguments", 0))

    if getattr(fn, "cc", None) == "amdgpu_kernel":
        lower_kernel_arguments(sf, sel, diags, lambda op, dst, rc, ops, ir: mk(op, dst, rc, ops, ir))
    else:
        k = 0
        for a in fn.args:
            size = elem_bytes(a.type)
            if size not in (4, 8):
                diags.add(_argument_error(fn, a, f"an argument of type {a.type}"))
                return
            regs = [f"$vgpr{k + j}" for j in range(size // 4)]
            k += size // 4
            if a not in vregs:
                continue
            for r in regs:
                sf.liveins.setdefault(r, "VGPR_32")
            if size == 4:
                mk("COPY", f"%{vregs[a]}", "VGPR_32", regs, f"%{a.name}")
                continue
            lo, hi = f"%{sel.fresh()}", f"%{sel.fresh()}"
            mk("COPY", lo, "VGPR_32", regs[:1], f"%{a.name}")
            mk("COPY", hi, "VGPR_32", regs[1:], f"%{a.name}")
            mk("REG_SEQUENCE", f"%{vregs[a]}", "VReg_64", [lo, "%subreg.sub0", hi, "%subreg.sub1"], f"%{a.name}")
    if out and sf.blocks:
        sf.blocks[0].instrs[:0] = out


def legalize_constant_bus(sf, sel, diags) -> None:
    """SITargetLowering::AdjustInstrPostInstrSelection's legalizeOperandsVOP3 for gfx900:
    a VALU instruction reads at most one SGPR (the constant bus limit before gfx10); each
    further distinct SGPR operand is COPY'd into a VGPR first, as llc does right after
    selection. (The register-file COPY of an SGPR value into a VGPR-only operand.)"""
    from patterns.select.mir import MachineInstr

    classes = {}
    for blk in sf.blocks:
        for mi in blk.instrs:
            if mi.dst:
                classes[mi.dst] = mi.regclass
    for blk in sf.blocks:
        out = []
        for mi in blk.instrs:
            if mi.opcode.startswith("V_") and mi.opcode != "V_MOV_B32_e32":
                # (V_CNDMASK's lane mask is an SGPR operand it must keep: it uses the bus first)
                seen = [mi.operands[-1]] if mi.opcode == "V_CNDMASK_B32_e64" else []
                ops = list(mi.operands)
                for k, o in enumerate(ops):
                    if sel._file(classes.get(o)) != "scalar" or (seen and k == len(ops) - 1 and o == seen[0]):
                        continue
                    if not seen or o in seen:
                        seen.append(o)
                        continue
                    c = f"%{sel.fresh()}"
                    out.append(MachineInstr("COPY", c, "VGPR_32", "vector", [o], mi.ir, mi.node, "legalizeOperandsVOP3",
                                            mi.order))
                    ops[k] = c
                    sf.notes.append(f"{mi.opcode} ({mi.ir}): second SGPR operand {o} copied to a VGPR (constant bus)")
                mi.operands = ops
            out.append(mi)
        blk.instrs = out


SELECT = {
    "ISD::Constant": constant,
    "ISD::BR": branch,
    "ISD::BRCOND": brcond,
    "ISD::SETCC": setcc,
    "ISD::SELECT": select,
    "ISD::RET": ret,
    "ISD::LOAD": load,
    "ISD::STORE": store,
    "ISD::PTRADD": ptradd,
}

# the workitem ids' live-in VGPRs (gfx900: no packed work-item ids)
PRELOADED = {
    "llvm.amdgcn.workitem.id.x": ("vgpr0", "VGPR_32"),
    "llvm.amdgcn.workitem.id.y": ("vgpr1", "VGPR_32"),
    "llvm.amdgcn.workitem.id.z": ("vgpr2", "VGPR_32"),
}

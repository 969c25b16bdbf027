"""Divergent branches as llc-19's finalize-isel MIR shows them after StructurizeCFG and SIAnnotateControlFlow.

On a divergent condition llc does not branch: StructurizeCFG (patterns.llc.structurize,
run before selection: structurize.py) makes every region single-entry/single-exit with
Flow blocks, and SIAnnotateControlFlow brackets the divergent ones with the EXEC-mask
intrinsics, which select to pseudos. Its decisions are computed on the structurized IR
(annotate_cf.py); the branches are selected here:

- an ``if``: ``%m:sreg_64 = SI_IF %c, %bb.<second successor>`` and ``S_BRANCH
  %bb.<first successor>`` end the block (``%c``: a single-use compare selected here as
  V_CMP, else the condition's own lane mask);
- an ``else`` (StructurizeCFG's Flow block, branching on its else phi): ``%m2 = SI_ELSE
  %m, %bb.<second successor>``, ``S_BRANCH``; the phi itself is not selected;
- a loop's back edge ``br %c, %exit, %header``: the break mask is accumulated over the
  iterations, ``%b:sreg_64 = SI_IF_BREAK %c, %acc``, ``SI_LOOP %b, %bb.header``,
  ``S_BRANCH %bb.exit``, with ``%acc = PHI`` in the header (``%b`` from the latch,
  ``S_MOV_B64 0`` from the preheader);
- ``SI_END_CF %m`` opens the block the region is closed in (after its phis).

Not modelled (an error at the branch): a loop exit on a condition other than a compare in
the latch (StructurizeCFG's break phi network and SILowerI1Copies' lane-mask merging),
the block splits of annotate_cf.py.
"""

from __future__ import annotations

from tdgen.errors import VerifyError, expected

from .control import V_CMP

_CF_IMPLICIT = ("implicit-def dead $exec", "implicit-def dead $scc", "implicit $exec")
_INVERSE = {"SETEQ": "SETNE", "SETNE": "SETEQ", "SETLT": "SETGE", "SETGE": "SETLT", "SETLE": "SETGT",
            "SETGT": "SETLE", "SETULT": "SETUGE", "SETUGE": "SETULT", "SETULE": "SETUGT", "SETUGT": "SETULE"}


def _not_modelled(n, what: str) -> VerifyError:
    from patterns.select.explain import node_text

    return VerifyError(getattr(n.ir, "span", None), expected(f"a form of {node_text(n)} the amdgpu target selects",
                                                             f"{what} (not modelled)"), record=n.ir_name())


def _condition(sel, n, c, invert: bool, out) -> str:
    """The lane mask of ``c`` (inverted when ``invert``): a single-use compare is selected
    here as V_CMP (with the inverse condition code when inverting), any other divergent
    i1 is its own (selected) register."""
    from patterns.select.machine import reg_operand, release

    if c.opcode == "ISD::SETCC" and c.uses == 1 and c.ops[0].vt == "i32":
        cc = _INVERSE[c.cc] if invert else c.cc
        a, b = c.ops
        a.uses += 1
        b.uses += 1
        c.uses -= 1
        for o in c.ops:
            release(o)
        regs = [reg_operand(sel, a), reg_operand(sel, b)]
        dst = f"%{sel.fresh()}"
        out.append(sel.instr(V_CMP[cc], dst, "SReg_64_XEXEC", regs, n, implicit=("implicit $exec",), sub=0))
        return dst
    if invert:
        raise _not_modelled(n, "an inverted divergent branch on an i1 that is not a single-use compare")
    return reg_operand(sel, c)  # (the branch's use of the mask passes on)


def _state(sel) -> dict:
    st = sel.target_state.get("cf")
    if st is None:
        from .annotate_cf import plan

        st = sel.target_state["cf"] = {"masks": {}, "loops": [], "plan": plan(sel.fdags.function, sel.fdags.ua)}
    return st


def divergent_branch(n, sel, out) -> bool:
    """A divergent branch as SIAnnotateControlFlow's plan has it (annotate_cf.py): SI_IF
    on its condition's lane mask, SI_ELSE of the mask of the region it ends, or a
    single-block loop's SI_IF_BREAK / SI_LOOP; each then S_BRANCH to the first
    successor. The mask is restored (SI_END_CF) where the plan closes the region."""
    (c,) = n.ops
    blk = n.block
    t, f = n.ir.targets
    st = _state(sel)
    act = st["plan"].branch.get(blk)
    if act is None:
        raise _not_modelled(n, "a divergent branch SIAnnotateControlFlow does not annotate")
    if act[0] == "loop":
        return _loop(n, sel, out, st, c, blk, t, f)
    mask = f"%{sel.fresh()}"
    if act[0] == "else":
        _k, phi, opener = act
        saved = st["masks"].get(opener)
        if saved is None:
            raise _not_modelled(n, f"an else whose if (%{opener.name}) was not selected before it")
        sel.dead_phis.add(phi)  # (its one use, this branch, is replaced by SI_ELSE)
        out.append(sel.instr("SI_ELSE", mask, "SReg_64", [saved, f"%bb.{sel.block_index(f)}"], n,
                             implicit=_CF_IMPLICIT, sub=1))
    else:
        cond = _condition(sel, n, c, False, out)
        out.append(sel.instr("SI_IF", mask, "SReg_64", [cond, f"%bb.{sel.block_index(f)}"], n,
                             implicit=_CF_IMPLICIT, sub=1))
    out.append(sel.instr("S_BRANCH", None, None, [f"%bb.{sel.block_index(t)}"], n, sub=2))
    st["masks"][blk] = mask
    return True


def _loop(n, sel, out, st, c, blk, t, f) -> bool:
    """The back edge ``br %c, %exit, %header`` of a divergent loop (``blk``: its latch):
    the lanes that leave are accumulated in a break mask over the iterations, ``%b:sreg_64
    = SI_IF_BREAK %c, %acc``, ``SI_LOOP %b, %bb.header``, ``S_BRANCH %bb.exit``, with
    ``%acc = PHI`` at the top of the header: ``%b`` from this latch, ``%acc`` itself from
    the loop's blocks that dominate this latch (a back edge taken before this exit),
    ``S_MOV_B64 0`` from the other predecessors (SIAnnotateControlFlow's ``phi.broken``). Modelled when the condition is a compare of this block (its
    if.break then sits here, as llc puts it in the condition's block); a condition from
    another block or a phi of conditions (StructurizeCFG's break network, lowered by
    SILowerI1Copies) is not modelled."""
    if c.opcode != "ISD::SETCC" or c.block is not blk:
        raise _not_modelled(n, "a divergent loop exit on a condition that is not a compare in the latch (the "
                               "break masks of StructurizeCFG's Flow blocks and SILowerI1Copies)")
    header = f
    body = _loop_body(header, blk)
    cond = _condition(sel, n, c, invert=False, out=out)
    acc, brk = f"%{sel.fresh()}", f"%{sel.fresh()}"
    out.append(sel.instr("SI_IF_BREAK", brk, "SReg_64", [cond, acc], n, implicit=("implicit-def dead $scc",),
                         sub=1))
    out.append(sel.instr("SI_LOOP", None, None, [brk, f"%bb.{sel.block_index(header)}"], n, implicit=_CF_IMPLICIT,
                         sub=2))
    out.append(sel.instr("S_BRANCH", None, None, [f"%bb.{sel.block_index(t)}"], n, sub=3))
    from patterns.ir.dominators import immediate_dominators

    idom = immediate_dominators(sel.fdags.function)
    incoming = []
    for p in header.predecessors:
        if p is blk:
            incoming.append((brk, p))
        elif p in body and _dominates(idom, p, blk):
            incoming.append((acc, p))
        else:
            incoming.append((None, p))  # (a zero made in that block)
    st["loops"].append((sel.block_index(header), acc, [(v, sel.block_index(p)) for v, p in incoming]))
    st["masks"][blk] = brk
    return True


def _loop_body(header, latch) -> set:
    """The natural loop of the back edge latch -> header."""
    body = {header, latch}
    work = [latch] if latch is not header else []
    while work:
        b = work.pop()
        for p in b.predecessors:
            if p not in body:
                body.add(p)
                work.append(p)
    return body


def _dominates(idom, a, b) -> bool:
    x = b
    while True:
        if x is a:
            return True
        p = idom.get(x)
        if p is None or p is x:
            return False
        x = p


def annotate_control_flow(sf, sel, diags) -> None:
    """What the branches left to place: each loop's break-mask PHI and its zero in the
    preheader, each region's SI_END_CF at the top of the block the plan closes it in
    (after the phis)."""
    from patterns.select.mir import MachineInstr

    st = sel.target_state.get("cf")
    if st is None:
        return
    for header, acc, incoming in st["loops"]:
        ops = []
        for v, pre in incoming:
            if v is None:
                v = f"%{sel.fresh()}"
                instrs = sf.blocks[pre].instrs
                at = len(instrs)
                while at > 0 and sel.is_terminator(instrs[at - 1].opcode):
                    at -= 1
                instrs.insert(at, MachineInstr("S_MOV_B64", v, "SReg_64", "scalar", ["0"], None, None,
                                               "SIAnnotateControlFlow", 0))
            ops += [v, f"%bb.{pre}"]
        sf.blocks[header].instrs.insert(0, MachineInstr("PHI", acc, "SReg_64", "scalar", ops, None, None,
                                                        "SIAnnotateControlFlow", 0))
    index = {b: k for k, b in enumerate(sel.fdags.function.blocks)}
    for blk in sorted(st["plan"].end_cf, key=index.__getitem__):
        instrs = sf.blocks[index[blk]].instrs
        at = 0
        while at < len(instrs) and instrs[at].opcode == "PHI":
            at += 1
        for opener in st["plan"].end_cf[blk]:
            mask = st["masks"].get(opener)
            if mask is None:  # (its branch was not selected: that error is reported)
                continue
            mi = MachineInstr("SI_END_CF", None, None, None, [mask], None, None, "SIAnnotateControlFlow", 0)
            mi.implicit = _CF_IMPLICIT
            instrs.insert(at, mi)
    sel.target_state["cf"] = None


def refuse_infinite_loops(sf, sel, diags) -> None:
    """A loop no path leaves (no block of it reaches a ``ret`` or ``unreachable``):
    AMDGPUUnifyDivergentExitNodes gives it an exit, a conditional branch on true to a
    new ``DummyReturnBlock`` (S_CBRANCH_VCCNZ on EXEC & -1 in llc-19's MIR, uniform or
    not). Not modelled: an error at the branch of the first block that cannot exit."""
    err = endless_loop_error(sel.fdags.function)
    if err is not None:
        diags.add(err)


def endless_loop_error(fn) -> VerifyError | None:
    """The error ``refuse_infinite_loops`` reports for ``fn``, or None."""
    exits = [b for b in fn.blocks if b.instructions and b.instructions[-1].opcode in ("ret", "unreachable")]
    reach = set(exits)
    work = list(exits)
    while work:
        b = work.pop()
        for p in b.predecessors:
            if p not in reach:
                reach.add(p)
                work.append(p)
    stuck = next((b for b in fn.blocks if b not in reach and b.instructions and _on_cycle(b)), None)
    if stuck is None:
        return None
    br = stuck.instructions[-1]
    return VerifyError(br.span, expected(f"a branch of @{fn.name} the amdgpu target selects",
                                         f"a loop no path leaves at %{stuck.name} (the DummyReturnBlock "
                                         f"exit AMDGPUUnifyDivergentExitNodes adds: not modelled)"))


def _on_cycle(b) -> bool:
    seen, work = set(), list(b.successors)
    while work:
        x = work.pop()
        if x is b:
            return True
        if x not in seen:
            seen.add(x)
            work.extend(x.successors)
    return False

"""Divergent branches as llc-19's finalize-isel MIR shows them after StructurizeCFG and SIAnnotateControlFlow.

On a divergent condition llc does not branch: StructurizeCFG makes the region
single-entry/single-exit and SIAnnotateControlFlow brackets it with the EXEC-mask
intrinsics, which select to pseudos. Modelled here, for the two region shapes that
StructurizeCFG leaves unchanged (no Flow block is inserted for them):

- an if-then triangle ``br %c, %then, %join`` (``%then`` branching only to ``%join``,
  whose only predecessors are the two): ``%m:sreg_64 = SI_IF %c, %bb.join`` and
  ``S_BRANCH %bb.then`` end the block, ``SI_END_CF %m`` opens ``%join`` (after its
  phis). With the triangle the other way round (``br %c, %join, %then``) the region is
  entered on the inverse condition: the compare is selected with its inverse condition
  code (the combine folds the structurizer's ``xor %c, true`` into it);
- a single-block loop with a divergent exit ``br %c, %exit, %loop`` (or ``br %c,
  %loop, %exit`` on the inverse condition) whose exit has the loop as its only
  predecessor: the break mask is accumulated over the iterations, ``%b:sreg_64 =
  SI_IF_BREAK %c, %acc``, ``SI_LOOP %b, %bb.loop``, ``S_BRANCH %bb.exit``, with
  ``%acc = PHI %zero, %bb.pre, %b, %bb.loop`` (``%zero = S_MOV_B64 0`` in the
  preheader) and ``SI_END_CF %b`` opening the exit.

Any other divergent branch (an if-then-else, for which StructurizeCFG inserts a Flow
block and the pseudos SI_ELSE; loops of several blocks; an irreducible CFG) is a "not
modelled" error at the branch. The condition of an inverted region must be a compare
with no other user (else the inversion needs an S_XOR_B64 with EXEC: not modelled).
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
        st = sel.target_state["cf"] = {"end_cf": {}, "loops": []}
    return st


def region_shape(blk, t, f):
    """Which of the shapes StructurizeCFG leaves without a Flow block the branch of
    ``blk`` to ``t`` / ``f`` (IR blocks) opens: ``("loop", exit)`` for a single-block
    loop's latch, ``("if", then, join, inverted)`` for an if-then triangle, else None."""
    if t is blk or f is blk:
        exit_ = f if t is blk else t
        if list(exit_.predecessors) == [blk] and len(list(blk.predecessors)) == 2:
            return ("loop", exit_)
        return None
    for then, join, invert in ((t, f, False), (f, t, True)):
        if list(then.successors) == [join] and set(map(id, join.predecessors)) == {id(blk), id(then)} and \
                len(list(join.predecessors)) == 2 and list(then.predecessors) == [blk]:
            return ("if", then, join, invert)
    return None


def divergent_branch(n, sel, out) -> bool:
    (c,) = n.ops
    blk = n.block
    t, f = n.ir.targets
    if t is blk or f is blk:  # a single-block loop
        exit_ = f if t is blk else t
        if list(exit_.predecessors) != [blk] or len(list(blk.predecessors)) != 2:
            raise _not_modelled(n, "a divergent loop exit whose exit block has other predecessors "
                                   "(StructurizeCFG's Flow blocks)")
        pre = next(p for p in blk.predecessors if p is not blk)
        # break when the exit edge is taken: the condition itself for `br c, exit, loop`
        cond = _condition(sel, n, c, invert=t is blk, out=out)
        acc, brk = f"%{sel.fresh()}", f"%{sel.fresh()}"
        out.append(sel.instr("SI_IF_BREAK", brk, "SReg_64", [cond, acc], n, implicit=("implicit-def dead $scc",),
                             sub=1))
        me = sel.block_index(blk)
        out.append(sel.instr("SI_LOOP", None, None, [brk, f"%bb.{me}"], n, implicit=_CF_IMPLICIT, sub=2))
        out.append(sel.instr("S_BRANCH", None, None, [f"%bb.{sel.block_index(exit_)}"], n, sub=3))
        st = _state(sel)
        st["loops"].append((me, sel.block_index(pre), acc, brk))
        st["end_cf"].setdefault(sel.block_index(exit_), []).append(brk)
        return True
    for then, join, invert in ((t, f, False), (f, t, True)):
        if list(then.successors) == [join] and set(map(id, join.predecessors)) == {id(blk), id(then)} and \
                len(list(join.predecessors)) == 2 and list(then.predecessors) == [blk]:
            cond = _condition(sel, n, c, invert, out)
            mask = f"%{sel.fresh()}"
            out.append(sel.instr("SI_IF", mask, "SReg_64", [cond, f"%bb.{sel.block_index(join)}"], n,
                                 implicit=_CF_IMPLICIT, sub=1))
            out.append(sel.instr("S_BRANCH", None, None, [f"%bb.{sel.block_index(then)}"], n, sub=2))
            _state(sel)["end_cf"].setdefault(sel.block_index(join), []).append(mask)
            return True
    raise _not_modelled(n, "a divergent branch that is not an if-then or a single-block loop exit "
                           "(StructurizeCFG's Flow blocks and SI_ELSE)")


def annotate_control_flow(sf, sel, diags) -> None:
    """What the branches left to place (see the module docstring): each loop's break-mask
    PHI and its zero in the preheader, each region's SI_END_CF at the top of its join."""
    from patterns.select.mir import MachineInstr

    st = sel.target_state.get("cf")
    if st is None:
        return
    for me, pre, acc, brk in st["loops"]:
        zero = f"%{sel.fresh()}"
        instrs = sf.blocks[pre].instrs
        at = len(instrs)
        while at > 0 and sel.is_terminator(instrs[at - 1].opcode):
            at -= 1
        instrs.insert(at, MachineInstr("S_MOV_B64", zero, "SReg_64", "scalar", ["0"], None, None,
                                       "SIAnnotateControlFlow", 0))
        sf.blocks[me].instrs.insert(0, MachineInstr("PHI", acc, "SReg_64", "scalar", [zero, f"%bb.{pre}", brk,
                                                                                     f"%bb.{me}"], None, None,
                                                    "SIAnnotateControlFlow", 0))
    for bi in sorted(st["end_cf"]):
        instrs = sf.blocks[bi].instrs
        at = 0
        while at < len(instrs) and instrs[at].opcode == "PHI":
            at += 1
        for mask in st["end_cf"][bi]:
            mi = MachineInstr("SI_END_CF", None, None, None, [mask], None, None, "SIAnnotateControlFlow", 0)
            mi.implicit = _CF_IMPLICIT
            instrs.insert(at, mi)
            at += 1
    sel.target_state["cf"] = None


def refuse_infinite_loops(sf, sel, diags) -> None:
    """A loop no path leaves (no block of it reaches a ``ret`` or ``unreachable``):
    AMDGPUUnifyDivergentExitNodes gives it an exit, a conditional branch on true to a
    new ``DummyReturnBlock`` (S_CBRANCH_VCCNZ on EXEC & -1 in llc-19's MIR, uniform or
    not). Not modelled: an error at the branch of the first block that cannot exit."""
    fn = sel.fdags.function
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
    if stuck is not None:
        br = stuck.instructions[-1]
        diags.add(VerifyError(br.span, expected(f"a branch of @{fn.name} the amdgpu target selects",
                                                f"a loop no path leaves at %{stuck.name} (the DummyReturnBlock "
                                                f"exit AMDGPUUnifyDivergentExitNodes adds: not modelled)")))


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

"""Loop-invariant code motion as llc-19's LICM pass does it on code without memory
operations (``licm``; see its docstring): per loop, hoistRegion (``hoist_region``) with the
safety checks of isSafeToSpeculativelyExecute and isGuaranteedToExecute, then the
reassociations of ``licm_reassociate``.
"""

from __future__ import annotations

from typing import Any, Final

from patterns.ir.core import IntType
from patterns.ir.function import Instruction
from patterns.llc.analyses import dom_tree, loop_forest
from patterns.ir.opcodes import SIGNED_PREDICATES
from patterns.llc.instsimplify_query import const_value, int_bits
from patterns.llc.licm_reassociate import (
    hoist_add_sub, hoist_gep, hoist_min_max, hoist_mul_add, REASSOCIATED,
)
from patterns.llc.licm_state import LicmState


# What canSinkOrHoistInst lets LICM move (binary operators, casts, compares, select, GEP,
# freeze, element and aggregate operations) and isSafeToSpeculativelyExecute calls safe
# anywhere: 1 = hoisted whenever its operands are invariant. 2 = a division, safe when
# its divisor is a constant that cannot trap (else only where it is guaranteed to run).
# 3 = a call, hoisted when the callee is an intrinsic that reads no memory and is not
# convergent (speculatable ones anywhere, the others where guaranteed to run).
_HOIST_KIND: Final[dict] = dict.fromkeys((
    "add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr",
    "fadd", "fsub", "fmul", "fdiv", "frem",
    "trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
    "ptrtoint", "inttoptr", "bitcast", "addrspacecast",
    "icmp", "fcmp", "select", "getelementptr", "freeze",
    "extractelement", "insertelement", "shufflevector", "extractvalue", "insertvalue"), 1)
_HOIST_KIND.update(dict.fromkeys(("udiv", "sdiv", "urem", "srem"), 2))
_HOIST_KIND["call"] = 3


# generic intrinsics Intrinsics.td declares IntrNoMem + IntrSpeculatable (a call of one
# is named with type suffixes: llvm.smin.i32)
_SPECULATABLE_INTRINSICS: Final = frozenset({
    "llvm.smin", "llvm.smax", "llvm.umin", "llvm.umax", "llvm.abs", "llvm.ctpop", "llvm.ctlz",
    "llvm.cttz", "llvm.bitreverse", "llvm.bswap", "llvm.fshl", "llvm.fshr"})


def licm(fn, idom: dict | None = None, dom: tuple | None = None, ua=None, target=None) -> list:
    """Loop-invariant code motion as llc-19's LICM pass does it on code without memory
    operations (LICM.cpp, measured against ``opt-19 -passes='loop-mssa(licm)'``).

    Loops: every natural loop with a preheader (the header's one predecessor outside the
    loop, ending in an unconditional branch to it), innermost first (LLVM's loop pass
    manager order). In each, ``hoistRegion``: the loop's blocks in reverse post-order of
    the loop (LoopBlocksRPO: a depth-first walk from the header over successors in
    terminator order), skipping blocks of inner loops (they were done as their own loop;
    what that moved to their preheader, a block of this loop, is visited here), each
    block's instructions in order. An instruction is hoisted -- moved before the
    preheader's terminator -- when its operands are all defined outside the loop (or
    moved out already) and it is safe to run unconditionally: the opcodes of
    ``_HOIST_KIND`` that cannot trap, divisions by a constant that cannot trap
    (isSafeToSpeculativelyExecute), calls of speculatable intrinsics that read no memory
    (the target's, by their IntrNoMem/IntrSpeculatable properties, and LLVM's integer
    intrinsics), and a division or a non-speculatable readnone intrinsic call where it is
    guaranteed to run (``guaranteed_to_execute``). An instruction that stays is offered
    to ``hoistArithmetics``, LLVM 19's four reassociations in its order: hoistMinMax,
    hoistGEP, hoistAddSub, hoistMulAddAssociation (``hoist_min_max``, ``hoist_gep``,
    ``hoist_add_sub``, ``hoist_mul_add``; each applies to its own opcodes; LLVM 19 has no
    hoistBOAssociation: ``(x + a) + b`` stays). Their new instructions get LLVM's names
    (``factor.op.mul``, ``invariant.op``, ``invariant.smin``, ``invariant.gep``, ``gep``,
    ``X.reass``; a taken name gets the function's next unique number, as the
    ValueSymbolTable does) and a divergence verdict (``ua``: an operand divergent, or read
    outside a cycle with a divergent exit).

    Where the model stops: no memory operations (loads and stores stay; LLVM hoists and
    promotes them with MemorySSA), no sinking (sinkRegion moves an instruction used
    only after the loop into the exit blocks: never in testkit.iselgen kernels, checked
    on 1000 of them), no loop without a preheader (LoopSimplify would make one), no
    floating-point reassociation (hoistMulAddAssociation also takes reassoc+nsz fmul/fadd),
    ``guaranteed`` does not prove a branch untaken on the first iteration
    (CanProveNotTakenFirstIteration), and the constant ranges hoistAddSub's overflow
    checks use are those of ``constant_range``. One-use tests count the uses of
    instructions that are still alive (EarlyCSE's replaced instructions and trivially dead
    code, which LLVM has deleted by then, do not count: ``LicmState.is_dead``; when a
    reassociation erases an instruction, such dead readers of it go too).

    Mutates ``fn``; returns the instructions hoisted or created, and those the
    reassociations changed, in order (for the EarlyCSE that follows in llc)."""
    st = run_licm(fn, idom, dom, ua, target)
    return st.result() if st is not None else []


def run_licm(fn, idom, dom, ua, target, grew=None) -> "LicmState | None":
    """``licm``'s work; the state (what moved, what is new), None without loops.
    ``grew`` (from ``run_ir_passes``): not None when the parser's user lists were
    current before EarlyCSE, whose rewrite recorded there the users it gave values;
    with it the readers of a value are found without a scan of the function."""
    blocks = fn.blocks
    if len(blocks) < 2:
        return None
    if dom is None:
        if idom is None:
            from patterns.ir.dominators import immediate_dominators

            idom = immediate_dominators(fn)
        dom = dom_tree(fn, idom)
    forest = loop_forest(fn, dom)
    if forest is None:
        return None
    loops, bodies, _kids, innermost = forest
    st = LicmState(fn, ua, target, grew)
    st.forest = forest  # (for LSR: LICM changes no block, nor any body)
    for h in loops:
        body = bodies[h]
        outside = [p for p in dict.fromkeys(h.predecessors) if p not in body]
        if len(outside) != 1 or len(outside[0].successors) != 1 or not outside[0].instructions:
            continue
        hoist_region(st, h, body, outside[0], innermost)
    if st.moved:
        fn.uses = None
        if st.recheck and ua is not None:
            st.note_divergence()
    return st


def _loop_rpo(h, body) -> list:
    """LoopBlocksRPO: the loop's blocks in reverse post-order of a depth-first walk from
    the header over successors (terminator order) inside the loop."""
    seen = {h}
    post = []
    stack = [(h, iter(h.successors))]
    while stack:
        b, it = stack[-1]
        for s in it:
            if s in body and s not in seen:
                seen.add(s)
                stack.append((s, iter(s.successors)))
                break
        else:
            stack.pop()
            post.append(b)
    post.reverse()
    return post


# --- what may move ---------------------------------------------------------------
def call_kind(st: LicmState, i) -> int:
    """1: a call of a speculatable intrinsic that reads no memory; 2: of one that
    reads no memory and is not speculatable; 0: any other call."""
    callee = i.callee or ""
    k = st.call_kinds.get(callee)
    if k is not None:
        return k
    k = 0
    if callee.startswith("llvm."):
        parts = callee.split(".")
        known = getattr(st.target, "intrinsics_by_ir_name", None) or {}
        for n in range(len(parts), 1, -1):
            base = ".".join(parts[:n])
            if base in _SPECULATABLE_INTRINSICS:
                k = 1
                break
            rec = known.get(base)
            if rec is not None:
                props = {str(p) for p in rec.properties}
                if "IntrNoMem" in props and "IntrConvergent" not in props \
                        and "IntrHasSideEffects" not in props:
                    k = 1 if "IntrSpeculatable" in props else 2
                break
    st.call_kinds[callee] = k
    return k


def division_is_safe(i) -> bool:
    """isSafeToSpeculativelyExecute of a division: a constant divisor other than 0
    (and for a signed one other than -1, unless the dividend is a constant other
    than the smallest signed value)."""
    d = const_value(i.operands[1])
    if d is None or d == 0:
        return False
    if i.opcode in ("udiv", "urem"):
        return True
    bits = int_bits(i)
    if d != (1 << bits) - 1:
        return True
    n = const_value(i.operands[0])
    return n is not None and n != 1 << (bits - 1)


def guaranteed_to_execute(i, b, h, body) -> bool:
    """isGuaranteedToExecute: no call of a non-intrinsic before ``i`` in its block (an
    instruction that may not return), and every path from the header that stays in
    the loop reaches ``b`` (allLoopPathsLeadToBlock: the header; else no latch among
    ``b``'s transitive predecessors in the loop, and no branch out of them to a block
    that is neither one of them nor ``b``)."""
    for x in b.instructions:
        if x is i:
            break
        if x.opcode == "call" and not (x.callee or "").startswith("llvm."):
            return False
    if b is h:
        return True
    preds = set(b.predecessors)
    stack = list(preds)
    while stack:
        x = stack.pop()
        if x is h:
            continue
        for p in x.predecessors:
            if p not in preds:
                preds.add(p)
                stack.append(p)
    for p in h.predecessors:
        if p in preds:
            return False
    for p in preds:
        for x in p.instructions:
            if x.opcode == "call" and not (x.callee or "").startswith("llvm."):
                return False
        for s in p.successors:
            if s is not b and s not in preds:
                return False
    return True


# --- hoistRegion -----------------------------------------------------------------
def hoist_region(st: LicmState, h, body, ph, innermost) -> None:
    """LLVM's hoistRegion for the loop with header ``h``, blocks ``body`` and
    preheader ``ph`` (see ``licm``)."""
    Inst, Int = Instruction, IntType
    kinds = _HOIST_KIND
    roots = REASSOCIATED
    signed = SIGNED_PREDICATES
    i: Instruction
    o: Any
    pins = ph.instructions  # (each moved or new one goes before its terminator)
    st.ph = ph
    moved = st.moved
    for b in _loop_rpo(h, body):
        if innermost[b] is not h:
            continue  # (a block of an inner loop)
        insts: list = b.instructions
        gone: Any = None
        # (a snapshot: a reassociation erases the instruction visited or earlier
        # ones and inserts before them, so the walk goes on as LLVM's does)
        for i in insts[:]:
            if i.name is None or i.block is not b:  # (void, or erased since)
                continue
            opc = i.opcode
            kind = kinds.get(opc)
            if kind is None:
                continue
            for o in i.operands:
                if type(o) is Inst and o.block in body:
                    break
            else:
                if kind == 1:
                    ok = True
                elif kind == 2:
                    ok = division_is_safe(i) or guaranteed_to_execute(i, b, h, body)
                else:
                    ck = call_kind(st, i)
                    ok = ck == 1 or (ck == 2 and guaranteed_to_execute(i, b, h, body))
                if ok:
                    # (its block is the preheader from now on: a later
                    # instruction reading it can move too)
                    i.block = ph
                    pins.insert(len(pins) - 1, i)
                    moved.append(i)
                    if gone is None:
                        gone = set()
                    gone.add(i)
                    continue
            # hoistArithmetics (the cheap part of each precondition inline)
            r = roots.get(opc)
            if r is None:
                continue
            if r == 1:
                hoist_mul_add(st, i, body, ph)
            elif r == 2:
                if i.predicate in signed:
                    hoist_add_sub(st, i, body, ph)
            elif r == 3:
                hoist_gep(st, i, body, ph)
            else:
                t = i.type
                if type(t) is Int and t.bits == 1:
                    hoist_min_max(st, i, body, ph)
        if gone:
            insts[:] = [i for i in insts if i not in gone]

"""CodeGenPrepare's switch steps: the condition widened to the target's register type (``widen_switch_conditions``) and ConstantFoldTerminator on a switch (``fold_switch``).

Facts of LLVM 19's CodeGenPrepare, written anew:

- optimizeSwitchType (its instruction step): a switch on an integer narrower than the
  register the target holds it in (getPreferredSwitchConditionType: the type the type
  legalizer promotes it to, from the target's legality table) switches on a ``zext``
  of it (a ``sext`` for an argument marked ``signext``) made just before the switch,
  its case values extended alike. The targets that find ``sext`` cheaper
  (isSExtCheaperThanZExt) are not modelled: ``zext`` is used.
- ConstantFoldTerminator, run on every block after the instruction step: the cases
  going to the default are removed (the default losing one phi entry each); a switch
  left with one destination (a constant condition's case, or every case and the
  default the same block; an unreachable default set aside) becomes a ``br`` (every
  other edge's phi entries removed) and its condition is deleted when nothing else
  reads it and it has no side effect (RecursivelyDeleteTriviallyDeadInstructions, its
  operands likewise); a switch left with one case becomes ``icmp eq`` (``%cond``)
  and a conditional ``br`` to the case or the default.

Not modelled: optimizeSwitchPhiConstants (a case's phi entry equal to the case value
read as the condition instead).
"""

from __future__ import annotations

from patterns.ir.core import VOID, Constant, IntType
from patterns.ir.effects import has_side_effect
from patterns.ir.function import Argument, Instruction
from patterns.llc.instsimplify_query import const_value
from patterns.llc.unreachable import remove_predecessor, resolve_replacement
from patterns.support.intops import signed_of_unsigned


def _const(ty, u: int) -> Constant:
    bits = ty.bits
    u &= (1 << bits) - 1
    if bits == 1:
        return Constant(ty, "true" if u else "false", "int", 1 if u else 0)
    s = signed_of_unsigned(u, bits)
    return Constant(ty, str(s), "int", s)


def widen_switch_conditions(fn, target) -> bool:
    """optimizeSwitchType on every switch of ``fn`` (module docstring); True when one
    was widened."""
    if target is None or not any(b.instructions and b.instructions[-1].opcode == "switch" for b in fn.blocks):
        return False
    from patterns.dag.legaltable import legal_table
    from patterns.dag.legalize_types import promoted_type

    lg = legal_table(getattr(target, "legality", None))
    if lg is None:
        return False
    changed = False
    for b in fn.blocks:
        t = b.instructions[-1] if b.instructions else None
        if t is None or t.opcode != "switch":
            continue
        c = t.operands[0]
        bits = c.type.bits
        pt = promoted_type(f"i{bits}", lg)
        if not pt or int(pt[1:]) <= bits:
            continue
        wide = IntType(int(pt[1:]))
        ext = "zext"
        if isinstance(c, Argument):
            words = set(c.attr_text or ())
            if "signext" in words:
                ext = "sext"
            if "zeroext" in words:
                ext = "zext"
        inst = Instruction(ext, None, wide, [c], b, t.span)
        b.instructions.insert(len(b.instructions) - 1, inst)
        t.operands = [inst]
        cases = []
        for v, dest in t.cases:
            u = v._u
            if ext == "sext":
                u = signed_of_unsigned(u, bits)
            cases.append((_const(wide, u), dest))
        t.cases = cases
        t._text = None
        changed = True
    if changed:
        from patterns.llc.cfgedit import EditableCFG

        EditableCFG(fn, {}).finish()  # (the new values numbered)
    return changed


def fold_switch(fn, b, rep: dict) -> list | None:
    """ConstantFoldTerminator on the switch ending ``b`` (module docstring): None when
    it is left as it is, else the blocks it branched to before."""
    t = b.instructions[-1]
    succs = list(dict.fromkeys(t.targets))
    cond = t.operands[0]
    cv = const_value(cond) if isinstance(cond, Constant) else None
    default = t.targets[0]
    body = [i for i in default.instructions if i.opcode != "phi"]
    only = default
    cases = list(t.cases)
    if body and body[0].opcode == "unreachable" and cases:
        only = cases[0][1]
    changed = False
    k = 0
    while k < len(cases):
        v, dest = cases[k]
        if cv is not None and v._u == cv:
            only = dest
            break
        if dest is default:
            remove_predecessor(default, b, rep, False)
            del cases[k]
            changed = True
            continue
        if dest is not only:
            only = None
        k += 1
    if cv is not None and only is None:
        only = default
    if changed:
        t.cases = cases
        t.targets = [default] + [d for _v, d in cases]
        t._text = None
    if only is not None:
        edges = list(t.targets)
        left = {}
        for s in edges:
            left[s] = left.get(s, 0) + 1
        kept = False
        for s in edges:
            left[s] -= 1
            if s is only and not kept:
                kept = True
                continue
            remove_predecessor(s, b, rep, s is not only and not left[s])
        br = Instruction("br", None, VOID, [], b, t.span)
        br.targets = [only]
        b.instructions[-1] = br
        t.block = None
        b.successors = [only]
        _delete_dead(fn, cond, rep)
        return succs
    if len(cases) == 1:
        v, dest = cases[0]
        names = {i.name for x in fn.blocks for i in x.instructions if i.name is not None}
        names |= {a.name for a in fn.args} | {x.name for x in fn.blocks}
        name, n = "cond", 0
        while name in names:
            n += 1
            name = f"cond{n}"
        cmp = Instruction("icmp", name, IntType(1), [cond, v], b, t.span, predicate="eq")
        br = Instruction("br", None, VOID, [cmp], b, t.span)
        br.targets = [dest, default]
        b.instructions[-1:] = [cmp, br]
        t.block = None
        b.successors = [dest, default]
        return succs
    return succs if changed else None


def _delete_dead(fn, v, rep: dict) -> None:
    """RecursivelyDeleteTriviallyDeadInstructions from ``v``."""
    work = [v]
    while work:
        i = work.pop()
        if not isinstance(i, Instruction) or i.block is None or i.is_terminator or has_side_effect(i) \
                or i.opcode == "phi":
            continue
        if any(any(resolve_replacement(rep, o) is i for o in u.operands) for x in fn.blocks
               for u in x.instructions if u is not i):
            continue
        ops = list(i.operands)
        i.block.instructions.remove(i)
        i.block = None
        work.extend(ops)


__all__ = ["widen_switch_conditions", "fold_switch"]

"""replaceAllUsesWith over a map of replacements (instruction -> value): the rewrite
of every reader (``rewrite_uses``) and the readers it must look at (``candidate_users``),
shared by EarlyCSE and the CFG cleanups.
"""

from __future__ import annotations

from patterns.ir.function import Function, Instruction


def candidate_users(rep: dict, grew: dict | None) -> list:
    """Every instruction that may read a replaced instruction of ``rep``, each once: its
    users in the parser's lists (``_users``, users in program order as parsed), plus
    those an earlier ``rewrite_uses`` gave it (``grew``)."""
    out: list = []
    for i in rep:
        us = i._users
        if us is not None:
            if type(us) is list:
                out.extend(us)
            else:
                out.append(us)
        if grew:
            g = grew.get(i)
            if g:
                out.extend(g)
    return list(dict.fromkeys(out))


def rewrite_uses(fn: Function, rep: dict, cands: list | None = None, grew: dict | None = None) -> None:
    """Every use of a replaced instruction reads its replacement (replaceAllUsesWith).
    ``cands``: the instructions that may read one (each once; every instruction when
    None). ``grew``, when given, collects for each instruction that became an operand
    the instructions now reading it (for a later rewrite's ``candidate_users``)."""
    inst = Instruction
    if cands is None:
        cands = [i for b in fn.blocks for i in b.instructions]
    for i in cands:
        ops = i.operands
        for o in ops:
            if type(o) is inst and o in rep:
                break
        else:
            continue
        i.operands = [rep.get(o, o) if type(o) is inst else o for o in ops]
        if grew is not None:
            for o in ops:
                if type(o) is inst:
                    w = rep.get(o)
                    if w is not None and type(w) is inst:
                        g = grew.get(w)
                        if g is None:
                            grew[w] = [i]
                        else:
                            g.append(i)
        if i.opcode == "phi":
            i.incoming = [(rep.get(v, v) if type(v) is inst else v, blk) for v, blk in i.incoming]
        i._text = None
    fn.uses = None

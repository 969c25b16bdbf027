"""LLVM's SSAUpdater: the value of a variable at the end of a block, given the blocks that define it.

Used by StructurizeCFG (``patterns.llc.structurize``) to place the phis of its branch
conditions and of the phis whose incoming edges it rewired. The algorithm is the one of
LLVM 19's SSAUpdaterImpl.h (facts, written anew): from the block asked about, walk the
CFG backwards until blocks with a known value; number the blocks found by a forward
depth-first walk from those (post-order); compute their dominators in that sub-CFG;
a block needs a phi where two predecessors' definitions differ (iterated: definitions
as *blocks*, not values, so a phi of two equal constants is made as LLVM makes it, and
left for the caller's phi simplification); reuse an equivalent existing phi, else create
an empty one at the top of the block and fill its operands in predecessor order. The
predecessor order is the first phi's incoming order when the block has phis, else the
CFG's (``cfg.preds``: LLVM's use-list order).
"""

from __future__ import annotations

from patterns.ir.function import Instruction


class _Info:
    __slots__ = ("bb", "val", "defbb", "preds", "num", "idom", "tag")

    def __init__(self, bb, val) -> None:
        self.bb = bb
        self.val = val
        self.defbb = self if val is not None else None
        self.preds: list = []
        self.num = 0
        self.idom = None
        self.tag = None


class SSAUpdater:
    """One variable of type ``ty``. ``cfg`` gives ``preds(b)``, ``succs(b)``,
    ``undef(ty)`` and ``new_phi(b, ty)`` (an empty phi made first in ``b``);
    ``inserted`` collects the phis made."""

    def __init__(self, cfg, ty, inserted: list | None = None) -> None:
        self.cfg = cfg
        self.ty = ty
        self.avail: dict = {}
        self.inserted = inserted if inserted is not None else []

    def add(self, b, v) -> None:
        self.avail[b] = v

    def has(self, b) -> bool:
        return b in self.avail

    def at_end(self, b):
        v = self.avail.get(b)
        if v is not None:
            return v
        return self._get(b)

    def in_middle(self, b):
        """The value on entry to ``b`` (GetValueInMiddleOfBlock)."""
        if b not in self.avail:
            return self.at_end(b)
        cfg = self.cfg
        first = b.instructions[0] if b.instructions and b.instructions[0].opcode == "phi" else None
        preds = [p for _v, p in first.incoming] if first is not None else cfg.preds(b)
        vals = [(p, self.at_end(p)) for p in preds]
        if not vals:
            return cfg.undef(self.ty)  # (GetValueInMiddleOfBlock's own answer)
        if all(v is vals[0][1] or v == vals[0][1] for _p, v in vals):
            return vals[0][1]
        for phi in b.instructions:
            if phi.opcode != "phi":
                break
            if len(phi.incoming) == len(vals) and all(
                    pb is p and (pv is v or pv == v) for (pv, pb), (p, v) in zip(phi.incoming, vals)):
                return phi
        phi = cfg.new_phi(b, self.ty)
        phi.incoming = [(v, p) for p, v in vals]
        phi.operands = [v for p, v in vals]
        simple = cfg.simplify_phi(phi, can_use_undef=True, with_dom=False)
        if simple is not None:
            cfg.erase(phi)
            return simple
        self.inserted.append(phi)
        return phi

    # -- SSAUpdaterImpl
    def _get(self, bb):
        cfg = self.cfg
        infos: dict = {}
        start = infos[bb] = _Info(bb, None)
        roots: list = []
        work = [start]
        while work:
            info = work.pop()
            b = info.bb
            first = b.instructions[0] if b.instructions and b.instructions[0].opcode == "phi" else None
            preds = [p for _v, p in first.incoming] if first is not None else cfg.preds(b)
            for p in preds:
                pi = infos.get(p)
                if pi is None:
                    pi = infos[p] = _Info(p, self.avail.get(p))
                    if pi.val is not None:
                        roots.append(pi)
                    else:
                        work.append(pi)
                info.preds.append(pi)
        # forward DFS from the roots: post-order numbers; the list holds the non-roots
        pseudo = _Info(None, None)
        blist: list = []
        stack: list = []
        while roots:
            r = roots.pop()
            r.idom = pseudo
            r.num = -1
            stack.append(r)
        n = 1
        while stack:
            info = stack[-1]
            if info.num == -2:
                info.num = n
                n += 1
                if info.val is None:
                    blist.append(info)
                stack.pop()
                continue
            info.num = -2
            for s in cfg.succs(info.bb):
                si = infos.get(s)
                if si is None or si.num:
                    continue
                si.num = -1
                stack.append(si)
        pseudo.num = n
        if not blist:
            v = cfg.poison(self.ty)
            self.avail[bb] = v
            return v
        # dominators in the sub-CFG
        changed = True
        while changed:
            changed = False
            for info in reversed(blist):
                new = None
                for p in info.preds:
                    if p.num == 0:  # (an unreachable predecessor: a poison value)
                        p.val = cfg.poison(self.ty)
                        self.avail[p.bb] = p.val
                        p.defbb = p
                        p.num = pseudo.num
                        pseudo.num += 1
                    new = p if new is None else _intersect(new, p)
                if new is not None and new is not info.idom:
                    info.idom = new
                    changed = True
        # phi placement
        changed = True
        while changed:
            changed = False
            for info in reversed(blist):
                if info.defbb is info:
                    continue
                new = info.idom.defbb
                for p in info.preds:
                    if _def_in_frontier(p, info.idom):
                        new = info
                        break
                if new is not info.defbb:
                    info.defbb = new
                    changed = True
        # the values: existing phis reused, empty ones made, then filled
        made: list = []
        for info in blist:
            if info.defbb is not info:
                continue
            self._existing_phi(info, blist)
            if info.val is not None:
                continue
            phi = cfg.new_phi(info.bb, self.ty)
            info.val = phi
            self.avail[info.bb] = phi
            made.append(phi)
        for info in reversed(blist):
            if info.defbb is not info:
                self.avail[info.bb] = info.defbb.val
                continue
            phi = info.val
            if not any(phi is m for m in made):
                continue
            inc = []
            for p in info.preds:
                src = p if p.defbb is p else p.defbb
                inc.append((src.val, p.bb))
            phi.incoming = inc
            phi.operands = [v for v, _b in inc]
            self.inserted.append(phi)
        return start.defbb.val

    def _existing_phi(self, info, blist) -> None:
        for phi in info.bb.instructions:
            if phi.opcode != "phi":
                break
            if phi.type != self.ty:
                continue
            if _matches(info, phi):
                for i in blist:  # (record the matching phis)
                    if i.tag is not None:
                        i.val = i.tag
                        self.avail[i.bb] = i.tag
                        i.defbb = i
                        i.tag = None
                return
            for i in blist:
                i.tag = None


def _matches(info, phi) -> bool:
    work = [(info, phi)]
    while work:
        i, p = work.pop()
        if i.tag is not None:
            if i.tag is not p:
                return False
            continue
        i.tag = p
        if len(p.incoming) != len(i.preds):
            return False
        by_block = {id(b): v for v, b in p.incoming}
        for pi in i.preds:
            v = by_block.get(id(pi.bb))
            if v is None:
                return False
            d = pi.defbb
            if d is None:
                return False
            if d.val is not None:
                if not (v is d.val or (not isinstance(v, Instruction) and v == d.val)):
                    return False
                continue
            if not (isinstance(v, Instruction) and v.opcode == "phi" and v.block is d.bb):
                return False
            work.append((d, v))
    return True


def _intersect(a, b):
    while a is not b:
        while a.num < b.num:
            a = a.idom
            if a is None:
                return b
        while b.num < a.num:
            b = b.idom
            if b is None:
                return a
    return a


def _def_in_frontier(p, idom) -> bool:
    while p is not idom:
        if p.defbb is p:
            return True
        p = p.idom
    return False


__all__ = ["SSAUpdater"]

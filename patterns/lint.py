"""Lints over a target's compiled pattern set (the matcher table), for ``tdgen lint``.

1. ``scalar-result-divergent-root`` (error): a pattern whose result instruction writes a
   scalar-file register class while its root carries no uniform predicate, so a
   divergent node can select it -- a per-lane value squeezed into one scalar register
   (the bug class of LLVM PR #198508).
2. ``shadowed`` (warning): a pattern that an earlier one in matcher order always
   pre-empts (same root, every check of the earlier one is implied by the later one).
3. ``no-pattern`` (warning): an (opcode, type, divergence) combination of an opcode the
   target selects, for which no pattern with plain operands exists.
4. ``convergent`` (error): a pattern matching an ``IntrConvergent`` intrinsic (directly or
   through its lowering SDNode) whose result instruction is not ``isConvergent``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .matcher import PNode, build_table

__all__ = ["Finding", "lint_target"]


@dataclass(frozen=True)
class Finding:
    level: str
    code: str
    record: str
    message: str
    span: object = None

    def format(self) -> str:
        where = f"{self.span}: " if self.span is not None else ""
        return f"{where}record '{self.record}': {self.level}: [{self.code}] {self.message}"


def _root_div(p: PNode) -> set[str]:
    kinds = {pr.kind for pr in p.preds}
    if "uniform" in kinds:
        return {"uniform"}
    if "divergent" in kinds:
        return {"divergent"}
    return {"uniform", "divergent"}


def _subsumes(q: PNode, p: PNode) -> bool:
    """Every node ``p`` matches is matched by ``q`` (conservative: False when unsure)."""
    if q.kind == "leaf":
        if q.preds:
            return set(q.preds) <= set(p.preds)
        return q.vt is None or q.vt == p.vt
    if q.kind == "int":
        return p.kind == "int" and p.value == q.value
    if p.kind != "node" or p.opcode != q.opcode or len(p.children) != len(q.children):
        return False
    if q.vt is not None and q.vt != p.vt:
        return False
    if not set(q.preds) <= set(p.preds):
        return False
    if q.name and p.name and False:
        return False
    return all(_subsumes(a, b) for a, b in zip(q.children, p.children)) and not _repeats(p) and not _repeats(q)


def _repeats(p: PNode) -> bool:
    names: list[str] = []

    def walk(n: PNode):
        if n.name:
            names.append(n.name)
        for c in n.children:
            walk(c)

    walk(p)
    return len(names) != len(set(names))


def _plain(p: PNode) -> bool:
    return all(c.kind == "leaf" and not c.preds for c in p.children)


def lint_target(target) -> list[Finding]:
    table = build_table(target)
    insts = target.instructions
    rcs = target.register_classes_by_name
    out: list[Finding] = []
    convergent_ir = {i.ir_name for i in target.intrinsics if any(getattr(pr, "name", "") == "IntrConvergent" for pr in i.properties)}
    convergent_nodes = {low.node.opcode for low in target.lowerings if low.intrinsic.ir_name in convergent_ir}
    for p in table.patterns:
        dst = p.dst
        inst = insts.get(getattr(dst, "op", None)) if hasattr(dst, "op") else None
        if inst is not None and inst.outs:
            rc = rcs.get(inst.outs[0].kind)
            if rc is not None and rc.file == "scalar" and "divergent" in _root_div(p.src):
                out.append(Finding("error", "scalar-result-divergent-root", p.record,
                                   f"{p.src_text()} writes {inst.name} into scalar class {rc.name} but its root "
                                   f"has no uniform predicate: a divergent node can select it", p.span))
        if inst is not None:
            hits = []
            for n in _walk(p.src):
                if n.kind == "node" and n.opcode in ("ISD::INTRINSIC_WO_CHAIN", "ISD::INTRINSIC_W_CHAIN", "ISD::INTRINSIC_VOID"):
                    if n.children and n.children[0].kind == "int" and n.children[0].value in convergent_ir:
                        hits.append(str(n.children[0].value))
                elif n.kind == "node" and n.opcode in convergent_nodes:
                    hits.append(n.op_name or n.opcode)
            if hits and not inst.field("isConvergent", False):
                out.append(Finding("error", "convergent", p.record,
                                   f"matches convergent {', '.join(sorted(set(hits)))} but {inst.name} is not isConvergent",
                                   p.span))
    # shadowed
    for opc, pats in sorted(table.by_opcode.items()):
        for j, p in enumerate(pats):
            for q in pats[:j]:
                if q.record == p.record:
                    continue
                if _subsumes(q.src, p.src):
                    out.append(Finding("warning", "shadowed", p.record,
                                       f"{p.src_text()} is never selected: {q.record} {q.src_text()} "
                                       f"(complexity {q.complexity}) is tried first and matches everything it does",
                                       p.span))
                    break
    # (opcode, type, divergence) gaps
    for opc, pats in sorted(table.by_opcode.items()):
        vts = sorted({p.src.vt for p in pats if p.src.vt})
        for vt in vts:
            for div in ("uniform", "divergent"):
                ok = any(_plain(p.src) and (p.src.vt in (None, vt)) and div in _root_div(p.src)
                         and all(pr.kind in ("uniform", "divergent") for pr in p.src.preds) for p in pats)
                if not ok:
                    first = pats[0]
                    out.append(Finding("warning", "no-pattern", first.record,
                                       f"no pattern selects a {div} {vt} {opc} with arbitrary operands", None))
    out.sort(key=lambda f: (f.level != "error", str(f.span or ""), f.record, f.code, f.message))
    return out


def _walk(p: PNode):
    yield p
    for c in p.children:
        yield from _walk(c)

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


_INTRINSIC_OPS = ("ISD::INTRINSIC_WO_CHAIN", "ISD::INTRINSIC_W_CHAIN", "ISD::INTRINSIC_VOID")


def _intrinsic_id(p: PNode) -> str | None:
    if p.kind == "node" and p.opcode in _INTRINSIC_OPS and p.children and p.children[0].kind == "int":
        return str(p.children[0].value)
    return None


def _node_div(p: PNode, target) -> set[str]:
    """Divergence a DAG node matching ``p``'s root can have, from the intrinsic's class."""
    name = _intrinsic_id(p)
    if name is None:
        name = _LOWERED.get(id(target), {}).get(p.opcode)
    if name is not None:
        kind = getattr(target.intrinsic_divergence(name), "value", "follows")
        if kind == "uniform":
            return {"uniform"}
        if kind == "source":
            return {"divergent"}
    return {"uniform", "divergent"}


_LOWERED: dict[int, dict[str, str]] = {}


def _root_div(p: PNode, target=None) -> set[str]:
    kinds = {pr.kind for pr in p.preds}
    possible = _node_div(p, target) if target is not None else {"uniform", "divergent"}
    if "uniform" in kinds:
        return {"uniform"} & possible
    if "divergent" in kinds or "bus" in kinds:
        return {"divergent"} & possible
    return possible


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
    kids = p.children[1:] if _intrinsic_id(p) is not None else p.children
    return all(c.kind == "leaf" and not c.preds for c in kids)


def _key(p: PNode) -> str:
    name = _intrinsic_id(p)
    return f"{p.opcode}({name})" if name else str(p.opcode)


def lint_target(target) -> list[Finding]:
    table = build_table(target)
    _LOWERED[id(target)] = {low.node.opcode: low.intrinsic.ir_name for low in target.lowerings}
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
            if rc is not None and rc.file == "scalar" and "divergent" in _root_div(p.src, target):
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
    # (node, type, divergence) gaps; intrinsics are told apart by their id
    groups: dict[str, list] = {}
    for p in table.patterns:
        groups.setdefault(_key(p.src), []).append(p)
    for key, pats in sorted(groups.items()):
        vts = sorted({p.src.vt for p in pats if p.src.vt})
        possible = _node_div(pats[0].src, target)
        for vt in vts:
            for div in ("uniform", "divergent"):
                if div not in possible:
                    continue
                ok = any(_plain(p.src) and (p.src.vt in (None, vt)) and div in _root_div(p.src, target)
                         and all(pr.kind in ("uniform", "divergent") for pr in p.src.preds) for p in pats)
                if not ok:
                    first = pats[0]
                    out.append(Finding("warning", "no-pattern", first.record,
                                       f"no pattern selects a {div} {vt} {key} with arbitrary operands", first.span))
    out.sort(key=lambda f: (f.level != "error", str(f.span or ""), f.record, f.code, f.message))
    return out


def _walk(p: PNode):
    yield p
    for c in p.children:
        yield from _walk(c)

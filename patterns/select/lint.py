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

5. ``opaque-predicate`` (warning): a pattern with a predicate whose C++ code the model
   cannot execute (immediate code outside ``tdgen.cppexpr.translate_cpp``'s subset, read in its
   own context -- an ImmLeaf's ``ImmediateCode`` declares only ``Imm``, a PatLeaf's
   ``PredicateCode`` on a constant only ``N`` -- or other predicate code with no
   function given by ``predicates.register_predicate``): ``tdgen isel`` treats the
   predicate as failing, so the pattern never selects there while LLVM's table may. The
   message says why the code is unreadable.

Custom selection steps (``CustomSelect``: C++ ``Select`` cases tried before the table):

6. ``custom-select-fallback`` (warning): a (root, type, divergence) the step is tried on
   for which the table has no pattern with plain operands -- when the step declines
   (a shape it does not handle), nothing selects the node.
7. ``custom-select-divergent-scalar`` / ``custom-select-model`` (errors): the step's model
   run on probe DAGs (every root it names; operand 0 a uniform or divergent value or one
   level of shl/srl/sra/and/or/xor/add/sub/mul of such a value and a constant among
   0/1/4/8/16/24/31/255/0xffff/-1, the other operands values or those constants, or
   i8/i16 where the node's profile wants a value type) writes a scalar register class for a divergent
   node (rule 1's bug class, which the table check cannot see in model code), returns
   an instruction it does not declare in ``emits``, or raises.
   The probe shows the first failing DAG; it is bounded, so a clean probe is evidence,
   not proof.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from tdgen.cppexpr import compile_imm_code, imm_code_problem

from patterns.select.matcher import build_table
from patterns.select.pattern import PNode
from patterns.select.predicates import NAMED_PREDICATES, imm_context

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
        opaque = sorted({_opaque_text(pr) for n in _walk(p.src) for pr in n.preds
                         if (pr.kind in ("imm", "nodeimm") and compile_imm_code(pr.code, imm_context(pr)) is None)
                         or (pr.kind == "named" and pr.name not in NAMED_PREDICATES)})
        if opaque:
            out.append(Finding("warning", "opaque-predicate", p.record,
                               f"{p.src_text()}: the model cannot execute predicate {', '.join(opaque)}; "
                               f"tdgen isel treats it as failing", p.span))
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
    # (a target that expands variable-index vector extracts in the DAG, TargetHooks.
    # expand_dynamic_extract, leaves selection only extracts at a constant index)
    from tdgen.hooks import target_hooks

    const_extracts = target_hooks(target).expand_dynamic_extract is not None
    for key, pats in sorted(groups.items()):
        if key == "ISD::EXTRACT_VECTOR_ELT" and const_extracts:
            continue
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
    out.extend(_lint_custom(target, groups))
    out.sort(key=lambda f: (f.level != "error", str(f.span or ""), f.record, f.code, f.message))
    return out


# ---------------------------------------------------------------------------------------
# Custom selection steps

_PROBE_CONSTS = (0, 1, 4, 8, 16, 24, 31, 255, 0xFFFF, -1)
_PROBE_INNER = ("ISD::SHL", "ISD::SRL", "ISD::SRA", "ISD::AND", "ISD::OR", "ISD::XOR", "ISD::ADD", "ISD::SUB",
                "ISD::MUL")


def _probe_operands(vt: str):
    """Operand pool for probing a custom step: leaves, constants, value types, and one
    level of common binary ops over them (each a fresh node, divergence set)."""
    from patterns.dag.nodes import SDNode, value_type_node

    ids = iter(range(1, 1 << 20))

    def leaf(div: bool):
        n = SDNode(next(ids), "ISD::CopyFromReg", vt, (), reg="probe")
        n.divergent = div
        n.source = "divergent" if div else "uniform"
        return n

    xs = [leaf(True), leaf(False)]
    consts = [SDNode(next(ids), "ISD::Constant", vt, (), value=c) for c in _PROBE_CONSTS]
    vts = [value_type_node(None, t) for t in ("i8", "i16")]
    for v in vts:
        v.id = next(ids)
    inner = []
    for opc in _PROBE_INNER:
        for x in xs:
            for c in consts:
                n = SDNode(next(ids), opc, vt, (x, c))
                n.divergent = x.divergent
                n.uses = 1
                inner.append(n)
    return xs, consts + vts, inner


def _lint_custom(target, groups) -> list[Finding]:
    from patterns.select.custom import Decline, custom_steps, run_custom
    from patterns.dag.nodes import SDNode

    out: list[Finding] = []
    steps = custom_steps(target)
    for opc, entries in sorted(steps.items()):
        for cs, fn in entries:
            # 5: fallback coverage in the table
            pats = [p for p in groups.get(opc, ()) if p.src.vt in (None, cs.vt)]
            for div in ("uniform", "divergent"):
                ok = any(_plain(p.src) and div in _root_div(p.src, target)
                         and all(pr.kind in ("uniform", "divergent") for pr in p.src.preds) for p in pats)
                if not ok:
                    out.append(Finding("warning", "custom-select-fallback", cs.name,
                                       f"when {cs.name} declines a {div} {cs.vt} {opc}, no table pattern selects it "
                                       f"with arbitrary operands", cs.span))
    # 6: probe each step's model
    seen: set[tuple[str, str]] = set()
    for cs in getattr(target, "custom_selects", ()):
        fn = next(f for c, f in steps.get(target.sdnodes[cs.opcodes[0]].opcode, ()) if c is cs)
        xs, leaves, inner = _probe_operands(cs.vt)
        first = xs + inner
        rest = xs + leaves
        for name in cs.opcodes:
            node = target.sdnodes[name]
            arity = node.num_operands if node.num_operands >= 0 else 2
            # operands the profile makes value types (SDTCisVTSmallerThanOp) get only those
            prof = node.profile
            vt_slots = {c.op - prof.num_results for c in prof.constraints if type(c).__name__ == "SDTCisVTSmallerThanOp"}
            vt_leaves = [x for x in leaves if x.opcode == "ISD::VALUETYPE"]
            val_leaves = [x for x in rest if x.opcode != "ISD::VALUETYPE"]
            pools = [vt_leaves if i in vt_slots else (first if i == 0 else val_leaves) for i in range(arity)]
            for ops in itertools.product(*pools):
                n = SDNode(0, node.opcode, cs.vt, ops)
                n.divergent = any(o.divergent for o in ops)
                res = run_custom(cs, fn, n, target)
                if res is None or isinstance(res, Decline) or not hasattr(res, "message"):
                    continue
                code = "custom-select-divergent-scalar" if "divergent node" in res.message else "custom-select-model"
                if (cs.name, code) in seen:
                    continue
                seen.add((cs.name, code))
                out.append(Finding("error", code, cs.name, f"probe {_probe_text(n)}: {res.message}", cs.span))
    return out


def _probe_text(n, depth: int = 0) -> str:
    if n.opcode == "ISD::Constant":
        return str(n.value)
    if n.opcode == "ISD::VALUETYPE":
        return n.vt
    if n.opcode == "ISD::CopyFromReg":
        return "%div" if n.divergent else "%uni"
    inner = " ".join(_probe_text(o, depth + 1) for o in n.ops)
    return f"({n.opcode.split('::')[-1].lower()} {inner})"


def _opaque_text(pr) -> str:
    """A predicate the model cannot execute, with why: immediate code is read in its own
    C++ context -- an ImmLeaf's code over ``Imm``, a PatLeaf's over the node ``N``."""
    text = f"{pr.name} ({pr.code.strip()})"
    if pr.kind in ("imm", "nodeimm"):
        ctx = imm_context(pr)
        where = "ImmLeaf code over Imm" if ctx == "imm" else "PatLeaf code over the ConstantSDNode N"
        text += f" [{where}: {imm_code_problem(pr.code, ctx)}]"
    return text


def _walk(p: PNode):
    yield p
    for c in p.children:
        yield from _walk(c)

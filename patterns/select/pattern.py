"""Pattern records: the resolved pattern tree (``PNode``), its predicates, a compiled pattern and its check chain.

What ``patterns.select.patsrc`` makes of a spec's selection patterns and the matcher
table (``patterns.select.matcher``) holds: ``PNode`` trees with ``Predicate`` checks,
their LLVM pattern size (``pattern_size``), and each pattern lowered to a flat chain of
checks (``lower_checks``: ``child``, ``opcode``, ``type``, ``pred``, ``int``, ``same``,
``predops``), each with a text used by ``explain``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Predicate", "PNode", "CompiledPattern", "pattern_size", "lower_checks"]


@dataclass(frozen=True)
class Predicate:
    """A check on one node: ``kind`` is uniform/divergent/imm/code/oneuse; ``name`` the frag."""

    name: str
    kind: str
    code: str = ""
    operands: tuple[str, ...] = ()  # bound names the predicate reads (PredicateCodeUsesOperands)

    def describe(self) -> str:
        return f"{self.name} predicate"


@dataclass(frozen=True)
class PNode:
    """A resolved pattern tree node.

    ``kind``: ``"node"`` (an SDNode with ``opcode``/``children``), ``"leaf"`` (any value of
    type ``vt``, bound to ``name``; with ``opcode`` ``ISD::VALUETYPE`` a value-type leaf
    such as sext_inreg's ``i8``: a VTSDNode carrying ``vt``), ``"int"`` (the integer
    constant ``value``)."""

    kind: str
    opcode: str | None = None
    op_name: str | None = None
    children: tuple["PNode", ...] = ()
    vt: str | None = None
    name: str | None = None
    value: int | None = None
    preds: tuple[Predicate, ...] = ()
    regclass: str | None = None
    commutative: bool = False

    def render(self) -> str:
        if self.kind == "int":
            return str(self.value)
        if self.kind == "leaf":
            t = self.regclass or self.vt or "?"
            return f"{t}:${self.name}" if self.name else t
        head = self.op_name or self.opcode or "?"
        if self.preds:
            head = "<" + ",".join(p.name for p in self.preds) + ">" + head
        inner = " ".join([head] + [c.render() for c in self.children])
        s = f"({inner})"
        return s + (f":${self.name}" if self.name else "")


def pattern_size(p: PNode) -> int:
    """LLVM's getPatternSize over a resolved pattern tree."""
    size = 3
    if p.kind == "int":
        return size + 2
    if p.preds:
        size += 1
    for c in p.children:
        if c.kind == "node":
            size += pattern_size(c)
        elif c.kind == "int":
            size += 5
        elif c.preds:
            size += 1
    return size


@dataclass
class CompiledPattern:
    index: int
    record: str
    src: PNode
    dst: object
    complexity: int
    added_complexity: int
    order: int
    checks: tuple
    root_opcode: str
    result_vt: str | None
    span: object = None
    variant: int = 0
    dst_cost: int = 1
    dst_size: int = 0
    spec_text: str = ""  # the source DAG as written in the spec
    # SDNodeXForms the result DAG applies (``dst`` has them as operators, TableGen's
    # PromoteXForms form): name -> (name, node, code, model, span), see ``apply_xform``
    xforms: dict = field(default_factory=dict)

    def src_text(self) -> str:
        return self.spec_text or self.src.render()

    def dst_text(self) -> str:
        r = getattr(self.dst, "render", None)
        return r() if r else str(self.dst)


def lower_checks(src: PNode) -> tuple:
    """Flat check list. Slots: 0 = root; ``("child", parent, i, slot)`` loads a child."""
    checks: list[tuple] = []
    bound: dict[str, int] = {}
    nslots = [1]

    def visit(p: PNode, slot: int, path: str) -> None:
        if p.kind == "node":
            checks.append(("opcode", slot, p.opcode, f"{path} is {p.op_name or p.opcode}"))
        elif p.opcode is not None:  # a value-type leaf: the operand is a VTSDNode
            checks.append(("opcode", slot, p.opcode, f"{path} is a value type operand"))
        if p.vt is not None:
            checks.append(("type", slot, p.vt, f"{path} has type {p.vt}"))
        if p.kind == "int":
            checks.append(("int", slot, p.value, f"{path} is the constant {p.value}"))
        for pr in p.preds:
            checks.append(("pred", slot, pr, f"{pr.describe()} on {path}"))
        if p.name is not None:
            if p.name in bound:
                checks.append(("same", slot, bound[p.name], f"{path} is the same value as ${p.name}"))
            else:
                bound[p.name] = slot
        for i, c in enumerate(p.children):
            s = nslots[0]
            nslots[0] += 1
            checks.append(("child", slot, i, s, f"{path} has operand {i}"))
            visit(c, s, f"{path}.op{i}")

    visit(src, 0, "root")
    # predicates that read operands run once every operand is recorded (as LLVM's
    # CheckPredicateWithOperands does)
    moved = [c for c in checks if c[0] == "pred" and c[2].operands]
    checks = [c for c in checks if not (c[0] == "pred" and c[2].operands)]
    for c in moved:
        pr = c[2]
        slots = tuple(bound.get(o, -1) for o in pr.operands)
        checks.append(("predops", c[1], pr, c[3], slots))
    # operand-count check first for each node with children (cheap, keeps child loads safe)
    return tuple(checks), dict(bound), nslots[0]

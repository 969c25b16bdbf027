"""The frozen AST of TableGen DAG patterns (parsed by ``tdgen.dag_parse``).

The AST classes are named like the rules of ``tdgen/grammar/dag.lark``:

- ``Dag(operator, args, name)``: ``(op arg, arg, ...)`` with an optional ``:$name``
  binding. ``operator`` is an ``Operator(name, template_args)``; ``Operator.key`` is the
  record name the operator refers to, e.g. ``"add"`` or ``"UniformBinFrag<add>"``.
  ``(i32 (INST ...))`` is a Dag whose operator is a value type (``Dag.cast_type``).
- ``Leaf(kind, type, name, value)`` with ``kind``:
  ``"typed"`` (``i32:$x``, ``VGPR_32:$x``, ``node:$x``, ``imm:$x``: ``type`` is the
  prefix, ``name`` the variable without ``$``), ``"var"`` (``$x``), ``"int"``
  (``-1``, ``0x10``: ``value`` is the int), ``"name"`` (``srcvalue``, ``SReg_32``,
  ``imm``: ``value`` is the record name).

Every node carries a ``span`` (not compared by ``==``) in the spec file the pattern
came from (``tdgen.dag_parse.parse_pattern(text, base)`` places it).
``substitute`` binds template arguments inside a pattern.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterator, Union

from .errors import Span


@dataclass(frozen=True)
class Operator:
    """The operator of a DAG: a record name with optional template args."""

    name: str
    template_args: tuple[str, ...] = ()
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> str:
        if self.template_args:
            return f"{self.name}<{', '.join(self.template_args)}>"
        return self.name

    def render(self) -> str:
        return self.key


@dataclass(frozen=True)
class Leaf:
    """A DAG argument that is not itself a DAG (see module docstring for kinds)."""

    kind: str
    type: str | None = None
    name: str | None = None
    value: int | str | None = None
    span: Span | None = field(default=None, compare=False, repr=False)

    def render(self) -> str:
        if self.kind == "typed":
            return f"{self.type}:${self.name}"
        if self.kind == "var":
            return f"${self.name}"
        return str(self.value)

    def walk(self) -> Iterator["Node"]:
        yield self


@dataclass(frozen=True)
class Dag:
    """``(operator args...)`` with an optional ``:$name`` binding."""

    operator: Operator
    args: tuple["Node", ...] = ()
    name: str | None = None
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def op(self) -> str:
        """The operator's record name (``Operator.key``)."""
        return self.operator.key

    @property
    def cast_type(self) -> str | None:
        """The value type when this DAG is a type cast ``(i32 (INST ...))``."""
        from .types import VALUE_TYPES

        return self.operator.name if self.operator.name in VALUE_TYPES and not self.operator.template_args else None

    def render(self) -> str:
        inner = self.operator.render()
        if self.args:
            inner += " " + ", ".join(a.render() for a in self.args)
        text = f"({inner})"
        if self.name is not None:
            text += f":${self.name}"
        return text

    def walk(self) -> Iterator["Node"]:
        """This node and every node below it, depth first, in source order."""
        yield self
        for a in self.args:
            yield from a.walk()

    def uses_null_frag(self) -> bool:
        """Whether ``null_frag`` appears as an operator: TableGen drops such patterns
        (how multiclasses make a pattern optional)."""
        return any(isinstance(n, Dag) and n.operator.name == "null_frag" for n in self.walk())

    def variables(self) -> tuple[str, ...]:
        """Names of ``$variables`` in source order (first occurrence)."""
        seen: dict[str, None] = {}
        for n in self.walk():
            if isinstance(n, Leaf) and n.name is not None:
                seen.setdefault(n.name, None)
            elif isinstance(n, Dag) and n.name is not None:
                seen.setdefault(n.name, None)
        return tuple(seen)


Node = Union[Dag, Leaf]


def substitute(node: Node, mapping: dict[str, str]) -> Node:
    """Replace record names (operators, template args, typed-leaf prefixes, name
    leaves) that are keys of ``mapping`` -- how template arguments of classes and
    multiclasses are bound inside their patterns."""
    if not mapping:
        return node
    if isinstance(node, Leaf):
        if node.kind == "typed" and node.type in mapping:
            return replace(node, type=mapping[node.type])
        if node.kind == "name" and node.value in mapping:
            return replace(node, value=mapping[node.value])  # type: ignore[index]
        return node
    op = node.operator
    op = replace(
        op,
        name=mapping.get(op.name, op.name),
        template_args=tuple(mapping.get(a, a) for a in op.template_args),
    )
    return replace(node, operator=op, args=tuple(substitute(a, mapping) for a in node.args))

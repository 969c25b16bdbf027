"""Parse TableGen DAG pattern text into a small frozen AST.

Grammar: ``tdgen/grammar/dag.lark`` (lark, LALR, ``propagate_positions=True``).
The AST classes are named like the grammar rules:

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
came from: ``parse_pattern(text, base)`` maps the position inside the string onto
``base`` (the span of the string's first character) with ``Span.offset``.
Syntax errors raise ``ParseError`` at the offending character:
``path:line:col: record 'R' field 'pattern': expected ..., found ...``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Union

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .errors import ParseError, Span, expected

GRAMMAR = Path(__file__).resolve().parent / "grammar" / "dag.lark"


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


_TERMINALS = {
    "NAME": "a name",
    "VAR": "a $variable",
    "INT": "an integer",
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "COLON": "':'",
    "LESSTHAN": "'<'",
    "MORETHAN": "'>'",
    "$END": "end of pattern",
}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(GRAMMAR.read_text(), parser="lalr", propagate_positions=True, maybe_placeholders=False)


class _Build(Transformer):
    def __init__(self, base: Span | None):
        super().__init__()
        self.base = base

    def _span(self, meta_or_tok) -> Span | None:
        return _map(self.base, getattr(meta_or_tok, "line", None), getattr(meta_or_tok, "column", None))

    def start(self, items):
        return items[0]

    @v_args(meta=True)
    def dag(self, meta, items):
        op = items[0]
        name = None
        rest = list(items[1:])
        if rest and isinstance(rest[-1], tuple) and rest[-1] and rest[-1][0] == "binding":
            name = rest.pop()[1]
        return Dag(op, tuple(rest), name, self._span(meta))

    @v_args(meta=True)
    def operator(self, meta, items):
        name = str(items[0])
        targs = tuple(items[1]) if len(items) > 1 else ()
        return Operator(name, targs, self._span(meta))

    def template_args(self, items):
        return [str(t) for t in items]

    def binding(self, items):
        return ("binding", str(items[0])[1:])

    @v_args(meta=True)
    def typed(self, meta, items):
        return Leaf("typed", type=str(items[0]), name=str(items[1])[1:], span=self._span(meta))

    @v_args(meta=True)
    def var(self, meta, items):
        return Leaf("var", name=str(items[0])[1:], span=self._span(meta))

    @v_args(meta=True)
    def int(self, meta, items):
        return Leaf("int", value=int(str(items[0]), 0), span=self._span(meta))

    @v_args(meta=True)
    def name(self, meta, items):
        return Leaf("name", value=str(items[0]), span=self._span(meta))


def _map(base: Span | None, line: int | None, col: int | None) -> Span | None:
    if base is None or line is None or col is None:
        return base
    return base.offset(line - 1, col)


def _describe(tok: object) -> str:
    if isinstance(tok, Token):
        if tok.type == "$END":
            return "end of pattern"
        return f"'{tok}'"
    return repr(tok)


def parse_pattern(
    text: str,
    base: Span | None = None,
    *,
    record: str | None = None,
    field: str | None = None,
) -> Node:
    """Parse one DAG (or leaf) written in TableGen syntax; see module docstring."""
    try:
        return _parse_at(text, base)
    except UnexpectedInput as e:
        line, col = getattr(e, "line", 1), getattr(e, "column", 1)
        if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
            # Point just past the last character.
            lines = text.split("\n")
            line, col = len(lines), len(lines[-1]) + 1
            found = "end of pattern"
            exp = getattr(e, "expected", None) or ["RPAR"]
        elif isinstance(e, UnexpectedToken):
            found = _describe(e.token)
            exp = e.expected
        elif isinstance(e, UnexpectedCharacters):
            found = f"'{text[e.pos_in_stream]}'"
            exp = e.allowed or ()
        else:  # pragma: no cover - lark raises only the kinds above
            found, exp = "text", ()
        names = sorted({_TERMINALS.get(t, t) for t in exp if t not in ("COMMENT", "WS")})
        what = " or ".join(names) if names else "a DAG"
        raise ParseError(
            _map(base, line, col) if base is not None else Span("<pattern>", line, col),
            expected(what, found),
            record=record,
            field=field,
        ) from None


@lru_cache(maxsize=8192)
def _parse_at(text: str, base: Span | None) -> Node:
    """The AST of ``text`` placed at ``base``. Memoized: the checks, the resolver and the
    selection-pattern view each read the same pattern strings of a spec, and the
    result (frozen nodes) depends on nothing else. Parse failures are not kept."""
    return _Build(base).transform(_parser().parse(text))


def parse_dag(text: str, base: Span | None = None, *, record: str | None = None, field: str | None = None) -> Dag:
    """Like ``parse_pattern`` but the text must be a parenthesised DAG."""
    node = parse_pattern(text, base, record=record, field=field)
    if not isinstance(node, Dag):
        raise ParseError(
            node.span if node.span is not None else base,
            expected("a DAG in parentheses", f"'{node.render()}'"),
            record=record,
            field=field,
        )
    return node

"""Parse TableGen DAG pattern text into the frozen AST of ``tdgen.dag``.

Stage job: parse one pattern string with ``tdgen/grammar/dag.lark`` (LALR,
``propagate_positions=True``), build ``Dag``/``Operator``/``Leaf`` nodes placed in the
spec file, and turn lark's syntax errors into one ``ParseError`` at the offending
character.

- ``parse_pattern(text, base, record=, field=)``: one DAG (or leaf); positions inside
  the string are mapped onto ``base`` (the span of the string's first character) with
  ``Span.offset``. Syntax errors raise ``ParseError`` at the offending character:
  ``path:line:col: record 'R' field 'pattern': expected ..., found ...``.
- ``parse_dag``: the same, but the text must be a parenthesised DAG.

Kept apart from the AST classes so that loading a cached target (which parses
nothing) does not import lark: the record classes import this module inside the
functions that parse, on first use.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from .dag import Dag, Leaf, Node, Operator
from .errors import ParseError, Span, expected

GRAMMAR = Path(__file__).resolve().parent / "grammar" / "dag.lark"


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
        return Leaf("int", value=tablegen_int(str(items[0]), meta), span=self._span(meta))

    @v_args(meta=True)
    def name(self, meta, items):
        return Leaf("name", value=str(items[0]), span=self._span(meta))


class _NumberOutOfRange(Exception):
    """An integer TableGen cannot read (raised inside the tree builder)."""

    def __init__(self, text: str, line: int, col: int):
        super().__init__(text)
        self.text, self.line, self.col = text, line, col


def tablegen_int(text: str, meta: object = None) -> int:
    """The value llvm-tblgen-19 gives an integer literal: digits after a leading 0 are
    decimal ("010" is ten), ``0x`` is hex; a non-negative literal up to 2**64 - 1 is
    read as unsigned and kept as its signed 64-bit value, a negative one must be at
    least -2**63; anything beyond is out of range."""
    value = int(text, 16 if "x" in text else 10)
    if value < -(1 << 63) or value >= (1 << 64):
        raise _NumberOutOfRange(text, getattr(meta, "line", 1), getattr(meta, "column", 1))
    return value - (1 << 64) if value >= (1 << 63) else value


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
    deep = _too_deep(text)
    if deep is not None:
        line = text.count("\n", 0, deep) + 1
        col = deep - (text.rfind("\n", 0, deep) + 1) + 1
        raise ParseError(
            _map(base, line, col) if base is not None else Span("<pattern>", line, col),
            expected(f"a pattern nested at most {MAX_DEPTH} levels deep", "deeper nesting"),
            record=record,
            field=field,
        )
    try:
        return _parse_at(text, base)
    except VisitError as e:
        if not isinstance(e.orig_exc, _NumberOutOfRange):
            raise
        n = e.orig_exc
        raise ParseError(
            _map(base, n.line, n.col) if base is not None else Span("<pattern>", n.line, n.col),
            expected("an integer from -2**63 to 2**64 - 1 (TableGen's 64 bits)", f"'{n.text}'"),
            record=record,
            field=field,
        ) from None
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


# Patterns nest a few levels (LLVM's deepest are about ten); the tree builder recurses
# per level, so nesting past this is reported instead of overflowing Python's stack.
MAX_DEPTH = 200


def _too_deep(text: str) -> int | None:
    """The offset of the bracket that opens level MAX_DEPTH + 1, if any."""
    if text.count("(") + text.count("<") <= MAX_DEPTH:
        return None
    depth = 0
    for i, ch in enumerate(text):
        if ch in "(<":
            depth += 1
            if depth > MAX_DEPTH:
                return i
        elif ch in ")>":
            depth -= 1
    return None


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

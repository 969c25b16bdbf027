"""The lark front end of the exact IR path: the grammar's parser and its syntax errors worded.

Stage job: text -> raw records (``parse_raw_lark``) with the LALR(1) parser of
``patterns/ir/ir.lark`` (contextual lexer, the transformer of ``patterns/ir/exact_tree.py``
run inline), or one ``file:line:col`` ``ParseError`` saying what was expected and what
was found. The parser is built on first use (lark's cache keeps its tables), so a
process parsing simple kernels never imports lark.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from tdgen.errors import ParseError, Span, TdgenError, expected

from patterns.ir.exact_tree import new_builder

GRAMMAR = Path(__file__).resolve().parent / "ir.lark"


_PARSER = None


def _lark_parser():
    global _PARSER
    if _PARSER is None:
        import lark

        _PARSER = lark.Lark(
            GRAMMAR.read_text(),
            parser="lalr",
            lexer="contextual",
            propagate_positions=True,
            maybe_placeholders=True,
            start=["start", "instruction", "define_header"],
            transformer=new_builder(),
            cache=True,
        )
    return _PARSER



# ============================================================ syntax errors


INT_PREDICATES_WORDS = frozenset({"eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
                                  "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "une", "uno"})

_TERMINAL_NAMES = {
    "LOCAL": "a local value (%name)",
    "LOCAL_DEF": "'%name ='",
    "GLOBAL": "a global (@name)",
    "GLOBAL_DEF": "'@name ='",
    "INT": "an integer",
    "FLOAT": "a floating-point constant",
    "INTTYPE": "an integer type",
    "FLOATTYPE": "a floating-point type",
    "WORD": "a keyword",
    "LABEL": "a block label",
    "STRING": "a string",
    "BINOP": "a binary operator",
    "CASTOP": "a cast operator",
    "CONSTWORD": "a constant",
    "COMMA": "','",
    "LPAR": "'('",
    "RPAR": "')'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LSQB": "'['",
    "RSQB": "']'",
    "LESSTHAN": "'<'",
    "MORETHAN": "'>'",
    "EQUAL": "'='",
    "STAR": "'*'",
    "COLON": "':'",
    "ELLIPSIS": "'...'",
    "ATTR_REF": "an attribute group (#N)",
    "MD_NAME": "a metadata kind (!name)",
    "MD_REF": "metadata (!N)",
    "TAILKW": "'tail'",
}


def _describe_expected(names: Iterable[str]) -> str:
    names = set(names)
    opcodes = {"BINOP", "CASTOP", "CALL", "BR", "RET", "PHI", "ICMP", "STORE", "LOAD"}
    if {"LOCAL_DEF", "LABEL"} <= names or len(names & opcodes) >= 3:
        return "an instruction or '}'" if "RBRACE" in names else "an instruction"
    if {"INTTYPE", "FLOATTYPE", "PTR"} <= names and "LOCAL" not in names and "INT" not in names:
        return "a type"
    if {"LOCAL", "INT", "CONSTWORD"} <= names:
        if "INTTYPE" in names:
            return "a type or a value"
        return "a value"
    descr = []
    for n in sorted(names):
        if n in _TERMINAL_NAMES:
            descr.append(_TERMINAL_NAMES[n])
        elif n.isupper() and n.isalpha():
            descr.append(f"'{n.lower()}'")
        else:
            descr.append(n)
    descr = sorted(set(descr))
    if len(descr) > 6:
        descr = descr[:6] + ["..."]
    return " or ".join(descr)


_KNOWN_FLAG_WORDS = frozenset(
    "nuw nsw exact disjoint nnan ninf nsz arcp contract afn reassoc fast samesign inbounds nusw "
    "nneg volatile atomic weak inalloca tail musttail notail".split()) | INT_PREDICATES_WORDS


def _found(tok) -> str:
    if tok is None or getattr(tok, "type", None) == "$END":
        return "end of file"
    s = str(tok)
    if getattr(tok, "type", "") == "LOCAL_DEF":
        s = s.split("=")[0].rstrip()
    return f"'{s}'"


def _convert_lark_error(e, path: str, text: str) -> ParseError:
    import lark

    if isinstance(e, lark.exceptions.UnexpectedToken):
        tok = e.token
        if tok.type == "$END":
            lines = text.splitlines() or [""]
            span = Span(path, len(lines), len(lines[-1]) + 1)
        else:
            span = Span(path, tok.line, tok.column)
        exp = set(e.accepts or e.expected)
        what = _describe_expected(exp)
        if tok.type == "WORD" and what.startswith("an instruction"):
            return ParseError(span, expected("an instruction", f"unknown instruction '{tok}'"))
        if what in ("a type", "a type or a value") and tok.type != "$END":
            # a misspelt type was read as a flag word: point at that word instead
            line = text.splitlines()[tok.line - 1]
            before = line[:tok.column - 1].rstrip()
            word = before.split()[-1] if before.split() else ""
            if word and word.isidentifier() and word not in _KNOWN_FLAG_WORDS:
                col = len(before) - len(word) + 1
                return ParseError(Span(path, tok.line, col), expected(what, f"'{word}'"))
        return ParseError(span, expected(_describe_expected(exp), _found(tok)))
    if isinstance(e, lark.exceptions.UnexpectedCharacters):
        span = Span(path, e.line, e.column)
        line = text.splitlines()[e.line - 1] if e.line - 1 < len(text.splitlines()) else ""
        rest = line[e.column - 1:]
        if rest.startswith('"') or rest.startswith('c"') or rest[:2] in ('!"', '%"', '@"'):
            return ParseError(span, expected("a closing '\"' on the same line", "unterminated string"))
        word = rest.split()[0] if rest.split() else rest
        allowed = set(e.allowed or ())
        return ParseError(span, expected(_describe_expected(allowed) if allowed else "a token",
                                         f"'{word[:30]}'"))
    if isinstance(e, lark.exceptions.UnexpectedEOF):
        lines = text.splitlines() or [""]
        return ParseError(Span(path, len(lines), len(lines[-1]) + 1),
                          expected(_describe_expected(e.expected), "end of file"))
    if isinstance(e, lark.exceptions.VisitError) and isinstance(e.orig_exc, TdgenError):
        return e.orig_exc
    raise e


def parse_raw_lark(text: str, path: str, start: str = "start", line_offset: int = 0):
    """Text -> raw records using the lark grammar.

    ``start``: ``start`` (a module), ``instruction`` or ``define_header``; ``line_offset``:
    lines before ``text`` in the file (spans and errors are reported in file lines)."""
    import lark

    parser = _lark_parser()
    tr = parser.options.transformer
    tr.path = path
    tr.line_offset = line_offset
    try:
        return parser.parse(text, start=start)
    except TdgenError:
        raise
    except lark.exceptions.LarkError as e:
        err = _convert_lark_error(e, path, text)
        if line_offset and err.span is not None and err.span.line > 0:
            sp = err.span
            err = ParseError(Span(sp.path, sp.line + line_offset, sp.col), err.message,
                             record=err.record, field=err.field)
        raise err from None
    finally:
        tr.line_offset = 0



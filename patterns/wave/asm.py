"""Wave-model assembly text: the parser (grammar ``wave_asm.lark``) and its AST.

The job of this module: parse instruction text into frozen dataclass ASTs (``Program``
of ``Instr``, whose operands are ``NameOp``/``RegRange``/``CallOp``/``NumberOp`` and
modifiers ``Modifier``), reporting a syntax error as ``ParseError`` with what was
expected; and the ``ds_swizzle`` offset macros of LLVM's assembler syntax
(``encode_swizzle_macro``, ``swizzle_offset_text``). What an instruction means is checked
by patterns/wave/assembler.py.

The text accepts LLVM's printed forms for what the model covers (``_e32``/``_e64``
encoding suffixes, ``s_waitcnt vmcnt(0) lgkmcnt(0)``, ``offset:swizzle(...)``), so llc-19
output for these instructions runs unchanged (tests/test_shuffle.py uses that as an oracle).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from tdgen.errors import ParseError, Span, expected

GRAMMAR = Path(__file__).resolve().parent / "wave_asm.lark"

# ---------------------------------------------------------------------------------------
# AST (one dataclass per grammar rule/alternative)


@dataclass(frozen=True)
class NameOp:
    name: str
    span: Span


@dataclass(frozen=True)
class RegRange:
    name: str
    lo: int
    hi: int
    span: Span


@dataclass(frozen=True)
class CallOp:
    name: str
    arg: int
    span: Span


@dataclass(frozen=True)
class NumberOp:
    value: int
    text: str
    span: Span


@dataclass(frozen=True)
class NumberVal:
    value: int
    text: str


@dataclass(frozen=True)
class ListVal:
    values: tuple[int, ...]


@dataclass(frozen=True)
class SwizzleVal:
    mode: str
    args: tuple[int | str, ...]


@dataclass(frozen=True)
class Modifier:
    name: str
    value: NumberVal | ListVal | SwizzleVal | None  # None: a bare flag (row_mirror)
    span: Span
    text: str


@dataclass(frozen=True)
class Instr:
    mnemonic: str
    operands: tuple[NameOp | RegRange | CallOp | NumberOp, ...]
    modifiers: tuple[Modifier, ...]
    span: Span
    text: str


@dataclass(frozen=True)
class Program:
    instrs: tuple[Instr, ...]
    path: str


def _num(tok: Token) -> int:
    s = str(tok)
    neg = s.startswith("-")
    body = s[1:] if neg else s
    v = int(body, 16) if body[:2].lower() == "0x" else int(body, 10)
    return -v if neg else v


class _ToAst(Transformer):
    def __init__(self, path: str, text: str):
        super().__init__()
        self.path = path
        self.lines = text.splitlines()

    def _span(self, meta) -> Span:
        return Span(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.path, tok.line, tok.column, tok.end_line, tok.end_column)

    def _text(self, meta) -> str:
        if meta.line != meta.end_line:
            return self.lines[meta.line - 1][meta.column - 1 :].strip()
        return self.lines[meta.line - 1][meta.column - 1 : meta.end_column - 1]

    @v_args(meta=True)
    def program(self, meta, items):
        return Program(tuple(i for i in items if isinstance(i, Instr)), self.path)

    @v_args(meta=True)
    def instr(self, meta, items):
        mn = items[0]
        ops = tuple(i for i in items[1:] if i is not None and not isinstance(i, Modifier))
        mods = tuple(i for i in items[1:] if isinstance(i, Modifier))
        return Instr(str(mn), ops, mods, self._tok_span(mn), self._text(meta))

    def name_op(self, items):
        (tok,) = items
        return NameOp(str(tok), self._tok_span(tok))

    def reg_range(self, items):
        name, lo, hi = items
        return RegRange(str(name), _num(lo), _num(hi), self._tok_span(name))

    def call_op(self, items):
        name, arg = items
        return CallOp(str(name), _num(arg), self._tok_span(name))

    def number_op(self, items):
        (tok,) = items
        return NumberOp(_num(tok), str(tok), self._tok_span(tok))

    @v_args(meta=True)
    def modifier(self, meta, items):
        name, val = (items[0], None) if len(items) == 1 else items
        return Modifier(str(name), val, self._tok_span(name), self._text(meta))

    def number_val(self, items):
        (tok,) = items
        return NumberVal(_num(tok), str(tok))

    def list_val(self, items):
        return ListVal(tuple(_num(t) for t in items))

    def swizzle_val(self, items):
        mode = str(items[0])
        args: list[int | str] = []
        for t in items[1:]:
            if t.type == "STRING":
                args.append(str(t)[1:-1])
            else:
                args.append(_num(t))
        return SwizzleVal(mode, tuple(args))


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(
        GRAMMAR.read_text(),
        start="program",
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=False,
    )


_TOKEN_WORDS = {
    "IDENT": "a name",
    "NUMBER": "a number",
    "STRING": "a string",
    "_NL": "end of line",
    "COMMA": "','",
    "COLON": "':'",
    "LSQB": "'['",
    "RSQB": "']'",
    "LPAR": "'('",
    "RPAR": "')'",
    "$END": "end of input",
}


def _describe_expected(names) -> str:
    words = sorted({_TOKEN_WORDS.get(n, n.lower()) for n in names})
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _blank_hash_lines(text: str) -> str:
    """``text`` with every ``#`` comment line blanked (same length, so positions hold)."""
    if "#" not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.lstrip(" \t").startswith("#"):
            lines[i] = " " * len(line)
    return "\n".join(lines)


def parse_asm(text: str, path: str = "<asm>") -> Program:
    """Parse wave-model assembly text into a ``Program`` AST (syntax errors only).

    A line whose first non-blank character is ``#`` is a comment (as llvm-mc reads it);
    a ``#`` later in a line is not, and is reported."""
    src = _blank_hash_lines(text)
    try:
        tree = _parser().parse(src if src.endswith("\n") else src + "\n")
    except UnexpectedCharacters as e:
        ch = text.splitlines()[e.line - 1][e.column - 1 : e.column] if e.line >= 1 else ""
        raise ParseError(Span(path, e.line, e.column), expected("an instruction, operand or modifier", repr(ch))) from None
    except UnexpectedToken as e:
        tok = e.token
        found = "end of line" if tok.type == "_NL" else ("end of input" if tok.type == "$END" else repr(str(tok)))
        line = tok.line if tok.line is not None else e.line
        col = tok.column if tok.column is not None else e.column
        raise ParseError(Span(path, line, col), expected(_describe_expected(e.expected), found)) from None
    except UnexpectedEOF as e:
        raise ParseError(Span(path, max(1, len(text.splitlines())), 1), expected(_describe_expected(e.expected), "end of input")) from None
    except UnexpectedInput as e:  # pragma: no cover - other lark errors
        raise ParseError(Span(path, e.line, e.column), expected("valid wave-model assembly", "unparsable text")) from None
    return _ToAst(path, text).transform(tree)


# ---------------------------------------------------------------------------------------
# ds_swizzle offset macros (LLVM assembler syntax)


def _pow2(n) -> bool:
    return isinstance(n, int) and n > 0 and n & (n - 1) == 0


def encode_swizzle_macro(mode: str, args: tuple) -> int:
    """Offset of ``swizzle(MODE, args...)`` as LLVM's AMDGPU assembler writes it."""
    if mode == "QUAD_PERM":
        if len(args) == 4 and all(isinstance(a, int) and 0 <= a <= 3 for a in args):
            return 0x8000 | sum(a << (2 * k) for k, a in enumerate(args))
        raise ValueError("swizzle(QUAD_PERM,a,b,c,d) with selectors 0..3")
    if mode == "BITMASK_PERM":
        if len(args) == 1 and isinstance(args[0], str) and len(args[0]) == 5 and set(args[0]) <= set("01pi"):
            and_m = or_m = xor_m = 0
            for k, ch in enumerate(reversed(args[0])):
                if ch == "1":
                    or_m |= 1 << k
                elif ch == "p":
                    and_m |= 1 << k
                elif ch == "i":
                    and_m |= 1 << k
                    xor_m |= 1 << k
            return and_m | (or_m << 5) | (xor_m << 10)
        raise ValueError('swizzle(BITMASK_PERM,"xxxxx") with 5 characters from 0, 1, p, i')
    if mode == "SWAP":
        if len(args) == 1 and _pow2(args[0]) and args[0] <= 16:
            return 0x1F | (args[0] << 10)
        raise ValueError("swizzle(SWAP,n) with n a power of two 1..16")
    if mode == "REVERSE":
        if len(args) == 1 and _pow2(args[0]) and 2 <= args[0] <= 32:
            return 0x1F | ((args[0] - 1) << 10)
        raise ValueError("swizzle(REVERSE,n) with n a power of two 2..32")
    if mode == "BROADCAST":
        if (len(args) == 2 and _pow2(args[0]) and 2 <= args[0] <= 32 and isinstance(args[1], int)
                and 0 <= args[1] < args[0]):
            return (0x1F & ~(args[0] - 1)) | (args[1] << 5)
        raise ValueError("swizzle(BROADCAST,size,lane) with size a power of two 2..32 and lane < size")
    raise ValueError("a swizzle mode QUAD_PERM, BITMASK_PERM, SWAP, REVERSE or BROADCAST")


def swizzle_offset_text(offset: int) -> str:
    """Our own readable form of a modelled swizzle offset (QUAD_PERM or BITMASK_PERM)."""
    if offset & 0x8000:
        return "swizzle(QUAD_PERM," + ",".join(str((offset >> (2 * k)) & 3) for k in range(4)) + ")"
    and_m, or_m, xor_m = offset & 31, (offset >> 5) & 31, (offset >> 10) & 31
    chars = []
    for k in range(4, -1, -1):
        if (and_m >> k) & 1 and not (or_m >> k) & 1:
            chars.append("i" if (xor_m >> k) & 1 else "p")
        else:
            chars.append(str(((or_m >> k) ^ (xor_m >> k)) & 1))
    return 'swizzle(BITMASK_PERM,"' + "".join(chars) + '")'

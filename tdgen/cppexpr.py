"""C++ predicate and SDNodeXForm code read as Python: the C++ subset a spec's code is executed in.

The spec side of immediate predicates and operand transforms: ``tdgen.check`` asks
whether a record's code is readable (``imm_code_problem``, ``xform_code_problem``) and
the selector (``patterns.select``) runs it (``compile_imm_code``, ``compile_xform_code``).
``translate_cpp`` turns the one ``return`` expression of such code into Python with
C++'s integer semantics. ``cpp_syntax_problem`` checks that any such code parses as C++
(tokens, literals, brackets, statement ends), which the spec check requires of all
predicate and transform code, readable or not.
"""

from __future__ import annotations

import re
from typing import Callable

from patterns.support.intops import clz, ctz, mask, to_signed

__all__ = ["CppUnreadable", "CTX_IMM", "CTX_NODE", "HELPERS", "translate_cpp", "compile_imm_code", "cpp_syntax_problem",
           "imm_code_problem", "xform_code_problem", "compile_xform_code"]

# ImmLeaf code (``ImmediateCode``) runs where ``int64_t Imm`` holds the constant
# (``cast<ConstantSDNode>(Node)->getSExtValue()``); PatLeaf code (``PredicateCode``) over
# an ``imm`` fragment sees ``N``, the ConstantSDNode; SDNodeXForm code sees ``N`` too and
# returns a new constant. These are different C++ contexts: ``Imm`` is undeclared in the
# second and third, ``N`` in the first. ``translate_cpp`` reads the one expression such
# code returns: a tokenizer, then precedence climbing with C++'s precedence table, each
# subexpression typed as C++ types it (int, unsigned, int64_t, uint64_t, bool; integer
# promotions and the usual arithmetic conversions, wrap-around on unsigned overflow,
# division truncating toward zero) and emitted as fully parenthesized Python. Anything
# outside the subset is not executable (``CppUnreadable`` says why).


class CppUnreadable(Exception):
    """The code is outside what ``translate_cpp`` reads; the message says where."""


CTX_IMM, CTX_NODE = "imm", "node"  # ImmediateCode (Imm) / PredicateCode or XFormFunction (N)

# C++ integer types as (bits, signed); bool is (1, False)
_BOOL, _INT, _UINT, _I64, _U64 = (1, False), (32, True), (32, False), (64, True), (64, False)
_TYPE_WORDS = {
    ("bool",): _BOOL, ("char",): (8, True), ("signed", "char"): (8, True), ("unsigned", "char"): (8, False),
    ("short",): (16, True), ("unsigned", "short"): (16, False), ("int",): _INT, ("signed",): _INT,
    ("unsigned",): _UINT, ("unsigned", "int"): _UINT, ("long",): _I64, ("unsigned", "long"): _U64,
    ("long", "long"): _I64, ("unsigned", "long", "long"): _U64, ("size_t",): _U64,
    ("int8_t",): (8, True), ("int16_t",): (16, True), ("int32_t",): _INT, ("int64_t",): _I64,
    ("uint8_t",): (8, False), ("uint16_t",): (16, False), ("uint32_t",): _UINT, ("uint64_t",): _U64,
}
_TYPE_START = {w[0] for w in _TYPE_WORDS}

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>(?:0[xX][0-9a-fA-F']+|0[bB][01']+|[0-9][0-9']*)[uUlL]*)(?![\w.])
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>->|::|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^~!<>?:(),;.=\[\]{}])
""", re.X)

# binary operators: precedence (higher binds tighter), all left-associative
_BINARY = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, "<=": 7, ">": 7, ">=": 7,
           "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}


def _tokens(code: str) -> list[str]:
    code = re.sub(r"//[^\n]*|/\*.*?\*/", " ", code, flags=re.S)
    out, at = [], 0
    while at < len(code):
        m = _TOKEN.match(code, at)
        if m is None:
            num = re.match(r"[0-9][\w.']*", code[at:])
            if num:
                raise CppUnreadable(f"'{num.group()}' is not an integer literal")
            raise CppUnreadable(f"'{code[at]}' is not an operator tdgen reads")
        at = m.end()
        if m.lastgroup != "ws":
            out.append(m.group())
    return out


def _div(a: int, b: int) -> int:
    q = abs(a) // abs(b)  # (ZeroDivisionError for b == 0: undefined in C++, the predicate fails)
    return q if (a < 0) == (b < 0) else -q


def _mod(a: int, b: int) -> int:
    return a - b * _div(a, b)


def _pow2(u: int) -> bool:
    return u != 0 and u & (u - 1) == 0


def _is_mask(u: int) -> bool:
    return u != 0 and u & (u + 1) == 0


def _is_shifted_mask(u: int) -> bool:
    return u != 0 and _is_mask((u - 1) | u)


def _isintn(n: int, x: int) -> bool:
    return n >= 64 or -(1 << (n - 1)) <= x < (1 << (n - 1))


def _isuintn(n: int, x: int) -> bool:
    return n >= 64 or x < (1 << n)


# the names the translated Python calls (its evaluation namespace)
HELPERS = {"_s": to_signed, "_div": _div, "_mod": _mod, "_pow2": _pow2, "_is_mask": _is_mask,
           "_is_shifted_mask": _is_shifted_mask, "_ctz": ctz, "_clz": clz, "_isintn": _isintn,
           "_isuintn": _isuintn, "_popcount": lambda u: bin(u).count("1")}


def _conv(e: str, frm: tuple, to: tuple) -> str:
    """Python for the value of ``e`` (of C++ type ``frm``) converted to type ``to``."""
    if to == _BOOL:
        return e if frm == _BOOL else f"({e} != 0)"
    if frm == _BOOL:
        return f"(1 if {e} else 0)"
    bits, signed = to
    fits = frm[1] == signed and frm[0] <= bits or (signed and not frm[1] and frm[0] < bits)
    if fits:
        return e
    return f"_s({e}, {bits})" if signed else f"({e} & {mask(bits)})"


def _promote(t: tuple) -> tuple:
    return _INT if t[0] < 32 else t


def _common(a: tuple, b: tuple) -> tuple:
    """The usual arithmetic conversions of two (promoted) operand types."""
    a, b = _promote(a), _promote(b)
    if a == b:
        return a
    if a[1] == b[1]:
        return a if a[0] >= b[0] else b
    u, s = (a, b) if not a[1] else (b, a)
    return u if u[0] >= s[0] else s


def _literal(tok: str) -> tuple[str, tuple]:
    m = re.fullmatch(r"([0-9a-fA-FxXbB']+?)([uUlL]*)", tok)
    digits, suffix = m.group(1).replace("'", ""), m.group(2).lower()
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", digits):
        v, decimal = int(digits, 16), False
    elif re.fullmatch(r"0[bB][01]+", digits):
        v, decimal = int(digits[2:], 2), False
    elif re.fullmatch(r"0[0-7]*", digits):
        v, decimal = int(digits, 8), False
    elif re.fullmatch(r"[1-9][0-9]*", digits):
        v, decimal = int(digits), True
    else:
        raise CppUnreadable(f"'{tok}' is not an integer literal")
    if suffix not in ("", "u", "l", "ll", "ul", "lu", "ull", "llu"):
        raise CppUnreadable(f"'{tok}' has a suffix tdgen does not read")
    unsigned_ok = "u" in suffix or not decimal
    cands = [] if "u" in suffix else [_INT, _I64]
    if "l" in suffix:
        cands = [t for t in cands if t[0] == 64]
    if unsigned_ok:
        cands += [t for t in ([_UINT, _U64] if "l" not in suffix else [_U64])]
        cands.sort(key=lambda t: (t[0], not t[1]))
    for t in cands:
        if v <= (mask(t[0] - 1) if t[1] else mask(t[0])):
            return str(v), t
    raise CppUnreadable(f"'{tok}' does not fit a 64-bit integer type")


class _CppExpr:
    """Precedence climbing over one C++ expression (see ``translate_cpp``)."""

    def __init__(self, toks: list[str], context: str | None):
        self.toks, self.at, self.ctx = toks, 0, context

    def peek(self, k: int = 0) -> str | None:
        i = self.at + k
        return self.toks[i] if i < len(self.toks) else None

    def take(self, want: str | None = None) -> str:
        t = self.peek()
        if t is None or (want is not None and t != want):
            raise CppUnreadable(f"expected '{want}', found {repr(t) if t is not None else 'the end'}")
        self.at += 1
        return t

    def expr(self) -> tuple[str, tuple]:
        return self.ternary()

    def ternary(self) -> tuple[str, tuple]:
        c, ct = self.binary(1)
        if self.peek() != "?":
            return c, ct
        self.take("?")
        a, at = self.expr()
        self.take(":")
        b, bt = self.ternary()
        t = _BOOL if at == bt == _BOOL else _common(at, bt)
        return f"({_conv(a, at, t)} if {_conv(c, ct, _BOOL)} else {_conv(b, bt, t)})", t

    def binary(self, level: int) -> tuple[str, tuple]:
        lhs, lt = self.unary()
        while True:
            op = self.peek()
            prec = _BINARY.get(op) if op is not None else None
            if prec is None or prec < level:
                return lhs, lt
            self.take()
            rhs, rt = self.binary(prec + 1)
            lhs, lt = self.apply(op, lhs, lt, rhs, rt)

    def apply(self, op: str, a: str, at: tuple, b: str, bt: tuple) -> tuple[str, tuple]:
        if op in ("&&", "||"):
            word = "and" if op == "&&" else "or"
            return f"({_conv(a, at, _BOOL)} {word} {_conv(b, bt, _BOOL)})", _BOOL
        if op in ("<<", ">>"):
            t = _promote(at)
            a, b = _conv(a, at, t), _conv(b, bt, _promote(bt))
            if op == ">>":
                return f"({a} >> {b})", t
            return _conv(f"({a} << {b})", (128, True), t), t
        t = _common(at, bt)
        a, b = _conv(a, at, t), _conv(b, bt, t)
        if op in ("==", "!=", "<", "<=", ">", ">="):
            return f"({a} {op} {b})", _BOOL
        if op in ("&", "|", "^"):
            return f"({a} {op} {b})", t
        if op == "/":
            return _conv(f"_div({a}, {b})", (128, True), t), t
        if op == "%":
            return f"_mod({a}, {b})", t
        return _conv(f"({a} {op} {b})", (128, True), t), t

    def unary(self) -> tuple[str, tuple]:
        t = self.peek()
        if t in ("-", "+", "~"):
            self.take()
            e, et = self.unary()
            pt = _promote(et)
            e = _conv(e, et, pt)
            if t == "+":
                return e, pt
            return _conv(f"({t}{e})", (128, True), pt), pt
        if t == "!":
            self.take()
            e, et = self.unary()
            return f"(not {_conv(e, et, _BOOL)})", _BOOL
        if t == "(":
            ty = self.type_name(1)
            if ty is not None:  # a C-style cast
                words, n = ty
                self.at += 1 + n
                self.take(")")
                e, et = self.unary()
                return _conv(e, et, _TYPE_WORDS[words]), _TYPE_WORDS[words]
        return self.postfix()

    def type_name(self, k: int) -> tuple[tuple, int] | None:
        """A type name starting ``k`` tokens ahead (``std::`` allowed): (words, tokens)."""
        n = 0
        if self.peek(k) == "std" and self.peek(k + 1) == "::":
            n = 2
        words: list[str] = []
        while self.peek(k + n) in _TYPE_START or (words and self.peek(k + n) in ("int", "long", "char", "short")):
            words.append(self.peek(k + n))
            n += 1
        return (tuple(words), n) if tuple(words) in _TYPE_WORDS else None

    def args(self) -> list[tuple[str, tuple]]:
        self.take("(")
        out = []
        if self.peek() != ")":
            out.append(self.expr())
            while self.peek() == ",":
                self.take(",")
                out.append(self.expr())
        self.take(")")
        return out

    def template_int(self) -> int:
        self.take("<")
        tok = self.take()
        if not re.fullmatch(r"[0-9]+[uU]?", tok):
            raise CppUnreadable(f"expected an integer template argument, found '{tok}'")
        self.take(">")
        return int(tok.rstrip("uU"))

    def postfix(self) -> tuple[str, tuple]:
        t = self.take()
        if t == "(":
            e, et = self.expr()
            self.take(")")
            return e, et
        if re.fullmatch(r"[0-9].*", t):
            return _literal(t)
        if t in ("true", "false"):
            return ("True" if t == "true" else "False"), _BOOL
        if t in ("llvm", "std") and self.peek() == "::":
            self.take("::")
            t = self.take()
        if t == "Imm":
            if self.ctx == CTX_NODE:
                raise CppUnreadable("'Imm' is declared only in ImmLeaf code (here the constant is N)")
            return "Imm", _I64
        if t == "N" and self.peek() == "->":
            if self.ctx == CTX_IMM:
                raise CppUnreadable("'N' is not declared in ImmLeaf code (the constant is Imm)")
            self.take("->")
            m = self.take()
            self.take("(")
            self.take(")")
            node = {"getSExtValue": ("Imm", _I64), "getZExtValue": ("(Imm & ((1 << bits) - 1))", _U64),
                    "isZero": ("(Imm == 0)", _BOOL), "isNullValue": ("(Imm == 0)", _BOOL),
                    "isOne": ("(Imm == 1)", _BOOL), "isAllOnes": ("(Imm == -1)", _BOOL),
                    "isAllOnesValue": ("(Imm == -1)", _BOOL), "isNegative": ("(Imm < 0)", _BOOL)}
            if m not in node:
                raise CppUnreadable(f"N->{m}() is not a ConstantSDNode method tdgen reads")
            return node[m]
        if t == "static_cast" and self.peek() == "<":
            self.take("<")
            ty = self.type_name(0)
            if ty is None:
                raise CppUnreadable(f"static_cast to '{self.peek()}'")
            self.at += ty[1]
            self.take(">")
            (e, et), = self.exactly(1, t)
            return _conv(e, et, _TYPE_WORDS[ty[0]]), _TYPE_WORDS[ty[0]]
        if t in ("isInt", "isUInt"):
            n = self.template_int()
            (e, et), = self.exactly(1, t)
            if not 1 <= n <= 64:
                raise CppUnreadable(f"{t}<{n}>")
            if t == "isInt":
                return f"_isintn({n}, {_conv(e, et, _I64)})", _BOOL
            return f"_isuintn({n}, {_conv(e, et, _U64)})", _BOOL
        if t in ("isIntN", "isUIntN"):
            (n, nt), (e, et) = self.exactly(2, t)
            fn, vt = ("_isintn", _I64) if t == "isIntN" else ("_isuintn", _U64)
            return f"{fn}({_conv(n, nt, _UINT)}, {_conv(e, et, vt)})", _BOOL
        m = re.fullmatch(r"(isPowerOf2|isMask|isShiftedMask)_(32|64)", t)
        if m:
            (e, et), = self.exactly(1, t)
            fn = {"isPowerOf2": "_pow2", "isMask": "_is_mask", "isShiftedMask": "_is_shifted_mask"}[m.group(1)]
            return f"{fn}({_conv(e, et, (int(m.group(2)), False))})", _BOOL
        if t in ("countr_zero", "countl_zero", "popcount"):
            (e, et), = self.exactly(1, t)
            if et[1] or et == _BOOL:
                raise CppUnreadable(f"{t} takes an unsigned value, found a signed one")
            bits = et[0]
            if t == "popcount":
                return f"_popcount({e})", _INT
            return f"{'_ctz' if t == 'countr_zero' else '_clz'}({e}, {bits})", _INT
        raise CppUnreadable(f"'{t}' is not something tdgen reads here")

    def exactly(self, n: int, name: str) -> list[tuple[str, tuple]]:
        got = self.args()
        if len(got) != n:
            raise CppUnreadable(f"{name} takes {n} argument(s), found {len(got)}")
        return got


def translate_cpp(code: str, context: str | None = None) -> tuple[str, tuple]:
    """The one expression of ``return <expr>;`` as (fully parenthesized Python over
    ``Imm`` -- the constant sign-extended to int64 -- and ``bits`` -- its width --, its
    C++ type). ``context``: ``"imm"`` (ImmLeaf code: ``Imm`` only), ``"node"`` (code on
    the ConstantSDNode ``N``: ``N->getSExtValue()``, ``N->getZExtValue()`` at the node's
    width, ``N->isZero()`` ...), None (both). Raises ``CppUnreadable``."""
    toks = _tokens(code)
    if toks[:1] != ["return"]:
        raise CppUnreadable("the code is not one 'return <expression>;'")
    p = _CppExpr(toks, context)
    p.take("return")
    e = p.expr()
    p.take(";")
    if p.peek() is not None:
        raise CppUnreadable(f"'{p.peek()}' after the return statement")
    return e


def _build(py: str, args: str):
    return eval(f"lambda {args}: {py}", {"__builtins__": {}, **HELPERS})  # noqa: S307 - our own emitted code


def compile_imm_code(code: str, context: str | None = None) -> Callable[[int, int], bool] | None:
    """Translate immediate predicate code to ``fn(Imm, bits) -> bool``: ``Imm`` is the
    constant as getSExtValue gives it (sign-extended to int64), ``bits`` its width (for
    getZExtValue). ``context`` as for ``translate_cpp`` (``"imm"`` for an ImmLeaf,
    ``"node"`` for a PatLeaf over ``imm``). None when the code is not executable
    (``imm_code_problem`` says why); a predicate whose evaluation fails at run time
    (division by zero, a negative shift: undefined in C++) is false."""
    try:
        py, t = translate_cpp(code, context)
        fn = _build(_conv(py, t, _BOOL), "Imm, bits")
        fn(0, 32)
    except (CppUnreadable, SyntaxError):
        return None
    except (ArithmeticError, ValueError):
        pass

    def guarded(imm: int, bits: int) -> bool:
        try:
            return bool(fn(imm, bits))
        except (ArithmeticError, ValueError):
            return False

    return guarded


def imm_code_problem(code: str, context: str | None = None) -> str | None:
    """Why ``compile_imm_code`` cannot execute ``code`` (None when it can)."""
    try:
        translate_cpp(code, context)
    except CppUnreadable as e:
        return str(e)
    return None


_MVT = re.compile(r"MVT\s*::\s*(i\d+)")


_XFORM_FORM = "return CurDAG->get[Target]Constant(<expr>, SDLoc(N), MVT::iN);"


def _parse_xform(code: str):
    """(Python over Imm/bits for <expr> converted to uint64_t, the MVT or None for
    ``N->getValueType(0)``) of xform code in the one form tdgen reads; CppUnreadable."""
    toks = _tokens(code)
    if toks[:3] != ["return", "CurDAG", "->"] or toks[3:4] not in (["getTargetConstant"], ["getConstant"]) \
            or toks[4:5] != ["("]:
        raise CppUnreadable(f"the code is not '{_XFORM_FORM}'")
    depth, parts, cur, rest = 0, [], [], None
    for i, t in enumerate(toks[5:], 5):  # the call's arguments, split at top-level commas
        if t == ")" and depth == 0:
            rest = toks[i + 1:]
            break
        depth += (t == "(") - (t == ")")
        if t == "," and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    parts.append(cur)
    if rest != [";"] or len(parts) != 3:
        raise CppUnreadable(f"the code is not '{_XFORM_FORM}'")
    if parts[1] != ["SDLoc", "(", "N", ")"]:
        raise CppUnreadable(f"the location is '{' '.join(parts[1])}', not SDLoc(N)")
    vt_toks = parts[2]
    if vt_toks == ["N", "->", "getValueType", "(", "0", ")"]:
        out_vt = None
    elif len(vt_toks) == 3 and vt_toks[:2] == ["MVT", "::"] and re.fullmatch(r"i[1-9]\d*", vt_toks[2]):
        out_vt = vt_toks[2]
    else:
        raise CppUnreadable(f"the type is '{''.join(vt_toks)}', not MVT::iN or N->getValueType(0)")
    p = _CppExpr(parts[0] + [";"], CTX_NODE)
    py, t = p.expr()
    p.take(";")
    return _conv(py, t, _U64), out_vt  # (getConstant takes a uint64_t)


def xform_code_problem(code: str) -> str | None:
    """Why ``compile_xform_code`` cannot execute ``code`` (None when it can)."""
    try:
        _parse_xform(code)
    except CppUnreadable as e:
        return str(e)
    return None


def compile_xform_code(code: str) -> Callable[[int, str], tuple[int, str]] | None:
    """Translate SDNodeXForm code of the form
    ``return CurDAG->get[Target]Constant(<expr>, SDLoc(N), MVT::iN | N->getValueType(0));``
    to ``fn(value, vt) -> (new value, new vt)`` (the value sign-normalized at the new
    type's width, as constants are kept). None for any other code."""
    try:
        py, out_vt = _parse_xform(code)
        fn = _build(py, "Imm, bits")
    except (CppUnreadable, SyntaxError):
        return None

    def xform(value: int, vt: str) -> tuple[int, str]:
        bits = int(vt[1:]) if vt[:1] == "i" and vt[1:].isdigit() else 64
        res_vt = out_vt or vt
        return to_signed(fn(value, bits), int(res_vt[1:]) if res_vt[1:].isdigit() else 64), res_vt

    return xform



# ------------------------------------------------------------- C++ syntax check

_CPP_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<open_comment>/\*)
  | (?P<str>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*")
  | (?P<open_str>(?:u8|[uUL])?")
  | (?P<chr>(?:u8|[uUL])?'(?:[^'\\\n]|\\.)+')
  | (?P<open_chr>')
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.']|'[0-9A-Za-z])*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>>>=|<<=|->\*|\.\.\.|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\.\*|\#\#
        |[{}\[\]()<>;:,.?+\-*/%^&|~!=\#])
""", re.X | re.S)

# operators that need an operand on their right (never a declarator or template bracket)
_NEEDS_RIGHT = frozenset("/ % ^ | || && == != <= >= << >> = += -= *= /= %= &= |= ^= <<= >>= ? : -> . ::".split())
_CLOSERS = {")": "(", "]": "[", "}": "{"}
# punctuators a statement may end with before its ';'
_ENDS_OPERAND = frozenset((")", "]", "}", "++", "--", ";", "{"))


def cpp_syntax_problem(code: str) -> str | None:
    """None when predicate / transform C++ passes tdgen's syntax check, else why not.

    The check is lexical and structural, the mistakes that keep C++ from compiling
    whatever it means: every character is part of a C++ token (identifiers, numbers,
    string and character literals, comments, punctuators), literals and comments are
    closed, brackets ``()``, ``[]``, ``{}`` nest and close, no ``;`` inside an open
    ``(`` or ``[`` (except a ``for (;;)`` header), no operator left without its right operand
    (before ``)``, ``]``, ``}``, ``,`` or ``;``), and the code ends with ``;`` or ``}``.
    (tdgen does not check names or types: llvm-tblgen and the C++ compiler see those.)"""
    toks: list[tuple[str, str, int]] = []
    at = 0
    while at < len(code):
        m = _CPP_TOKEN.match(code, at)
        if m is None:
            return f"'{code[at]}' at offset {at}, which is no C++ token"
        kind = m.lastgroup or ""
        if kind == "open_comment":
            return f"a '/*' comment at offset {at} that is not closed"
        if kind == "open_str":
            return f"a string literal at offset {at} that is not closed"
        if kind == "open_chr":
            return f"a character literal at offset {at} that is not closed"
        if kind not in ("ws", "comment"):
            toks.append((kind, m.group(), at))
        at = m.end()
    if not toks:
        return None
    stack: list[tuple[str, int, bool]] = []  # bracket, offset, is a for-header
    prev: tuple[str, str, int] | None = None
    for kind, text, pos in toks:
        if kind == "op":
            if text in ("(", "[", "{"):
                stack.append((text, pos, text == "(" and prev is not None and prev[1] == "for"))
            elif text in _CLOSERS:
                if not stack or stack[-1][0] != _CLOSERS[text]:
                    return f"'{text}' at offset {pos} that closes nothing open"
                stack.pop()
            elif text == ";" and stack and stack[-1][0] in "([" and not stack[-1][2]:
                return f"';' at offset {pos} inside the '{stack[-1][0]}' opened at offset {stack[-1][1]}"
            if prev is not None and prev[0] == "op" and (
                    (prev[1] in _NEEDS_RIGHT and text in (")", "]", "}", ",", ";"))
                    or (text == ";" and prev[1] not in _ENDS_OPERAND)
                    or (text == ")" and prev[1] in ("+", "-", "!", "~", "<"))):
                return f"'{prev[1]}' at offset {prev[2]} without an operand after it"
        prev = (kind, text, pos)
    if stack:
        return f"the '{stack[-1][0]}' opened at offset {stack[-1][1]} is not closed"
    if prev is not None and prev[1] not in (";", "}"):
        return f"'{prev[1]}' at the end (a statement ends with ';' or '}}')"
    return None

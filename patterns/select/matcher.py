"""Matcher-table compiler: a target's selection patterns as sorted check chains, switched on opcode.

Built once per target (cached in memory by target identity), in the manner of LLVM's
DAGISelEmitter:

1. Each ``SelectionPattern`` source DAG is resolved into a pattern tree (``PNode``):
   PatFrags are inlined (their predicate -- divergence predicates included -- attaches to
   the fragment's root), operators become ISD/target opcodes, leaves become typed
   operands, immediates or integer constants. Commutative operators with a non-leaf
   child also get their commuted variant, as TableGen's GenerateVariants does.
2. Complexity is LLVM's ``getPatternSize`` + ``AddedComplexity``: 3 per node, +2 for a
   constant root, +1 for a node with a predicate, +5 for an integer child, +1 for a leaf
   child with a predicate; patterns are stable-sorted by (vector result, FP result,
   -complexity, result instruction count, result CodeSize, source order with every
   commuted variant after the patterns as written) -- the PatternSortingPredicate order
   (the variants' IDs are the last ones TableGen hands out).
3. Each pattern is lowered to a flat chain of checks (``child``, ``opcode``, ``type``,
   ``predicate``, ``integer``, ``same-as``), each with a text used by ``explain``.
4. The chains are grouped into a table keyed by the root opcode (LLVM's SwitchOpcode), so
   matching a node only tries the patterns rooted at its opcode, in complexity order.
   Each group is compiled (on first use) into one Python function: a switch on the root
   type when its patterns check different ones (SwitchType), then the chains with the
   checks that consecutive patterns share tested once (FactorNodes' scopes). The
   selector (patterns.select.isel) compiles the same code with each pattern's result DAG
   written in where it matches. Compiled code is kept per process by source text
   (``compile_source``) and can come from the on-disk target cache (``store_code``).

Predicates are executable: divergence predicates test ``SDNode.divergent``; immediate
predicates -- an ``ImmLeaf``'s code over ``Imm`` (kind ``imm``), a ``PatLeaf``'s over the
ConstantSDNode ``N`` (kind ``nodeimm``) -- are translated from C++ (``translate_cpp``: one
``return`` expression with C++'s integer semantics) and evaluated on the constant;
``hasOneUse`` predicates use the node's use count; and a small registry covers named target
predicates (``register_predicate``). SDNodeXForms in result DAGs run the same way
(``apply_xform``: their code translated, or their Python ``model``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from tdgen.errors import Diagnostics

__all__ = ["PNode", "CompiledPattern", "MatcherTable", "build_table", "register_predicate",
           "pattern_size", "Predicate", "translate_cpp", "compile_imm_code", "compile_xform_code",
           "apply_xform"]


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


_EXTRA_PREDICATES: dict[str, Callable] = {}


def register_predicate(name: str, fn: Callable) -> None:
    """Give the PatFrag ``name`` an executable predicate ``fn(sdnode, bound_children) -> bool``."""
    _EXTRA_PREDICATES[name] = fn


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


# ---------------------------------------------------------------------------------------
# Immediate code (a C++ subset) -> Python
#
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


_CTX_IMM, _CTX_NODE = "imm", "node"  # ImmediateCode (Imm) / PredicateCode or XFormFunction (N)

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


def _mask(bits: int) -> int:
    return (1 << bits) - 1


def _s(x: int, bits: int) -> int:
    """``x`` as a signed ``bits``-bit value (two's complement wrap-around)."""
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


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


def _ctz(u: int, bits: int) -> int:
    return bits if u == 0 else (u & -u).bit_length() - 1


def _clz(u: int, bits: int) -> int:
    return bits - u.bit_length()


def _isintn(n: int, x: int) -> bool:
    return n >= 64 or -(1 << (n - 1)) <= x < (1 << (n - 1))


def _isuintn(n: int, x: int) -> bool:
    return n >= 64 or x < (1 << n)


_HELPERS = {"_s": _s, "_div": _div, "_mod": _mod, "_pow2": _pow2, "_is_mask": _is_mask,
            "_is_shifted_mask": _is_shifted_mask, "_ctz": _ctz, "_clz": _clz, "_isintn": _isintn,
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
    return f"_s({e}, {bits})" if signed else f"({e} & {_mask(bits)})"


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
        if v <= (_mask(t[0] - 1) if t[1] else _mask(t[0])):
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
            if self.ctx == _CTX_NODE:
                raise CppUnreadable("'Imm' is declared only in ImmLeaf code (here the constant is N)")
            return "Imm", _I64
        if t == "N" and self.peek() == "->":
            if self.ctx == _CTX_IMM:
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
    return eval(f"lambda {args}: {py}", {"__builtins__": {}, **_HELPERS})  # noqa: S307 - our own emitted code


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
    p = _CppExpr(parts[0] + [";"], _CTX_NODE)
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
        return _s(fn(value, bits), int(res_vt[1:]) if res_vt[1:].isdigit() else 64), res_vt

    return xform


class XformConstant:
    """What an SDNodeXForm model returns: ``cur.target_constant(value, vt)`` /
    ``cur.constant(value, vt)`` (an immediate operand either way)."""

    __slots__ = ("value", "vt")

    def __init__(self, value: int, vt: str = "i32"):
        self.value, self.vt = value, vt


class _XformCur:
    """The ``cur`` (CurDAG) an SDNodeXForm model is given."""

    @staticmethod
    def target_constant(value: int, vt: str = "i32") -> XformConstant:
        return XformConstant(value, vt)

    constant = target_constant


_XFORM_FNS: dict[tuple, Callable] = {}


def _bits_of(vt) -> int:
    return int(vt[1:]) if isinstance(vt, str) and vt[:1] == "i" and vt[1:].isdigit() else 64


def _xform_error(spec: tuple, want: str, found: str):
    from tdgen.errors import Span, SpecError, expected

    name, _node, _code, model, where = spec
    return SpecError(Span(*where) if where else None, expected(want, found), record=name,
                     field="model" if model is not None else "code")


def _xform_fn(spec: tuple) -> Callable:
    """``fn(node) -> int`` for an SDNodeXForm ``spec`` (name, node, code, model, (path,
    line, col) of the record): its ``model``'s ``transform(N, cur)``, else its code
    translated (``compile_xform_code``); tdgen.check makes sure one of them exists."""
    fn = _XFORM_FNS.get(spec)
    if fn is not None:
        return fn
    name, _node, code, model, _span = spec
    if model is not None:
        ns: dict = {}
        exec(compile(model, f"<{name}.model>", "exec"), ns)  # noqa: S102 - the spec's own model source
        transform = ns["transform"]

        def fn(n):
            try:
                res = transform(n, _XformCur)
            except Exception as e:  # noqa: BLE001 - a bug in the spec's model, reported at its record
                raise _xform_error(spec, "a model that runs", f"{type(e).__name__}: {e}") from None
            if isinstance(res, XformConstant):
                return _s(int(res.value), _bits_of(res.vt))
            if isinstance(res, int) and not isinstance(res, bool):
                return _s(res, _bits_of(n.vt))
            raise _xform_error(spec, "cur.target_constant(value, vt) from transform", repr(res))
    else:
        translated = compile_xform_code(code)
        if translated is None:  # (tdgen.check reports such a record; a model is required)
            raise _xform_error(spec, "code tdgen executes or a model", "neither")

        def fn(n):
            try:
                return translated(n.value, n.vt)[0]
            except (ArithmeticError, ValueError) as e:
                raise _xform_error(spec, f"a transform defined for the constant {n.value}",
                                   f"{type(e).__name__}: {e}") from None
    _XFORM_FNS[spec] = fn
    return fn


def apply_xform(spec: tuple, n) -> int:
    """The immediate SDNodeXForm ``spec`` makes of the matched constant node ``n`` (its
    value sign-normalized at the result type's width, as MIR prints an immediate).
    ``spec`` is a plain literal (name, node, code, model, (path, line, col) of the
    record), so selector code can carry it (patterns.select.isel)."""
    fn = _XFORM_FNS.get(spec)
    if fn is None:
        fn = _xform_fn(spec)
    if n.opcode not in _CONSTANT_OPCODES or n.value.__class__ is not int:
        raise _xform_error(spec, f"a constant operand ({spec[0]} takes '{spec[1]}' nodes)", n.opcode)
    return fn(n)


# ---------------------------------------------------------------------------------------
# Check chains


def _lower(src: PNode) -> tuple:
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


@dataclass
class MatchResult:
    pattern: CompiledPattern
    slots: list
    bindings: dict


class MatcherTable:
    """Patterns grouped by root opcode, each group in LLVM's sort order."""

    def __init__(self, patterns: list[CompiledPattern]):
        self.patterns = patterns
        self.by_opcode: dict[str, list[CompiledPattern]] = {}
        for p in patterns:
            self.by_opcode.setdefault(p.root_opcode, []).append(p)
        self._bindings = {id(p): _lower(p.src)[1] for p in patterns}
        self._compiled: dict[str, Callable | None] = {}
        self._emit_caches: dict[int, tuple] = {}

    def __getstate__(self):
        return {"patterns": self.patterns, "bindings": [self._bindings[id(p)] for p in self.patterns]}

    def __setstate__(self, state):
        pats = state["patterns"]
        bindings = state.get("bindings")
        if bindings is None or len(bindings) != len(pats):
            self.__init__(pats)
            return
        self.patterns = pats
        self.by_opcode = {}
        for p in pats:
            self.by_opcode.setdefault(p.root_opcode, []).append(p)
        self._bindings = {id(p): b for p, b in zip(pats, bindings)}
        self._compiled = {}
        self._emit_caches = {}

    def candidates(self, opcode: str) -> list[CompiledPattern]:
        return self.by_opcode.get(opcode, [])

    def run(self, p: CompiledPattern, node, slots=None) -> tuple[bool, int, list]:
        """Run ``p``'s checks on ``node``: (matched, index of first failing check, slots)."""
        if slots is None:
            slots = [None] * 17
        slots[0] = node
        for i, chk in enumerate(p.checks):
            k = chk[0]
            n = slots[chk[1]]
            if k == "child":
                ops = n.ops
                if chk[2] >= len(ops):
                    return False, i, slots
                if chk[3] >= len(slots):
                    slots.extend([None] * 16)
                slots[chk[3]] = ops[chk[2]]
            elif k == "opcode":
                if n.opcode != chk[2]:
                    return False, i, slots
            elif k == "type":
                if n.vt != chk[2]:
                    return False, i, slots
            elif k == "int":
                if n.value != chk[2] or n.opcode not in ("ISD::Constant", "ISD::TargetConstant"):
                    return False, i, slots
            elif k == "pred":
                if not eval_predicate(chk[2], n):
                    return False, i, slots
            elif k == "same":
                if slots[chk[2]] is not n:
                    return False, i, slots
            elif k == "predops":
                if not eval_predicate(chk[2], n, [slots[s] if s >= 0 else None for s in chk[4]]):
                    return False, i, slots
        return True, len(p.checks), slots

    def match(self, node) -> MatchResult | None:
        """The first pattern (in table order) whose checks all pass on ``node``."""
        fn = self.matcher_for(node.opcode)
        if fn is None:
            return None
        hit = fn(node)
        if hit is None:
            return None
        p, env = hit
        b = self._bindings[id(p)]
        slots = [None] * (max(b.values(), default=0) + 1)
        slots[0] = node
        for name, s in b.items():
            slots[s] = env[name]
        return MatchResult(p, slots, b)

    def matcher_for(self, opcode: str):
        """The compiled matcher of the patterns rooted at ``opcode``, or None when there are
        none: ``fn(node) -> (pattern, {bound name: node}) | None``. Compiled on first use
        (only the opcodes a DAG contains are ever compiled)."""
        fn = self._compiled.get(opcode, _UNCOMPILED)
        if fn is _UNCOMPILED:
            pats = self.by_opcode.get(opcode)
            fn = _compile_switch(pats, self._bindings) if pats else None
            self._compiled[opcode] = fn
        return fn

    def bindings(self, p: CompiledPattern) -> dict:
        return self._bindings[id(p)]

    def emit_cache(self, target) -> tuple[dict, dict]:
        """Two dictionaries the selector (patterns.select.isel) keeps its compiled result plans
        and emitters in, keyed by ``id`` of this table's patterns, for ``target``: shared by
        every function selected with this table, so each is compiled once per process."""
        hit = self._emit_caches.get(id(target))
        if hit is None or hit[0] is not target:
            hit = self._emit_caches[id(target)] = (target, {}, {})
        return hit[1], hit[2]


_UNCOMPILED = object()


def _root_type(p: CompiledPattern) -> str | None:
    for chk in p.checks:
        if chk[0] == "type" and chk[1] == 0:
            return chk[2]
    return None


# Compiled code by source text. A target's selectors can also come precompiled from the
# on-disk target cache (patterns.select.isel.IselBundle): ``store_code`` makes them available by
# a digest of the source they were compiled from, so a process that generates the same
# source only unmarshals the stored code object; any other source is compiled.
_CODE: dict = {}  # (source text, file name) -> code object
_STORED: dict = {}  # digest of (source text, file name) -> marshalled code object
_RECORDING: list = []  # while recorded_sources() runs: the list it fills


def _digest(text: str, filename: str) -> bytes:
    from tdgen.target_cache import _hasher

    return _hasher(f"{filename}\0{text}".encode(), digest_size=20).digest()


def compile_source(text: str, filename: str):
    """``compile(text, filename, "exec")``, once per process, and from the stored code
    (``store_code``) when it holds this exact source."""
    key = (text, filename)
    code = _CODE.get(key)
    if code is None:
        if _STORED:
            blob = _STORED.get(_digest(text, filename))
            if blob is not None:
                import marshal

                try:
                    code = marshal.loads(blob)
                except Exception:  # noqa: BLE001 - a bad entry is only a miss
                    code = None
        if code is None:
            code = compile(text, filename, "exec")
        _CODE[key] = code
    if _RECORDING:
        _RECORDING[-1].append((_digest(text, filename), code))
    return code


def store_code(entries: dict) -> None:
    """Make precompiled code objects (digest -> marshalled code, as ``recorded_sources``
    lists them) available to ``compile_source``."""
    _STORED.update(entries)


class recorded_sources:
    """``with recorded_sources() as made:`` -- ``made`` lists (digest, code object) of
    every source ``compile_source`` is asked for inside the block."""

    def __enter__(self) -> list:
        made: list = []
        _RECORDING.append(made)
        return made

    def __exit__(self, *exc) -> None:
        _RECORDING.pop()


def _compile_switch(pats: list[CompiledPattern], bindings: dict, hit=None) -> Callable:
    """The matcher of one root opcode. When its patterns check different root types, a
    switch on the node's type comes first (LLVM's SwitchType after SwitchOpcode): each
    type gets the patterns checking that type or none, in table order, so a node only
    tries the patterns that can match its type. ``hit``: see ``_compile_group``."""
    types = sorted({t for t in map(_root_type, pats) if t is not None})
    if len(types) <= 1:
        return _compile_group(pats, bindings, hit)
    untyped = [p for p in pats if _root_type(p) is None]
    by_vt = {t: _compile_group([p for p in pats if _root_type(p) in (t, None)], bindings, hit) for t in types}
    get = by_vt.get
    if hit is None:
        other = _compile_group(untyped, bindings) if untyped else (lambda _n: None)

        def switch(n0):
            return get(n0.vt, other)(n0)
    else:
        other = _compile_group(untyped, bindings, hit) if untyped else (lambda _n, _s, _o: False)

        def switch(n0, sel, out):  # (the selector form, see _compile_group)
            return get(n0.vt, other)(n0, sel, out)

    return switch


def _compile_group(pats: list[CompiledPattern], bindings: dict, hit=None) -> Callable:
    """One Python function trying ``pats`` in order. Each pattern's check chain becomes a
    sequence of tests on local variables (``n<slot>``, assigned as children are loaded),
    so a failing check costs one comparison and no call or allocation; a node's operand
    list is read once (the root's ``ops0_`` first, another node's into ``ops<slot>`` when
    its first child is loaded). As
    DAGISelEmitter's FactorNodes does, consecutive patterns that start with the same
    checks share them: the common checks are tested once, in an ``if`` whose body tries
    those patterns' remaining checks in order, and a pattern's own tail is one ``and``
    chain. Falling out of a shared block continues with the next pattern, so the first
    pattern (in table order) whose checks all pass is returned, as before factoring.
    Checks that are not simple attribute tests (immediate code, named and operand
    predicates) call ``eval_predicate`` -- the same code ``run`` uses, so the two agree by
    construction; ``tests/test_matcher_tblgen`` compares them on every node of a
    generated kernel.

    Without ``hit``: ``fn(n0) -> (pattern, {bound name: node}) | None``. With ``hit``, the
    selector form ``fn(n0, sel, out) -> bool``: ``hit(k, p, slots, ns)`` gives the source
    lines run when pattern ``p`` (the ``k``-th) matches, with its bound names' slots
    (``n<slot>`` variables) -- they end in a ``return`` -- and may add names to ``ns``;
    no pattern matching returns False."""
    ns: dict = {"_ev": eval_predicate, "_CONST": ("ISD::Constant", "ISD::TargetConstant")}
    preds: dict = {}  # id(predicate) -> its name in ``ns`` (equal checks must read equal)

    def pred_name(pr) -> str:
        name = preds.get(id(pr))
        if name is None:
            name = preds[id(pr)] = f"R{len(preds)}"
            ns[name] = pr
        return name

    # per pattern: its checks as ("c", condition) / ("a", variable, expression), the
    # lines run on a match, and the opcodes it requires of the root's operands as
    # (position of that check in the items, operand index, opcode)
    chains = []
    for k, p in enumerate(pats):
        items: list = []
        root_operand: dict = {}  # slot -> the root operand it was loaded from
        needs: list = []
        with_ops: set = set()  # the slots whose operand list is in a local (``ops<slot>``)
        for chk in p.checks:
            kind = chk[0]
            n = f"n{chk[1]}"
            if kind == "child":
                # (a node's operand list read once: ``ops0_`` for the root, else loaded
                # into ``ops<slot>`` before its first child is checked)
                if chk[1] == 0:
                    root_operand[chk[3]] = chk[2]
                    ops = "ops0_"
                else:
                    ops = f"ops{chk[1]}"
                    if chk[1] not in with_ops:
                        with_ops.add(chk[1])
                        items.append(("a", ops, f"{n}.ops"))
                items.append(("c", f"len({ops}) > {chk[2]}"))
                items.append(("a", f"n{chk[3]}", f"{ops}[{chk[2]}]"))
            elif kind == "opcode":
                i = root_operand.get(chk[1])
                if i is not None:
                    needs.append((len(items), i, chk[2]))
                items.append(("c", f"{n}.opcode == {chk[2]!r}"))
            elif kind == "type":
                items.append(("c", f"{n}.vt == {chk[2]!r}"))
            elif kind == "int":
                items.append(("c", f"{n}.value == {chk[2]!r} and {n}.opcode in _CONST"))
            elif kind == "same":
                items.append(("c", f"n{chk[2]} is {n}"))
            elif kind == "pred":
                pr = chk[2]
                if pr.kind == "uniform":
                    items.append(("c", f"not {n}.divergent"))
                elif pr.kind == "divergent":
                    items.append(("c", f"{n}.divergent"))
                elif pr.kind == "oneuse":
                    items.append(("c", f"{n}.uses == 1"))
                else:
                    items.append(("c", f"_ev({pred_name(pr)}, {n})"))
            elif kind == "predops":
                args = ", ".join(f"n{s}" if s >= 0 else "None" for s in chk[4])
                items.append(("c", f"_ev({pred_name(chk[2])}, {n}, ({args},))"))
            else:  # pragma: no cover - _lower makes no other kind
                raise AssertionError(kind)
        if hit is None:
            ns[f"P{k}"] = p
            env = ", ".join(f"{name!r}: n{s}" for name, s in sorted(bindings[id(p)].items()))
            chains.append((items, [f"return P{k}, {{{env}}}"], needs))
        else:
            chains.append((items, hit(k, p, bindings[id(p)], ns), needs))

    body: list = []
    used: set = set()  # the root operands whose opcode a precheck reads
    _emit_factored(chains, 0, "    ", body, used)
    lines = ["def _match(n0):" if hit is None else "def _match(n0, sel, out):", "    ops0_ = n0.ops"]
    if used:
        # the opcodes of the root's operands, read once (None: no such operand)
        lines += [f"    oc{i} = ops0_[{i}].opcode if len(ops0_) > {i} else None" for i in sorted(used)]
    lines += body
    lines.append("    return None" if hit is None else "    return False")
    exec(compile_source("\n".join(lines), "<matcher>"), ns)  # noqa: S102 - generated from the table
    return ns["_match"]


def _chain_tail(items, at: int, needs=(), used: set | None = None) -> str:
    """The checks of one pattern from ``at`` on as one condition (an SDNode operand is
    never None: ``is not None`` only makes the assignment an expression). ``needs``: the
    opcodes the pattern requires of the root's operands (see ``_compile_group``); one
    checked after the first of these checks is also tested first, on the opcode read
    once per node (``oc<i>``, its operand index added to ``used``): a pattern that
    cannot match fails on one comparison. (Checks have no effect but their answer and
    the local variables they bind, so testing a necessary condition early changes
    nothing else.)"""
    pre = []
    if used is not None:
        for pos, i, op in needs:
            if pos > at:
                pre.append(f"(oc{i} == {op!r})")
                used.add(i)
    return " and ".join(pre + [f"({it[1]})" if it[0] == "c" else f"(({it[1]} := {it[2]}) is not None)"
                               for it in items[at:]])


def _emit_factored(group: list, at: int, indent: str, lines: list, used: set | None = None) -> None:
    """Source lines trying ``group`` -- consecutive (checks, lines ending in a return,
    opcodes required of the root's operands) whose first ``at`` checks are the same
    and already done -- in order: a run of patterns that share their next check tests
    it once (an assignment is just made), the rest of a lone pattern is one ``and``
    chain (see ``_chain_tail``; ``used`` collects the root operands it prechecks). (A
    module function, not a closure that calls itself, so compiling leaves no reference
    cycle behind.)"""
    i = 0
    while i < len(group):
        items, ret = group[i][0], group[i][1]
        if at >= len(items):
            lines.extend(indent + r for r in ret)
            return  # the patterns after it can never be reached
        head = items[at]
        j = i + 1
        while j < len(group) and len(group[j][0]) > at and group[j][0][at] == head:
            j += 1
        if j - i == 1 or len(indent) > 160:  # (nesting kept well within Python's limits)
            for q in group[i:j]:
                lines.append(f"{indent}if {_chain_tail(q[0], at, q[2] if len(q) > 2 else (), used)}:")
                lines.extend(f"{indent}    {r}" for r in q[1])
        elif head[0] == "a":
            lines.append(f"{indent}{head[1]} = {head[2]}")
            _emit_factored(group[i:j], at + 1, indent, lines, used)
        else:
            lines.append(f"{indent}if {head[1]}:")
            _emit_factored(group[i:j], at + 1, indent + "    ", lines, used)
        i = j


# i32 values the GFX9 VALU encodes inline (no constant-bus use): -16..64 and the bit
# patterns of +-0.5, +-1.0, +-2.0, +-4.0 and 1/(2*pi).
_INLINE_FP32 = frozenset({0x3F000000, 0xBF000000, 0x3F800000, 0xBF800000, 0x40000000, 0xC0000000,
                          0x40800000, 0xC0800000, 0x3E22F983})


def is_inline_immediate(n) -> bool:
    if n.opcode != "ISD::Constant" or not isinstance(n.value, int):
        return False
    return -16 <= n.value <= 64 or (n.value & 0xFFFFFFFF) in _INLINE_FP32


CONSTANT_BUS_LIMIT = 1  # gfx900 VOP3


def eval_predicate(pr: Predicate, n, operands=None) -> bool:
    k = pr.kind
    if k == "bus":
        if not n.divergent:
            return False
        scalar = sum(1 for o in operands or () if o is not None and not o.divergent and not is_inline_immediate(o))
        return scalar <= CONSTANT_BUS_LIMIT
    if k == "uniform":
        return not n.divergent
    if k == "divergent":
        return n.divergent
    if k == "oneuse":
        return n.uses == 1
    if k == "imm" or k == "nodeimm":
        return imm_predicate_holds(pr, n)
    if k == "named":
        fn = _EXTRA_PREDICATES.get(pr.name)
        return bool(fn(n)) if fn else False
    return False


_IMM_FNS: dict[tuple[str, str], Callable] = {}
_CONSTANT_OPCODES = ("ISD::Constant", "ISD::TargetConstant")


def imm_context(pr: Predicate) -> str:
    """The C++ context of an immediate predicate's code: ``"imm"`` (an ImmLeaf's
    ImmediateCode, reading ``Imm``) or ``"node"`` (a PatLeaf's PredicateCode on the
    ConstantSDNode ``N``)."""
    return _CTX_IMM if pr.kind == "imm" else _CTX_NODE


def imm_predicate_holds(pr: Predicate, n) -> bool:
    """An immediate predicate on node ``n`` (a Constant or TargetConstant; anything
    else fails). Code the model cannot read never matches (tdgen lint reports it)."""
    key = (pr.code, pr.kind)
    fn = _IMM_FNS.get(key)
    if fn is None:
        fn = _IMM_FNS[key] = compile_imm_code(pr.code, imm_context(pr)) or (lambda _v, _b: False)
    if n.opcode not in _CONSTANT_OPCODES or n.value.__class__ is not int:
        return False
    vt = n.vt
    return fn(n.value, int(vt[1:]) if vt[:1] == "i" and vt[1:].isdigit() else 64)


# ---------------------------------------------------------------------------------------
# Building from a target


_CACHE: dict[int, tuple[object, MatcherTable]] = {}


def build_table(target, *, multiply: int = 1, same_root: bool = False) -> MatcherTable:
    """The target's matcher table (built once per target object and cached);
    ``multiply``/``same_root`` make the enlarged tables of bench/isel.py (``_multiply``)."""
    key = (id(target), multiply, same_root)
    hit = _CACHE.get(key)  # type: ignore[arg-type]
    if hit is not None and hit[0] is target:
        return hit[1]
    full = getattr(type(target), "full_target", None)
    if full is not None:  # a patterns.select.isel.IselView: the patterns are read from its target
        table = build_table(full(target), multiply=multiply, same_root=same_root)
        _CACHE[key] = (target, table)  # type: ignore[index]
        return table
    from patterns.select.patsrc import resolve_patterns

    diags = Diagnostics()
    pats = resolve_patterns(target, diags)
    diags.check()
    if multiply > 1:
        pats = _multiply(pats, multiply, same_root)
    table = MatcherTable(sort_patterns(pats))
    _CACHE[key] = (target, table)  # type: ignore[index]
    return table


def adopt_table(target, table: MatcherTable) -> None:
    """Make ``table`` (e.g. unpickled from the on-disk cache) what ``build_table(target)``
    returns for this target object, so later callers do not rebuild it."""
    _CACHE[(id(target), 1, False)] = (target, table)  # type: ignore[index]


def sort_patterns(pats: list[CompiledPattern]) -> list[CompiledPattern]:
    def key(p: CompiledPattern):
        vt = p.result_vt or ""
        is_vec = vt.startswith("v")
        is_fp = vt.startswith(("f", "bf")) or (is_vec and "f" in vt[1:])
        # the last tie-break is the PatternToMatch's ID: GenerateVariants appends the
        # commuted variants after every pattern as written, so at equal complexity all
        # patterns as written come first (source order), then the variants
        return (is_vec, is_fp, -p.complexity, p.dst_cost, p.dst_size, p.variant != 0, p.order, p.variant)

    out = sorted(pats, key=key)
    for i, p in enumerate(out):
        p.index = i
    return out


def _multiply(pats: list[CompiledPattern], k: int, same_root: bool = False) -> list[CompiledPattern]:
    """``k`` copies of the pattern set that never match real nodes -- only the table grows.

    Default: copies 1..k-1 are rooted at fresh opcodes (``<opcode>#copyN``), a target with
    10x the opcodes. ``same_root``: the copies keep their root opcode but check a type no
    node has right after it, a target with 10x the patterns per opcode (the worst case for
    the per-opcode pattern lists, which try those copies one comparison each)."""
    out = list(pats)
    for c in range(1, k):
        for p in pats:
            q = CompiledPattern(**{**p.__dict__})
            if same_root:
                first = [ch for ch in p.checks if ch[0] == "opcode" and ch[1] == 0][:1]
                rest = [ch for ch in p.checks if not (ch[0] == "opcode" and ch[1] == 0)] if first else list(p.checks)
                q.checks = tuple(first + [("type", 0, f"copy{c}", f"root has type copy{c}")] + rest)
            else:
                q.root_opcode = f"{p.root_opcode}#copy{c}"
                q.checks = tuple((ch[0], ch[1], q.root_opcode, ch[3]) if ch[0] == "opcode" and ch[1] == 0 else ch
                                 for ch in p.checks)
            q.order = p.order + c * 100000
            out.append(q)
    return out



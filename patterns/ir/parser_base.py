"""The IR reader's first layer: the token cursor, messages, types, attributes and metadata text.

Stage job: what every part of the recursive-descent reader of LLVM IR shares
(``patterns/ir/parser_values.py`` for operands and constants, ``patterns/ir/parser_body.py``
for instructions, ``patterns/ir/parser_module.py`` for the module): the cursor over the
tokens of ``patterns/ir/lexer.py`` (line breaks counted as they are passed), the two kinds
of error (a syntax error ends the parse at once, as in LLVM's LLParser; a semantic
error is collected with the others of the file, ``record '@f'`` naming its function),
types (every first-class type; scalable vectors refused), attribute lists (each
attribute kept as its canonical text: ``align 4``, ``range(i32 0, 1024)``, ``"k"="v"``)
and metadata (kept as text, its tokens joined as opt spaces them).
"""

from __future__ import annotations

from typing import Final

from tdgen.errors import Diagnostics, ParseError, Span, expected

from patterns.ir.attributes import (ALL_ATTR_WORDS, ENUM_ATTRS, INT_ATTRS, NON_FN_ATTRS, PAREN_ATTRS, PARAM_ATTRS,
                                   RET_ATTRS, TYPE_ATTRS)
from patterns.ir.core import (LABEL, MAX_INT_BITS, MAX_VECTOR_ELEMENTS, METADATA, PTR, TOKEN, VOID, ArrayType, FloatType, IntType,
                              NamedStructType, PtrType, StructType, Type, VectorType, int_type)
from patterns.ir.lexer import EOF, Positions, column_of, tokenize
from patterns.ir.spelling import unquote

MAX_ALIGN: Final = 1 << 32
MAX_ADDRSPACE: Final = (1 << 24) - 1
MAX_ARRAY_SIZE: Final = (1 << 64) - 1


def scalar_of(t: Type) -> Type:
    """The element type of a vector, else the type (``Type.scalar`` without the property call)."""
    if type(t) is VectorType:
        return t.elem  # type: ignore[attr-defined]
    return t


_PTR_TYPES: Final[dict[int, Type]] = {0: PTR}


def ptr_type(n: int) -> Type:
    """The ``PtrType`` of address space ``n`` (one object per address space, so that
    operand type checks are identity tests)."""
    t = _PTR_TYPES.get(n)
    if t is None:
        t = _PTR_TYPES[n] = PtrType(n)
    return t


_PTR_ATTRS: Final = frozenset({"align", "nonnull", "dereferenceable", "dereferenceable_or_null", "noalias",
                               "nocapture", "byval", "byref", "sret", "preallocated", "inalloca", "nest",
                               "readnone", "readonly", "writeonly", "writable", "dead_on_unwind", "swifterror",
                               "swiftself", "swiftasync", "initializes"})


class Syntax(Exception):
    """A syntax error: the parse stops (the ``ParseError`` is ``args[0]``)."""


def _base_types() -> dict[str, Type]:
    d: dict[str, Type] = {"void": VOID, "ptr": PTR, "label": LABEL, "token": TOKEN, "metadata": METADATA}
    for n in ("half", "bfloat", "float", "double", "fp128", "x86_fp80", "ppc_fp128"):
        d[n] = FloatType(n)
    for b in (1, 8, 16, 32, 64, 128):
        d[f"i{b}"] = int_type(b)
    return d


BASE_TYPES: Final = _base_types()
_NO_SPACE_AFTER: Final = frozenset({"(", "!", "[", "{"})
_NO_SPACE_BEFORE: Final = frozenset({")", ",", "]", "}", "("})


def join_tokens(toks: list[str]) -> str:
    """Tokens as opt spaces them: one space between tokens, none after an opening
    bracket or ``!``, none before a closing one, a comma or ``(``; line breaks dropped."""
    out: list[str] = []
    prev = "("
    for t in toks:
        if t[0] == "\n":
            continue
        if prev not in _NO_SPACE_AFTER and t not in _NO_SPACE_BEFORE:
            out.append(" ")
        out.append(t)
        prev = t
    return "".join(out)


class ParserBase:
    """The cursor, the diagnostics and the module-wide tables (named types)."""

    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.toks: list[str] = tokenize(text)
        self.p = 0
        self.line = 0  # the line of the token at ``bol``
        self.ind = 1  # the column of the first token of that line
        self.bol = 0  # the index of the first token of the current line
        self.diag = Diagnostics()
        self.positions: Positions | None = None
        self.named_types: dict[str, NamedStructType] = {}
        self.type_spans: dict[str, int] = {}  # named type -> token of its reference, until defined
        self.rec: str | None = None  # the record named in semantic errors ('@f')
        self.types: dict[str, Type] = dict(BASE_TYPES)
        self.md_refs: list[int] = []  # tokens '!N' referring to numbered metadata, checked at the end
        # False once the instruction being read has a token opt prints otherwise (flags
        # out of opt's order, a constant or type spelled another way): then its source
        # line is not kept as its text (patterns/ir/parser_body.py)
        self.canon = True
        self.lines: list[str] | None = None  # the text's lines (made when a line is first kept)

    # ----------------------------------------------------------------- cursor
    def tok(self) -> str:
        """The current token (line breaks before it passed and counted)."""
        toks = self.toks
        p = self.p
        t = toks[p]
        if t[0] == "\n":
            while t[0] == "\n":
                self.line += 1
                self.ind = len(t)
                p += 1
                t = toks[p]
            self.p = p
            self.bol = p
        return t

    def take(self) -> str:
        t = self.tok()
        self.p += 1
        return t

    def peek2(self) -> str:
        """The token after the current one (line breaks skipped, not counted)."""
        self.tok()
        toks = self.toks
        q = self.p + 1
        t = toks[q]
        while t[0] == "\n":
            q += 1
            t = toks[q]
        return t

    def accept(self, s: str) -> bool:
        if self.tok() == s:
            self.p += 1
            return True
        return False

    def expect(self, s: str, what: str = "") -> None:
        if self.tok() != s:
            self.syntax(what or f"'{s}'")
        self.p += 1

    # --------------------------------------------------------------- messages
    def span(self, i: int) -> Span:
        """Where token ``i`` is."""
        toks = self.toks
        bol = self.bol
        if i == bol and i == self.p and toks[i] != EOF:
            return Span(self.path, self.line, self.ind)
        if bol <= i <= self.p and toks[i] != EOF and self.positions is None:
            # on the current line (no line break between its start and the token): the
            # column from a scan of that line alone
            k = bol
            while k < i and toks[k][0] != "\n":
                k += 1
            if k == i:
                lines = self.lines
                if lines is None:
                    lines = self.lines = self.text.split("\n")
                return Span(self.path, self.line, column_of(lines[self.line - 1], i - bol + 1))
        pos = self.positions
        if pos is None:
            pos = self.positions = Positions(self.path, self.text, self.toks)
        return pos.span(i)

    def found(self, i: int) -> str:
        t = self.toks[i]
        if t == EOF:
            return "end of file"
        if t[0] == '"' and (len(t) == 1 or t[-1] != '"'):
            return "unterminated string"
        return f"'{t}'"

    def syntax(self, what: str, found: str | None = None, at: int = -1) -> None:
        """Raise the syntax error ``expected WHAT, found FOUND`` at token ``at`` (the
        current one by default)."""
        if at < 0:
            self.tok()
            at = self.p
        t = self.toks[at]
        if t[0] == '"' and (len(t) == 1 or t[-1] != '"'):
            what, found = "a closing '\"' on the same line", "unterminated string"
        raise Syntax(ParseError(self.span(at), expected(what, found if found is not None else self.found(at))))

    def err(self, at: int, what: str, found: str) -> None:
        """Collect the semantic error ``expected WHAT, found FOUND`` at token ``at``."""
        self.diag.add(ParseError(self.span(at), expected(what, found), record=self.rec))

    def err_span(self, span: Span | None, what: str, found: str) -> None:
        self.diag.add(ParseError(span, expected(what, found), record=self.rec))

    # ------------------------------------------------------------------ numbers
    def uint(self, what: str) -> int:
        t = self.tok()
        if not t.isdigit():
            self.syntax(what)
        self.p += 1
        return int(t)

    def align_value(self) -> int:
        """The N of ``align N`` (a power of two, at most 2^32)."""
        at = self.p
        n = self.uint("an alignment")
        if n > MAX_ALIGN:
            self.syntax("an alignment of at most 2^32", f"'{n}'", at)
        if n == 0 or n & (n - 1):
            self.syntax("an alignment that is a power of two", f"'{n}'", at)
        return n

    def addrspace(self) -> int:
        """``addrspace(N)`` after the word ``addrspace`` (the current token)."""
        self.p += 1
        self.expect("(", "'(' after addrspace")
        at = self.p
        t = self.tok()
        if t[0] == '"':
            self.syntax("a numbered address space", f"'{t}' (named address spaces are not modeled)")
        n = self.uint("an address space number")
        if n == 0:
            self.canon = False  # (printed without it)
        if n > MAX_ADDRSPACE:
            self.syntax("an address space below 2^24", f"'{n}'", at)
        self.expect(")", "')' after the address space")
        return n

    # -------------------------------------------------------------------- types
    def parse_type(self, what: str = "a type") -> Type:
        t = self.tok()
        at = self.p
        ty: Type | None = None
        if t == "ptr":  # the usual case first: 'ptr' or 'ptr addrspace(N)'
            self.p += 1
            nt = self.tok()
            ty = PTR
            if nt == "addrspace":
                ty = ptr_type(self.addrspace())
                nt = self.tok()
            if nt != "*":
                return ty
        elif (ty := self.types.get(t)) is not None:
            self.p += 1
        elif t[0] == "i" and t[1:].isdigit():
            bits = int(t[1:])
            if bits == 0 or bits > MAX_INT_BITS:
                self.syntax(f"an integer width from 1 to {MAX_INT_BITS} bits", f"'{t}'")
            self.p += 1
            ty = int_type(bits)
            if t[1] != "0":
                self.types[t] = ty
        elif t == "<":
            self.p += 1
            if self.tok() == "{":
                ty = self.struct_body(True)
                self.expect(">", "'>' closing the packed struct")
            else:
                ty = self.vector_type()
        elif t == "[":
            self.p += 1
            sat = self.p
            n = self.uint("an array size")
            if n > MAX_ARRAY_SIZE:
                self.syntax("an array size below 2^64", f"'{n}'", sat)
            self.expect("x", "'x' in the array type")
            el = self.parse_type()
            self.check_element(el, at, "an array element type")
            self.expect("]", "']' closing the array type")
            ty = ArrayType(n, el)
        elif t == "{":
            ty = self.struct_body(False)
        elif t[0] == "%" and len(t) > 1:
            self.p += 1
            ty = self.named_type(unquote(t[1:]), at)
            if t[1] == '"' or str(ty) != t:
                self.canon = False
        else:
            self.syntax(what)
        # suffixes: address space and old typed-pointer stars (read as ptr, as LLVM 19 does)
        while True:
            t = self.tok()
            if t == "addrspace":
                if self.peek_star_after_addrspace():
                    if ty is VOID or ty is LABEL or ty is METADATA or ty is TOKEN:
                        self.syntax("a type that a pointer may point to", f"type {ty}", at)
                    n = self.addrspace()
                    self.expect("*", "'*'")
                    ty = ptr_type(n)
                    continue
                break
            elif t == "*":
                self.canon = False
                if ty is VOID or ty is LABEL or ty is METADATA or ty is TOKEN:
                    self.syntax("a type that a pointer may point to", f"type {ty}", at)
                self.p += 1
                ty = PTR  # (a typed pointer is in address space 0, whatever it points to)
            else:
                break
        assert ty is not None
        return ty

    def peek_star_after_addrspace(self) -> bool:
        toks = self.toks
        q = self.p
        return toks[q + 1] == "(" and toks[q + 3] == ")" and toks[q + 4] == "*"

    def check_element(self, el: Type, at: int, what: str) -> None:
        if el is VOID or el is LABEL or el is METADATA or el is TOKEN:
            self.syntax(what, f"type {el}", at)

    def vector_type(self) -> Type:
        at = self.p
        t = self.tok()
        if t == "vscale":
            self.syntax("a fixed-length vector type", "a scalable vector ('vscale': not modeled)")
        n = self.uint("a vector length")
        if n == 0 or n > MAX_VECTOR_ELEMENTS:
            self.syntax(f"a vector length from 1 to {MAX_VECTOR_ELEMENTS}", f"'{n}'", at)
        self.expect("x", "'x' in the vector type")
        eat = self.p
        el = self.parse_type()
        if not isinstance(el, (IntType, FloatType, PtrType)):
            self.syntax("an integer, floating-point or pointer vector element type", f"type {el}", eat)
        self.expect(">", "'>' closing the vector type")
        return VectorType(n, el)

    def struct_body(self, packed: bool) -> StructType:
        self.expect("{")
        elems: list[Type] = []
        if self.tok() != "}":
            while True:
                at = self.p
                el = self.parse_type()
                self.check_element(el, at, "a struct element type")
                elems.append(el)
                if not self.accept(","):
                    break
        self.expect("}", "'}' closing the struct type")
        return StructType(tuple(elems), packed)

    def named_type(self, name: str, at: int) -> NamedStructType:
        nt = self.named_types.get(name)
        if nt is None:
            nt = self.named_types[name] = NamedStructType(name)
            self.type_spans[name] = at
        return nt

    # --------------------------------------------------------------- attributes
    def attribute(self, ctx: str, out: list) -> bool:
        """One attribute at the cursor appended to ``out`` as its canonical text, or
        False when the current token starts none. ``ctx``: "param", "ret", "fn"
        (also accepts ``#N`` groups) or "call"."""
        t = self.tok()
        c = t[0]
        if c == '"':
            if len(t) == 1 or t[-1] != '"':
                self.syntax("a closing '\"' on the same line", "unterminated string")
            self.p += 1
            if self.tok() == "=":
                self.p += 1
                v = self.tok()
                if v[0] != '"':
                    self.syntax("a string value of the attribute")
                if len(v) == 1 or v[-1] != '"':
                    self.syntax("a closing '\"' on the same line", "unterminated string")
                self.p += 1
                out.append(f"{t}={v}")
            else:
                out.append(t)
            return True
        if t in NON_FN_ATTRS and (ctx == "fn" or ctx == "call" or ctx == "group"):
            self.err(self.p, "an attribute that applies to functions",
                     f"'{t}' (a parameter or return attribute)")
        if ctx == "param" or ctx == "ret":
            if t in ALL_ATTR_WORDS and t not in (PARAM_ATTRS if ctx == "param" else RET_ATTRS):
                self.syntax("an attribute that applies to " + ("parameters" if ctx == "param" else "return values"),
                            f"'{t}'")
        if c == "#":
            if ctx != "fn" and ctx != "call":
                return False
            if not t[1:].isdigit():
                self.syntax("an attribute group '#N'")
            self.p += 1
            out.append(t)
            return True
        if t in ENUM_ATTRS:
            self.p += 1
            if t == "uwtable" and self.tok() == "(":
                self.p += 1
                k = self.take()
                if k not in ("sync", "async"):
                    self.syntax("sync or async", at=self.p - 1)
                self.expect(")")
                out.append("uwtable" if k == "async" else "uwtable(sync)")
                return True
            out.append(t)
            return True
        if t == "align":
            self.p += 1
            if self.accept("("):
                n = self.align_value()
                self.expect(")")
            else:
                n = self.align_value()
            out.append(f"align {n}")
            return True
        if t in INT_ATTRS:
            self.p += 1
            self.expect("(", f"'(' after {t}")
            n = self.uint(f"the value of {t}")
            self.expect(")")
            if t == "alignstack" and (n == 0 or n & (n - 1)):
                self.syntax("an alignment that is a power of two", f"'{n}'", self.p - 2)
            out.append(f"{t}({n})")
            return True
        if t in TYPE_ATTRS:
            self.p += 1
            if self.tok() != "(":
                if t == "inalloca" or t == "preallocated" or t == "byval" or t == "sret":
                    self.syntax(f"'(' and a type after {t}")
            self.expect("(", f"'(' after {t}")
            ty = self.parse_type()
            self.expect(")")
            out.append(f"{t}({ty})")
            return True
        if t in PAREN_ATTRS:
            start = self.p
            self.p += 1
            self.expect("(", f"'(' after {t}")
            depth = 1
            while depth:
                x = self.take()
                if x == "(":
                    depth += 1
                elif x == ")":
                    depth -= 1
                elif x == EOF:
                    self.syntax(f"')' closing {t}(...)", at=self.p - 1)
            if t == "range":
                self.check_range(start)
            elif t == "memory":
                self.check_memory(start)
            elif t == "nofpclass":
                self.check_nofpclass(start)
            out.append(join_tokens(self.toks[start:self.p]))
            return True
        return False

    def check_range(self, start: int) -> None:
        """``range(iN a, b)``: an integer type, two constants, a != b unless both are..."""
        toks = self.toks
        body = [x for x in toks[start + 2:self.p - 1] if x[0] != "\n"]
        ok = (len(body) == 4 and body[0][0] == "i" and body[0][1:].isdigit() and body[2] == ","
              and _is_int(body[1]) and _is_int(body[3]))
        if not ok:
            self.syntax("range(iN lower, upper)", f"'{join_tokens(toks[start:self.p])}'", start)
        if int(body[1]) == int(body[3]) and int(body[1]) != 0:
            self.syntax("a range that is not empty or full unless both bounds are 0",
                        f"'{join_tokens(toks[start:self.p])}'", start)

    def check_memory(self, start: int) -> None:
        """``memory(...)``: an access kind (none, read, write, readwrite) for all memory
        first, then ``location: kind`` pairs (argmem, inaccessiblemem), at least one item."""
        toks = self.toks
        i = start + 2
        end = self.p - 1
        body = [(j, toks[j]) for j in range(i, end) if toks[j][0] != "\n"]
        k = 0
        first = True
        while True:
            at, x = body[k] if k < len(body) else (end, toks[end])
            if x in _MEMORY_KINDS:
                if not first:
                    self.syntax("a memory location (argmem, inaccessiblemem) with its access kind (the access kind "
                                "for all memory comes first)", f"'{x}'", at)
                k += 1
            elif x in _MEMORY_LOCATIONS:
                k += 1
                at, y = body[k] if k < len(body) else (end, toks[end])
                if y not in _MEMORY_KINDS:
                    self.syntax("an access kind (none, read, write, readwrite)", self.found(at), at)
                k += 1
            else:
                self.syntax("a memory location (argmem, inaccessiblemem) or an access kind (none, read, write, "
                            "readwrite)", self.found(at), at)
            first = False
            if k >= len(body):
                return
            at, x = body[k]
            if x != ",":
                self.syntax("',' or ')' in memory(...)", self.found(at), at)
            k += 1

    def check_nofpclass(self, start: int) -> None:
        """``nofpclass(...)``: class words (nan, inf, zero, sub, norm with their s/q/n/p
        forms, all) or one mask from 1 to 1023."""
        toks = self.toks
        end = self.p - 1
        body = [(j, toks[j]) for j in range(start + 2, end) if toks[j][0] != "\n"]
        if len(body) == 1 and body[0][1].isdigit():
            n = int(body[0][1])
            if 1 <= n <= 1023:
                return
            self.syntax("a floating-point class mask from 1 to 1023", f"'{n}'", body[0][0])
        if not body:
            self.syntax("a floating-point class (nan, inf, zero, sub, norm, ...)", self.found(end), end)
        for at, x in body:
            if x not in _FP_CLASSES:
                self.syntax("a floating-point class (nan, inf, zero, sub, norm, ...)", self.found(at), at)

    def check_attr_types(self, attrs: list, ty: Type, at: int) -> None:
        """The type rules of LLVM's verifier for parameter and return attributes: pointer
        attributes on pointers, ``nofpclass`` on floating point, ``range`` and the
        extension attributes on integers of the range's width."""
        if not attrs:
            return
        sc = scalar_of(ty)
        for a in attrs:
            w = a.split("(", 1)[0].split(" ", 1)[0]
            ok = True
            if w in _PTR_ATTRS:
                ok = type(sc) is PtrType
            elif w == "nofpclass":
                el = ty
                while type(el) is ArrayType:
                    el = el.elem  # type: ignore[attr-defined]
                ok = type(scalar_of(el)) is FloatType
            elif w == "range":
                ok = type(sc) is IntType and a.startswith(f"range({sc} ")
            elif w == "zeroext" or w == "signext":
                ok = type(sc) is IntType
            if not ok:
                self.syntax(f"an attribute that applies to type {ty}", f"'{a}'", at)

    def attributes(self, ctx: str) -> list:
        out: list = []
        while self.attribute(ctx, out):
            pass
        return out

    def skip_brackets(self) -> None:
        """Skip a balanced (), {}, [] or <> group at the cursor."""
        open_ = self.take()
        close = {"(": ")", "{": "}", "[": "]", "<": ">"}[open_]
        depth = 1
        while depth:
            x = self.take()
            if x == open_:
                depth += 1
            elif x == close:
                depth -= 1
            elif x == EOF:
                self.syntax(f"'{close}'", at=self.p - 1)
            elif x[0] == '"' and (len(x) == 1 or x[-1] != '"'):
                self.syntax("a closing '\"' on the same line", "unterminated string", self.p - 1)


_MEMORY_KINDS: Final = frozenset({"none", "read", "write", "readwrite"})
_MEMORY_LOCATIONS: Final = frozenset({"argmem:", "inaccessiblemem:"})
_FP_CLASSES: Final = frozenset({"all", "nan", "snan", "qnan", "inf", "ninf", "pinf", "zero", "nzero", "pzero", "sub",
                                "nsub", "psub", "norm", "nnorm", "pnorm"})


def _is_int(s: str) -> bool:
    return s.lstrip("-").isdigit()

"""The exact IR front end: the lark grammar for the syntax, the resolver for the meaning.

Stage job: text -> raw records (``RawFunc``/``RawInst``/``RawVal``, from the grammar in
``patterns/ir/ir.lark`` or from the line reader ``patterns/ir/reader_lines.py``) ->
``_Resolver`` -> the linked ``ir.Module``, or every problem of the file as one
``file:line:col`` error each (``ErrorList``). This is the path that reports errors and
handles the whole supported subset of LLVM IR; ``parse_module`` (in ``patterns/ir/core.py``)
uses it whenever the direct builder (``patterns/ir/reader_direct.py``) gives up. It lives in its
own module so that a process parsing simple kernels never compiles or imports it (nor
lark).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from typing import Iterable

from tdgen.errors import Diagnostics, ParseError, Span, TdgenError, expected

from patterns.ir.core import (Argument, ArrayType, BINOP_FLAGS, BasicBlock, CALLING_CONVENTIONS, CAST_FLAGS,
    CAST_OPS, Constant, FAST_MATH, FP_PREDICATES, FloatType, Function, GEP_FLAGS, GRAMMAR,
    MAX_INT_BITS, MAX_VECTOR_ELEMENTS, GlobalRef, GlobalVar, I1, INT_PREDICATES, InlineAsm, Instruction, IntType, LABEL,
    LINKAGE_WORDS, METADATA, MetadataRef, Module, ORDERINGS, PTR, PtrType, RMW_OPS, StructType,
    TOKEN, Type, VOID, Value, VectorType, VoidType, _int_type, _quote_name, _unquote, float_text,
    is_first_class, parse_float_literal, sigil_name, wrap_signed)


# ============================================================ raw records (stage 1)


@dataclass(slots=True)
class RawVal:
    """An operand before name resolution: kind + payload + where it was written.

    kinds: local, global, int, float, word (true/false/null/...), vector, array,
    struct, pstruct, cstring, cast, gep, binop, splat, md."""

    kind: str
    payload: object
    span: Span | None


@dataclass(slots=True)
class RawInst:
    """One parsed instruction before resolution."""

    opcode: str
    span: Span
    name: str | None = None  # from `%x =` (bare name)
    name_span: Span | None = None
    type: Type | None = None  # result type when the syntax states it
    ops: list = field(default_factory=list)  # [(Type | None, RawVal)]
    words: list = field(default_factory=list)
    tail: list = field(default_factory=list)  # [(kind, payload, span)]
    extra: dict = field(default_factory=dict)


@dataclass(slots=True)
class RawFunc:
    name: str
    span: Span
    header_words: list
    ret_type: Type
    params: list  # [(type, [attrs], name | None, span)]
    vararg: bool
    suffix: list  # attrs / '#N' / ('addrspace', n) ...
    body: list | None  # [('label', name, span) | RawInst]; None for declarations


# ============================================================== lark front end


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
            transformer=_Builder(),
            cache=True,
        )
    return _PARSER


def _make_builder_class():
    import lark
    from lark import Token

    class Builder(lark.Transformer):
        """Parse tree -> raw records (runs inline in the LALR parser)."""

        path = "<input>"
        line_offset = 0  # when parsing one line or chunk of a larger file (ir_fast)

        def _span(self, tok) -> Span:
            return Span(self.path, tok.line + self.line_offset, tok.column)

        # ------------------------------------------------------------- types
        def int_type(self, c):
            bits = int(c[0][1:])
            if not 1 <= bits <= MAX_INT_BITS:
                raise _syntax(self._span(c[0]), f"an integer width from 1 to {MAX_INT_BITS} bits", f"'{c[0]}'")
            return _int_type(bits)

        def float_type(self, c):
            return FloatType(str(c[0]))

        def ptr_type(self, c):
            return PTR

        def addrspace_type(self, c):
            base, n, star = c
            if star is None and not isinstance(base, PtrType):
                raise _syntax(self._span(n), "'*' after addrspace(N) of a non-ptr type", f"'{base}'")
            if star is None and base.addrspace != 0:
                raise _syntax(self._span(n), "one address space", "a second addrspace(N)")
            return PtrType(int(n))

        def star_type(self, c):
            return PTR

        def void_type(self, c):
            return VOID

        def label_type(self, c):
            return LABEL

        def token_type(self, c):
            return TOKEN

        def metadata_type(self, c):
            return METADATA

        def vector_type(self, c):
            n = int(c[0])
            if not 1 <= n <= MAX_VECTOR_ELEMENTS:
                raise _syntax(self._span(c[0]), f"a vector length from 1 to {MAX_VECTOR_ELEMENTS}", f"'{c[0]}'")
            return VectorType(n, c[1])

        def array_type(self, c):
            return ArrayType(int(c[0]), c[1])

        def struct_type(self, c):
            return StructType(tuple(x for x in c if isinstance(x, Type)))

        def packed_struct_type(self, c):
            return StructType(tuple(x for x in c if isinstance(x, Type)), True)

        # ------------------------------------------------------------ values
        def local_ref(self, c):
            t = c[0]
            return RawVal("local", sigil_name(t), self._span(t))

        def global_ref(self, c):
            t = c[0]
            return RawVal("global", sigil_name(t), self._span(t))

        def int_const(self, c):
            return RawVal("int", str(c[0]), self._span(c[0]))

        def float_const(self, c):
            return RawVal("float", str(c[0]), self._span(c[0]))

        def word_const(self, c):
            return RawVal("word", str(c[0]), self._span(c[0]))

        def _agg(self, kind, c):
            items = [x for x in c if isinstance(x, tuple)]
            sp = items[0][1].span if items else None
            return RawVal(kind, items, sp)

        def vector_const(self, c):
            return self._agg("vector", c)

        def array_const(self, c):
            return self._agg("array", c)

        def struct_const(self, c):
            return self._agg("struct", c)

        def packed_struct_const(self, c):
            return self._agg("pstruct", c)

        def cstring_const(self, c):
            return RawVal("cstring", str(c[0])[2:-1], self._span(c[0]))

        def cast_expr(self, c):
            return RawVal("cast", (str(c[0]), c[1], c[2]), self._span(c[0]))

        def gep_expr(self, c):
            words = [str(x) for x in c if isinstance(x, Token)]
            rest = [x for x in c if not isinstance(x, Token)]
            return RawVal("gep", (words, rest[0], rest[1:]), rest[1][1].span)

        def binop_expr(self, c):
            words = [str(x) for x in c[1:] if isinstance(x, Token)]
            rest = [x for x in c if not isinstance(x, Token)]
            return RawVal("binop", (str(c[0]), words, rest[0], rest[1]), self._span(c[0]))

        def splat_const(self, c):
            return RawVal("splat", c[0], c[0][1].span)

        def md_operand(self, c):
            return RawVal("md", c[0], None)

        def md_ref(self, c):
            return str(c[0])

        def md_string(self, c):
            return str(c[0])

        def md_node(self, c):
            return "!{" + ", ".join(x for x in c if x is not None) + "}"

        def md_item(self, c):
            x = c[0]
            if isinstance(x, tuple):  # typed
                return f"{x[0]} {_raw_text(x[1])}"
            return x

        def typed(self, c):
            return (c[0], c[1])

        # -------------------------------------------------------- attributes
        def attr(self, c):
            if len(c) == 1 and isinstance(c[0], Token):
                if c[0].type == "INT":  # align N / align(N): the keyword is not a child
                    return f"align {c[0]}"
                return str(c[0])
            if len(c) == 1:
                return c[0]
            if c[0].type == "STRING":  # "k"="v" or "k"
                return str(c[0]) if c[1] is None else f"{c[0]}={c[1]}"
            return f"align {c[-1]}"  # align N / align(N)

        def attr_paren(self, c):
            inner = []
            for a in c[1:]:
                s = str(a)
                if s == ",":
                    inner.append(", ")
                elif s == ":":
                    inner.append(": ")
                else:
                    if inner and not inner[-1].endswith(" ") and inner[-1] not in ("",):
                        inner.append(" ")
                    inner.append(s)
            return f"{c[0]}({''.join(inner).strip()})"

        def attr_arg(self, c):
            return c[0]

        def header_word(self, c):
            if len(c) == 1:
                return str(c[0])
            if str(c[0]) == "cc" or c[0].type == "INT" and False:
                return f"cc {c[1]}"
            return f"align {c[-1]}" if len(c) == 2 and c[0] is not None and str(c[0]).isdigit() is False and c[0].type == "INT" else " ".join(map(str, c))

        def fn_suffix(self, c):
            if len(c) == 1:
                x = c[0]
                if isinstance(x, Token) and x.type == "ATTR_REF":
                    return str(x)
                if isinstance(x, Token) and x.type == "INT":
                    return ("addrspace", int(x))
                if isinstance(x, Token) and x.type == "STRING":
                    return ("string", str(x))
                return x
            if isinstance(c[0], Token) and c[0].type == "MD_NAME":
                return ("md", str(c[0]), c[1])
            return ("other", tuple(map(str, c)))

        def param(self, c):
            ty = c[0]
            name_tok = c[-1]
            attrs = [a for a in c[1:-1]]
            return (ty, attrs, sigil_name(name_tok) if name_tok is not None else None,
                    self._span(name_tok) if name_tok is not None else None)

        def params(self, c):
            ps = [x for x in c if isinstance(x, tuple)]
            vararg = any(isinstance(x, Token) and x.type == "ELLIPSIS" for x in c)
            return (ps, vararg)

        def fn_header(self, c):
            i = 0
            words = []
            while not isinstance(c[i], Type):
                words.append(c[i])
                i += 1
            ret = c[i]
            gtok = c[i + 1]
            ps, vararg = c[i + 2]
            suffix = list(c[i + 3:])
            return RawFunc(sigil_name(gtok), self._span(gtok), words, ret, ps, vararg, suffix, None)

        def function_def(self, c):
            f = c[0]
            f.body = c[1]
            return f

        def function_decl(self, c):
            return c[0]

        def define_header(self, c):
            return c[0]

        def body(self, c):
            out = []
            for x in c:
                if isinstance(x, Token):
                    out.append(("label", _unquote(str(x)[:-1]), self._span(x)))
                else:
                    out.append(x)
            return out

        def attr_group(self, c):
            return ("attr_group", int(str(c[0])[1:]), [x for x in c[1:]], self._span(c[0]))

        def global_var(self, c):
            tok = c[0]
            words = []
            addrspace = 0
            i = 1
            while not isinstance(c[i], Type):
                w = c[i]
                if isinstance(w, tuple):
                    addrspace = w[1]
                else:
                    words.append(w)
                i += 1
            return ("global", sigil_name(str(tok)), c[i], addrspace, words, self._span(tok))

        def gv_word(self, c):
            if len(c) == 1:
                return str(c[0])
            return ("addrspace", int(c[0]))

        def metadata_def(self, c):
            return ("metadata",)

        def target_def(self, c):
            return ("target",)

        def source_filename(self, c):
            return ("source_filename",)

        def module_asm(self, c):
            return ("module_asm",)

        def start(self, c):
            return c

        # ------------------------------------------------------ instructions
        def instruction(self, c):
            d = c[0]
            r = c[1]
            if d is not None:
                r.name = sigil_name(str(d))
                r.name_span = self._span(d)
                r.span = r.name_span
            r.tail = [x for x in c[2:]]
            return r

        def tail_align(self, c):
            return ("align", int(c[0]), self._span(c[0]))

        def tail_md(self, c):
            return ("md", (str(c[0]), c[1] if isinstance(c[1], str) else c[1]), self._span(c[0]))

        def tail_typed(self, c):
            return ("typed", (c[0], c[1]), c[1].span)

        def tail_index(self, c):
            return ("index", int(c[0]), self._span(c[0]))

        def tail_phi(self, c):
            return ("phi", (c[0], sigil_name(str(c[1])), self._span(c[1])), c[0].span)

        def tail_addrspace(self, c):
            return ("addrspace", int(c[0]), self._span(c[0]))

        def syncscope(self, c):
            return ("syncscope", str(c[0])[1:-1])

        def _inst(self, c, opcode=None):
            tok = c[0]
            return RawInst(opcode or str(tok), self._span(tok))

        @staticmethod
        def _strip(c):
            return [x for x in c if not (isinstance(x, Token) and x.type not in (
                "WORD", "LOCAL", "INT", "BINOP", "CASTOP", "TAILKW", "STRING", "ATTR_REF"))]

        def binop(self, c):
            r = self._inst(c)
            rest = self._strip(c[1:])
            r.words = [str(x) for x in rest if isinstance(x, Token)]
            vals = [x for x in rest if not isinstance(x, Token)]
            ty = vals[0]
            r.type = ty
            r.ops = [(ty, vals[1]), (ty, vals[2])]
            return r

        def fneg(self, c):
            r = self._inst(c)
            rest = self._strip(c[1:])
            r.words = [str(x) for x in rest if isinstance(x, Token)]
            vals = [x for x in rest if not isinstance(x, Token)]
            r.type = vals[0]
            r.ops = [(vals[0], vals[1])]
            return r

        def icmp(self, c):
            return self.binop(c)

        def fcmp(self, c):
            return self.binop(c)

        def select(self, c):
            r = self._inst(c)
            rest = self._strip(c[1:])
            r.words = [str(x) for x in rest if isinstance(x, Token)]
            r.ops = [x for x in rest if not isinstance(x, Token)]
            return r

        def phi(self, c):
            r = self._inst(c)
            rest = self._strip(c[1:])
            r.words = [str(x) for x in rest if isinstance(x, Token) and x.type == "WORD"]
            vals = [x for x in rest if not (isinstance(x, Token) and x.type == "WORD")]
            r.type = vals[0]
            lab = vals[2]
            r.extra["incoming"] = [(vals[1], sigil_name(str(lab)), self._span(lab))]
            return r

        def br(self, c):
            r = self._inst(c)
            r.ops = [c[1]]
            return r

        def switch(self, c):
            r = self._inst(c)
            rest = self._strip(c[1:])
            r.ops = [rest[0], rest[1]]
            r.extra["cases"] = [x for x in rest[2:] if x is not None]
            return r

        def switch_case(self, c):
            return (c[0], c[1])

        def ret(self, c):
            r = self._inst(c)
            if c[2] is None:
                r.ops = [(c[1], None)]
            else:
                r.ops = [(c[1], c[2])]
            return r

        def unreachable(self, c):
            return self._inst(c)

        def call(self, c):
            tail = c[0]
            if tail is not None:
                r = RawInst("call", self._span(tail))
                r.extra["tail"] = str(tail)
            else:
                r = RawInst("call", self._span(c[1]))
            body = c[2] if tail is not None or len(c) > 2 and not isinstance(c[1], dict) else c[1]
            body = [x for x in c if isinstance(x, dict)][0]
            r.extra.update(body)
            return r

        def callbr(self, c):
            r = self._inst(c)
            body = [x for x in c if isinstance(x, dict)][0]
            r.extra.update(body)
            typed = [x for x in c if isinstance(x, tuple)]
            r.extra["default"] = typed[0]
            r.extra["indirect"] = typed[1:]
            return r

        def call_body(self, c):
            i = 0
            words = []
            while not isinstance(c[i], Type):
                words.append(str(c[i]))
                i += 1
            ret = c[i]
            fnp = c[i + 1]
            callee = c[i + 2]
            args, attrs, bundles = [], [], None
            for x in c[i + 3:]:
                if x is None:
                    continue
                if isinstance(x, tuple) and x and x[0] == "arg":
                    args.append(x[1:])
                elif isinstance(x, tuple) and x and x[0] == "cattr":
                    attrs.append(x[1])
                elif isinstance(x, list):
                    bundles = x
            return {"words": words, "ret": ret, "fn_params": fnp, "callee": callee,
                    "args": args, "attrs": attrs, "bundles": bundles or []}

        def fn_params(self, c):
            types = [x for x in c if isinstance(x, Type)]
            vararg = any(isinstance(x, Token) and x.type == "ELLIPSIS" for x in c)
            return (tuple(types), vararg)

        def callee(self, c):
            return c[0]

        def asm_callee(self, c):
            words = [str(x) for x in c if x.type == "WORD"]
            strs = [str(x)[1:-1] for x in c if x.type == "STRING"]
            return RawVal("asm", (words, strs[0], strs[1]), self._span(c[0]))

        def arg(self, c):
            return ("arg", c[0], [a for a in c[1:-1]], c[-1])

        def call_attr(self, c):
            x = c[0]
            return ("cattr", str(x) if isinstance(x, Token) else x)

        def bundles(self, c):
            return list(c)

        def bundle(self, c):
            tag = str(c[0])[1:-1]
            return (tag, [x for x in c[1:] if x is not None], self._span(c[0]))

        def load(self, c):
            r = self._inst(c)
            rest = self._strip(c[1:])
            words = []
            for x in rest:
                if isinstance(x, Token):
                    words.append(str(x))
                elif isinstance(x, Type):
                    r.type = x
                elif isinstance(x, tuple) and x and x[0] == "syncscope":
                    r.extra["syncscope"] = x[1]
                elif isinstance(x, tuple):
                    r.ops.append(x)
            r.words = words
            return r

        def store(self, c):
            r = self._inst(c)
            rest = self._strip(c[1:])
            for x in rest:
                if isinstance(x, Token):
                    r.words.append(str(x))
                elif isinstance(x, tuple) and x and x[0] == "syncscope":
                    r.extra["syncscope"] = x[1]
                elif isinstance(x, tuple):
                    r.ops.append(x)
            return r

        def atomicrmw(self, c):
            return self.store(c)

        def cmpxchg(self, c):
            return self.store(c)

        def rmw_word(self, c):
            return c[0]

        def getelementptr(self, c):
            r = self._inst(c)
            rest = self._strip(c[1:])
            r.words = [str(x) for x in rest if isinstance(x, Token)]
            vals = [x for x in rest if not isinstance(x, Token)]
            r.extra["source_type"] = vals[0]
            r.ops = [vals[1]]
            return r

        def cast(self, c):
            r = self._inst(c)
            rest = self._strip(c[1:])
            r.words = [str(x) for x in rest if isinstance(x, Token)]
            vals = [x for x in rest if not isinstance(x, Token)]
            r.ops = [vals[0]]
            r.type = vals[1]
            return r

        def _typed_only(self, c):
            r = self._inst(c)
            r.ops = [x for x in c[1:] if isinstance(x, tuple)]
            return r

        extractelement = insertelement = shufflevector = extractvalue = insertvalue = freeze = _typed_only

        def alloca(self, c):
            r = self._inst(c)
            rest = self._strip(c[1:])
            r.words = [str(x) for x in rest if isinstance(x, Token)]
            r.extra["source_type"] = [x for x in rest if isinstance(x, Type)][0]
            return r

        def fence(self, c):
            r = self._inst(c)
            for x in c[1:]:
                if isinstance(x, tuple):
                    r.extra["syncscope"] = x[1]
                elif isinstance(x, Token) and x.type == "WORD":
                    r.words.append(str(x))
            return r

    return Builder


_BUILDER_CLASS = None


def _Builder():
    global _BUILDER_CLASS
    if _BUILDER_CLASS is None:
        _BUILDER_CLASS = _make_builder_class()
    return _BUILDER_CLASS()




def _raw_text(v: RawVal) -> str:
    """Source-ish text of a raw value (for metadata bodies)."""
    if v.kind == "local":
        return "%" + _quote_name(v.payload)
    if v.kind == "global":
        return "@" + _quote_name(v.payload)
    if v.kind in ("int", "float", "word"):
        return v.payload
    if v.kind == "md":
        return v.payload
    return "<" + v.kind + ">"


def _syntax(span: Span, what: str, found: str) -> ParseError:
    return ParseError(span, expected(what, found))


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



# ========================================================= resolution (stage 2)


class _Resolver:
    """Raw records -> linked AST, collecting every error of the file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.diag = Diagnostics()
        self.functions: dict[str, RawFunc] = {}
        self.globals: dict[str, GlobalVar] = {}
        self.implicit: list[RawFunc] = []  # intrinsics called without a declaration

    def err(self, span, what, found, record=None, field=None) -> None:
        self.diag.add(ParseError(span, expected(what, found), record=record, field=field))

    def run(self, records: list) -> Module:
        mod = Module([], self.path)
        raw_funcs = []
        for r in records:
            if isinstance(r, RawFunc):
                if r.name in self.functions or r.name in self.globals:
                    self.err(r.span, f"a new global name", f"redefinition of '@{r.name}'")
                    continue
                self.functions[r.name] = r
                raw_funcs.append(r)
            elif r[0] == "attr_group":
                _, n, attrs, span = r
                if n in mod.attr_groups:
                    self.err(span, "a new attribute group number", f"redefinition of '#{n}'")
                mod.attr_groups[n] = tuple(attrs)
            elif r[0] == "global":
                _, name, ty, aspace, words, span = r
                if name in self.functions or name in self.globals:
                    self.err(span, "a new global name", f"redefinition of '@{name}'")
                    continue
                self.globals[name] = GlobalVar(name, ty, aspace, tuple(words), span)
        mod.globals = self.globals
        self.attr_groups = mod.attr_groups
        for rf in raw_funcs:
            f = self.function(rf, mod)
            if f is not None:
                mod.functions.append(f)
        for rf in self.implicit:
            mod.functions.append(self.function(rf, mod))
        self.diag.check()
        return mod

    # --------------------------------------------------------------- helpers
    def expand_attrs(self, items, span, record) -> frozenset:
        out = set()
        for a in items:
            if isinstance(a, str) and a.startswith("#"):
                n = int(a[1:])
                if n not in self.attr_groups:
                    continue  # LLVM 19 accepts references to undefined groups (as empty)
                out.update(x for x in self.attr_groups[n] if isinstance(x, str))
            elif isinstance(a, str):
                out.add(a)
        return frozenset(out)

    def function(self, rf: RawFunc, mod: Module) -> Function | None:
        cc = None
        words = []
        for w in rf.header_words:
            if w in CALLING_CONVENTIONS or (isinstance(w, str) and w.startswith("cc ")):
                cc = w
            words.append(w)
        items = []
        for s in rf.suffix:
            if isinstance(s, str) and s not in LINKAGE_WORDS:
                items.append(s)
        attrs = self.expand_attrs(items, rf.span, f"@{rf.name}")
        f = Function(rf.name, cc, rf.ret_type, [], attrs, rf.body is None, [], rf.span, mod,
                     tuple(items), tuple(words), rf.vararg)
        # numbering of unnamed values: arguments first, then blocks and instructions
        self.next_slot = 0
        self.values: dict[str, Value] = {}
        self.value_spans: dict[str, Span] = {}
        rec = f"@{rf.name}"
        for i, (ty, pattrs, name, span) in enumerate(rf.params):
            if name is None:
                name = str(self.next_slot)
                self.next_slot += 1
            elif name.isdigit():
                self.check_number(name, span or rf.span, rec)
            pa = frozenset(a for a in pattrs if isinstance(a, str))
            a = Argument(name, ty, pa, i, f, span or rf.span, "", tuple(pattrs))
            if not is_first_class(ty) or isinstance(ty, VoidType):
                self.err(span or rf.span, "a first-class argument type", f"'{ty}'", record=rec)
            self.define(name, a, span or rf.span, rec)
            f.args.append(a)
        if rf.body is None:
            return f
        self.build_body(f, rf)
        return f

    def check_number(self, name: str, span: Span, rec: str) -> bool:
        n = int(name)
        if n < self.next_slot:
            self.err(span, f"value number %{self.next_slot} or greater", f"'%{name}'", record=rec)
            return False
        self.next_slot = n + 1
        return True

    def define(self, name: str, v, span: Span, rec: str) -> None:
        if name in self.values:
            prev = self.value_spans[name]
            self.err(span, f"a new name (%{_quote_name(name)} is already defined at line {prev.line})",
                     f"redefinition of '%{_quote_name(name)}'", record=rec)
            return
        self.values[name] = v
        self.value_spans[name] = span

    def build_body(self, f: Function, rf: RawFunc) -> None:
        rec = f"@{f.name}"
        blocks: list[BasicBlock] = []
        block_names: dict[str, BasicBlock] = {}
        cur: BasicBlock | None = None
        raw_of: dict[int, RawInst] = {}
        insts: list[Instruction] = []
        for item in rf.body:
            if isinstance(item, tuple):  # label
                _, name, span = item
                if cur is not None and cur.terminator is None:
                    last = cur.instructions[-1].opcode if cur.instructions else "the label"
                    self.err(span, f"a terminator at the end of block '%{cur.name}' before the next label",
                             f"'{last}'" if cur.instructions else "an empty block", record=rec)
                if name.isdigit():
                    self.check_number(name, span, rec)
                cur = BasicBlock(name, [], f, [], [], span)
                if name in block_names:
                    self.err(span, f"a new block label", f"redefinition of label '%{_quote_name(name)}'",
                             record=rec)
                else:
                    block_names[name] = cur
                blocks.append(cur)
                continue
            r: RawInst = item
            if cur is None or cur.terminator is not None:
                cur = BasicBlock(str(self.next_slot), [], f, [], [], r.span)
                block_names[cur.name] = cur
                self.next_slot += 1
                blocks.append(cur)
            inst = self.make_instruction(r, rec)
            if inst is None:
                continue
            self.name_instruction(inst, r, rec)
            inst.block = cur
            cur.instructions.append(inst)
            raw_of[id(inst)] = r
            insts.append(inst)
        if cur is not None and cur.terminator is None:
            last = cur.instructions[-1] if cur.instructions else None
            self.err(last.span if last else cur.span,
                     f"a terminator (br, switch, ret, unreachable) at the end of block '%{cur.name}'",
                     f"'{last.opcode}'" if last else "an empty block", record=rec)
        if not blocks:
            self.err(rf.span, "at least one basic block in a function definition", "an empty body",
                     record=rec)
        for i, b in enumerate(blocks):
            b.index = i
        f.blocks = blocks
        self.blocks = block_names
        # names of blocks live in the same namespace as values
        for b in blocks:
            if b.name in self.values and not isinstance(self.values[b.name], BasicBlock):
                self.err(b.span, "a new name", f"redefinition of '%{_quote_name(b.name)}'", record=rec)
        for inst in insts:
            self.resolve(inst, raw_of[id(inst)], rec, f)
        # CFG
        for b in blocks:
            t = b.terminator
            b.successors = list(t.targets) if t is not None else []
        preds: dict[int, list] = {id(b): [] for b in blocks}
        seen: set = set()
        for b in blocks:
            for s in b.successors:
                key = (id(b), id(s))
                if key not in seen:
                    seen.add(key)
                    preds[id(s)].append(b)
        for b in blocks:
            b.predecessors = preds[id(b)]
        _assign_slots(f)

    # ------------------------------------------------------- instructions
    def make_instruction(self, r: RawInst, rec: str) -> Instruction | None:
        op = r.opcode
        inst = Instruction(op, None, VOID, [], None, r.span)
        ex = r.extra
        words = r.words
        if op in BINOP_FLAGS or op in ("icmp", "fcmp", "fneg"):
            if op == "icmp":
                preds = [w for w in words if w in INT_PREDICATES]
                others = [w for w in words if w not in INT_PREDICATES and w != "samesign"]
                if len(preds) != 1 or others:
                    found = others[0] if others else " ".join(words)
                    self.err(r.span, "an icmp predicate (eq, ne, ugt, uge, ult, ule, sgt, sge, slt, sle)",
                             f"'{found}'", record=rec)
                inst.predicate = preds[0] if preds else None
                inst.flags = frozenset(w for w in words if w == "samesign")
                inst.type = _cmp_type(r.type)
            elif op == "fcmp":
                flags = words[:-1]
                pred = words[-1]
                if pred not in FP_PREDICATES:
                    self.err(r.span, "an fcmp predicate (oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, "
                             "uge, ult, ule, une, uno, true, false)", f"'{pred}'", record=rec)
                self.check_words(flags, FAST_MATH, r, "a fast-math flag")
                inst.predicate = pred
                inst.flags = frozenset(flags)
                inst.type = _cmp_type(r.type)
            else:
                allowed = FAST_MATH if op == "fneg" else BINOP_FLAGS[op]
                self.check_words(words, allowed, r, f"an '{op}' flag")
                inst.flags = frozenset(words)
                inst.type = r.type
        elif op == "select" or op == "phi":
            self.check_words(words, FAST_MATH, r, "a fast-math flag")
            inst.flags = frozenset(words)
            if op == "phi":
                inst.type = r.type
        elif op == "call" or op == "callbr":
            inst.tail = ex.get("tail")
            fmf = []
            cw = []
            for w in ex["words"]:
                if w in FAST_MATH:
                    fmf.append(w)
                elif w in CALLING_CONVENTIONS or w.startswith("cc "):
                    inst.cc = w
                else:
                    cw.append(w)
            inst.flags = frozenset(fmf)
            inst.ret_attrs = tuple(cw)
            inst.type = ex["ret"]
            inst.attr_items = tuple(ex["attrs"])
            inst.attrs = self.expand_attrs(ex["attrs"], r.span, rec)
        elif op == "load" or op == "store":
            self.memory_words(inst, words, r, rec)
            if op == "load":
                inst.type = r.type
        elif op == "atomicrmw":
            ws = list(words)
            rmw = [w for w in ws if w in RMW_OPS]
            if not rmw:
                self.err(r.span, "an atomicrmw operation (xchg, add, sub, and, nand, or, xor, max, min, "
                         "umax, umin, fadd, fsub, fmax, fmin)", f"'{' '.join(ws)}'", record=rec)
            else:
                inst.rmw_op = rmw[0]
                ws.remove(rmw[0])
            self.memory_words(inst, ws, r, rec, need_order=1)
        elif op == "cmpxchg":
            self.memory_words(inst, words, r, rec, need_order=2)
        elif op == "fence":
            self.memory_words(inst, words, r, rec, need_order=1)
        elif op == "getelementptr":
            self.check_words(words, GEP_FLAGS, r, "a getelementptr flag")
            inst.flags = frozenset(words)
            inst.source_type = ex["source_type"]
        elif op in CAST_OPS:
            self.check_words(words, CAST_FLAGS.get(op, ()), r, f"'{op}' flags")
            inst.flags = frozenset(words)
            inst.type = r.type
        elif op == "alloca":
            self.check_words(words, ("inalloca",), r, "an alloca flag")
            inst.flags = frozenset(words)
            inst.source_type = ex["source_type"]
            inst.type = PTR
        if inst.type == VOID and op not in ("br", "switch", "ret", "unreachable", "store", "fence",
                                            "call", "callbr"):
            inst.type = _result_type(r)
        if r.name is not None:
            inst.name = r.name
        return inst

    def name_instruction(self, inst: Instruction, r: RawInst, rec: str) -> None:
        """Bind the result name; unnamed results get the next number (as LLVM does)."""
        if inst.type == VOID:
            if inst.name is not None:
                self.err(r.name_span, f"no name for an instruction without a result ('{inst.opcode}' "
                         "returns void)", f"'%{_quote_name(inst.name)}'", record=rec)
                inst.name = None
            return
        if inst.name is None:
            inst.name = str(self.next_slot)
            self.next_slot += 1
            self.define(inst.name, inst, r.span, rec)
            return
        if inst.name.isdigit() and not self.check_number(inst.name, r.name_span, rec):
            return
        self.define(inst.name, inst, r.name_span, rec)

    def check_words(self, words, allowed, r: RawInst, what: str) -> None:
        if not words:
            return
        for w in words:
            if w not in allowed:
                opts = ", ".join(allowed)
                self.err(r.span, f"{what} ({opts})" if allowed else f"no {what}", f"'{w}'")

    def memory_words(self, inst: Instruction, words, r: RawInst, rec: str, need_order: int = 0) -> None:
        orders = []
        for w in words:
            if w == "volatile":
                inst.volatile = True
            elif w == "atomic":
                inst.atomic = True
            elif w == "weak" and inst.opcode == "cmpxchg":
                inst.weak = True
            elif w in ORDERINGS:
                orders.append(w)
            else:
                self.err(r.span, "volatile, atomic or a memory ordering", f"'{w}'", record=rec)
        if inst.atomic and inst.opcode in ("load", "store"):
            need_order = 1
        if len(orders) != need_order:
            self.err(r.span, f"{need_order} memory ordering(s)", f"{len(orders)}", record=rec)
        if orders:
            inst.ordering = orders[0]
            if len(orders) > 1:
                inst.failure_ordering = orders[1]
        inst.syncscope = r.extra.get("syncscope")

    # ------------------------------------------------------------ operands
    def value(self, ty: Type | None, rv: RawVal | None, rec: str, f: Function,
              what: str = "operand") -> Value | None:
        if rv is None:
            return None
        k = rv.kind
        if k == "local":
            v = self.values.get(rv.payload)
            if v is None:
                if rv.payload in self.blocks and ty == LABEL:
                    return self.blocks[rv.payload]
                self.err(rv.span, "a defined value", f"undefined value '%{_quote_name(rv.payload)}'",
                         record=rec)
                return None
            if ty is not None and v.type != ty:
                self.err(rv.span, f"'%{_quote_name(rv.payload)}' to have type {ty}",
                         f"type {v.type} (type mismatch in {what})", record=rec)
                return None
            return v
        if k == "global":
            name = rv.payload
            if name in self.functions:
                return GlobalRef(name, PTR if ty is None else ty)
            if name in self.globals:
                g = self.globals[name]
                gt = PtrType(g.addrspace)
                if ty is not None and ty != gt:
                    self.err(rv.span, f"'@{_quote_name(name)}' to have type {ty}",
                             f"type {gt} (type mismatch in {what})", record=rec)
                return GlobalRef(name, gt)
            self.err(rv.span, "a defined global", f"undefined value '@{_quote_name(name)}'", record=rec)
            return None
        if k == "md":
            return MetadataRef(rv.payload)
        if ty is None:
            self.err(rv.span, "a typed operand", f"'{_raw_text(rv)}'", record=rec)
            return None
        try:
            return self.constant(ty, rv, rec, f)
        except _ConstErr as e:
            self.err(rv.span, e.args[0], e.args[1], record=rec)
            return None

    def constant(self, ty: Type, rv: RawVal, rec: str, f: Function) -> Constant:
        k = rv.kind
        p = rv.payload
        if k == "int":
            if isinstance(ty, IntType):
                v = wrap_signed(int(p), ty.bits)
                if ty.bits == 1:
                    return Constant(ty, "true" if v else "false", "int", v & 1)
                return Constant(ty, str(v), "int", v)
            if isinstance(ty, FloatType):
                try:
                    return self.constant(ty, RawVal("float", p + ".0", rv.span), rec, f)
                except _ConstErr:
                    pass
            raise _ConstErr(f"a constant of type {ty}", f"integer '{p}'")
        if k == "float":
            if isinstance(ty, FloatType) and ty.name in ("half", "bfloat", "float", "double"):
                try:
                    v, raw = parse_float_literal(p, ty.name)
                except (ValueError, struct.error, OverflowError):
                    raise _ConstErr(f"a constant of type {ty}", f"'{p}'")
                if not p.startswith("0x") and ty.name in ("float", "half", "bfloat"):
                    # decimal literals must be exactly representable (as LLVM requires)
                    if v != float(p) and math.isfinite(v):
                        raise _ConstErr(f"a constant exactly representable as {ty}", f"'{p}'")
                if raw is not None and ty.name in ("half", "bfloat"):
                    if v is None:
                        v = _half_value(ty.name, raw)
                    return Constant(ty, float_text(ty.name, v, raw), "float", v)
                return Constant(ty, float_text(ty.name, v), "float", v)
            raise _ConstErr(f"a constant of type {ty}", f"floating-point constant '{p}'")
        if k == "word":
            if p in ("true", "false"):
                if ty != I1:
                    raise _ConstErr(f"a constant of type {ty}", f"'{p}' (only i1 is true/false)")
                return Constant(ty, p, "int", 1 if p == "true" else 0)
            if p == "null":
                if not isinstance(ty, PtrType):
                    raise _ConstErr(f"a constant of type {ty}", "'null' (only pointers are null)")
                return Constant(ty, "null", "null")
            if p == "none":
                if ty != TOKEN:
                    raise _ConstErr(f"a constant of type {ty}", "'none' (only tokens are none)")
                return Constant(ty, "none", "none")
            if p == "zeroinitializer":
                if isinstance(ty, IntType):
                    return Constant(ty, "false" if ty.bits == 1 else "0", "int", 0)
                if isinstance(ty, FloatType):
                    return Constant(ty, float_text(ty.name, 0.0), "float", 0.0)
                if isinstance(ty, PtrType):
                    return Constant(ty, "null", "null")
                return Constant(ty, "zeroinitializer", "zero")
            if not is_first_class(ty) and ty != TOKEN:
                raise _ConstErr(f"a value type", f"'{ty}'")
            return Constant(ty, p, p)
        if k in ("vector", "array", "struct", "pstruct"):
            return self.aggregate(ty, rv, rec, f)
        if k == "cstring":
            return Constant(ty, f'c"{p}"', "string")
        if k == "splat":
            t, v = p
            if not isinstance(ty, VectorType):
                raise _ConstErr(f"a constant of type {ty}", "a splat (only vectors)")
            el = self.value(t, v, rec, f)
            if el is None:
                raise _ConstErr("a constant element", "an invalid one")
            return self._vector(ty, [el] * ty.count)
        if k == "cast":
            opname, (t, v), dest = p
            inner = self.value(t, v, rec, f)
            if inner is None:
                raise _ConstErr("a constant operand", "an invalid one")
            if dest != ty:
                raise _ConstErr(f"a constant of type {ty}", f"a cast to {dest}")
            return Constant(ty, f"{opname} ({t} {inner.ref} to {dest})", "expr", None, (inner,))
        if k == "gep":
            words, srct, rest = p
            vals = []
            for (t, v) in rest:
                x = self.value(t, v, rec, f)
                if x is None:
                    raise _ConstErr("a constant operand", "an invalid one")
                vals.append((t, x))
            w = " ".join(words)
            w = (w + " ") if w else ""
            body = ", ".join(f"{t} {x.ref}" for t, x in vals)
            return Constant(ty, f"getelementptr {w}({srct}, {body})", "expr", None,
                            tuple(x for _, x in vals))
        if k == "binop":
            opname, words, (t1, v1), (t2, v2) = p
            a = self.value(t1, v1, rec, f)
            b = self.value(t2, v2, rec, f)
            if a is None or b is None:
                raise _ConstErr("a constant operand", "an invalid one")
            w = " ".join(words)
            w = (w + " ") if w else ""
            return Constant(ty, f"{opname} {w}({t1} {a.ref}, {t2} {b.ref})", "expr", None, (a, b))
        if k == "asm":
            raise _ConstErr("a value", "inline asm outside a call")
        raise _ConstErr("a constant", k)

    def _vector(self, ty: VectorType, elems: list) -> Constant:
        if all(isinstance(e, Constant) and e.kind in ("int", "float", "null") and not e.value
               and not (e.kind == "float" and math.copysign(1.0, e.value or 0.0) < 0) for e in elems):
            return Constant(ty, "zeroinitializer", "zero", None, tuple(elems))
        if all(isinstance(e, Constant) and e.kind == "undef" for e in elems):
            return Constant(ty, "undef", "undef")
        if all(isinstance(e, Constant) and e.kind == "poison" for e in elems):
            return Constant(ty, "poison", "poison")
        body = ", ".join(f"{e.type} {e.ref}" for e in elems)
        return Constant(ty, f"<{body}>", "aggregate", None, tuple(elems))

    def aggregate(self, ty: Type, rv: RawVal, rec: str, f: Function) -> Constant:
        k = rv.kind
        items = rv.payload
        if k == "vector":
            want = VectorType
        elif k == "array":
            want = ArrayType
        else:
            want = StructType
        if not isinstance(ty, want) or (want is StructType and ty.packed != (k == "pstruct")):
            raise _ConstErr(f"a constant of type {ty}", f"a {k} constant")
        if want is StructType:
            tys = list(ty.elems)
        else:
            tys = [ty.elem] * ty.count
        if len(items) != len(tys):
            raise _ConstErr(f"{len(tys)} elements for {ty}", f"{len(items)}")
        elems = []
        for (t, v), et in zip(items, tys):
            if t != et:
                raise _ConstErr(f"element type {et}", f"{t}")
            x = self.value(t, v, rec, f)
            if x is None:
                raise _ConstErr("a constant element", "an invalid one")
            elems.append(x)
        if want is VectorType:
            return self._vector(ty, elems)
        if all(isinstance(e, Constant) and e.kind in ("int", "float", "null", "zero") and not e.value
               for e in elems):
            return Constant(ty, "zeroinitializer", "zero", None, tuple(elems))
        body = ", ".join(f"{e.type} {e.ref}" for e in elems)
        if want is ArrayType:
            text = f"[{body}]"
        else:
            text = "{ " + body + " }" if body else "{}"
            if ty.packed:
                text = f"<{text}>"
        return Constant(ty, text, "aggregate", None, tuple(elems))

    def label(self, ty, rv: RawVal, rec: str) -> BasicBlock | None:
        if ty != LABEL:
            self.err(rv.span if rv else None, "a label operand ('label %name')", f"type {ty}", record=rec)
            return None
        return self.block_ref(rv, rec)

    def block_ref(self, rv: RawVal, rec: str, name: str | None = None, span: Span | None = None):
        if rv is not None:
            if rv.kind != "local":
                self.err(rv.span, "a block label (%name)", f"'{_raw_text(rv)}'", record=rec)
                return None
            name, span = rv.payload, rv.span
        b = self.blocks.get(name)
        if b is None:
            self.err(span, "a block label defined in this function",
                     f"undefined label '%{_quote_name(name)}'", record=rec)
        return b

    def resolve(self, inst: Instruction, r: RawInst, rec: str, f: Function) -> None:
        op = inst.opcode
        ops = r.ops
        val = self.value
        tail = r.tail
        md = []
        rest = []
        for t in tail:
            if t[0] == "md":
                name, body = t[1]
                md.append((name, body))
            elif t[0] == "align":
                inst.align = t[1]
            else:
                rest.append(t)
        inst.metadata = md

        def bad_tail(t):
            self.err(t[2], f"no further operands of '{op}'", f"'{t[0]}' item", record=rec)

        if op in BINOP_FLAGS or op in ("icmp", "fcmp"):
            ty = ops[0][0]
            if op in ("icmp",):
                if not isinstance(ty.scalar, (IntType, PtrType)):
                    self.err(r.span, "an integer, pointer or vector-of-integer type for icmp", f"'{ty}'",
                             record=rec)
            elif op == "fcmp" or op.startswith("f"):
                if not isinstance(ty.scalar, FloatType):
                    self.err(r.span, f"a floating-point type for {op}", f"'{ty}'", record=rec)
            elif not isinstance(ty.scalar, IntType):
                self.err(r.span, f"an integer type for {op}", f"'{ty}'", record=rec)
            inst.operands = [val(ty, ops[0][1], rec, f), val(ty, ops[1][1], rec, f)]
            for t in rest:
                bad_tail(t)
        elif op == "fneg":
            inst.operands = [val(ops[0][0], ops[0][1], rec, f)]
        elif op == "select":
            (tc, c), (ta, a), (tb, b) = ops
            if tc.scalar != I1:
                self.err(c.span, "an i1 (or vector of i1) condition", f"type {tc}", record=rec)
            if ta != tb:
                self.err(b.span, f"both select values of type {ta}", f"type {tb}", record=rec)
            inst.type = ta
            inst.operands = [val(tc, c, rec, f), val(ta, a, rec, f), val(tb, b, rec, f)]
        elif op == "phi":
            pairs = list(r.extra["incoming"])
            for t in rest:
                if t[0] == "phi":
                    pairs.append(t[1])
                else:
                    bad_tail(t)
            inc = []
            for (v, bname, bspan) in pairs:
                x = val(inst.type, v, rec, f, "phi incoming value")
                b = self.block_ref(None, rec, bname, bspan)
                inc.append((x, b))
            inst.incoming = inc
            inst.operands = [x for x, _ in inc]
        elif op == "br":
            (t0, v0) = ops[0]
            items = [(t0, v0)] + [t[1] for t in rest if t[0] == "typed"]
            for t in rest:
                if t[0] != "typed":
                    bad_tail(t)
            if len(items) == 1:
                b = self.label(t0, v0, rec)
                inst.targets = [b] if b is not None else []
            elif len(items) == 3:
                if t0 != I1:
                    self.err(v0.span, "an i1 branch condition", f"type {t0}", record=rec)
                c = val(t0, v0, rec, f) if t0 == I1 else None
                inst.operands = [c]
                inst.targets = [x for x in (self.label(*items[1], rec), self.label(*items[2], rec))
                                if x is not None]
            else:
                self.err(r.span, "'br label %dest' or 'br i1 %cond, label %t, label %f'",
                         f"{len(items)} operands", record=rec)
        elif op == "switch":
            (tc, c), (tl, d) = ops
            if not isinstance(tc, IntType):
                self.err(c.span, "an integer switch condition", f"type {tc}", record=rec)
            inst.operands = [val(tc, c, rec, f)]
            default = self.label(tl, d, rec)
            targets = [default]
            cases = []
            seen = set()
            for (tv, v), (tl2, l2) in r.extra["cases"]:
                cv = val(tv, v, rec, f)
                if tv != tc:
                    self.err(v.span, f"case value of type {tc}", f"type {tv}", record=rec)
                if isinstance(cv, Constant):
                    if cv.value in seen:
                        self.err(v.span, "distinct case values", f"duplicate case '{cv.text}'", record=rec)
                    seen.add(cv.value)
                elif cv is not None:
                    self.err(v.span, "a constant case value", f"'{_raw_text(v)}'", record=rec)
                b = self.label(tl2, l2, rec)
                cases.append((cv, b))
                targets.append(b)
            inst.cases = cases
            inst.targets = [t for t in targets if t is not None]
        elif op == "ret":
            ty, v = ops[0]
            if ty != f.ret_type:
                self.err(r.span, f"'ret' of the function's return type {f.ret_type}", f"'ret {ty}'",
                         record=rec)
            elif v is None:
                if ty != VOID:
                    self.err(r.span, f"a return value of type {ty}", "none", record=rec)
            else:
                inst.operands = [val(ty, v, rec, f)]
        elif op == "unreachable":
            pass
        elif op in ("call", "callbr"):
            self.resolve_call(inst, r, rec, f)
            for t in rest:
                bad_tail(t)
        elif op == "load":
            (tp, p) = ops[0]
            self.need_ptr(tp, p, rec)
            inst.operands = [val(tp, p, rec, f)]
            inst.addrspace = getattr(tp, "addrspace", None)
            for t in rest:
                bad_tail(t)
        elif op == "store":
            (tv, v), (tp, p) = ops
            self.need_ptr(tp, p, rec)
            inst.operands = [val(tv, v, rec, f), val(tp, p, rec, f)]
            inst.addrspace = getattr(tp, "addrspace", None)
            inst.source_type = tv
            for t in rest:
                bad_tail(t)
        elif op == "atomicrmw":
            (tp, p), (tv, v) = ops
            self.need_ptr(tp, p, rec)
            inst.operands = [val(tp, p, rec, f), val(tv, v, rec, f)]
            inst.addrspace = getattr(tp, "addrspace", None)
            inst.type = tv
        elif op == "cmpxchg":
            (tp, p), (tc, c), (tn, n) = ops
            self.need_ptr(tp, p, rec)
            if tc != tn:
                self.err(n.span, f"new value of type {tc}", f"type {tn}", record=rec)
            inst.operands = [val(tp, p, rec, f), val(tc, c, rec, f), val(tn, n, rec, f)]
            inst.addrspace = getattr(tp, "addrspace", None)
            inst.type = StructType((tc, I1))
        elif op == "fence":
            pass
        elif op == "getelementptr":
            (tp, p) = ops[0]
            base = val(tp, p, rec, f)
            idx = []
            for t in rest:
                if t[0] == "typed":
                    ti, vi = t[1]
                    if not isinstance(ti.scalar, IntType):
                        self.err(t[2], "an integer index", f"type {ti}", record=rec)
                    idx.append(val(ti, vi, rec, f))
                else:
                    bad_tail(t)
            inst.operands = [base] + idx
            inst.type = tp
            inst.addrspace = getattr(tp.scalar, "addrspace", None)
            if not isinstance(tp.scalar, PtrType):
                self.err(p.span, "a pointer base", f"type {tp}", record=rec)
            else:
                for x in idx:
                    if x is not None and isinstance(x.type, VectorType) and not isinstance(tp, VectorType):
                        inst.type = VectorType(x.type.count, tp)
        elif op in CAST_OPS:
            (ts, s) = ops[0]
            inst.operands = [val(ts, s, rec, f)]
            inst.source_type = ts
            self.check_cast(op, ts, inst.type, r, rec)
        elif op == "extractelement":
            (tv, v), (ti, i) = ops
            if not isinstance(tv, VectorType):
                self.err(v.span, "a vector operand", f"type {tv}", record=rec)
            else:
                inst.type = tv.elem
            inst.operands = [val(tv, v, rec, f), val(ti, i, rec, f)]
        elif op == "insertelement":
            (tv, v), (te, e), (ti, i) = ops
            if not isinstance(tv, VectorType) or te != tv.elem:
                self.err(e.span, f"an element of the vector's type", f"type {te}", record=rec)
            inst.type = tv
            inst.operands = [val(tv, v, rec, f), val(te, e, rec, f), val(ti, i, rec, f)]
        elif op == "shufflevector":
            (ta, a), (tb, b), (tm, m) = ops
            if not isinstance(ta, VectorType) or not isinstance(tm, VectorType):
                self.err(a.span, "vector operands", f"type {ta}", record=rec)
            else:
                inst.type = VectorType(tm.count, ta.elem)
            inst.operands = [val(ta, a, rec, f), val(tb, b, rec, f), val(tm, m, rec, f)]
        elif op in ("extractvalue", "insertvalue"):
            idx = []
            for t in rest:
                if t[0] == "index":
                    idx.append(t[1])
                else:
                    bad_tail(t)
            inst.indices = tuple(idx)
            (ta, a) = ops[0]
            inst.operands = [val(ta, a, rec, f)]
            cur = ta
            for k in idx:
                if isinstance(cur, StructType) and 0 <= k < len(cur.elems):
                    cur = cur.elems[k]
                elif isinstance(cur, ArrayType) and 0 <= k < cur.count:
                    cur = cur.elem
                else:
                    self.err(r.span, f"a valid index into {cur}", f"{k}", record=rec)
                    cur = None
                    break
            if not idx:
                self.err(r.span, f"at least one index for {op}", "none", record=rec)
            if op == "extractvalue":
                inst.type = cur if cur is not None else VOID
            else:
                (tb, b) = ops[1]
                if cur is not None and tb != cur:
                    self.err(b.span, f"inserted value of type {cur}", f"type {tb}", record=rec)
                inst.operands.append(val(tb, b, rec, f))
                inst.type = ta
        elif op == "alloca":
            for t in rest:
                if t[0] == "typed":
                    inst.operands.append(val(t[1][0], t[1][1], rec, f))
                elif t[0] == "addrspace":
                    inst.type = PtrType(t[1])
                    inst.addrspace = t[1]
                else:
                    bad_tail(t)
        elif op == "freeze":
            (tv, v) = ops[0]
            inst.type = tv
            inst.operands = [val(tv, v, rec, f)]

    def need_ptr(self, tp, p, rec) -> None:
        if not isinstance(tp, PtrType):
            self.err(p.span if p is not None else None, "a pointer operand", f"type {tp}", record=rec)

    def check_cast(self, op, src: Type, dst: Type, r: RawInst, rec: str) -> None:
        s, d = src.scalar, dst.scalar
        ok = True
        if isinstance(src, VectorType) != isinstance(dst, VectorType) and op != "bitcast":
            ok = False
        elif op in ("trunc", "zext", "sext"):
            ok = isinstance(s, IntType) and isinstance(d, IntType) and (
                s.bits > d.bits if op == "trunc" else s.bits < d.bits)
        elif op in ("fptrunc", "fpext"):
            ok = isinstance(s, FloatType) and isinstance(d, FloatType)
        elif op in ("fptoui", "fptosi"):
            ok = isinstance(s, FloatType) and isinstance(d, IntType)
        elif op in ("uitofp", "sitofp"):
            ok = isinstance(s, IntType) and isinstance(d, FloatType)
        elif op == "ptrtoint":
            ok = isinstance(s, PtrType) and isinstance(d, IntType)
        elif op == "inttoptr":
            ok = isinstance(s, IntType) and isinstance(d, PtrType)
        elif op == "addrspacecast":
            ok = isinstance(s, PtrType) and isinstance(d, PtrType) and s != d
        elif op == "bitcast":
            ok = _bit_size(src) is not None and _bit_size(src) == _bit_size(dst) and \
                isinstance(s, PtrType) == isinstance(d, PtrType)
        if not ok:
            self.err(r.span, f"a valid {op} (source and destination types)", f"'{src}' to '{dst}'",
                     record=rec)

    def resolve_call(self, inst: Instruction, r: RawInst, rec: str, f: Function) -> None:
        ex = r.extra
        callee = ex["callee"]
        fnp = ex["fn_params"]
        args = []
        arg_attrs = []
        for (ty, attrs, v) in ex["args"]:
            args.append(self.value(ty, v, rec, f, "call argument"))
            arg_attrs.append(tuple(attrs))
        inst.operands = args
        inst.arg_attrs = arg_attrs
        if fnp is not None:
            inst.fn_type = (inst.type, fnp[0], fnp[1])
        if callee.kind == "asm":
            words, asm, cons = callee.payload
            for w in words:
                if w not in ("sideeffect", "alignstack", "inteldialect", "unwind"):
                    self.err(callee.span, "sideeffect, alignstack, inteldialect or unwind", f"'{w}'",
                             record=rec)
            ia = InlineAsm(asm, cons, "sideeffect" in words, "alignstack" in words,
                           "inteldialect" in words, "unwind" in words)
            inst.inline_asm = ia
            inst.callee_value = ia
        elif callee.kind == "global":
            name = callee.payload
            if name not in self.functions and name.startswith("llvm.") and name not in self.globals:
                # LLVM declares called intrinsics implicitly, at the end of the module
                params = [(t, [], None, None) for (t, _, _) in ex["args"]]
                self.functions[name] = RawFunc(name, callee.span, [], inst.type, params, False, [], None)
                self.implicit.append(self.functions[name])
            if name not in self.functions:
                if name in self.globals:
                    inst.callee_value = GlobalRef(name, PtrType(self.globals[name].addrspace))
                else:
                    self.err(callee.span, "a declared function", f"undefined function '@{_quote_name(name)}'",
                             record=rec)
            else:
                inst.callee = name
                inst.callee_value = GlobalRef(name, PTR)
                rf = self.functions[name]
                # check the signature against the declaration
                if rf.ret_type != inst.type:
                    self.err(callee.span, f"call of '@{_quote_name(name)}' returning {rf.ret_type}",
                             f"return type {inst.type}", record=rec)
                ptys = [p[0] for p in rf.params]
                if len(ptys) != len(args) and not (rf.vararg and len(args) >= len(ptys)):
                    self.err(callee.span, f"{len(ptys)} argument(s) for '@{_quote_name(name)}'",
                             f"{len(args)}", record=rec)
                else:
                    for i, (pt, (ty, _, v)) in enumerate(zip(ptys, ex["args"])):
                        if pt != ty:
                            self.err(v.span, f"argument {i + 1} of '@{_quote_name(name)}' of type {pt}",
                                     f"type {ty} (type mismatch in call argument)", record=rec)
        elif callee.kind == "local":
            inst.callee_value = self.value(PTR, callee, rec, f, "callee")
        else:
            self.err(callee.span, "a function, a pointer or inline asm as callee",
                     f"'{_raw_text(callee)}'", record=rec)
        bundles = []
        for (tag, items, span) in ex["bundles"]:
            bundles.append((tag, [self.value(t, v, rec, f, "operand bundle") for (t, v) in items]))
        inst.bundles = bundles
        if inst.opcode == "callbr":
            targets = [self.label(*ex["default"], rec)]
            for t in ex["indirect"]:
                targets.append(self.label(*t, rec))
            inst.targets = [t for t in targets if t is not None]


class _ConstErr(Exception):
    pass




def _bit_size(t: Type) -> int | None:
    if isinstance(t, IntType):
        return t.bits
    if isinstance(t, FloatType):
        return t.bits
    if isinstance(t, PtrType):
        return 64
    if isinstance(t, VectorType):
        e = _bit_size(t.elem)
        return None if e is None else e * t.count
    return None


def _result_type(r: RawInst) -> Type:
    """Result type of the instructions whose type follows from their operand types.

    Computed before operands are resolved so forward references can be type-checked.
    Ill-formed operands are reported later by the resolver; here they give ``VOID``."""
    op = r.opcode
    ops = r.ops
    try:
        if op == "select":
            return ops[1][0]
        if op == "freeze":
            return ops[0][0]
        if op == "extractelement":
            return ops[0][0].elem
        if op == "insertelement":
            return ops[0][0]
        if op == "shufflevector":
            return VectorType(ops[2][0].count, ops[0][0].elem)
        if op == "atomicrmw":
            return ops[1][0]
        if op == "cmpxchg":
            return StructType((ops[1][0], I1))
        if op == "getelementptr":
            tp = ops[0][0]
            for t in r.tail:
                if t[0] == "typed" and isinstance(t[1][0], VectorType) and not isinstance(tp, VectorType):
                    return VectorType(t[1][0].count, tp)
            return tp
        if op in ("extractvalue", "insertvalue"):
            if op == "insertvalue":
                return ops[0][0]
            cur = ops[0][0]
            for t in r.tail:
                if t[0] == "index":
                    cur = cur.elems[t[1]] if isinstance(cur, StructType) else cur.elem
            return cur
    except (AttributeError, IndexError, TypeError):
        return VOID
    return VOID


def _cmp_type(t: Type) -> Type:
    if isinstance(t, VectorType):
        return VectorType(t.count, I1)
    return I1


def _half_value(name: str, raw: int) -> float:
    if name == "half":
        return struct.unpack("<e", struct.pack("<H", raw))[0]
    return struct.unpack("<f", struct.pack("<I", raw << 16))[0]


def _assign_slots(f: Function) -> None:
    """The names opt prints: named values keep their names, unnamed ones are renumbered
    0, 1, ... over arguments, then blocks and instructions in order."""
    n = 0
    for a in f.args:
        if a.name.isdigit():
            a.slot = str(n)
            n += 1
        else:
            a.slot = _quote_name(a.name)
    for b in f.blocks:
        if b.name.isdigit():
            b.slot = str(n)
            n += 1
        else:
            b.slot = _quote_name(b.name)
        for i in b.instructions:
            if i.name is None:
                continue
            if i.name.isdigit():
                i.slot = str(n)
                n += 1
            else:
                i.slot = _quote_name(i.name)

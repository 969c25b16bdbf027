"""The lark parse tree -> the raw records of the exact IR path (the transformer run inside the LALR parser).

Stage job: one method per rule of ``patterns/ir/ir.lark`` turning the rule's children into
types, ``RawVal``/``RawInst``/``RawFunc`` records (``patterns/ir/exact_raw.py``) and the
tuples of module-level items (attribute groups, globals). The class is made on first
use (``new_builder``), so importing this module does not import lark.
"""

from __future__ import annotations

from tdgen.errors import ParseError, Span, expected

from patterns.ir.core import (LABEL, MAX_INT_BITS, MAX_VECTOR_ELEMENTS, METADATA, PTR, TOKEN, VOID, ArrayType,
                              FloatType, PtrType, StructType, Type, VectorType, int_type)
from patterns.ir.exact_raw import RawFunc, RawInst, RawVal, raw_text
from patterns.ir.spelling import sigil_name, unquote


def _syntax(span: Span, what: str, found: str) -> ParseError:
    return ParseError(span, expected(what, found))


def _make_builder_class():
    import lark
    from lark import Token

    class Builder(lark.Transformer):
        """Parse tree -> raw records (runs inline in the LALR parser)."""

        path = "<input>"
        line_offset = 0  # when parsing one line or chunk of a larger file (reader_lines)

        def _span(self, tok) -> Span:
            return Span(self.path, tok.line + self.line_offset, tok.column)

        # ------------------------------------------------------------- types
        def int_type(self, c):
            bits = int(c[0][1:])
            if not 1 <= bits <= MAX_INT_BITS:
                raise _syntax(self._span(c[0]), f"an integer width from 1 to {MAX_INT_BITS} bits", f"'{c[0]}'")
            return int_type(bits)

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
                return f"{x[0]} {raw_text(x[1])}"
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
                    out.append(("label", unquote(str(x)[:-1]), self._span(x)))
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
            if getattr(c[0], "type", "") != "INT":  # a WORD; addrspace(N) keeps only N
                return str(c[0])
            return ("addrspace", int(c[0]))

        def metadata_def(self, c):
            return ("metadata",)

        def target_def(self, c):
            # ("target", property, the string's text, where its opening quote is)
            return ("target", str(c[0]), str(c[1])[1:-1], self._span(c[1]))

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


def new_builder():
    """A new transformer of parse trees into raw records (lark is imported on the first call)."""
    global _BUILDER_CLASS
    if _BUILDER_CLASS is None:
        _BUILDER_CLASS = _make_builder_class()
    return _BUILDER_CLASS()

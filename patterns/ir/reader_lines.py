"""Fast line reader for the common LLVM IR instruction forms (same records as lark).

Stage job: text -> the raw records of ``patterns/ir/exact_raw.py`` (``RawFunc``/``RawInst``/
``RawVal``) for the resolver of ``patterns/ir/reader_exact.py``, identical to what the
lark grammar produces, but much faster on large kernels. The reader splits the module
into lines. Inside a function body each line is a label, ``}``, or an instruction; instructions in the common simple forms (binary ops,
icmp, select, phi, br, ret, direct calls with simple arguments, load, store, gep,
casts, unreachable) are read with one regular expression each. Every other line,
every function header and everything outside function bodies is handed to the lark
grammar (``patterns/ir/ir.lark``, start symbols ``instruction``,
``define_header``, ``start``) with its line offset, so the grammar stays the single
definition of the syntax and errors come out exactly as on the lark path.
tests/test_ir.py checks that both paths give equal records on the whole corpus
and on generated kernels.
"""

from __future__ import annotations

import re

from tdgen.errors import Span

from patterns.ir.core import LABEL, PTR, VOID, FloatType, PtrType, int_type
from patterns.ir.exact_lark import parse_raw_lark
from patterns.ir.exact_raw import RawFunc, RawInst, RawVal
from patterns.ir.opcodes import BINOPS, CASTS, INT_PREDICATE_ORDER, alternation
from patterns.ir.spelling import unquote

_NAME = r'[-a-zA-Z$._][-a-zA-Z$._0-9]*|[0-9]+'
_TY = r'i[0-9]+|float|double|half|bfloat|ptr(?: addrspace\([0-9]+\))?'
_VAL = (r'%(?:' + _NAME + r')|@(?:' + _NAME + r')|-?[0-9]+(?:\.[0-9]*(?:[eE][-+]?[0-9]+)?)?'
        r'|true|false|undef|poison|null|zeroinitializer')

_DEF = re.compile(r'(%(?:' + _NAME + r'))[ \t]*=[ \t]*')
_BINOP = re.compile(r'(' + alternation(BINOPS) + r')'
                    r'((?: (?:nuw|nsw|exact|disjoint))*) (' + _TY + r') (' + _VAL + r'), (' + _VAL + r')$')
_ICMP = re.compile(r'icmp (' + alternation(INT_PREDICATE_ORDER) + r') (' + _TY + r') (' + _VAL + r'), ('
                   + _VAL + r')$')
_SELECT = re.compile(r'select (i1) (' + _VAL + r'), (' + _TY + r') (' + _VAL + r'), (' + _TY + r') ('
                     + _VAL + r')$')
_PHI = re.compile(r'phi (' + _TY + r') ((?:\[ (?:' + _VAL + r'), %(?:' + _NAME + r') \](?:, )?)+)$')
_PHI_PAIR = re.compile(r'\[ (' + _VAL + r'), (%(?:' + _NAME + r')) \]')
_BR1 = re.compile(r'br (label) (%(?:' + _NAME + r'))$')
_BR3 = re.compile(r'br (i1) (' + _VAL + r'), (label) (%(?:' + _NAME + r')), (label) (%(?:' + _NAME + r'))$')
_RET = re.compile(r'ret (void|' + _TY + r')(?: (' + _VAL + r'))?$')
_CALL = re.compile(r'(?:(tail|musttail|notail) )?(call) (void|' + _TY + r') (@(?:' + _NAME + r'))\((.*)\)'
                   r'((?: #[0-9]+)*)$')
_ARG = re.compile(r'(' + _TY + r')((?: (?:inreg|noundef|zeroext|signext))*) (' + _VAL + r')$')
_LOAD = re.compile(r'load (' + _TY + r'), (' + _TY + r') (' + _VAL + r')(?:, align ([0-9]+))?$')
_STORE = re.compile(r'store (' + _TY + r') (' + _VAL + r'), (' + _TY + r') (' + _VAL + r')(?:, align ([0-9]+))?$')
_GEP = re.compile(r'getelementptr((?: (?:inbounds|nuw|nusw))*) (' + _TY + r'), (' + _TY + r') (' + _VAL + r')'
                  r'((?:, (?:' + _TY + r') (?:' + _VAL + r'))*)$')
_GEP_IDX = re.compile(r', (' + _TY + r') (' + _VAL + r')')
_CAST = re.compile(r'(' + alternation(CASTS) + r')((?: (?:nuw|nsw|nneg))*) (' + _TY + r') (' + _VAL + r') to (' + _TY + r')$')
_LABEL = re.compile(r'([-a-zA-Z$._0-9]+):[ \t]*(?:;.*)?$')

_TYPES: dict = {}
_FLOAT_NAMES = frozenset({"float", "double", "half", "bfloat"})
_WORDS = frozenset({"true", "false", "undef", "poison", "null", "zeroinitializer"})


def _ty(s: str):
    t = _TYPES.get(s)
    if t is None:
        if s[0] == "i":
            t = int_type(int(s[1:]))
        elif s in _FLOAT_NAMES:
            t = FloatType(s)
        elif s == "ptr":
            t = PTR
        elif s == "void":
            t = VOID
        else:
            t = PtrType(int(s[s.index("(") + 1:-1]))
        _TYPES[s] = t
    return t


class _Line:
    """Helpers bound to one source line (path, line number, column base)."""

    __slots__ = ("path", "lineno", "base")

    def __init__(self, path, lineno, base):
        self.path = path
        self.lineno = lineno
        self.base = base

    def span(self, pos: int) -> Span:
        return Span(self.path, self.lineno, self.base + pos + 1)

    def val(self, text: str, pos: int) -> RawVal:
        c = text[0]
        sp = Span(self.path, self.lineno, self.base + pos + 1)
        if c == "%":
            return RawVal("local", text[1:], sp)
        if c == "@":
            return RawVal("global", text[1:], sp)
        if text in _WORDS:
            return RawVal("word", text, sp)
        if "." in text or "e" in text:
            return RawVal("float", text, sp)
        return RawVal("int", text, sp)


def _fast_inst(body: str, L: _Line, base: int) -> RawInst | None:
    """One instruction (without the ``%x =`` prefix, starting at column ``base``)."""
    op = body.split(" ", 1)[0]
    off = base
    if op == "br":
        m = _BR1.match(body)
        if m:
            r = RawInst("br", L.span(off))
            r.ops = [(LABEL, L.val(m.group(2), off + m.start(2)))]
            return r
        m = _BR3.match(body)
        if m:
            r = RawInst("br", L.span(off))
            r.ops = [(_ty("i1"), L.val(m.group(2), off + m.start(2)))]
            lt = LABEL
            r.tail = [("typed", (lt, L.val(m.group(4), off + m.start(4))), L.span(off + m.start(4))),
                      ("typed", (lt, L.val(m.group(6), off + m.start(6))), L.span(off + m.start(6)))]
            return r
        return None
    if op == "icmp":
        m = _ICMP.match(body)
        if not m:
            return None
        r = RawInst("icmp", L.span(off))
        r.words = [m.group(1)]
        t = _ty(m.group(2))
        r.type = t
        r.ops = [(t, L.val(m.group(3), off + m.start(3))), (t, L.val(m.group(4), off + m.start(4)))]
        return r
    if op == "phi":
        m = _PHI.match(body)
        if not m:
            return None
        r = RawInst("phi", L.span(off))
        r.type = _ty(m.group(1))
        pairs = list(_PHI_PAIR.finditer(body, m.start(2)))
        first = pairs[0]
        lab = first.group(2)
        r.extra["incoming"] = [(L.val(first.group(1), off + first.start(1)), unquote(lab[1:]),
                                L.span(off + first.start(2)))]
        tail = []
        for p in pairs[1:]:
            v = L.val(p.group(1), off + p.start(1))
            tail.append(("phi", (v, unquote(p.group(2)[1:]), L.span(off + p.start(2))), v.span))
        r.tail = tail
        return r
    if op == "ret":
        m = _RET.match(body)
        if not m:
            return None
        r = RawInst("ret", L.span(off))
        v = m.group(2)
        r.ops = [(_ty(m.group(1)), L.val(v, off + m.start(2)) if v is not None else None)]
        return r
    if op == "call" or op == "tail" or op == "musttail" or op == "notail":
        m = _CALL.match(body)
        if not m:
            return None
        args = []
        inner = m.group(5)
        if inner:
            pos = off + m.start(5)
            for piece in inner.split(", "):
                a = _ARG.match(piece)
                if a is None:
                    return None
                attrs = a.group(2).split()
                args.append((_ty(a.group(1)), attrs, L.val(a.group(3), pos + a.start(3))))
                pos += len(piece) + 2
        r = RawInst("call", L.span(off + m.start(1)) if m.group(1) else L.span(off + m.start(2)))
        if m.group(1):
            r.extra["tail"] = m.group(1)
        r.extra.update({"words": [], "ret": _ty(m.group(3)), "fn_params": None,
                        "callee": RawVal("global", unquote(m.group(4)[1:]), L.span(off + m.start(4))),
                        "args": args, "attrs": m.group(6).split(), "bundles": []})
        return r
    if op == "load":
        m = _LOAD.match(body)
        if not m:
            return None
        r = RawInst("load", L.span(off))
        r.type = _ty(m.group(1))
        r.ops = [(_ty(m.group(2)), L.val(m.group(3), off + m.start(3)))]
        if m.group(4) is not None:
            r.tail = [("align", int(m.group(4)), L.span(off + m.start(4)))]
        return r
    if op == "store":
        m = _STORE.match(body)
        if not m:
            return None
        r = RawInst("store", L.span(off))
        r.ops = [(_ty(m.group(1)), L.val(m.group(2), off + m.start(2))),
                 (_ty(m.group(3)), L.val(m.group(4), off + m.start(4)))]
        if m.group(5) is not None:
            r.tail = [("align", int(m.group(5)), L.span(off + m.start(5)))]
        return r
    if op == "getelementptr":
        m = _GEP.match(body)
        if not m:
            return None
        r = RawInst("getelementptr", L.span(off))
        r.words = m.group(1).split()
        r.extra["source_type"] = _ty(m.group(2))
        r.ops = [(_ty(m.group(3)), L.val(m.group(4), off + m.start(4)))]
        tail = []
        for ix in _GEP_IDX.finditer(body, m.start(5)):
            v = L.val(ix.group(2), off + ix.start(2))
            tail.append(("typed", (_ty(ix.group(1)), v), v.span))
        r.tail = tail
        return r
    if op == "select":
        m = _SELECT.match(body)
        if not m:
            return None
        r = RawInst("select", L.span(off))
        r.ops = [(_ty(m.group(1)), L.val(m.group(2), off + m.start(2))),
                 (_ty(m.group(3)), L.val(m.group(4), off + m.start(4))),
                 (_ty(m.group(5)), L.val(m.group(6), off + m.start(6)))]
        return r
    if op == "unreachable" and body == "unreachable":
        return RawInst("unreachable", L.span(off))
    m = _BINOP.match(body)
    if m:
        r = RawInst(m.group(1), L.span(off))
        r.words = m.group(2).split()
        t = _ty(m.group(3))
        r.type = t
        r.ops = [(t, L.val(m.group(4), off + m.start(4))), (t, L.val(m.group(5), off + m.start(5)))]
        return r
    m = _CAST.match(body)
    if m:
        r = RawInst(m.group(1), L.span(off))
        r.words = m.group(2).split()
        r.ops = [(_ty(m.group(3)), L.val(m.group(4), off + m.start(4)))]
        r.type = _ty(m.group(5))
        return r
    return None


def parse_raw(text: str, path: str) -> list | None:
    """Records of the module, or ``None`` when the file's layout needs the full grammar
    (e.g. a function body on the header's line)."""
    lines = text.split("\n")
    records: list = []
    chunk_start = 0
    chunk: list[str] = []
    i = 0
    n = len(lines)

    def flush(start: int, buf: list[str]) -> None:
        if any(s.strip() and not s.lstrip().startswith(";") for s in buf):
            records.extend(parse_raw_lark("\n".join(buf), path, "start", start))

    while i < n:
        line = lines[i]
        if not line.startswith("define"):
            if not chunk:
                chunk_start = i
            chunk.append(line)
            i += 1
            continue
        flush(chunk_start, chunk)
        chunk = []
        # header: up to the line that ends with '{'
        j = i
        while j < n and not _code(lines[j]).endswith("{"):
            if "{" in _code(lines[j]) and '"' not in lines[j]:
                return None
            j += 1
        if j >= n:
            return None  # let lark report the broken header
        head = "\n".join(lines[i:j + 1])
        rf: RawFunc = parse_raw_lark(head, path, "define_header", i)
        body: list = []
        k = j + 1
        while k < n:
            raw = lines[k]
            code = _code(raw)
            s = code.strip()
            if not s:
                k += 1
                continue
            if s == "}":
                break
            if s.endswith("}") and s != "}":
                return None
            ind = len(code) - len(code.lstrip())
            m = _LABEL.match(code, ind)
            if m:
                body.append(("label", unquote(m.group(1)), Span(path, k + 1, ind + 1)))
                k += 1
                continue
            # multi-line instructions (switch cases, callbr continuation)
            if s.count("[") != s.count("]") or (k + 1 < n and lines[k + 1].lstrip().startswith("to ")):
                e = k
                buf = [raw]
                while e + 1 < n and (buf[-1].count("[") + sum(b.count("[") for b in buf[:-1])
                                     > sum(b.count("]") for b in buf)
                                     or lines[e + 1].lstrip().startswith("to ")):
                    e += 1
                    buf.append(lines[e])
                body.append(parse_raw_lark("\n".join(buf), path, "instruction", k))
                k = e + 1
                continue
            inst = None
            if '"' not in code and "!" not in code and "<" not in code and "{" not in code:
                L = _Line(path, k + 1, 0)
                d = _DEF.match(code, ind)
                if d:
                    inst = _fast_inst(code[d.end():].rstrip(), L, d.end())
                    if inst is not None:
                        inst.name = unquote(d.group(1)[1:])
                        inst.name_span = Span(path, k + 1, ind + 1)
                        inst.span = inst.name_span
                else:
                    inst = _fast_inst(code[ind:].rstrip(), L, ind)
            if inst is None:
                inst = parse_raw_lark(raw, path, "instruction", k)
            body.append(inst)
            k += 1
        if k >= n:
            return None  # missing '}': the lark path reports it
        rf.body = body
        records.append(rf)
        i = k + 1
    flush(chunk_start, chunk)
    return records


def _code(line: str) -> str:
    """The line without a trailing comment (only when it has no strings)."""
    p = line.find(";")
    if p < 0 or '"' in line:
        return line.rstrip()
    return line[:p].rstrip()

"""Direct builder: LLVM IR text of simple kernels -> ``ir.Module`` in one pass.

Stage job: the fast path of ``parse_module``. For modules written in the common
simple forms (named or numbered values, labels, the integer/pointer instructions
``irgen`` emits and most hand-written GPU kernels use: binary ops, icmp, select, phi,
br, ret, direct calls, load, store, getelementptr, casts, unreachable; ``declare`` and
``define`` headers, ``#N`` attribute groups of plain words and strings) it builds the final AST directly from
the text -- no raw records, no lark, no second resolution pass. A line's opcode family
is found from the first three characters after " = " (or after the indentation of
two spaces; other lines take ``str.split``), the whole line is matched by the one
regular expression of that family (whose groups give result names and local operands
without their '%', so names are never sliced), and its operands are bound with dict
lookups; forward references (phi incoming values, branch targets, values defined later)
are patched once at the end of the function, where redefinitions are found by counting
the names. Instructions store only where they are (``_loc``: for the usual two-space
indentation just the line number) and, where it is provably opt's spelling, their
source line (``_text``, the line itself, not a copy); the ``Span`` is made when someone
reads ``inst.span``. Every constant operand is a new ``Constant``
object, as on the exact path (the SelectionDAG builder relies on object identity).
For the uniformity analysis the builder also records each value's users on the value
(``_users``) and the rest of ``Function.uses``, while the objects are fresh in the cache.

The builder never reports errors itself. Whenever a line is outside the forms above,
or anything is wrong (undefined value, type mismatch, missing terminator, redefinition,
unknown callee, a use its definition does not dominate, a phi naming a block that is
not a predecessor, ...), it gives up (``build_module`` returns ``None``) and
``parse_module`` parses the file with the exact path (``patterns/ir/reader_exact.py``: ``ir_fast``
records or lark, then ``_Resolver``), which produces the error text. So the error messages have one
source, and the AST built here must equal the resolver's: tests/test_ir.py compares
both field by field on the whole corpus and on generated kernels.

SSA dominance (``ir.verify_dominance``'s rules) is checked here, so ``parse_module``
runs the verifier only on the exact path: a use of a value defined earlier in the
same block is valid as parsed; for the others (earlier in another block, later in the
text, phi incoming values) the blocks that must dominate are collected per using block
and checked at the end of the function against one dominator tree (integer DFS
intervals). tests/test_ir_verify.py checks on operand swaps that the builder gives up
exactly when the verifier rejects.
"""

from __future__ import annotations

import marshal
import re
import sys
from typing import Any, Final

from tdgen.errors import Span

from patterns.ir.cycles import DomTree
from patterns.ir.core import (CALLING_CONVENTIONS, I1, PTR, VOID, Constant, FloatType, GlobalRef, IntType, MAX_INT_BITS,
                 Module, PtrType, _int_type, unsigned_value, wrap_signed)
from patterns.ir.function import Argument, BasicBlock, Function, Instruction, blank_instruction

__all__ = ["build_module"]


class _Bail(Exception):
    """The input is outside the simple forms (or wrong): use the exact path."""


# ------------------------------------------------------- compiled expressions, cached
#
# Compiling the expressions below costs about 5 ms per process (re's parser and code
# generator are pure Python), a good part of what a ``tdgen divergence`` run spends
# before reading its input. ``_re`` takes what ``re`` compiled them to from a small file
# in tdgen's cache folder (``tdgen.target_cache.cache_dir``; ``TDGEN_NO_CACHE=1`` turns
# it off): for each expression, the arguments of ``_sre.compile`` (the pattern, flags,
# code, group count and names), one file per interpreter (cache tag, ``_sre.MAGIC``,
# ``_sre.CODESIZE``). An expression missing from the file is compiled by ``re`` as usual
# and its arguments are computed the way ``re._compiler.compile`` computes them, kept
# only if ``_sre.compile`` of them gives a pattern equal to ``re``'s (patterns compare
# equal when their flags and compiled code are); the file is then rewritten with the
# current expressions. Every problem (no cache folder, unreadable or stale file, an
# interpreter whose internals differ) silently means "compile with re".


try:
    import _sre  # CPython's engine: what re.compile hands the compiled code to
except ImportError:  # pragma: no cover - another interpreter: no cache
    _sre = None


def _re_cache_file():
    if _sre is None:
        return None
    try:
        from tdgen.target_cache import cache_dir

        root = cache_dir()
    except Exception:  # pragma: no cover - no cache folder
        return None
    if root is None:
        return None
    return root / f"ir-direct-re-{sys.implementation.cache_tag}-{_sre.MAGIC}-{_sre.CODESIZE}.marshal"


def _re_cache_read(path) -> dict:
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            data = marshal.loads(fh.read())  # (marshal.load reads a file item by item: slow)
    except Exception:  # missing or unreadable: compile everything
        return {}
    return data if type(data) is dict else {}


_RE_FILE: Final = _re_cache_file()
_RE_OLD: Final = _re_cache_read(_RE_FILE)  # pattern -> arguments of _sre.compile, as read
_RE_NEW: Final[dict] = {}  # the same for the expressions of this module


def _sre_args(src: str) -> tuple:
    """The arguments ``re._compiler.compile`` passes to ``_sre.compile`` for ``src``."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    p = _parser.parse(src, 0)
    code = _compiler._code(p, 0)
    groupindex = p.state.groupdict
    indexgroup = [None] * p.state.groups
    for k, i in groupindex.items():
        indexgroup[i] = k
    # (opcodes are int subclasses, which marshal does not write: plain ints)
    return (src, int(p.state.flags), [int(c) for c in code], p.state.groups - 1,
            {k: int(i) for k, i in groupindex.items()}, tuple(indexgroup))


def _re(src: str) -> "re.Pattern":
    """``re.compile(src)``, from the cache file when it holds ``src``."""
    args = _RE_OLD.get(src)
    if args is not None:
        try:
            if args[0] == src:
                p = _sre.compile(*args)
                _RE_NEW[src] = args
                return p
        except Exception:  # pragma: no cover - a damaged entry: compile it
            pass
    p = re.compile(src)
    if _RE_FILE is not None:
        try:
            args = _sre_args(src)
            if _sre.compile(*args) == p:
                _RE_NEW[src] = args
        except Exception:  # pragma: no cover - other interpreter internals: not cached
            pass
    return p


def _re_cache_write() -> None:
    """Rewrite the cache file when it does not hold exactly this module's expressions."""
    if _RE_FILE is None or _RE_NEW == _RE_OLD:
        return
    try:
        from tdgen.fsutil import atomic_write

        atomic_write(_RE_FILE, marshal.dumps(_RE_NEW))
    except Exception:  # pragma: no cover - unwritable folder: no cache
        pass


_N: Final = r'[-a-zA-Z$._][-a-zA-Z$._0-9]*|[0-9]+'
_T: Final = r'i[0-9]+|ptr(?: addrspace\([0-9]+\))?|float|double|half|bfloat'
# An operand is two groups: a local value's name without the '%' (names are matched
# loosely here: a reference to a name that cannot be defined, such as %1a, is simply
# never found and the builder gives up), or a constant token. _VN: the same, no groups.
_CONST: Final = r'-?[0-9]+|true|false|undef|poison|null|zeroinitializer'
_V: Final = r'(?:%([-a-zA-Z$._0-9]+)|(' + _CONST + r'))'
_VN: Final = r'%[-a-zA-Z$._0-9]+|' + _CONST
# Every instruction's expression starts with the same four groups: 1 the indentation,
# 2 always empty (a placeholder that keeps the numbering of the groups below), 3 a
# result name that is not a number, 4 a numbered result name (both without the '%').
# Instructions without a result use _PV, whose groups 3 and 4 always match the empty
# string (so a line giving them a name does not match at all). Each expression ends
# with ')$', closing the group opened here.
_P: Final = r'([ \t]*)()(?:(?:%(?:([-a-zA-Z$._][-a-zA-Z$._0-9]*)|([0-9]+)) = )?'
_PV: Final = r'([ \t]*)()()()(?:'

_LABEL: Final = _re(r'[ \t]*([-a-zA-Z$._0-9]+):$')
# one regular expression per opcode family, each for the whole line; the opcode itself
# comes from the dispatch table (the expression only checks it)
_BIN: Final = _re(_P + r'(?:add|sub|mul|udiv|sdiv|urem|srem|shl|lshr|ashr|and|or|xor)((?: (?:nuw|nsw|exact|disjoint))*) ('
                  + _T + r') ' + _V + r', ' + _V + r')$')
_ICMP: Final = _re(_P + r'icmp (eq|ne|ugt|uge|ult|ule|sgt|sge|slt|sle) (' + _T + r') ' + _V + r', ' + _V + r')$')
_SELECT: Final = _re(_P + r'select i1 ' + _V + r', (' + _T + r') ' + _V + r', (' + _T + r') ' + _V + r')$')
_PHI: Final = _re(_P + r'phi (' + _T + r') ((?:\[ (?:' + _VN + r'), %(?:' + _N + r') \], )*\[ (?:' + _VN
                  + r'), %(?:' + _N + r') \]))$')
_PHI_PAIR: Final = _re(r'\[ ' + _V + r', %(' + _N + r') \]')
_BR: Final = _re(_PV + r'br (?:label %(' + _N + r')|i1 ' + _V + r', label %(' + _N + r'), label %(' + _N
                 + r')))$')
_RET: Final = _re(_PV + r'ret (?:void|(' + _T + r') ' + _V + r'))$')
_CALL: Final = _re(_P + r'((?:tail |musttail |notail )?call) (void|' + _T + r') @(' + _N + r')\((.*)\)'
                   r'((?: #[0-9]+)*))$')
_ARG: Final = _re(r'(' + _T + r')((?: (?:noundef|inreg|zeroext|signext))*) ' + _V + r'$')
_LOAD: Final = _re(_P + r'load (' + _T + r'), (' + _T + r') ' + _V + r'(?:, align ([0-9]+))?)$')
_STORE: Final = _re(_PV + r'store (' + _T + r') ' + _V + r', (' + _T + r') ' + _V + r'(?:, align ([0-9]+))?)$')
_GEP: Final = _re(_P + r'getelementptr((?: (?:inbounds|nuw|nusw))*) (' + _T + r'), (' + _T + r') ' + _V
                  + r'((?:, (?:' + _T + r') (?:' + _VN + r'))*))$')
_GEP_IDX: Final = _re(r', (' + _T + r') ' + _V)
_CAST: Final = _re(_P + r'(?:trunc|zext|sext|ptrtoint|inttoptr|addrspacecast|bitcast)((?: (?:nuw|nsw|nneg))*) ('
                   + _T + r') ' + _V + r' to (' + _T + r'))$')
_UNREACHABLE: Final = _re(_PV + r'unreachable)$')
_HEADER: Final = _re(r'(define|declare) ((?:[a-z_][a-z_0-9]* )*)(void|' + _T + r') @(' + _N
                     + r')\((.*)\)((?: #[0-9]+)*)( \{)?$')
# attribute groups of plain words and strings ("key" or "key"="value"); 'align' is a
# keyword of the grammar, anything with parentheses is left to the exact path
_ATTR_GROUP: Final = _re(r'attributes #([0-9]+) = \{((?: (?:[a-zA-Z_][a-zA-Z_0-9.]*|"[^"\\]*"(?:="[^"\\]*")?))*) \}$')
_ATTR_ITEM: Final = _re(r'[a-zA-Z_][a-zA-Z_0-9.]*|"[^"\\]*"(?:="[^"\\]*")?')
_PARAM: Final = _re(r'(' + _T + r')((?: (?:noundef|inreg|zeroext|signext|noalias|nonnull))*)'
                    r'(?: %(' + _N + r'))?$')
# Kept source text: a line whose text is provably what ir_print prints for it keeps
# its (stripped) source text as ``Instruction.text`` instead of being re-printed.
# The regular expressions above only admit single spaces between tokens; what else
# opt (and ir_print) may spell differently is excluded: lines containing a type
# written differently from its printed form (``ptr addrspace(0)`` is printed as
# ``ptr``, ``i032`` as ``i32``: _ODD_TYPES, filled by ``_ty``); calls with ``#N`` attribute references (renumbered) or of numbered
# globals; every line of a function that has any numbered value or block (opt
# renumbers them; a line can only name values and blocks of its own function); and,
# checked per token, constants not in their canonical spelling, flags out of canonical
# order, a missing or non-canonical ``align``. tests/test_ir.py compares every kept
# text with ir_print's output.
_ODD_TYPES: Final[list] = []  # type spellings seen whose printed text differs
_CANON_BINFLAGS: Final = frozenset({"", " nuw", " nsw", " nuw nsw", " exact", " disjoint"})
_CANON_CASTFLAGS: Final = frozenset({"", " nuw", " nsw", " nuw nsw", " nneg"})
_CANON_GEPFLAGS: Final = frozenset({"", " inbounds", " nusw", " nuw", " inbounds nuw", " nusw nuw"})
_MODULE_LINE: Final = _re(r'(?:target (?:datalayout|triple)|source_filename) = "[^"\\]*"$')
_re_cache_write()

_BINOPS: Final = ("add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor")
_CASTS: Final = ("trunc", "zext", "sext", "ptrtoint", "inttoptr", "addrspacecast", "bitcast")
# opcode -> (family, regular expression, the opcode string shared by all its
# instructions). Families 0-6 always have a result, 7 (call) may have one, 8 and up never
# do; 10 and up are the terminators.
_DISPATCH: Final = {op: (0, _BIN, op) for op in _BINOPS}
_DISPATCH.update({op: (6, _CAST, op) for op in _CASTS})
_DISPATCH.update({"icmp": (1, _ICMP, "icmp"), "phi": (2, _PHI, "phi"), "select": (3, _SELECT, "select"),
                  "load": (4, _LOAD, "load"), "getelementptr": (5, _GEP, "getelementptr"),
                  "call": (7, _CALL, "call"), "tail": (7, _CALL, "call"), "musttail": (7, _CALL, "call"),
                  "notail": (7, _CALL, "call"), "store": (8, _STORE, "store"), "br": (10, _BR, "br"),
                  "ret": (11, _RET, "ret"), "unreachable": (12, _UNREACHABLE, "unreachable")})
# the same by the first three characters of the opcode ("br " and "or " with their
# space); where two opcodes share them (add, addrspacecast) the first one listed above
# wins and the other takes the general way (its line does not match the expression)
_DISPATCH3: Final[dict] = {}
for _op, _d in _DISPATCH.items():
    _DISPATCH3.setdefault((_op + " ")[:3], _d)

# words allowed before the return type of a header (checked against lark in the tests)
_HEADER_WORDS: Final = CALLING_CONVENTIONS | {"dso_local", "internal", "private", "hidden", "noundef",
                                              "local_unnamed_addr", "unnamed_addr"}
_BINOP_FLAGS: Final = {
           "add": ("nuw", "nsw"), "sub": ("nuw", "nsw"), "mul": ("nuw", "nsw"), "shl": ("nuw", "nsw"),
           "udiv": ("exact",), "sdiv": ("exact",), "lshr": ("exact",), "ashr": ("exact",),
           "or": ("disjoint",), "and": (), "xor": (), "urem": (), "srem": (),
       }
_CAST_FLAGS: Final = {"trunc": ("nuw", "nsw"), "zext": ("nneg",)}
_FLOATS: Final = ("float", "double", "half", "bfloat")
_NO_FLAGS: Final[frozenset] = frozenset()

_TYPES: Final[dict] = {"void": VOID, "ptr": PTR}


def _ty(s: str):
    t = _TYPES.get(s)
    if t is None:
        if s[0] == "i":
            bits = int(s[1:])
            if not 1 <= bits <= MAX_INT_BITS:
                raise ValueError(s)  # not ours to report: the exact path words the error
            t = _int_type(bits)
        elif s in _FLOATS:
            t = FloatType(s)
        else:  # ptr addrspace(N)
            t = PtrType(int(s[14:-1]))
        _TYPES[s] = t
        if str(t) != s:
            _ODD_TYPES.append(s)
    return t


def _plain_types(line: str) -> bool:
    """No type spelling of _ODD_TYPES in ``line`` (a substring test: a false alarm only
    means the line is printed)."""
    for t in _ODD_TYPES:
        if t in line:
            return False
    return True


_new: Final = object.__new__
# an instruction with only the class defaults: object.__new__ for the plain class (no
# __init__ run); the compiled (native) class is made only through its __init__, by
# blank_instruction
_NATIVE_INSTRUCTION: Final = "__dict__" not in vars(Instruction)


def _span(path: str, line: int, col: int) -> Span:
    """``Span(path, line, col)`` without the frozen dataclass's per-field setattr."""
    s = _new(Span)
    d = s.__dict__
    d["path"] = path
    d["line"] = line
    d["col"] = col
    d["end_line"] = None
    d["end_col"] = None
    return s


def _const_fields(ty, tok: str) -> tuple:
    """(text, kind, value) of the constant the resolver builds for ``ty tok`` (raises
    _Bail where the resolver reports an error)."""
    c = tok[0]
    if c == "-" or c.isdigit():
        if type(ty) is not IntType:
            raise _Bail
        v = wrap_signed(int(tok), ty.bits)
        if ty.bits == 1:
            return ("true" if v else "false", "int", v & 1)
        return (str(v), "int", v)
    if tok == "true" or tok == "false":
        if ty != I1:
            raise _Bail
        return (tok, "int", 1 if tok == "true" else 0)
    if tok == "null":
        if type(ty) is not PtrType:
            raise _Bail
        return ("null", "null", None)
    if tok == "zeroinitializer":
        if type(ty) is IntType:
            return ("false" if ty.bits == 1 else "0", "int", 0)
        if type(ty) is PtrType:
            return ("null", "null", None)
        raise _Bail
    if tok == "undef" or tok == "poison":
        return (tok, tok, None)
    raise _Bail


# The setters of Constant's slots (a frozen dataclass): calling them directly is cheaper
# than object.__setattr__, which looks each descriptor up first.
_C_TYPE: Final = vars(Constant)["type"].__set__
_C_TEXT: Final = vars(Constant)["text"].__set__
_C_KIND: Final = vars(Constant)["kind"].__set__
_C_VALUE: Final = vars(Constant)["value"].__set__
_C_ELEMENTS: Final = vars(Constant)["elements"].__set__
_C_U: Final = vars(Constant)["_u"].__set__


def _const_entry(ty: Any, tok: str) -> tuple:
    """What ``const`` gives every constant ``ty tok``: (text, kind, value, type, the
    unsigned value ``Constant.__init__`` derives)."""
    text, kind, value = _const_fields(ty, tok)
    return text, kind, value, ty, unsigned_value(ty, text, kind, value)


def _cast_ok(op: str, s, d) -> bool:
    sc, dc = type(s), type(d)
    if op == "trunc":
        return sc is IntType and dc is IntType and s.bits > d.bits
    if op == "zext" or op == "sext":
        return sc is IntType and dc is IntType and s.bits < d.bits
    if op == "ptrtoint":
        return sc is PtrType and dc is IntType
    if op == "inttoptr":
        return sc is IntType and dc is PtrType
    if op == "addrspacecast":
        return sc is PtrType and dc is PtrType and s != d
    # bitcast between scalars of equal size, pointer-ness preserved
    if sc is PtrType or dc is PtrType:
        return sc is PtrType and dc is PtrType and s == d
    return False


class _Builder:
    def __init__(self, path: str) -> None:
        self.path = path
        self.mod = Module([], path)
        self.funcs: dict = {}  # name -> Function (defined or declared)
        self.calls: list = []  # (inst, callee name, callee column, line, arg types) in source order
        # (id of the type, token) -> (text, kind, value, the type): keyed by identity, as
        # hashing a type runs its dataclass __hash__ (types come from ``_ty``'s cache; the
        # entry keeps its type alive, so the id stays its own)
        self.consts: dict = {}
        self.attr_users: list = []  # functions and calls with '#N' attribute references

    # ----------------------------------------------------------------- module
    def run(self, text: str) -> Module:
        lines = text.split("\n")
        n = len(lines)
        k = 0
        while k < n:
            line = lines[k]
            k += 1
            s = line.strip()
            if not s or s[0] == ";":
                continue
            if s[0] == "d":
                m = _HEADER.match(s)
                if m is None or (m.group(1) == "define") != (m.group(7) is not None):
                    raise _Bail
                if line[0] != "d":
                    raise _Bail
                f = self.header(m, k)
                if m.group(1) == "define":
                    k = self.body(f, lines, k)
                continue
            if s[0] == "a":
                m = _ATTR_GROUP.match(s)
                if m is None or line[0] != "a":
                    raise _Bail
                gid = int(m.group(1))
                if gid in self.mod.attr_groups:
                    raise _Bail  # redefinition
                items = _ATTR_ITEM.findall(m.group(2))
                if "align" in items:
                    raise _Bail
                self.mod.attr_groups[gid] = tuple(items)
                continue
            if _MODULE_LINE.match(s) is None:
                raise _Bail
        self.link_calls()
        self.expand_attrs()
        return self.mod

    def expand_attrs(self) -> None:
        """``attrs`` of functions and calls from their ``#N`` references (groups may be
        defined after their use; undefined groups count as empty, as in LLVM 19)."""
        groups = self.mod.attr_groups
        for owner in self.attr_users:
            out = set()
            for ref in owner.attr_items:
                out.update(groups.get(int(ref[1:]), ()))
            owner.attrs = frozenset(out)

    def header(self, m, lineno: int) -> Function:
        path = self.path
        words = m.group(2).split()
        cc: Any = None
        for w in words:
            if w not in _HEADER_WORDS:
                raise _Bail
            if w in CALLING_CONVENTIONS:
                cc = w
        name = m.group(4)
        if name in self.funcs:
            raise _Bail
        fspan = _span(path, lineno, m.start(4))  # the '@' of the name (1-based: start - 1 + 1)
        is_decl = m.group(1) == "declare"
        refs = tuple(m.group(6).split())
        f = Function(name, cc, _ty(m.group(3)), [], _NO_FLAGS, is_decl, [], fspan, self.mod, refs,
                     tuple(words), False)
        if refs:
            self.attr_users.append(f)
        inner = m.group(5)
        args = f.args
        seen = {}
        slot = 0
        if inner:
            pos = m.start(5)
            for i, piece in enumerate(inner.split(", ")):
                p = _PARAM.match(piece)
                if p is None:
                    raise _Bail
                ty = _ty(p.group(1))
                attrs = tuple(p.group(2).split())
                pname = p.group(3)
                if pname is None:
                    pname = str(slot)
                    slot += 1
                    aspan = fspan
                elif pname.isdigit():
                    if int(pname) < slot:
                        raise _Bail
                    slot = int(pname) + 1
                    aspan = _span(path, lineno, pos + p.start(3))
                else:
                    aspan = _span(path, lineno, pos + p.start(3))
                if ty is VOID or pname in seen:
                    raise _Bail
                seen[pname] = True
                args.append(Argument(pname, ty, frozenset(attrs), i, f, aspan, "", attrs))
                pos += len(piece) + 2
        self.funcs[name] = f
        self.mod.functions.append(f)
        self.first_slot = slot
        return f

    # ------------------------------------------------------------------- body
    def body(self, f: Function, lines: list, k: int) -> int:
        path = self.path
        consts = self.consts
        tys = _TYPES
        vals: dict = {}  # value name (without the '%') -> Argument or Instruction
        pending: list = []  # (inst, operand index, name, type): uses before the definition
        phis: list = []  # (inst, [(local name, constant token, block name)], source text)
        odd: list = []  # instructions with a constant operand not in canonical spelling
        terms: list = []  # (branch, block name, second block name or None), in block order
        # SSA dominance: a use of a value defined earlier in the same block is valid by
        # construction; the blocks of values defined earlier in other blocks are
        # collected per using block (``cur_cross``, then ``checks``: (block, [blocks
        # that must dominate it])) and checked at the end of the function, with the
        # uses before the definition (``pending``) and the phi incoming values
        cur_cross: list = []
        checks: list = []
        # the uniformity analysis' user lists, built here while the objects are fresh in
        # the cache (see ``Function.uses``): each value's ``_users``, its users in program
        # order, each once (the user itself while there is only one: no list for the
        # many values used once); uses bound as parsed (the value is defined earlier) go
        # straight in, the others (``late_uses``: (user, name) in text order) precede
        # them and are added at the end
        late_uses: list = []
        seeds: list = []  # loads and calls, in program order
        bcur: Any = None  # the block of the next instruction, None if it opens a new one
        calls = self.calls
        n_slot = 0  # opt's renumbering of unnamed values
        # any numbered argument, value or block: no kept text in this function
        numbered = False
        arg: Argument
        for arg in f.args:
            vals[arg.name] = arg
            if arg.name.isdigit():
                arg.slot = str(n_slot)
                n_slot += 1
                numbered = True
            else:
                arg.slot = arg.name
        next_slot = self.first_slot
        n_void = 0  # stores and void calls
        blocks: list = []
        block_names: dict = {}
        cur: Any = None
        cur_insts: Any = None
        g: tuple
        s: str  # (the line: str methods and indexing natively)
        terminated = True
        ret_type = f.ret_type
        Inst = Instruction
        new = _new
        c_type, c_text, c_kind, c_value, c_elements, c_u = _C_TYPE, _C_TEXT, _C_KIND, _C_VALUE, _C_ELEMENTS, _C_U
        dispatch = _DISPATCH
        dispatch3 = _DISPATCH3
        binop_flags = _BINOP_FLAGS
        odd_types = _ODD_TYPES

        def const(tok, ty, inst):
            """A new ``Constant`` for ``ty tok`` (each use gets its own object, as on the
            exact path); ``inst`` (the user, or None) goes to ``odd`` when ``tok`` is
            not the canonical spelling."""
            c = consts.get((id(ty), tok))
            if c is None:
                c = consts[(id(ty), tok)] = _const_entry(ty, tok)
            if inst is not None and c[0] != tok:
                odd.append(inst)
            v = new(Constant)
            c_type(v, ty)
            c_text(v, c[0])
            c_kind(v, c[1])
            c_value(v, c[2])
            c_elements(v, ())
            c_u(v, c[4])
            return v

        def operand(loc, cst, ty, inst, idx):
            """Operand ``idx`` of ``inst``: the value named ``loc`` or the constant ``cst``
            (the two groups of _V); None for a value defined later (bound at the end)."""
            if not loc:
                return const(cst, ty, inst)
            v = vals.get(loc)
            if v is None:
                pending.append((inst, idx, loc, ty))
                late_uses.append((inst, loc))
                return None
            if v.type is not ty and v.type != ty:
                raise _Bail
            if type(v) is Inst and v.block is not bcur:
                cur_cross.append(v.block)
            ul = v._users
            if ul is None:
                v._users = inst
            elif type(ul) is list:
                if ul[-1] is not inst:
                    ul.append(inst)
            elif ul is not inst:
                v._users = [ul, inst]
            return v

        # The hot loop. The frequent families bind their operands inline (a value
        # defined earlier: type check, dominance bookkeeping, user list); constants and
        # uses before the definition go through ``const``/``operand``. A line the
        # split or the expressions do not expect ends in _Bail or IndexError, both of
        # which mean "use the exact path".
        for k in range(k + 1, len(lines) + 1):  # k: the line number
            s = lines[k - 1]
            # The usual instruction line ("  %x = op ..." or "  op ...") is dispatched on
            # the first three characters of its opcode (_DISPATCH3; without " = ", find
            # gives -1 and the slice is [2:5]) and matched as it is. Anything else takes
            # the general way: a comment and white space at the end removed, then a
            # blank line, a label, an instruction (opcode found with str.split) or the
            # closing brace.
            i = s.find(" = ")
            d = dispatch3.get(s[i + 3:i + 6])
            if d is not None:
                fam, rx, op = d
                m = rx.match(s)
            else:
                m = None
            if m is None:
                if ";" in s:
                    if '"' in s:
                        raise _Bail
                    s = s[:s.index(";")]
                s = s.rstrip()
                if not s:
                    continue
                if s[-1] == ":":
                    m = _LABEL.match(s)
                    if m is None or not terminated:
                        raise _Bail
                    name = m.group(1)
                    if name.isdigit():
                        if int(name) < next_slot:
                            raise _Bail
                        next_slot = int(name) + 1
                        slot = str(n_slot)
                        n_slot += 1
                        numbered = True
                    else:
                        if name[0].isdigit():
                            raise _Bail  # digits then letters: quoted when printed
                        slot = name
                    if name in block_names:
                        raise _Bail
                    # the span as ``line << 20 | column``, made on first read (ir.BasicBlock)
                    col = m.start(1) + 1
                    cur = BasicBlock(name, [], f, [], [], k << 20 | col if col < 0x100000 else _span(path, k, col),
                                     slot, len(blocks))
                    block_names[name] = cur
                    blocks.append(cur)
                    cur_insts = cur.instructions
                    terminated = False
                    bcur = cur
                    continue
                parts = s.split(None, 3)
                op = parts[0]
                if op[0] == "%":
                    op = parts[2]  # "%x = op ...": the expression checks the " = "
                d = dispatch.get(op)
                if d is None:
                    if parts == ["}"]:
                        break
                    raise _Bail
                fam, rx, op = d
                m = rx.match(s)
                if m is None:
                    raise _Bail
            g = m.groups()
            inst = blank_instruction() if _NATIVE_INSTRUCTION else new(Inst)
            inst._users = None
            keep = True  # the source text is the printed text (see _ODD_TYPES)
            if fam == 0:  # binary operator
                try:
                    ty = tys[g[5]]
                except KeyError:
                    ty = _ty(g[5])
                if type(ty) is not IntType:
                    raise _Bail
                inst.opcode = op
                inst.type = ty
                fl = g[4]
                if fl:
                    words = fl.split()
                    allowed = binop_flags[op]
                    for w in words:
                        if w not in allowed:
                            raise _Bail
                    inst.flags = frozenset(words)
                    if fl not in _CANON_BINFLAGS:
                        keep = False
                a = g[6]
                if a:
                    try:
                        va = vals[a]
                    except KeyError:
                        va = operand(a, None, ty, inst, 0)
                    else:
                        if va.type is not ty and va.type != ty:
                            raise _Bail
                        if type(va) is Inst and va.block is not bcur:
                            cur_cross.append(va.block)
                        ul = va._users
                        if ul is None:
                            va._users = inst
                        elif type(ul) is list:
                            ul.append(inst)  # a new user: never the last one yet
                        else:
                            va._users = [ul, inst]
                else:
                    va = const(g[7], ty, inst)
                b = g[8]
                if b:
                    try:
                        vb = vals[b]
                    except KeyError:
                        vb = operand(b, None, ty, inst, 1)
                    else:
                        if vb.type is not ty and vb.type != ty:
                            raise _Bail
                        if type(vb) is Inst and vb.block is not bcur:
                            cur_cross.append(vb.block)
                        ul = vb._users
                        if ul is None:
                            vb._users = inst
                        elif type(ul) is list:
                            if ul[-1] is not inst:
                                ul.append(inst)
                        elif ul is not inst:
                            vb._users = [ul, inst]
                else:  # ``const`` inlined: a constant second operand is the usual case
                    tok = g[9]
                    c = consts.get((id(ty), tok))
                    if c is None:
                        c = consts[(id(ty), tok)] = _const_entry(ty, tok)
                    if c[0] != tok:
                        odd.append(inst)
                    vb = new(Constant)
                    c_type(vb, ty)
                    c_text(vb, c[0])
                    c_kind(vb, c[1])
                    c_value(vb, c[2])
                    c_elements(vb, ())
                    c_u(vb, c[4])
                inst.operands = [va, vb]
            elif fam == 10:  # br
                inst.opcode = op
                inst.type = VOID
                if g[4] is not None:
                    inst.operands = []
                    terms.append((inst, g[4], None))
                else:
                    a = g[5]
                    if a:
                        try:
                            va = vals[a]
                        except KeyError:
                            va = operand(a, None, I1, inst, 0)
                        else:
                            if va.type is not I1 and va.type != I1:
                                raise _Bail
                            if type(va) is Inst and va.block is not bcur:
                                cur_cross.append(va.block)
                            ul = va._users
                            if ul is None:
                                va._users = inst
                            elif type(ul) is list:
                                ul.append(inst)
                            else:
                                va._users = [ul, inst]
                    else:
                        va = const(g[6], I1, inst)
                    inst.operands = [va]
                    terms.append((inst, g[7], g[8]))
            elif fam == 1:  # icmp
                try:
                    ty = tys[g[5]]
                except KeyError:
                    ty = _ty(g[5])
                if type(ty) is not IntType and type(ty) is not PtrType:
                    raise _Bail
                inst.opcode = op
                inst.type = I1
                inst.predicate = g[4]
                a = g[6]
                if a:
                    try:
                        va = vals[a]
                    except KeyError:
                        va = operand(a, None, ty, inst, 0)
                    else:
                        if va.type is not ty and va.type != ty:
                            raise _Bail
                        if type(va) is Inst and va.block is not bcur:
                            cur_cross.append(va.block)
                        ul = va._users
                        if ul is None:
                            va._users = inst
                        elif type(ul) is list:
                            ul.append(inst)
                        else:
                            va._users = [ul, inst]
                else:
                    va = const(g[7], ty, inst)
                b = g[8]
                if b:
                    try:
                        vb = vals[b]
                    except KeyError:
                        vb = operand(b, None, ty, inst, 1)
                    else:
                        if vb.type is not ty and vb.type != ty:
                            raise _Bail
                        if type(vb) is Inst and vb.block is not bcur:
                            cur_cross.append(vb.block)
                        ul = vb._users
                        if ul is None:
                            vb._users = inst
                        elif type(ul) is list:
                            if ul[-1] is not inst:
                                ul.append(inst)
                        elif ul is not inst:
                            vb._users = [ul, inst]
                else:
                    vb = const(g[9], ty, inst)
                inst.operands = [va, vb]
            elif fam == 2:  # phi
                pairs = _PHI_PAIR.findall(g[5])
                inst.opcode = op
                try:
                    inst.type = tys[g[4]]
                except KeyError:
                    inst.type = _ty(g[4])
                inst.operands = [None] * len(pairs)
                phis.append((inst, pairs, s if g[0] == "  " else "  " + s[len(g[0]):]))  # the text (see below)
                for loc, _c, _bn in pairs:
                    if loc:
                        v = vals.get(loc)
                        if v is None:
                            late_uses.append((inst, loc))
                        else:
                            ul = v._users
                            if ul is None:
                                v._users = inst
                            elif type(ul) is list:
                                if ul[-1] is not inst:
                                    ul.append(inst)
                            elif ul is not inst:
                                v._users = [ul, inst]
                keep = False  # decided when the incoming values are bound
            elif fam == 3:  # select
                ta = g[6]
                if ta != g[9]:
                    raise _Bail
                try:
                    ty = tys[ta]
                except KeyError:
                    ty = _ty(ta)
                inst.opcode = op
                inst.type = ty
                inst.operands = [operand(g[4], g[5], I1, inst, 0), operand(g[7], g[8], ty, inst, 1),
                                 operand(g[10], g[11], ty, inst, 2)]
            elif fam == 4:  # load
                seeds.append(inst)
                pty = _ty(g[5])
                if type(pty) is not PtrType:
                    raise _Bail
                inst.opcode = op
                inst.type = _ty(g[4])
                inst.operands = ops = [None]
                ops[0] = operand(g[6], g[7], pty, inst, 0)
                inst.addrspace = pty.addrspace
                if g[8] is not None:
                    al = inst.align = int(g[8])
                    if keep and str(al) != g[8]:
                        keep = False
                else:
                    keep = False  # printed with the ABI alignment
            elif fam == 5:  # getelementptr
                pty = _ty(g[6])
                if type(pty) is not PtrType:
                    raise _Bail
                ix = _GEP_IDX.findall(g[9]) if g[9] else ()
                inst.opcode = op
                inst.type = pty
                inst.operands = ops = [None] * (1 + len(ix))
                if g[4]:
                    inst.flags = frozenset(g[4].split())
                    if g[4] not in _CANON_GEPFLAGS:
                        keep = False
                inst.source_type = _ty(g[5])
                inst.addrspace = pty.addrspace
                ops[0] = operand(g[7], g[8], pty, inst, 0)
                j = 1
                for ti, li, ci in ix:
                    ity = _ty(ti)
                    if type(ity) is not IntType:
                        raise _Bail
                    ops[j] = operand(li, ci, ity, inst, j)
                    j += 1
            elif fam == 8:  # store
                n_void += 1
                vty, pty = _ty(g[4]), _ty(g[7])
                if type(pty) is not PtrType:
                    raise _Bail
                inst.opcode = op
                inst.type = VOID
                inst.operands = ops = [None, None]
                ops[0] = operand(g[5], g[6], vty, inst, 0)
                ops[1] = operand(g[8], g[9], pty, inst, 1)
                inst.addrspace = pty.addrspace
                inst.source_type = vty
                if g[10] is not None:
                    al = inst.align = int(g[10])
                    if keep and str(al) != g[10]:
                        keep = False
                else:
                    keep = False  # printed with the ABI alignment
            elif fam == 7:  # call
                seeds.append(inst)
                kw = g[4]
                inst.opcode = "call"
                inst.type = _ty(g[5])
                if inst.type is VOID:
                    if g[2] or g[3]:
                        raise _Bail  # a name for a void result
                    n_void += 1
                if kw != "call":
                    inst.tail = kw[:kw.index(" ")]
                inst.operands = ops = []
                arg_types = []
                inner = g[7]
                if inner:
                    aattrs = inst.arg_attrs
                    for j, piece in enumerate(inner.split(", ")):
                        am = _ARG.match(piece)
                        if am is None:
                            raise _Bail
                        aty = _ty(am.group(1))
                        arg_types.append(aty)
                        ops.append(operand(am.group(3), am.group(4), aty, inst, j))
                        aattrs.append(tuple(am.group(2).split()))
                calls.append((inst, g[6], m.start(7), k, arg_types))  # column of '@' (1-based)
                if g[6][0].isdigit():  # a numbered global
                    keep = False
                if g[8]:
                    keep = False
                    inst.attr_items = tuple(g[8].split())
                    self.attr_users.append(inst)
            elif fam == 6:  # cast
                sty, dty = _ty(g[5]), _ty(g[8])
                if not _cast_ok(op, sty, dty):
                    raise _Bail
                inst.opcode = op
                inst.type = dty
                if g[4]:
                    words = g[4].split()
                    allowed = _CAST_FLAGS.get(op, ())
                    for w in words:
                        if w not in allowed:
                            raise _Bail
                    inst.flags = frozenset(words)
                    if g[4] not in _CANON_CASTFLAGS:
                        keep = False
                inst.source_type = sty
                inst.operands = ops = [None]
                ops[0] = operand(g[6], g[7], sty, inst, 0)
            elif fam == 11:  # ret
                inst.opcode = op
                inst.type = VOID
                inst.operands = ops = []
                if g[4] is None:
                    if ret_type is not VOID:
                        raise _Bail
                else:
                    ty = _ty(g[4])
                    if ty != ret_type:
                        raise _Bail
                    ops.append(operand(g[5], g[6], ty, inst, 0))
            else:  # unreachable
                inst.opcode = op
                inst.type = VOID
                inst.operands = []
            # ------------------------------------------------ block and name
            if terminated:
                # an unlabeled block (entry, or after a terminator): numbered before
                # its first instruction
                col = len(g[0]) + 1
                cur = BasicBlock(str(next_slot), [], f, [], [],
                                 k << 20 | col if col < 0x100000 else _span(path, k, col), str(n_slot), len(blocks))
                next_slot += 1
                n_slot += 1
                numbered = True
                block_names[cur.name] = cur
                blocks.append(cur)
                cur_insts = cur.instructions
                terminated = False
                bcur = cur
            inst.block = cur
            # The usual indentation of two spaces: the line itself is the kept text
            # (``_text`` is indented by two spaces; no copy is made) and ``_loc`` is just
            # the line number; otherwise the text reindented, and ``_loc`` =
            # -(line << 20 | column). See ``ir._LazySpan``.
            ind = g[0]
            if ind == "  ":
                if keep and (not odd or odd[-1] is not inst) and (not odd_types or _plain_types(s)):
                    inst._text = s
                inst._loc = k
            else:
                col = len(ind) + 1
                if keep and (not odd or odd[-1] is not inst) and (not odd_types or _plain_types(s)):
                    inst._text = "  " + s[col - 1:]
                if col < 0x100000:
                    inst._loc = -((k << 20) | col)
                else:
                    inst.span = _span(path, k, col)
            # (a redefinition replaces the first definition in ``vals``: found at the
            # end of the function by counting)
            name = g[2]
            if name:
                vals[name] = inst
                inst.name = name
                inst.slot = name
            elif g[3]:  # an explicitly numbered value
                name = g[3]
                vals[name] = inst
                if int(name) < next_slot:
                    raise _Bail
                next_slot = int(name) + 1
                numbered = True
                inst.name = name
                inst.slot = str(n_slot)
                n_slot += 1
            elif fam < 7 or (fam == 7 and inst.type is not VOID):  # an unnamed value
                name = str(next_slot)
                next_slot += 1
                numbered = True
                inst.name = name
                inst.slot = str(n_slot)
                n_slot += 1
                vals[name] = inst
            cur_insts.append(inst)
            if fam >= 10:
                terminated = True
                bcur = None
                if cur_cross:
                    checks.append((cur, cur_cross))
                    cur_cross = []
        else:
            raise _Bail  # missing '}'
        # ---------------------------------------------------- end of function
        if not terminated or not blocks:
            raise _Bail
        n_inst = 0
        for b in blocks:
            n_inst += len(b.instructions)
        # every argument and value-producing instruction (all but the terminators,
        # stores and void calls) has its own name: otherwise one was defined twice
        if len(vals) != len(f.args) + n_inst - len(blocks) - n_void:
            raise _Bail
        if not block_names.keys().isdisjoint(vals.keys()):
            raise _Bail  # a label with the name of a value
        late = []  # (index of the block that must dominate, index of the using block)
        for inst, idx, name, ty in pending:
            v = vals.get(name)
            if v is None or (v.type is not ty and v.type != ty):
                raise _Bail
            inst.operands[idx] = v
            if type(v) is Inst:  # a use before the definition: fine only across blocks
                if v.block is inst.block:
                    raise _Bail
                late.append((v.block.index, inst.block.index))
        get_block = block_names.get
        # branch targets, successors (terminator order) and predecessors (each once, in
        # block order: ``terms`` is in block order)
        once = True  # no branch names a block twice (see ``Function.uses``)
        for inst, name0, name1 in terms:
            b = inst.block
            t0 = get_block(name0)
            if t0 is None:
                raise _Bail
            p = t0.predecessors
            if not p or p[-1] is not b:
                p.append(b)
            if name1 is None:
                inst.targets = [t0]
                b.successors = [t0]
                continue
            t1 = get_block(name1)
            if t1 is None:
                raise _Bail
            inst.targets = [t0, t1]
            b.successors = [t0, t1]
            p = t1.predecessors
            if not p or p[-1] is not b:
                p.append(b)
            else:
                once = False
        # phi incoming values; with SSA dominance, by the rules of
        # ``ir.verify_dominance`` (which words the errors when the exact path parses the
        # file again): each incoming block is a predecessor, and a value from another
        # block must dominate the end of the incoming block
        pairs = late
        for inst, incoming, text in phis:
            ty = inst.type
            ops = inst.operands
            preds = inst.block.predecessors
            inc = []
            j = 0
            for loc, cst, bname in incoming:
                b = get_block(bname)
                if b is None or b not in preds:
                    raise _Bail
                if loc:
                    v = vals.get(loc)
                    if v is None or (v.type is not ty and v.type != ty):
                        raise _Bail
                    if type(v) is Inst and v.block is not b:
                        pairs.append((v.block.index, b.index))
                else:
                    v = const(cst, ty, None)
                    if v.text != cst:
                        text = None
                ops[j] = v
                j += 1
                inc.append((v, b))
            inst.incoming = inc
            if text is not None and not numbered and (not odd_types or _plain_types(text)):
                inst._text = text
        if numbered:  # opt renumbers: print every line (see _ODD_TYPES)
            for b in blocks:
                for inst in b.instructions:
                    inst._text = None
        if checks or pairs:
            pre, post = DomTree.for_blocks(blocks).by_index
            for blk, defs in checks:
                j = blk.index
                pb = pre[j]
                if pb < 0:  # everything dominates an unreachable block
                    continue
                qb = post[j]
                for d in defs:  # (a block may repeat: testing it again is cheaper than a set)
                    i = d.index
                    pa = pre[i]
                    if pa < 0 or pa > pb or qb > post[i]:
                        raise _Bail
            for a, b in pairs:
                pb = pre[b]
                if pb >= 0:  # everything dominates an unreachable block
                    pa = pre[a]
                    if pa < 0 or pa > pb or post[b] > post[a]:
                        raise _Bail
        f.blocks = blocks
        late_users: dict = {}
        for u, name in late_uses:
            v = vals[name]
            lu = late_users.get(v)
            if lu is None:
                late_users[v] = [u]
            elif lu[-1] is not u:
                lu.append(u)
        for v, lu in late_users.items():
            e = v._users
            if e is None:
                v._users = lu[0] if len(lu) == 1 else lu
            else:
                v._users = lu + e if type(e) is list else lu + [e]
        f.uses = (True, seeds, [b.instructions[-1] for b in blocks], n_inst, once)
        return k

    # ------------------------------------------------------------------ calls
    def link_calls(self) -> None:
        """Bind callees (after the whole module is read: declarations may come last)."""
        funcs = self.funcs
        mod = self.mod
        for inst, name, cpos, line, arg_types in self.calls:
            f = funcs.get(name)
            if f is None:
                if not name.startswith("llvm."):
                    raise _Bail
                # LLVM declares called intrinsics implicitly, at the end of the module
                sp = _span(self.path, line, cpos)
                f = Function(name, None, inst.type, [], _NO_FLAGS, True, [], sp, mod, (), (), False)
                f.args = [Argument(str(i), t, _NO_FLAGS, i, f, sp, "", ()) for i, t in enumerate(arg_types)]
                funcs[name] = f
                mod.functions.append(f)
            if f.ret_type != inst.type or len(f.args) != len(arg_types):
                raise _Bail
            for a, t in zip(f.args, arg_types):
                if a.type != t:
                    raise _Bail
            inst.callee = name
            inst.callee_value = GlobalRef(name, PTR)


def build_module(text: str, path: str) -> Module | None:
    """The module, or ``None`` when the text needs the exact path (unusual forms or errors)."""
    try:
        return _Builder(path).run(text)
    except (_Bail, IndexError):
        return None

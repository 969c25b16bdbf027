"""Direct builder: LLVM IR text of simple kernels -> ``ir.Module`` in one pass.

Stage job: the fast path of ``parse_module``. For modules written in the common
simple forms (named or numbered values, labels, the integer/pointer instructions
``irgen`` emits and most hand-written GPU kernels use: binary ops, icmp, select, phi,
br, ret, direct calls, load, store, getelementptr, casts, unreachable; ``declare`` and
``define`` headers, ``#N`` attribute groups of plain words and strings) it builds the final AST directly from
the text -- no raw records, no lark, no second resolution pass. Each line's opcode is
found with ``str.split``, the whole line is matched by the one regular expression of
that opcode's family, and its operands are bound with dict lookups; forward references (phi
incoming values, branch targets, values defined later) are patched once at the end of
the function. Instructions store only their line and column (``_loc``); the ``Span`` is
made when someone reads ``inst.span``. Every constant operand is a new ``Constant``
object, as on the exact path (the SelectionDAG builder relies on object identity).

The builder never reports errors itself. Whenever a line is outside the forms above,
or anything is wrong (undefined value, type mismatch, missing terminator, redefinition,
unknown callee, a use its definition does not dominate, a phi naming a block that is
not a predecessor, ...), it gives up (``build_module`` returns ``None``) and
``parse_module`` parses the file with the exact path (``patterns/ir_exact.py``: ``ir_fast``
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

import re

from tdgen.errors import Span

from .cycles import DomTree
from .ir import (CALLING_CONVENTIONS, I1, PTR, VOID, Argument, BasicBlock, Constant, FloatType,
                 Function, GlobalRef, Instruction, IntType, MAX_INT_BITS, Module, PtrType, _int_type, wrap_signed)

__all__ = ["build_module"]


class _Bail(Exception):
    """The input is outside the simple forms (or wrong): use the exact path."""


_N = r'[-a-zA-Z$._][-a-zA-Z$._0-9]*|[0-9]+'
_T = r'i[0-9]+|ptr(?: addrspace\([0-9]+\))?|float|double|half|bfloat'
# operands: names are matched loosely here (a reference to a name that cannot be
# defined, such as %1a, is simply never found and the builder gives up)
_V = r'%[-a-zA-Z$._0-9]+|-?[0-9]+|true|false|undef|poison|null|zeroinitializer'
_P = r'[ \t]*(?:(%[-a-zA-Z$._0-9]+) = )?'  # optional result name

_LABEL = re.compile(r'[ \t]*([-a-zA-Z$._0-9]+):$')
# one regular expression per opcode family, each for the whole line; group 1 is the
# result name, group 2 the opcode (or the first keyword: tail call)
_BIN = re.compile(_P + r'(add|sub|mul|udiv|sdiv|urem|srem|shl|lshr|ashr|and|or|xor)((?: (?:nuw|nsw|exact|disjoint))*) ('
                  + _T + r') (' + _V + r'), (' + _V + r')$')
_ICMP = re.compile(_P + r'(icmp) (eq|ne|ugt|uge|ult|ule|sgt|sge|slt|sle) (' + _T + r') (' + _V + r'), ('
                   + _V + r')$')
_SELECT = re.compile(_P + r'(select) i1 (' + _V + r'), (' + _T + r') (' + _V + r'), (' + _T + r') (' + _V
                     + r')$')
_PHI = re.compile(_P + r'(phi) (' + _T + r') ((?:\[ (?:' + _V + r'), %(?:' + _N + r') \], )*\[ (?:' + _V
                  + r'), %(?:' + _N + r') \])$')
_PHI_PAIR = re.compile(r'\[ (' + _V + r'), %(' + _N + r') \]')
_BR = re.compile(_P + r'(br) (?:label %(' + _N + r')|i1 (' + _V + r'), label %(' + _N + r'), label %(' + _N
                 + r'))$')
_RET = re.compile(_P + r'(ret) (?:void|(' + _T + r') (' + _V + r'))$')
_CALL = re.compile(_P + r'((?:tail |musttail |notail )?call) (void|' + _T + r') @(' + _N + r')\((.*)\)'
                   r'((?: #[0-9]+)*)$')
_ARG = re.compile(r'(' + _T + r')((?: (?:noundef|inreg|zeroext|signext))*) (' + _V + r')$')
_LOAD = re.compile(_P + r'(load) (' + _T + r'), (' + _T + r') (' + _V + r')(?:, align ([0-9]+))?$')
_STORE = re.compile(_P + r'(store) (' + _T + r') (' + _V + r'), (' + _T + r') (' + _V
                    + r')(?:, align ([0-9]+))?$')
_GEP = re.compile(_P + r'(getelementptr)((?: (?:inbounds|nuw|nusw))*) (' + _T + r'), (' + _T + r') (' + _V
                  + r')((?:, (?:' + _T + r') (?:' + _V + r'))*)$')
_GEP_IDX = re.compile(r', (' + _T + r') (' + _V + r')')
_CAST = re.compile(_P + r'(trunc|zext|sext|ptrtoint|inttoptr|addrspacecast|bitcast)((?: (?:nuw|nsw|nneg))*) ('
                   + _T + r') (' + _V + r') to (' + _T + r')$')
_UNREACHABLE = re.compile(_P + r'(unreachable)$')
_HEADER = re.compile(r'(define|declare) ((?:[a-z_][a-z_0-9]* )*)(void|' + _T + r') @(' + _N
                     + r')\((.*)\)((?: #[0-9]+)*)( \{)?$')
# attribute groups of plain words and strings ("key" or "key"="value"); 'align' is a
# keyword of the grammar, anything with parentheses is left to the exact path
_ATTR_GROUP = re.compile(r'attributes #([0-9]+) = \{((?: (?:[a-zA-Z_][a-zA-Z_0-9.]*|"[^"\\]*"(?:="[^"\\]*")?))*) \}$')
_ATTR_ITEM = re.compile(r'[a-zA-Z_][a-zA-Z_0-9.]*|"[^"\\]*"(?:="[^"\\]*")?')
_PARAM = re.compile(r'(' + _T + r')((?: (?:noundef|inreg|zeroext|signext|noalias|nonnull))*)'
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
_ODD_TYPES: list = []  # type spellings seen whose printed text differs
_CANON_BINFLAGS = frozenset({"", " nuw", " nsw", " nuw nsw", " exact", " disjoint"})
_CANON_CASTFLAGS = frozenset({"", " nuw", " nsw", " nuw nsw", " nneg"})
_CANON_GEPFLAGS = frozenset({"", " inbounds", " nusw", " nuw", " inbounds nuw", " nusw nuw"})
_MODULE_LINE = re.compile(r'(?:target (?:datalayout|triple)|source_filename) = "[^"\\]*"$')

_BINOPS = ("add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor")
_CASTS = ("trunc", "zext", "sext", "ptrtoint", "inttoptr", "addrspacecast", "bitcast")
# opcode -> (family, regular expression, the opcode string shared by all its instructions)
_DISPATCH = {op: (0, _BIN, op) for op in _BINOPS}
_DISPATCH.update({op: (9, _CAST, op) for op in _CASTS})
_DISPATCH.update({"icmp": (1, _ICMP, "icmp"), "phi": (2, _PHI, "phi"), "br": (3, _BR, "br"),
                  "select": (4, _SELECT, "select"), "load": (5, _LOAD, "load"),
                  "getelementptr": (6, _GEP, "getelementptr"), "store": (7, _STORE, "store"),
                  "call": (8, _CALL, "call"), "tail": (8, _CALL, "call"), "musttail": (8, _CALL, "call"),
                  "notail": (8, _CALL, "call"), "ret": (10, _RET, "ret"),
                  "unreachable": (11, _UNREACHABLE, "unreachable")})

# words allowed before the return type of a header (checked against lark in the tests)
_HEADER_WORDS = CALLING_CONVENTIONS | {"dso_local", "internal", "private", "hidden", "noundef",
                                       "local_unnamed_addr", "unnamed_addr"}
_BINOP_FLAGS = {
    "add": ("nuw", "nsw"), "sub": ("nuw", "nsw"), "mul": ("nuw", "nsw"), "shl": ("nuw", "nsw"),
    "udiv": ("exact",), "sdiv": ("exact",), "lshr": ("exact",), "ashr": ("exact",),
    "or": ("disjoint",), "and": (), "xor": (), "urem": (), "srem": (),
}
_CAST_FLAGS = {"trunc": ("nuw", "nsw"), "zext": ("nneg",)}
_FLOATS = ("float", "double", "half", "bfloat")
_NO_FLAGS = frozenset()

_TYPES: dict = {"void": VOID, "ptr": PTR}


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


_new = object.__new__


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
        if ty.__class__ is not IntType:
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
        if ty.__class__ is not PtrType:
            raise _Bail
        return ("null", "null", None)
    if tok == "zeroinitializer":
        if ty.__class__ is IntType:
            return ("false" if ty.bits == 1 else "0", "int", 0)
        if ty.__class__ is PtrType:
            return ("null", "null", None)
        raise _Bail
    if tok == "undef" or tok == "poison":
        return (tok, tok, None)
    raise _Bail


_setattr = object.__setattr__



def _constant(ty, fields: tuple) -> Constant:
    """A new ``Constant`` (each use gets its own object, as on the exact path)."""
    c = _new(Constant)
    _setattr(c, "type", ty)
    _setattr(c, "text", fields[0])
    _setattr(c, "kind", fields[1])
    _setattr(c, "value", fields[2])
    _setattr(c, "elements", ())
    return c


def _cast_ok(op: str, s, d) -> bool:
    sc, dc = s.__class__, d.__class__
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
        cc = None
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
        vals: dict = {}
        pending: list = []  # (inst, operand index, token, type): uses before the definition
        phis: list = []  # (inst, [(value token, block name)], source text or None)
        odd: list = []  # instructions with a constant operand not in canonical spelling
        terms: list = []  # (inst, [block names])
        # SSA dominance: a use of a value defined earlier in the same block is valid by
        # construction; the blocks of values defined earlier in other blocks are
        # collected per using block (``cur_cross``, then ``checks``: (block, [blocks
        # that must dominate it])) and checked at the end of the function, with the
        # uses before the definition (``pending``) and the phi incoming values
        cur_cross: list = []
        checks: list = []
        # the uniformity analysis' user lists, built here while the objects are fresh in
        # the cache (see ``Function.uses``): value -> users in program order, each once;
        # uses bound as parsed (the value is defined earlier) go straight in, the others
        # (``late_uses``: (user, token) in text order) precede them and are added at the end
        users: dict = {}
        uget = users.get
        late_uses: list = []
        seeds: list = []  # loads and calls, in program order
        bcur = None  # the block of the next instruction, None if it opens a new one
        calls = self.calls
        n_slot = 0  # opt's renumbering of unnamed values
        for a in f.args:
            vals["%" + a.name] = a
            if a.name.isdigit():
                a.slot = str(n_slot)
                n_slot += 1
            else:
                a.slot = a.name
        next_slot = self.first_slot
        blocks: list = []
        block_names: dict = {}
        cur = None
        cur_insts = None
        terminated = True
        ret_type = f.ret_type
        Inst = Instruction
        new = _new
        setattr_ = _setattr
        dispatch = _DISPATCH
        binop_flags = _BINOP_FLAGS
        # any numbered argument, value or block: no kept text in this function
        numbered = False
        odd_types = _ODD_TYPES
        for a in f.args:
            if a.name.isdigit():
                numbered = True

        def const(tok, ty):
            key = (id(ty), tok)
            c = consts.get(key)
            if c is None:
                c = consts[key] = _const_fields(ty, tok) + (ty,)
            return _constant(ty, c)

        def operand(tok, ty, inst, idx):
            v = vals.get(tok)
            if v is None:
                if tok[0] == "%":
                    pending.append((inst, idx, tok, ty))
                    late_uses.append((inst, tok))
                    return None
                key = (id(ty), tok)
                c = consts.get(key)
                if c is None:
                    c = consts[key] = _const_fields(ty, tok) + (ty,)
                if c[0] != tok:
                    odd.append(inst)
                v = new(Constant)  # a new object per use, as on the exact path
                setattr_(v, "type", ty)
                setattr_(v, "text", c[0])
                setattr_(v, "kind", c[1])
                setattr_(v, "value", c[2])
                setattr_(v, "elements", ())
                return v
            if v.type is not ty and v.type != ty:
                raise _Bail
            if v.__class__ is Inst and v.block is not bcur:
                cur_cross.append(v.block)
            ul = uget(v)
            if ul is None:
                users[v] = [inst]
            elif ul[-1] is not inst:
                ul.append(inst)
            return v

        n = len(lines)
        while True:
            if k >= n:
                raise _Bail  # missing '}'
            line = lines[k]
            k += 1
            if ";" in line:
                if '"' in line:
                    raise _Bail
                line = line[:line.index(";")]
            s = line.rstrip()
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
                cur = BasicBlock(name, [], f, [], [], _span(path, k, m.start(1) + 1), slot, len(blocks))
                block_names[name] = cur
                blocks.append(cur)
                cur_insts = cur.instructions
                terminated = False
                bcur = cur
                continue
            parts = s.split(None, 3)
            op = parts[0]
            if op[0] == "%":
                if len(parts) < 3 or parts[1] != "=":
                    raise _Bail
                op = parts[2]
            elif op == "}":
                if len(parts) > 1:
                    raise _Bail
                break
            d = dispatch.get(op)
            if d is None:
                raise _Bail
            fam, rx, op = d
            m = rx.match(s)
            if m is None:
                raise _Bail
            g = m.groups()
            dname = g[0]
            inst = new(Inst)
            keep = True  # the source text is the printed text (see _ODD_TYPES)
            if fam == 0:  # binary operator
                ty = tys.get(g[3]) or _ty(g[3])
                if ty.__class__ is not IntType:
                    raise _Bail
                inst.opcode = op
                inst.type = ty
                fl = g[2]
                if fl:
                    words = fl.split()
                    allowed = binop_flags[op]
                    for w in words:
                        if w not in allowed:
                            raise _Bail
                    inst.flags = frozenset(words)
                    if fl not in _CANON_BINFLAGS:
                        keep = False
                a = g[4]
                va = vals.get(a)
                if va is None:
                    va = operand(a, ty, inst, 0)
                else:
                    if va.type is not ty and va.type != ty:
                        raise _Bail
                    if va.__class__ is Inst and va.block is not bcur:
                        cur_cross.append(va.block)
                    ul = uget(va)
                    if ul is None:
                        users[va] = [inst]
                    elif ul[-1] is not inst:
                        ul.append(inst)
                b = g[5]
                vb = vals.get(b)
                if vb is None:
                    vb = operand(b, ty, inst, 1)
                else:
                    if vb.type is not ty and vb.type != ty:
                        raise _Bail
                    if vb.__class__ is Inst and vb.block is not bcur:
                        cur_cross.append(vb.block)
                    ul = uget(vb)
                    if ul is None:
                        users[vb] = [inst]
                    elif ul[-1] is not inst:
                        ul.append(inst)
                inst.operands = [va, vb]
            elif fam == 1:  # icmp
                ty = tys.get(g[3]) or _ty(g[3])
                if ty.__class__ is not IntType and ty.__class__ is not PtrType:
                    raise _Bail
                inst.opcode = op
                inst.type = I1
                inst.predicate = g[2]
                a = g[4]
                va = vals.get(a)
                if va is None:
                    va = operand(a, ty, inst, 0)
                else:
                    if va.type is not ty and va.type != ty:
                        raise _Bail
                    if va.__class__ is Inst and va.block is not bcur:
                        cur_cross.append(va.block)
                    ul = uget(va)
                    if ul is None:
                        users[va] = [inst]
                    elif ul[-1] is not inst:
                        ul.append(inst)
                b = g[5]
                vb = vals.get(b)
                if vb is None:
                    vb = operand(b, ty, inst, 1)
                else:
                    if vb.type is not ty and vb.type != ty:
                        raise _Bail
                    if vb.__class__ is Inst and vb.block is not bcur:
                        cur_cross.append(vb.block)
                    ul = uget(vb)
                    if ul is None:
                        users[vb] = [inst]
                    elif ul[-1] is not inst:
                        ul.append(inst)
                inst.operands = [va, vb]
            elif fam == 2:  # phi
                pairs = _PHI_PAIR.findall(g[3])
                inst.opcode = op
                inst.type = _ty(g[2])
                inst.operands = [None] * len(pairs)
                phis.append((inst, pairs, s[m.start(1 if dname is not None else 2):] if keep else None))
                for tok, _bn in pairs:
                    v = vals.get(tok)
                    if v is None:
                        if tok[0] == "%":
                            late_uses.append((inst, tok))
                    else:
                        ul = uget(v)
                        if ul is None:
                            users[v] = [inst]
                        elif ul[-1] is not inst:
                            ul.append(inst)
                keep = False  # decided when the incoming values are bound
            elif fam == 3:  # br
                inst.opcode = op
                inst.type = VOID
                if g[2] is not None:
                    inst.operands = []
                    terms.append((inst, (g[2],)))
                else:
                    a = g[3]
                    va = vals.get(a)
                    if va is None:
                        va = operand(a, I1, inst, 0)
                    else:
                        if va.type is not I1 and va.type != I1:
                            raise _Bail
                        if va.__class__ is Inst and va.block is not bcur:
                            cur_cross.append(va.block)
                        ul = uget(va)
                        if ul is None:
                            users[va] = [inst]
                        elif ul[-1] is not inst:
                            ul.append(inst)
                    inst.operands = [va]
                    terms.append((inst, (g[4], g[5])))
            elif fam == 4:  # select
                ta = g[3]
                if ta != g[5]:
                    raise _Bail
                ty = tys.get(ta) or _ty(ta)
                inst.opcode = op
                inst.type = ty
                c = g[2]
                vc = vals.get(c)
                if vc is None:
                    vc = operand(c, I1, inst, 0)
                else:
                    if vc.type is not I1 and vc.type != I1:
                        raise _Bail
                    if vc.__class__ is Inst and vc.block is not bcur:
                        cur_cross.append(vc.block)
                    ul = uget(vc)
                    if ul is None:
                        users[vc] = [inst]
                    elif ul[-1] is not inst:
                        ul.append(inst)
                a = g[4]
                va = vals.get(a)
                if va is None:
                    va = operand(a, ty, inst, 1)
                else:
                    if va.type is not ty and va.type != ty:
                        raise _Bail
                    if va.__class__ is Inst and va.block is not bcur:
                        cur_cross.append(va.block)
                    ul = uget(va)
                    if ul is None:
                        users[va] = [inst]
                    elif ul[-1] is not inst:
                        ul.append(inst)
                b = g[6]
                vb = vals.get(b)
                if vb is None:
                    vb = operand(b, ty, inst, 2)
                else:
                    if vb.type is not ty and vb.type != ty:
                        raise _Bail
                    if vb.__class__ is Inst and vb.block is not bcur:
                        cur_cross.append(vb.block)
                    ul = uget(vb)
                    if ul is None:
                        users[vb] = [inst]
                    elif ul[-1] is not inst:
                        ul.append(inst)
                inst.operands = [vc, va, vb]
            elif fam == 5:  # load
                seeds.append(inst)
                pty = _ty(g[3])
                if pty.__class__ is not PtrType:
                    raise _Bail
                inst.opcode = op
                inst.type = _ty(g[2])
                inst.operands = ops = [None]
                ops[0] = operand(g[4], pty, inst, 0)
                inst.addrspace = pty.addrspace
                if g[5] is not None:
                    al = inst.align = int(g[5])
                    if keep and str(al) != g[5]:
                        keep = False
                else:
                    keep = False  # printed with the ABI alignment
            elif fam == 6:  # getelementptr
                pty = _ty(g[4])
                if pty.__class__ is not PtrType:
                    raise _Bail
                ix = _GEP_IDX.findall(g[6]) if g[6] else ()
                inst.opcode = op
                inst.type = pty
                inst.operands = ops = [None] * (1 + len(ix))
                if g[2]:
                    inst.flags = frozenset(g[2].split())
                    if g[2] not in _CANON_GEPFLAGS:
                        keep = False
                inst.source_type = _ty(g[3])
                inst.addrspace = pty.addrspace
                ops[0] = operand(g[5], pty, inst, 0)
                j = 1
                for ti, vi in ix:
                    ity = _ty(ti)
                    if ity.__class__ is not IntType:
                        raise _Bail
                    ops[j] = operand(vi, ity, inst, j)
                    j += 1
            elif fam == 7:  # store
                vty, pty = _ty(g[2]), _ty(g[4])
                if pty.__class__ is not PtrType:
                    raise _Bail
                inst.opcode = op
                inst.type = VOID
                inst.operands = ops = [None, None]
                ops[0] = operand(g[3], vty, inst, 0)
                ops[1] = operand(g[5], pty, inst, 1)
                inst.addrspace = pty.addrspace
                inst.source_type = vty
                if g[6] is not None:
                    al = inst.align = int(g[6])
                    if keep and str(al) != g[6]:
                        keep = False
                else:
                    keep = False  # printed with the ABI alignment
            elif fam == 8:  # call
                seeds.append(inst)
                kw = g[1]
                inst.opcode = "call"
                inst.type = _ty(g[2])
                if kw != "call":
                    inst.tail = kw[:kw.index(" ")]
                inst.operands = ops = []
                arg_types = []
                inner = g[4]
                if inner:
                    aattrs = inst.arg_attrs
                    for j, piece in enumerate(inner.split(", ")):
                        am = _ARG.match(piece)
                        if am is None:
                            raise _Bail
                        aty = _ty(am.group(1))
                        arg_types.append(aty)
                        ops.append(operand(am.group(3), aty, inst, j))
                        aattrs.append(tuple(am.group(2).split()))
                calls.append((inst, g[3], m.start(4), k, arg_types))  # column of '@' (1-based)
                if g[3][0].isdigit():  # a numbered global
                    keep = False
                if g[5]:
                    keep = False
                    inst.attr_items = tuple(g[5].split())
                    self.attr_users.append(inst)
            elif fam == 9:  # cast
                sty, dty = _ty(g[3]), _ty(g[5])
                if not _cast_ok(op, sty, dty):
                    raise _Bail
                inst.opcode = op
                inst.type = dty
                if g[2]:
                    words = g[2].split()
                    allowed = _CAST_FLAGS.get(op, ())
                    for w in words:
                        if w not in allowed:
                            raise _Bail
                    inst.flags = frozenset(words)
                    if g[2] not in _CANON_CASTFLAGS:
                        keep = False
                inst.source_type = sty
                inst.operands = ops = [None]
                ops[0] = operand(g[4], sty, inst, 0)
            elif fam == 10:  # ret
                inst.opcode = op
                inst.type = VOID
                inst.operands = ops = []
                if g[2] is None:
                    if ret_type is not VOID:
                        raise _Bail
                else:
                    ty = _ty(g[2])
                    if ty != ret_type:
                        raise _Bail
                    ops.append(operand(g[3], ty, inst, 0))
            else:  # unreachable
                inst.opcode = op
                inst.type = VOID
                inst.operands = []
            # ------------------------------------------------ block and name
            col = m.start(1) + 1 if dname is not None else m.start(2) + 1
            if terminated:
                # an unlabeled block (entry, or after a terminator): numbered before
                # its first instruction
                cur = BasicBlock(str(next_slot), [], f, [], [], _span(path, k, col), str(n_slot), len(blocks))
                next_slot += 1
                n_slot += 1
                numbered = True
                block_names[cur.name] = cur
                blocks.append(cur)
                cur_insts = cur.instructions
                terminated = False
                bcur = cur
            inst.block = cur
            if keep and (not odd or odd[-1] is not inst) and (not odd_types or _plain_types(s)):
                inst._text = s[col - 1:]
            if col < 0x100000:
                inst._loc = (k << 20) | col
            else:
                inst.span = _span(path, k, col)
            if inst.type is VOID:
                if dname is not None:
                    raise _Bail
                if fam == 3 or fam >= 10:
                    terminated = True
                    bcur = None
                    if cur_cross:
                        checks.append((cur, cur_cross))
                        cur_cross = []
            elif dname is None:
                name = str(next_slot)
                next_slot += 1
                numbered = True
                inst.name = name
                inst.slot = str(n_slot)
                n_slot += 1
                vals["%" + name] = inst
            else:
                if vals.setdefault(dname, inst) is not inst:
                    raise _Bail  # redefinition
                name = dname[1:]
                if "0" <= name[0] <= "9":
                    if not name.isdigit() or int(name) < next_slot:
                        raise _Bail
                    next_slot = int(name) + 1
                    numbered = True
                    inst.slot = str(n_slot)
                    n_slot += 1
                else:
                    inst.slot = name
                inst.name = name
            cur_insts.append(inst)
        # ---------------------------------------------------- end of function
        if not terminated or not blocks:
            raise _Bail
        for b in blocks:
            if "%" + b.name in vals:
                raise _Bail
        late = []  # (index of the block that must dominate, index of the using block)
        for inst, idx, tok, ty in pending:
            v = vals.get(tok)
            if v is None or (v.type is not ty and v.type != ty):
                raise _Bail
            inst.operands[idx] = v
            if v.__class__ is Inst:  # a use before the definition: fine only across blocks
                if v.block is inst.block:
                    raise _Bail
                late.append((v.block.index, inst.block.index))
        for inst, pairs, text in phis:
            ty = inst.type
            ops = inst.operands
            inc = []
            for j, (tok, bname) in enumerate(pairs):
                v = vals.get(tok)
                if v is None:
                    if tok[0] == "%":
                        raise _Bail
                    v = const(tok, ty)
                    if v.text != tok:
                        text = None
                elif v.type is not ty and v.type != ty:
                    raise _Bail
                b = block_names.get(bname)
                if b is None:
                    raise _Bail
                ops[j] = v
                inc.append((v, b))
            inst.incoming = inc
            if text is not None and not numbered and (not odd_types or _plain_types(text)):
                inst._text = text
        if numbered:  # opt renumbers: print every line (see _ODD_TYPES)
            for b in blocks:
                for inst in b.instructions:
                    inst.__dict__.pop("_text", None)
        for inst, names in terms:
            tg = []
            for bname in names:
                b = block_names.get(bname)
                if b is None:
                    raise _Bail
                tg.append(b)
            inst.targets = tg
        for b in blocks:
            t = b.instructions[-1]
            succ = list(t.targets)
            b.successors = succ
            for s in succ:
                p = s.predecessors
                if not p or p[-1] is not b:
                    p.append(b)
        # SSA dominance, by the rules of ``ir.verify_dominance`` (which words the errors
        # when the exact path parses the file again)
        pairs = late
        for inst, _p, _t in phis:
            preds = inst.block.predecessors
            for v, b in inst.incoming:
                if b not in preds:
                    raise _Bail
                if v.__class__ is Inst and v.block is not b:
                    pairs.append((v.block.index, b.index))
        if checks or pairs:
            pre, post = DomTree.for_blocks(blocks).by_index
            for blk, defs in checks:
                j = blk.index
                pb = pre[j]
                if pb < 0:  # everything dominates an unreachable block
                    continue
                qb = post[j]
                for d in defs:
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
        for u, tok in late_uses:
            v = vals[tok]
            lu = late_users.get(v)
            if lu is None:
                late_users[v] = [u]
            elif lu[-1] is not u:
                lu.append(u)
        for v, lu in late_users.items():
            e = uget(v)
            users[v] = lu + e if e else lu
        f.uses = (users, seeds, [b.instructions[-1] for b in blocks], sum(len(b.instructions) for b in blocks))
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
    except _Bail:
        return None

"""The IR reader's second layer: operands (values of the function being read, globals) and constants.

Stage job: a value written after its type -> the ``Value`` it names: an argument or
instruction of the current function (a name not defined yet is a forward reference,
bound when the body ends: ``pending``), a global, a function, metadata, or a
``Constant`` in opt's canonical spelling (integers wrapped to their width, ``true``,
floats as opt prints them, aggregates folded to ``zeroinitializer``/``undef``/``poison``
where LLVM folds them, constant expressions). Every semantic problem is collected with
its position (``ParserBase.err``); syntax errors stop the parse.
"""

from __future__ import annotations

import math
import struct
from typing import Any, Final

from patterns.ir.core import (I1, LABEL, METADATA, TOKEN, ArrayType, Constant, FloatType, GlobalRef, IntType,
                              MetadataRef, NamedStructType, PtrType, StructType, Type, Value, VectorType,
                              is_first_class, VOID, Module)
from patterns.ir.opcodes import BINOPS, CASTS
from patterns.ir.parser_base import ParserBase
from patterns.ir.spelling import float_text, parse_float_literal, quote_name, unquote
from patterns.support.intops import to_signed

_CONST_WORDS: Final = frozenset({"true", "false", "null", "undef", "poison", "zeroinitializer", "none"})
_CASTS: Final = frozenset(CASTS)
_BINOPS: Final = frozenset(BINOPS)
_NOT_MODELED: Final = frozenset({"blockaddress", "dso_local_equivalent", "no_cfi", "ptrauth"})


# Integer constants are the most frequent operands: their fields are computed once per
# (type, token) and each use gets its own object (the DAG builder relies on object
# identity), made with the slot setters rather than the interpreted ``__init__``.
_new: Final = object.__new__
_C_TYPE: Final = vars(Constant)["type"].__set__
_C_TEXT: Final = vars(Constant)["text"].__set__
_C_KIND: Final = vars(Constant)["kind"].__set__
_C_VALUE: Final = vars(Constant)["value"].__set__
_C_ELEMENTS: Final = vars(Constant)["elements"].__set__
_C_U: Final = vars(Constant)["_u"].__set__


def new_constant(ty: Type, text: str, kind: str, value: object, u: object) -> Constant:
    """``Constant(ty, text, kind, value)`` whose derived unsigned value is ``u``."""
    c = _new(Constant)
    _C_TYPE(c, ty)
    _C_TEXT(c, text)
    _C_KIND(c, kind)
    _C_VALUE(c, value)
    _C_ELEMENTS(c, ())
    _C_U(c, u)
    return c


class BadConstant(Exception):
    """A constant that is wrong: (what was expected, what was found) at token ``args[2]``."""


def local_name(t: str) -> str:
    """The name of a ``%x``/``@x`` token, without the sigil (quoted names unquoted)."""
    return unquote(t[1:]) if t[1] == '"' else t[1:]


class ValueParser(ParserBase):
    """Operands and constants, over the cursor of ``ParserBase``."""

    def __init__(self, text: str, path: str) -> None:
        super().__init__(text, path)
        self.vals: dict[str, Any] = {}
        self.pending: list = []  # (list, index, name, type, token, what): uses before the definition
        self.functions: dict[str, Any] = {}
        self.globals: dict[str, Any] = {}
        self.late_globals: list = []  # (name, type, token): global references checked after the module
        self.globals_known = False  # (the second pass: every global and function is known)
        self.val_at: dict[str, int] = {}  # value name -> the token defining it
        self.branch_refs: list = []  # (inst, [(name, token)], kind): blocks named, bound at the end
        self.callee_lists: list = []  # (call, [callee]): indirect callees defined later
        self.ret_type: Type = VOID
        self.attr_users: list = []  # functions and calls with attribute items ('#N' among them)
        self.implicit: list = []  # implicit intrinsic declarations, in order
        self.block_names: dict = {}
        self.next_slot = 0
        self.mod = Module([], path)
        self.dbg_records = False  # a debug record was read (then no debug intrinsic may be)
        self.dbg_calls = False  # a debug intrinsic was called (then no debug record may be)
        self.int_consts: dict[tuple, tuple] = {}  # (type, token) -> (text, value, unsigned value)

    # --------------------------------------------------------------- operands
    def operand(self, lst: list, ty: Type, what: str = "operand") -> None:
        """The value at the cursor, of type ``ty``, appended to ``lst`` (None there for a
        forward reference, bound at the end of the body, or for an invalid value)."""
        t = self.tok()
        if t[0] == "%":
            at = self.p
            self.p += 1
            name = local_name(t) if len(t) > 1 else ""
            v = self.vals.get(name)
            if v is None:
                self.pending.append((lst, len(lst), name, ty, at, what))
                lst.append(None)
                return
            vt = v.type
            if vt is not ty and vt != ty:
                self.err(at, f"'%{quote_name(name)}' to have type {ty}", f"type {vt} (type mismatch in {what})")
                lst.append(None)
                return
            lst.append(v)
            return
        c = self.value(ty, what)
        if c is not None and c.ref != t:  # (a constant or global opt spells otherwise)
            self.canon = False
        lst.append(c)

    def value(self, ty: Type, what: str = "operand") -> Value | None:
        """A value that is not a local (in constants, locals are an error)."""
        t = self.tok()
        at = self.p
        c = t[0]
        if c == "%":
            self.p += 1
            self.err(at, "a constant", f"local value '{t}' in a constant")
            return None
        if c == "@":
            self.p += 1
            return self.global_ref(local_name(t), ty, at, what)
        if ty is METADATA:
            return self.metadata_operand()
        try:
            return self.constant(ty)
        except BadConstant as e:
            self.err(e.args[2], e.args[0], e.args[1])
            return None

    def global_ref(self, name: str, ty: Type, at: int, what: str) -> Value | None:
        if self.globals_known:
            gt = self.global_type(name)
            if gt is None:
                self.err(at, "a defined global", f"undefined value '@{quote_name(name)}'")
                return None
            if gt != ty:
                self.err(at, f"'@{quote_name(name)}' to have type {ty}", f"type {gt} (type mismatch in {what})")
                return None
        else:
            self.late_globals.append((name, ty, at, what, self.rec))
        return GlobalRef(name, ty)

    def global_type(self, name: str) -> Type | None:
        """The pointer type of the global, function or alias ``name``, or None."""
        f = self.functions.get(name)
        if f is not None:
            return PtrType(f.addrspace) if hasattr(f, "addrspace") else PtrType(0)
        g = self.globals.get(name)
        if g is not None:
            return PtrType(g.addrspace)
        return None

    def metadata_operand(self) -> Value | None:
        """After ``metadata`` (read by the metadata layer, patterns/ir/parser_metadata.py)."""
        raise NotImplementedError

    # -------------------------------------------------------------- constants
    def typed_constant(self) -> Value | None:
        """``T value`` inside a constant (an aggregate element, an expression's operand)."""
        ty = self.parse_type()
        t = self.tok()
        if t[0] == "@":
            at = self.p
            self.p += 1
            return self.global_ref(local_name(t), ty, at, "constant")
        if t[0] == "%":
            raise BadConstant("a constant", f"local value '{t}' in a constant", self.p)
        return self.constant(ty)

    def constant(self, ty: Type) -> Value:
        at = self.p
        t = self.take()
        c = t[0]
        if c.isdigit() or ((c == "-" or c == "+") and len(t) > 1):
            if "." in t or t.startswith("0x") or t.startswith("-0x"):
                return self.float_constant(ty, t, at)
            if isinstance(ty, IntType):
                key = (id(ty), t)  # (int types are kept alive by int_type's cache)
                e = self.int_consts.get(key)
                if e is None:
                    c0 = self.int_constant(ty, t)
                    e = self.int_consts[key] = (c0.text, c0.value, c0._u)
                    return c0
                text, value, u = e
                return new_constant(ty, text, "int", value, u)
            raise BadConstant(f"a constant of type {ty}", f"integer '{t}' (integer constants have integer types)", at)
        if (c == "u" or c == "s") and t[1:3] == "0x":
            if not isinstance(ty, IntType):
                raise BadConstant(f"a constant of type {ty}", f"integer '{t}'", at)
            raw = int(t[3:], 16)
            v = to_signed(raw if c == "u" else to_signed(raw, max(raw.bit_length(), 1)), ty.bits)
            return Constant(ty, ("true" if v else "false") if ty.bits == 1 else str(v), "int",
                            v & 1 if ty.bits == 1 else v)
        if t in _CONST_WORDS:
            return self.word_constant(ty, t, at)
        if t == "<":
            if self.tok() == "{":
                return self.aggregate(ty, "pstruct", at)
            return self.aggregate(ty, "vector", at)
        if t == "[":
            return self.aggregate(ty, "array", at)
        if t == "{":
            return self.aggregate(ty, "struct", at)
        if c == "c" and len(t) > 1 and t[1] == '"':
            if len(t) == 2 or t[-1] != '"':
                self.syntax("a closing '\"' on the same line", "unterminated string", at)
            if not (isinstance(ty, ArrayType) and ty.elem == IntType(8)):
                raise BadConstant(f"a constant of type {ty}", "a string constant (only [N x i8])", at)
            return Constant(ty, t, "string")
        if t in _CASTS:
            return self.cast_expr(ty, t, at)
        if t == "getelementptr":
            return self.gep_expr(ty, at)
        if t in _BINOPS:
            return self.binop_expr(ty, t, at)
        if t == "splat":
            self.expect("(")
            el = self.typed_constant()
            self.expect(")")
            if not isinstance(ty, VectorType):
                raise BadConstant(f"a constant of type {ty}", "a splat (only vectors)", at)
            return self.vector_of(ty, [el] * ty.count)
        if t == "asm":
            raise BadConstant("a value", "inline asm outside a call", at)
        if t in _NOT_MODELED:
            raise BadConstant("a value within the supported subset", f"'{t}' (not modeled)", at)
        if t[0] == "!":
            raise BadConstant(f"a value of type {ty}", f"metadata '{t}' (only after 'metadata')", at)
        self.syntax(f"a value of type {ty}", at=at)
        raise AssertionError  # (syntax raises)

    def int_constant(self, ty: IntType, t: str) -> Constant:
        v = to_signed(int(t), ty.bits)
        if ty.bits == 1:
            return Constant(ty, "true" if v else "false", "int", v & 1)
        return Constant(ty, str(v), "int", v)

    def float_constant(self, ty: Type, p: str, at: int) -> Constant:
        if isinstance(ty, FloatType) and ty.name in ("half", "bfloat", "float", "double"):
            hk = p[2] if p.startswith("0x") else ""
            if (hk == "H" and ty.name != "half") or (hk == "R" and ty.name != "bfloat") or hk in ("K", "L", "M"):
                raise BadConstant(f"a constant of type {ty}", f"'{p}' (a literal of another floating-point type)", at)
            try:
                v, raw = parse_float_literal(p, ty.name)
            except (ValueError, struct.error, OverflowError):
                raise BadConstant(f"a constant of type {ty}", f"'{p}'", at)
            if ty.name in ("float", "half", "bfloat") and hk not in ("H", "R"):
                # decimal literals and double-format hex ones must be exactly representable
                # (as LLVM requires)
                exact = float(p) if not hk else struct.unpack("<d", struct.pack("<Q", int(p[2:], 16)))[0]
                if v is not None and v != exact and math.isfinite(v) and not math.isnan(exact):
                    raise BadConstant(f"a constant exactly representable as {ty}", f"'{p}'", at)
            if raw is not None and ty.name in ("half", "bfloat"):
                if v is None:
                    v = _half_value(ty.name, raw)
                return Constant(ty, float_text(ty.name, v, raw), "float", v)
            return Constant(ty, float_text(ty.name, v), "float", v)
        if isinstance(ty, FloatType):
            raise BadConstant(f"a constant of a modeled floating-point type", f"'{p}' of type {ty} (not modeled)", at)
        raise BadConstant(f"a constant of type {ty}", f"floating-point constant '{p}'", at)

    def word_constant(self, ty: Type, p: str, at: int) -> Constant:
        if p == "true" or p == "false":
            if ty != I1:
                raise BadConstant(f"a constant of type {ty}", f"'{p}' (only i1 is true/false)", at)
            return Constant(ty, p, "int", 1 if p == "true" else 0)
        if p == "null":
            if not isinstance(ty, PtrType):
                raise BadConstant(f"a constant of type {ty}", "'null' (only pointers are null)", at)
            return Constant(ty, "null", "null")
        if p == "none":
            if ty != TOKEN:
                raise BadConstant(f"a constant of type {ty}", "'none' (only tokens are none)", at)
            return Constant(ty, "none", "none")
        if p == "zeroinitializer":
            if isinstance(ty, IntType):
                return Constant(ty, "false" if ty.bits == 1 else "0", "int", 0)
            if isinstance(ty, FloatType):
                return Constant(ty, float_text(ty.name, 0.0), "float", 0.0)
            if isinstance(ty, PtrType):
                return Constant(ty, "null", "null")
            if not is_first_class(ty) or ty == TOKEN:
                raise BadConstant("a value type", f"'{ty}'", at)
            return Constant(ty, "zeroinitializer", "zero")
        if not is_first_class(ty) or ty == LABEL:
            raise BadConstant("a value type", f"'{ty}'", at)
        return Constant(ty, p, p)

    def vector_of(self, ty: VectorType, elems: list) -> Constant:
        if all(isinstance(e, Constant) and e.kind in ("int", "float", "null") and not e.value
               and not (e.kind == "float" and math.copysign(1.0, e.value if isinstance(e.value, float) else 0.0) < 0) for e in elems):
            return Constant(ty, "zeroinitializer", "zero", None, tuple(elems))
        if all(isinstance(e, Constant) and e.kind == "undef" for e in elems):
            return Constant(ty, "undef", "undef")
        if all(isinstance(e, Constant) and e.kind == "poison" for e in elems):
            return Constant(ty, "poison", "poison")
        body = ", ".join(f"{e.type} {e.ref}" for e in elems)
        return Constant(ty, f"<{body}>", "aggregate", None, tuple(elems))

    def aggregate(self, ty: Type, k: str, at: int) -> Constant:
        close = {"vector": ">", "array": "]", "struct": "}", "pstruct": "}"}[k]
        if k == "pstruct":
            self.p += 1  # the '{' after '<'
        items: list = []
        if self.tok() != close:
            while True:
                et_at = self.p
                items.append((self.p, self.typed_constant(), et_at))
                if not self.accept(","):
                    break
        self.expect(close, f"'{close}' closing the constant")
        if k == "pstruct":
            self.expect(">", "'>' closing the packed struct constant")
        body_ty = ty.body if isinstance(ty, NamedStructType) else ty
        want = VectorType if k == "vector" else ArrayType if k == "array" else StructType
        if not isinstance(body_ty, want) or (isinstance(body_ty, StructType) and body_ty.packed != (k == "pstruct")):
            raise BadConstant(f"a constant of type {ty}", f"a {k} constant", at)
        if isinstance(body_ty, StructType):
            tys = list(body_ty.elems)
        else:
            tys = [body_ty.elem] * body_ty.count
        if len(items) != len(tys):
            raise BadConstant(f"{len(tys)} elements for {ty}", f"{len(items)}", at)
        elems = []
        for (_, x, eat), et in zip(items, tys):
            if x is None:
                raise BadConstant("a constant element", "an invalid one", eat)
            if x.type != et:
                raise BadConstant(f"element type {et}", f"{x.type}", eat)
            elems.append(x)
        if isinstance(body_ty, VectorType):
            return self.vector_of(body_ty, elems)
        if all(isinstance(e, Constant) and e.kind in ("int", "float", "null", "zero") and not e.value
               and not (e.kind == "float" and math.copysign(1.0, e.value if isinstance(e.value, float) else 0.0) < 0) for e in elems):
            return Constant(ty, "zeroinitializer", "zero", None, tuple(elems))
        inner = ", ".join(f"{e.type} {e.ref}" for e in elems)
        if isinstance(body_ty, ArrayType):
            return Constant(ty, f"[{inner}]", "aggregate", None, tuple(elems))
        text = "{ " + inner + " }" if inner else "{}"
        if body_ty.packed:
            text = f"<{text}>"
        return Constant(ty, text, "aggregate", None, tuple(elems))

    def cast_expr(self, ty: Type, op: str, at: int) -> Constant:
        self.expect("(", f"'(' after {op}")
        inner = self.typed_constant()
        self.expect("to", "'to' in the cast")
        dest = self.parse_type()
        self.expect(")", "')' closing the cast")
        if inner is None:
            raise BadConstant("a constant operand", "an invalid one", at)
        if dest != ty:
            raise BadConstant(f"a constant of type {ty}", f"a cast to {dest}", at)
        if not cast_ok(op, inner.type, dest):
            raise BadConstant(f"a valid {op} (source and destination types)", f"'{inner.type}' to '{dest}'", at)
        return Constant(ty, f"{op} ({inner.type} {inner.ref} to {dest})", "expr", None, (inner,))

    def gep_expr(self, ty: Type, at: int) -> Constant:
        words = []
        while self.tok() in ("inbounds", "nuw", "nusw", "inrange"):
            w = self.take()
            if w == "inrange":
                raise BadConstant("a getelementptr expression within the supported subset", "'inrange' (not modeled)", at)
            words.append(w)
        self.expect("(", "'(' in the getelementptr expression")
        sat = self.p
        srct = self.parse_type()
        if not is_first_class(srct) or srct == TOKEN:
            self.syntax("a sized source element type", f"type {srct}", sat)
        vals = []
        while self.accept(","):
            x = self.typed_constant()
            if x is None:
                raise BadConstant("a constant operand", "an invalid one", at)
            vals.append(x)
        self.expect(")", "')' closing the getelementptr expression")
        if not vals or not isinstance(vals[0].type.scalar, PtrType):
            raise BadConstant("a pointer base of the getelementptr expression", "none", at)
        if vals[0].type != ty:
            raise BadConstant(f"a constant of type {ty}", f"a getelementptr of type {vals[0].type}", at)
        fl = [f for f in ("inbounds", "nusw", "nuw") if f in words]
        if "inbounds" in fl and "nusw" in fl:
            fl.remove("nusw")
        w = "".join(f + " " for f in fl)
        body = ", ".join(f"{x.type} {x.ref}" for x in vals)
        return Constant(ty, f"getelementptr {w}({srct}, {body})", "expr", None, tuple(vals))

    def binop_expr(self, ty: Type, op: str, at: int) -> Constant:
        words = []
        while self.tok() in ("nuw", "nsw", "exact", "disjoint"):
            words.append(self.take())
        self.expect("(", f"'(' after {op}")
        a = self.typed_constant()
        self.expect(",")
        b = self.typed_constant()
        self.expect(")")
        if a is None or b is None:
            raise BadConstant("a constant operand", "an invalid one", at)
        if a.type != ty or b.type != ty:
            raise BadConstant(f"operands of type {ty}", f"{a.type} and {b.type}", at)
        w = "".join(f + " " for f in ("nuw", "nsw", "exact", "disjoint") if f in words)
        return Constant(ty, f"{op} {w}({a.type} {a.ref}, {b.type} {b.ref})", "expr", None, (a, b))


def bit_size(t: Type) -> int | None:
    if isinstance(t, (IntType, FloatType)):
        return t.bits
    if isinstance(t, PtrType):
        return 64
    if isinstance(t, VectorType):
        e = bit_size(t.elem)
        return None if e is None else e * t.count
    return None


def cast_ok(op: str, src: Type, dst: Type) -> bool:
    """Whether ``op`` casts ``src`` to ``dst`` (LLVM's CastInst::castIsValid)."""
    s, d = src.scalar, dst.scalar
    if isinstance(src, VectorType) != isinstance(dst, VectorType) and op != "bitcast":
        return False
    if isinstance(src, VectorType) and isinstance(dst, VectorType) and op != "bitcast" and src.count != dst.count:
        return False
    if op in ("trunc", "zext", "sext"):
        return isinstance(s, IntType) and isinstance(d, IntType) and (
            s.bits > d.bits if op == "trunc" else s.bits < d.bits)
    if op in ("fptrunc", "fpext"):
        return isinstance(s, FloatType) and isinstance(d, FloatType) and (
            s.bits > d.bits if op == "fptrunc" else s.bits < d.bits)
    if op in ("fptoui", "fptosi"):
        return isinstance(s, FloatType) and isinstance(d, IntType)
    if op in ("uitofp", "sitofp"):
        return isinstance(s, IntType) and isinstance(d, FloatType)
    if op == "ptrtoint":
        return isinstance(s, PtrType) and isinstance(d, IntType)
    if op == "inttoptr":
        return isinstance(s, IntType) and isinstance(d, PtrType)
    if op == "addrspacecast":
        return isinstance(s, PtrType) and isinstance(d, PtrType) and s != d
    if op == "bitcast":
        if isinstance(s, PtrType) or isinstance(d, PtrType):
            return isinstance(s, PtrType) and isinstance(d, PtrType) and s == d and (
                not isinstance(src, VectorType) or src == dst)
        bs = bit_size(src)
        return bs is not None and bs == bit_size(dst)
    return False


def _half_value(name: str, raw: int) -> float:
    if name == "half":
        return struct.unpack("<e", struct.pack("<H", raw))[0]
    return struct.unpack("<f", struct.pack("<I", raw << 16))[0]

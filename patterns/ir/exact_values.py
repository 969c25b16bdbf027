"""The exact IR path's resolver, first layer: diagnostics, the value namespace, operands and constants.

Stage job: a raw operand (``RawVal`` of ``patterns/ir/exact_raw.py``) with the type it is
written with -> the value it names (an argument, instruction, block or global of the
function being resolved) or the ``Constant`` it spells in opt's canonical text, every
problem reported to the resolver's ``Diagnostics`` with its span. The layers above
(``patterns/ir/exact_operands.py``, ``patterns/ir/reader_exact.py``) resolve instructions and
functions with these methods.
"""

from __future__ import annotations

import math
import struct

from tdgen.errors import Diagnostics, ParseError, Span, expected

from patterns.ir.core import (I1, LABEL, PTR, TOKEN, ArrayType, Constant, FloatType, GlobalRef, GlobalVar, IntType,
                              MetadataRef, PtrType, StructType, Type, Value, VectorType, is_first_class)
from patterns.ir.exact_raw import RawFunc, RawVal, raw_text
from patterns.ir.function import BasicBlock, Function
from patterns.ir.spelling import float_text, parse_float_literal, quote_name
from patterns.support.intops import to_signed


class ValueResolver:
    """The state every layer of the resolver shares (diagnostics, the module's
    functions and globals, the current function's values and blocks) and the
    resolution of operands and constants."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.diag = Diagnostics()
        self.functions: dict[str, RawFunc] = {}
        self.globals: dict[str, GlobalVar] = {}
        self.implicit: list[RawFunc] = []  # intrinsics called without a declaration

    def err(self, span, what, found, record=None, field=None) -> None:
        self.diag.add(ParseError(span, expected(what, found), record=record, field=field))

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
            self.err(span, f"a new name (%{quote_name(name)} is already defined at line {prev.line})",
                     f"redefinition of '%{quote_name(name)}'", record=rec)
            return
        self.values[name] = v
        self.value_spans[name] = span

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
                self.err(rv.span, "a defined value", f"undefined value '%{quote_name(rv.payload)}'",
                         record=rec)
                return None
            if ty is not None and v.type != ty:
                self.err(rv.span, f"'%{quote_name(rv.payload)}' to have type {ty}",
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
                    self.err(rv.span, f"'@{quote_name(name)}' to have type {ty}",
                             f"type {gt} (type mismatch in {what})", record=rec)
                return GlobalRef(name, gt)
            self.err(rv.span, "a defined global", f"undefined value '@{quote_name(name)}'", record=rec)
            return None
        if k == "md":
            return MetadataRef(rv.payload)
        if ty is None:
            self.err(rv.span, "a typed operand", f"'{raw_text(rv)}'", record=rec)
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
                v = to_signed(int(p), ty.bits)
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
                self.err(rv.span, "a block label (%name)", f"'{raw_text(rv)}'", record=rec)
                return None
            name, span = rv.payload, rv.span
        b = self.blocks.get(name)
        if b is None:
            self.err(span, "a block label defined in this function",
                     f"undefined label '%{quote_name(name)}'", record=rec)
        return b


class _ConstErr(Exception):
    pass


def _half_value(name: str, raw: int) -> float:
    if name == "half":
        return struct.unpack("<e", struct.pack("<H", raw))[0]
    return struct.unpack("<f", struct.pack("<I", raw << 16))[0]

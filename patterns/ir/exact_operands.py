"""The exact IR path's resolver, second layer: each instruction's operands, per opcode.

Stage job: an ``Instruction`` made from its ``RawInst`` (opcode, flags, result type and
name already set by ``patterns/ir/reader_exact.py``) -> its operands, targets, incoming
values, indices and the opcode's own fields, with the type rules LLVM checks (operand
types, casts, call signatures against the declaration), every problem reported with
its span. Operands and constants come from ``patterns/ir/exact_values.py``.
"""

from __future__ import annotations

from patterns.ir.core import (BINOP_FLAGS, CAST_OPS, I1, PTR, VOID, ArrayType, Constant, FloatType, GlobalRef,
                              InlineAsm, IntType, PtrType, StructType, Type, VectorType)
from patterns.ir.exact_raw import RawFunc, RawInst, raw_text
from patterns.ir.exact_values import ValueResolver
from patterns.ir.function import Function, Instruction
from patterns.ir.spelling import quote_name


class OperandResolver(ValueResolver):
    """Instruction operands over the value resolution of ``ValueResolver``."""

    def resolve(self, inst: Instruction, r: RawInst, rec: str, f: Function) -> None:
        """The operands and operand-derived fields of ``inst`` (made from ``r``), by opcode."""
        op = inst.opcode
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

        if op in BINOP_FLAGS or op in ("icmp", "fcmp", "fneg", "select"):
            self._resolve_arith(inst, r, rec, f, rest)
        elif op == "phi":
            self._resolve_phi(inst, r, rec, f, rest)
        elif op in ("br", "switch", "ret", "unreachable"):
            self._resolve_branch(inst, r, rec, f, rest)
        elif op in ("call", "callbr"):
            self.resolve_call(inst, r, rec, f)
            for t in rest:
                self.bad_tail(t, op, rec)
        elif op in ("load", "store", "atomicrmw", "cmpxchg", "fence", "getelementptr", "alloca"):
            self._resolve_memory(inst, r, rec, f, rest)
        elif op in CAST_OPS:
            (ts, s) = r.ops[0]
            inst.operands = [self.value(ts, s, rec, f)]
            inst.source_type = ts
            self.check_cast(op, ts, inst.type, r, rec)
        elif op in ("extractelement", "insertelement", "shufflevector", "extractvalue", "insertvalue", "freeze"):
            self._resolve_aggregate(inst, r, rec, f, rest)

    def bad_tail(self, t, op: str, rec: str) -> None:
        """Report a trailing item the opcode does not take."""
        self.err(t[2], f"no further operands of '{op}'", f"'{t[0]}' item", record=rec)

    def _resolve_arith(self, inst: Instruction, r: RawInst, rec: str, f: Function, rest: list) -> None:
        """Binary operators, comparisons, fneg and select: operands of one type."""
        op = inst.opcode
        ops = r.ops
        val = self.value
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
                self.bad_tail(t, op, rec)
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

    def _resolve_phi(self, inst: Instruction, r: RawInst, rec: str, f: Function, rest: list) -> None:
        """A phi's incoming (value, block) pairs."""
        pairs = list(r.extra["incoming"])
        for t in rest:
            if t[0] == "phi":
                pairs.append(t[1])
            else:
                self.bad_tail(t, "phi", rec)
        inc = []
        for (v, bname, bspan) in pairs:
            x = self.value(inst.type, v, rec, f, "phi incoming value")
            b = self.block_ref(None, rec, bname, bspan)
            inc.append((x, b))
        inst.incoming = inc
        inst.operands = [x for x, _ in inc]

    def _resolve_branch(self, inst: Instruction, r: RawInst, rec: str, f: Function, rest: list) -> None:
        """br, switch, ret and unreachable: the condition or value, and the targets."""
        op = inst.opcode
        ops = r.ops
        val = self.value
        if op == "br":
            (t0, v0) = ops[0]
            items = [(t0, v0)] + [t[1] for t in rest if t[0] == "typed"]
            for t in rest:
                if t[0] != "typed":
                    self.bad_tail(t, op, rec)
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
                    self.err(v.span, "a constant case value", f"'{raw_text(v)}'", record=rec)
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

    def _resolve_memory(self, inst: Instruction, r: RawInst, rec: str, f: Function, rest: list) -> None:
        """Loads, stores, atomics, fences, getelementptr and alloca: pointer operands and address spaces."""
        op = inst.opcode
        ops = r.ops
        val = self.value
        if op == "load":
            (tp, p) = ops[0]
            self.need_ptr(tp, p, rec)
            inst.operands = [val(tp, p, rec, f)]
            inst.addrspace = getattr(tp, "addrspace", None)
            for t in rest:
                self.bad_tail(t, op, rec)
        elif op == "store":
            (tv, v), (tp, p) = ops
            self.need_ptr(tp, p, rec)
            inst.operands = [val(tv, v, rec, f), val(tp, p, rec, f)]
            inst.addrspace = getattr(tp, "addrspace", None)
            inst.source_type = tv
            for t in rest:
                self.bad_tail(t, op, rec)
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
                    self.bad_tail(t, op, rec)
            inst.operands = [base] + idx
            inst.type = tp
            inst.addrspace = getattr(tp.scalar, "addrspace", None)
            if not isinstance(tp.scalar, PtrType):
                self.err(p.span, "a pointer base", f"type {tp}", record=rec)
            else:
                for x in idx:
                    if x is not None and isinstance(x.type, VectorType) and not isinstance(tp, VectorType):
                        inst.type = VectorType(x.type.count, tp)
        elif op == "alloca":
            for t in rest:
                if t[0] == "typed":
                    inst.operands.append(val(t[1][0], t[1][1], rec, f))
                elif t[0] == "addrspace":
                    inst.type = PtrType(t[1])
                    inst.addrspace = t[1]
                else:
                    self.bad_tail(t, op, rec)

    def _resolve_aggregate(self, inst: Instruction, r: RawInst, rec: str, f: Function, rest: list) -> None:
        """Vector element and aggregate member operations, and freeze."""
        op = inst.opcode
        ops = r.ops
        val = self.value
        if op == "extractelement":
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
                    self.bad_tail(t, op, rec)
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
                    self.err(callee.span, "a declared function", f"undefined function '@{quote_name(name)}'",
                             record=rec)
            else:
                inst.callee = name
                inst.callee_value = GlobalRef(name, PTR)
                rf = self.functions[name]
                # check the signature against the declaration
                if rf.ret_type != inst.type:
                    self.err(callee.span, f"call of '@{quote_name(name)}' returning {rf.ret_type}",
                             f"return type {inst.type}", record=rec)
                ptys = [p[0] for p in rf.params]
                if len(ptys) != len(args) and not (rf.vararg and len(args) >= len(ptys)):
                    self.err(callee.span, f"{len(ptys)} argument(s) for '@{quote_name(name)}'",
                             f"{len(args)}", record=rec)
                else:
                    for i, (pt, (ty, _, v)) in enumerate(zip(ptys, ex["args"])):
                        if pt != ty:
                            self.err(v.span, f"argument {i + 1} of '@{quote_name(name)}' of type {pt}",
                                     f"type {ty} (type mismatch in call argument)", record=rec)
        elif callee.kind == "local":
            inst.callee_value = self.value(PTR, callee, rec, f, "callee")
        else:
            self.err(callee.span, "a function, a pointer or inline asm as callee",
                     f"'{raw_text(callee)}'", record=rec)
        bundles = []
        for (tag, items, span) in ex["bundles"]:
            bundles.append((tag, [self.value(t, v, rec, f, "operand bundle") for (t, v) in items]))
        inst.bundles = bundles
        if inst.opcode == "callbr":
            targets = [self.label(*ex["default"], rec)]
            for t in ex["indirect"]:
                targets.append(self.label(*t, rec))
            inst.targets = [t for t in targets if t is not None]


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


"""The IR reader's instruction forms: the operands of each opcode, as LLVM 19's parser reads them.

Stage job: for ``patterns/ir/parser_body.py``, one instruction after its opcode -> the
``Instruction``'s fields (flags, result type, operands, per-opcode fields), the type
rules LLVM checks on them reported as semantic errors, the branch targets and phi
blocks recorded for the end of the body, then the trailing ``, align N`` and
``, !name !N`` items. ``OPCODES`` maps each opcode read to its form.
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import (BINOP_FLAGS, CALLING_CONVENTIONS, FAST_MATH, FP_PREDICATES, I1, INT_PREDICATES, LABEL,
                              ORDERINGS, PTR, RMW_OPS, TOKEN, VOID, ArrayType, Constant, FloatType, GlobalRef,
                              InlineAsm, IntType, NamedStructType, PtrType, StructType, Type, VectorType,
                              is_first_class)
from patterns.ir.function import Argument, Function, Instruction
from patterns.ir.opcodes import CASTS, FP_BINOPS, INT_BINOPS
from patterns.ir.parser_base import ptr_type, scalar_of
from patterns.ir.parser_metadata import MD_NODE, MetadataParser
from patterns.ir.parser_values import cast_ok, local_name
from patterns.ir.spelling import quote_name, unquote

F_INT: Final = 0
F_FP: Final = 1
F_FNEG: Final = 2
F_ICMP: Final = 3
F_FCMP: Final = 4
F_SELECT: Final = 5
F_PHI: Final = 6
F_BR: Final = 7
F_SWITCH: Final = 8
F_RET: Final = 9
F_UNREACHABLE: Final = 10
F_CALL: Final = 11
F_CALLBR: Final = 12
F_LOAD: Final = 13
F_STORE: Final = 14
F_RMW: Final = 15
F_CMPXCHG: Final = 16
F_FENCE: Final = 17
F_GEP: Final = 18
F_CAST: Final = 19
F_EXTRACTELT: Final = 20
F_INSERTELT: Final = 21
F_SHUFFLE: Final = 22
F_EXTRACTVAL: Final = 23
F_INSERTVAL: Final = 24
F_ALLOCA: Final = 25
F_FREEZE: Final = 26
F_NOT_MODELED: Final = 27

OPCODES: Final[dict] = {op: F_INT for op in INT_BINOPS}
OPCODES.update({op: F_FP for op in FP_BINOPS})
OPCODES.update({op: F_CAST for op in CASTS})
OPCODES.update({"fneg": F_FNEG, "icmp": F_ICMP, "fcmp": F_FCMP, "select": F_SELECT, "phi": F_PHI, "br": F_BR,
                "switch": F_SWITCH, "ret": F_RET, "unreachable": F_UNREACHABLE, "call": F_CALL, "tail": F_CALL,
                "musttail": F_CALL, "notail": F_CALL, "callbr": F_CALLBR, "load": F_LOAD, "store": F_STORE,
                "atomicrmw": F_RMW, "cmpxchg": F_CMPXCHG, "fence": F_FENCE, "getelementptr": F_GEP,
                "extractelement": F_EXTRACTELT, "insertelement": F_INSERTELT, "shufflevector": F_SHUFFLE,
                "extractvalue": F_EXTRACTVAL, "insertvalue": F_INSERTVAL, "alloca": F_ALLOCA, "freeze": F_FREEZE})
for op_ in ("invoke", "resume", "indirectbr", "landingpad", "va_arg", "cleanuppad", "catchpad", "catchswitch",
            "catchret", "cleanupret", "ptrmask"):
    OPCODES[op_] = F_NOT_MODELED
_FMF: Final = frozenset(FAST_MATH)
_ASM_WORDS: Final = ("sideeffect", "alignstack", "inteldialect", "unwind")


class InstParser(MetadataParser):
    """The per-opcode forms (``opcode_form``) over the values and metadata of ``MetadataParser``."""

    def words(self, allowed: frozenset) -> list:
        out = []
        while self.tok() in allowed:
            out.append(self.take())
        return out

    def flag_words(self, inst: Instruction, allowed: tuple, what: str, once: bool = True) -> None:
        """Flags after the opcode: the known flag words (others are the type, which
        reports them), each checked against the opcode's."""
        ws = []
        at = self.p
        while True:
            t = self.tok()
            if t in _FLAG_WORDS:
                if once and t in ws and t in _ONCE_FLAGS:  # (fast-math and getelementptr flags may repeat)
                    self.syntax("a type", f"'{t}' a second time")
                ws.append(t)
                self.p += 1
            else:
                break
        if ws and not _in_order(ws):
            self.canon = False  # (opt prints flags in its own order)
        for w in ws:
            if w not in allowed:
                opts = ", ".join(allowed)
                self.err(at, f"{what} ({opts})" if allowed else f"no {what}", f"'{w}'")
        if ws:
            inst.flags = frozenset(ws)

    def label_ref(self) -> tuple[str, int]:
        """``label %name`` -> (name, token)."""
        at = self.p
        t = self.tok()
        if t != "label":
            ty = self.parse_type()
            self.err(at, "a label operand ('label %name')", f"type {ty}")
            self.p += 1
            return "", at
        self.p += 1
        at = self.p
        t = self.take()
        if t[0] != "%" or len(t) == 1:
            self.syntax("a block label (%name)", at=at)
        return local_name(t), at

    def opcode_form(self, inst: Instruction, form: int, op_at: int) -> None:
        op = inst.opcode
        ops = inst.operands
        if form == F_INT or form == F_FP:
            if form == F_INT:
                self.flag_words(inst, BINOP_FLAGS[op], f"an '{op}' flag")
            else:
                self.flag_words(inst, FAST_MATH, f"an '{op}' flag")
            tat = self.p
            ty = self.parse_type()
            inst.type = ty
            if form == F_FP:
                if not isinstance(scalar_of(ty), FloatType):
                    self.err(op_at, f"a floating-point type for {op}", f"'{ty}'")
            elif not isinstance(scalar_of(ty), IntType):
                self.err(op_at, f"an integer type for {op}", f"'{ty}'")
            del tat
            self.operand(ops, ty)
            self.expect(",", "',' between the operands")
            self.operand(ops, ty)
        elif form == F_ICMP or form == F_FCMP:
            if form == F_ICMP:
                pred = self.take()
                if pred not in INT_PREDICATES:  # ('samesign' is LLVM 20's: LLVM 19 reads no flag here)
                    self.syntax("an icmp predicate (eq, ne, ugt, uge, ult, ule, sgt, sge, slt, sle)",
                                at=self.p - 1)
            else:
                self.flag_words(inst, FAST_MATH, "a fast-math flag")
                pred = self.take()
                if pred not in FP_PREDICATES:
                    self.err(op_at, "an fcmp predicate (oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, "
                             "uge, ult, ule, une, uno, true, false)", f"'{pred}'")
            inst.predicate = pred
            ty = self.parse_type()
            if form == F_ICMP:
                if not isinstance(scalar_of(ty), (IntType, PtrType)):
                    self.err(op_at, "an integer, pointer or vector-of-integer type for icmp", f"'{ty}'")
            elif not isinstance(scalar_of(ty), FloatType):
                self.err(op_at, f"a floating-point type for {op}", f"'{ty}'")
            inst.type = VectorType(ty.count, I1) if isinstance(ty, VectorType) else I1
            self.operand(ops, ty)
            self.expect(",", "',' between the operands")
            self.operand(ops, ty)
        elif form == F_FNEG:
            self.flag_words(inst, FAST_MATH, "a fast-math flag")
            ty = self.parse_type()
            if not isinstance(scalar_of(ty), FloatType):
                self.err(op_at, "a floating-point type for fneg", f"'{ty}'")
            inst.type = ty
            self.operand(ops, ty)
        elif form == F_SELECT:
            fat = self.p - 1  # the opcode, where opt-19 reports misplaced flags
            self.flag_words(inst, FAST_MATH, "a fast-math flag")
            cat = self.p
            tc = self.parse_type()
            if scalar_of(tc) != I1:
                self.err(self.p, "an i1 (or vector of i1) condition", f"type {tc}")
            del cat
            self.operand(ops, tc)
            self.expect(",")
            ta = self.parse_type()
            self.operand(ops, ta)
            self.expect(",")
            tsel = self.parse_type()
            bat = self.p
            if ta != tsel:
                self.err(bat, f"both select values of type {ta}", f"type {tsel}")
            self.operand(ops, tsel)
            inst.type = ta
            if inst.flags and not fp_math_type(ta):
                self.err(fat, "fast-math flags only on a select of floating-point (vector) type", f"type {ta}")
        elif form == F_PHI:
            fat = self.p - 1  # the opcode, where opt-19 reports misplaced flags
            self.flag_words(inst, FAST_MATH, "a fast-math flag")
            ty = self.parse_type()
            inst.type = ty
            if inst.flags and not fp_math_type(ty):
                self.err(fat, "fast-math flags only on a phi of floating-point (vector) type", f"type {ty}")
            refs = []
            while True:
                self.expect("[", "'[' opening a phi incoming pair")
                self.operand(ops, ty, "phi incoming value")
                self.expect(",", "',' in the phi incoming pair")
                at = self.p
                t = self.take()
                if t[0] != "%" or len(t) == 1:
                    self.syntax("a block label (%name)", at=at)
                refs.append((local_name(t), at))
                self.expect("]", "']' closing the phi incoming pair")
                if self.tok() == "," and self.peek2() == "[":
                    self.p += 1
                    continue
                break
            self.branch_refs.append((inst, refs, "phi"))
        elif form == F_BR:
            if self.tok() == "label":
                self.branch_refs.append((inst, [self.label_ref()], "br"))
            else:
                tat = self.p
                ty = self.parse_type()
                vat = self.p
                if ty != I1:
                    self.err(vat, "an i1 branch condition", f"type {ty}")
                    self.p += 1
                    ops.append(None)
                else:
                    self.operand(ops, ty)
                del tat
                self.expect(",", "',' after the branch condition")
                a = self.label_ref()
                self.expect(",", "',' between the branch targets")
                b = self.label_ref()
                self.branch_refs.append((inst, [a, b], "br"))
        elif form == F_SWITCH:
            ty = self.parse_type()
            vat = self.p
            if not isinstance(ty, IntType):
                self.err(vat, "an integer switch condition", f"type {ty}")
            self.operand(ops, ty)
            self.expect(",")
            refs = [self.label_ref()]
            self.expect("[", "'[' opening the switch cases")
            cases = []
            seen: set = set()
            while self.tok() != "]":
                cat = self.p
                tv = self.parse_type()
                vat = self.p
                cv = self.value(tv)
                if tv != ty:
                    self.err(vat, f"case value of type {ty}", f"type {tv}")
                if isinstance(cv, Constant):
                    if cv.value in seen:
                        self.err(vat, "distinct case values", f"duplicate case '{cv.text}'")
                    seen.add(cv.value)
                elif cv is not None:
                    self.err(vat, "a constant case value", f"'{self.toks[vat]}'")
                del cat
                self.expect(",", "',' in the switch case")
                refs.append(self.label_ref())
                cases.append((cv, None))
            self.p += 1
            inst.cases = cases
            self.branch_refs.append((inst, refs, "switch"))
        elif form == F_RET:
            ty = self.parse_type()
            rt = self.ret_type
            if ty != rt:
                self.err(op_at, f"'ret' of the function's return type {rt}", f"'ret {ty}'")
                if ty is not VOID:
                    if self.tok()[0] == "%":
                        self.p += 1
                    else:
                        self.value(ty)
            elif ty is not VOID:
                self.operand(ops, ty)
        elif form == F_UNREACHABLE:
            pass
        elif form == F_CALL or form == F_CALLBR:
            self.call(inst, form, op_at)
            return  # (the call reads its own trailing items)
        elif form == F_LOAD or form == F_STORE:
            self.memory_words(inst, form)
            if form == F_LOAD:
                lat = self.p
                ty = self.parse_type()
                if not is_sized(ty):
                    self.syntax("a sized type to load", f"type {ty}", lat)
                inst.type = ty
                self.expect(",", "',' after the loaded type")
                self.pointer(inst)
            else:
                lat = self.p
                tv = self.parse_type()
                if not is_sized(tv):
                    self.syntax("a sized type to store", f"type {tv}", lat)
                self.operand(ops, tv)
                inst.source_type = tv
                self.expect(",", "',' after the stored value")
                self.pointer(inst)
            self.ordering(inst, 1 if inst.atomic else 0)
            o = inst.ordering
            if o == "acq_rel" or o == ("release" if form == F_LOAD else "acquire"):
                self.syntax(f"an ordering an atomic {op} may have", f"'{o}'", self.p - 1)
            if inst.atomic:
                self.trailing(inst)
                if inst.align is None:
                    self.syntax(f"an explicit alignment (', align N') on an atomic {op}", "none", op_at)
                return
        elif form == F_RMW:
            self.memory_words(inst, form)
            rat = self.p
            r = self.take()
            if r not in RMW_OPS:
                self.err(rat, "an atomicrmw operation (xchg, add, sub, and, nand, or, xor, max, min, "
                         "umax, umin, fadd, fsub, fmax, fmin)", f"'{r}'")
            inst.rmw_op = r
            self.pointer(inst)
            self.expect(",")
            vat = self.p
            tv = self.parse_type()
            sv = scalar_of(tv) if r[0] == "f" else tv
            if r == "xchg":
                ok = type(tv) is IntType or type(tv) is FloatType or type(tv) is PtrType
            elif r[0] == "f":
                ok = type(sv) is FloatType
            else:
                ok = type(tv) is IntType
            if not ok and r in RMW_OPS:
                kind = ("an integer, floating-point or pointer" if r == "xchg" else
                        "a floating-point" if r[0] == "f" else "an integer")
                self.syntax(f"{kind} operand of atomicrmw {r}", f"type {tv}", vat)
            self.operand(ops, tv)
            inst.type = tv
            self.ordering(inst, 1)
            if inst.ordering == "unordered":
                self.syntax("an atomicrmw ordering other than unordered", "'unordered'", self.p - 1)
        elif form == F_CMPXCHG:
            self.memory_words(inst, form)
            self.pointer(inst)
            self.expect(",")
            cat = self.p
            tc = self.parse_type()
            if type(tc) is not IntType and type(tc) is not PtrType:
                self.syntax("an integer or pointer operand of cmpxchg", f"type {tc}", cat)
            self.operand(ops, tc)
            self.expect(",")
            tn = self.parse_type()
            nat = self.p
            if tc != tn:
                self.err(nat, f"new value of type {tc}", f"type {tn}")
            self.operand(ops, tn)
            inst.type = StructType((tc, I1))
            oat = self.p
            self.ordering(inst, 2)
            if inst.ordering == "unordered":
                self.syntax("a cmpxchg success ordering other than unordered", "'unordered'", oat)
            if inst.failure_ordering in ("unordered", "release", "acq_rel"):
                self.syntax("a cmpxchg failure ordering (monotonic, acquire, seq_cst)",
                            f"'{inst.failure_ordering}'", self.p - 1)
        elif form == F_FENCE:
            self.ordering(inst, 1)
            if inst.ordering in ("unordered", "monotonic"):
                self.syntax("a fence ordering (acquire, release, acq_rel, seq_cst)", f"'{inst.ordering}'", self.p - 1)
        elif form == F_GEP:
            self.gep(inst)
        elif form == F_CAST:
            self.flag_words(inst, _CAST_FLAGS.get(op, ()), f"'{op}' flags")
            ts = self.parse_type()
            self.operand(ops, ts)
            inst.source_type = ts
            self.expect("to", "'to' in the cast")
            td = self.parse_type()
            inst.type = td
            if not cast_ok(op, ts, td):
                self.err(op_at, f"a valid {op} (source and destination types)", f"'{ts}' to '{td}'")
        elif form == F_EXTRACTELT or form == F_INSERTELT or form == F_SHUFFLE:
            tv = self.parse_type()
            vat = self.p
            self.operand(ops, tv)
            self.expect(",")
            if form == F_EXTRACTELT:
                if not isinstance(tv, VectorType):
                    self.err(vat, "a vector operand", f"type {tv}")
                else:
                    inst.type = tv.elem
                ti = self.parse_type()
                self.operand(ops, ti)
            elif form == F_INSERTELT:
                te = self.parse_type()
                eat = self.p
                if not isinstance(tv, VectorType) or te != tv.elem:
                    self.err(eat, "an element of the vector's type", f"type {te}")
                self.operand(ops, te)
                self.expect(",")
                ti = self.parse_type()
                self.operand(ops, ti)
                inst.type = tv
            else:
                tb = self.parse_type()
                self.operand(ops, tb)
                self.expect(",")
                tm = self.parse_type()
                self.operand(ops, tm)
                if not isinstance(tv, VectorType) or not isinstance(tm, VectorType) or tb != tv:
                    self.err(vat, "vector operands", f"type {tv}")
                else:
                    inst.type = VectorType(tm.count, tv.elem)
        elif form == F_EXTRACTVAL or form == F_INSERTVAL:
            ta = self.parse_type()
            self.operand(ops, ta)
            tins: Type | None = None
            bat = 0
            if form == F_INSERTVAL:
                self.expect(",")
                tins = self.parse_type()
                bat = self.p
                self.operand(ops, tins)
            idx = []
            while self.tok() == "," and self.peek2().isdigit():
                self.p += 1
                idx.append(self.uint("an index"))
            inst.indices = tuple(idx)
            cur: Type | None = ta
            for k in idx:
                body = cur.body if isinstance(cur, NamedStructType) else cur
                if isinstance(body, StructType) and 0 <= k < len(body.elems):
                    cur = body.elems[k]
                elif isinstance(body, ArrayType) and 0 <= k < body.count:
                    cur = body.elem
                else:
                    self.err(op_at, f"a valid index into {cur}", f"{k}")
                    cur = None
                    break
            if not idx:
                self.err(op_at, f"at least one index for {op}", "none")
            if form == F_EXTRACTVAL:
                inst.type = cur if cur is not None else VOID
            else:
                if cur is not None and tins != cur:
                    self.err(bat, f"inserted value of type {cur}", f"type {tins}")
                inst.type = ta
        elif form == F_ALLOCA:
            if self.accept("inalloca"):
                inst.flags = frozenset(("inalloca",))
            sat = self.p
            st = self.parse_type()
            if not is_sized(st):
                self.syntax("a sized type for alloca", f"type {st}", sat)
            inst.source_type = st
            inst.type = PTR
            while self.tok() == ",":
                n2 = self.peek2()
                if n2 == "align" or n2[0] == "!":
                    break
                self.p += 1
                if self.tok() == "addrspace":
                    asp = self.addrspace()
                    inst.type = ptr_type(asp)
                    inst.addrspace = asp
                else:
                    tn = self.parse_type()
                    if not isinstance(tn, IntType):
                        self.err(self.p, "an integer element count", f"type {tn}")
                    self.operand(ops, tn)
                    self.canon = False  # (opt omits a count of i32 1)
        elif form == F_FREEZE:
            tv = self.parse_type()
            inst.type = tv
            self.operand(ops, tv)
        else:
            self.syntax("an instruction within the supported subset", f"'{op}' (not modeled)", op_at)
        self.trailing(inst)

    # ----------------------------------------------------------- trailing items
    def trailing(self, inst: Instruction) -> None:
        """``, align N``, ``, addrspace(N)`` (alloca) and ``, !name !N`` after the operands."""
        md = None
        while self.tok() == ",":
            self.p += 1
            t = self.tok()
            if t == "align" and md is None and inst.opcode in _ALIGNED:
                self.p += 1
                inst.align = self.align_value()
            elif t == "addrspace" and inst.opcode == "alloca" and md is None:
                a = self.addrspace()
                inst.type = ptr_type(a)
                inst.addrspace = a
            elif t[0] == "!" and len(t) > 1 and not t[1].isdigit() and t[1] != '"':
                self.p += 1
                if md is None:
                    md = []
                md.append((t, self.metadata_text(MD_NODE)))
            else:
                self.syntax(f"no further operands of '{inst.opcode}'" if md is None else "metadata after ','")
        if md is not None:
            inst.metadata = md

    # ------------------------------------------------------------ memory forms
    def memory_words(self, inst: Instruction, form: int) -> None:
        """``[atomic] [volatile]`` (load, store), ``[weak] [volatile]`` (cmpxchg) or
        ``[volatile]`` (atomicrmw), in this order (as LLVM reads them)."""
        t = self.tok()
        if (t == "atomic" and (form == F_LOAD or form == F_STORE)) or (t == "weak" and form == F_CMPXCHG):
            if t == "atomic":
                inst.atomic = True
            else:
                inst.weak = True
            self.p += 1
            t = self.tok()
        if t == "volatile":
            inst.volatile = True
            self.p += 1

    def pointer(self, inst: Instruction) -> None:
        at = self.p
        tp = self.parse_type()
        if not isinstance(tp, PtrType):
            self.err(self.p, "a pointer operand", f"type {tp}")
        else:
            inst.addrspace = tp.addrspace
        del at
        self.operand(inst.operands, tp)

    def ordering(self, inst: Instruction, need: int) -> None:
        """``[syncscope("s")] ordering [ordering]`` (``need`` orderings)."""
        at = self.p
        if self.tok() == "syncscope":
            self.p += 1
            self.expect("(", "'(' after syncscope")
            s = self.take()
            if s[0] != '"' or len(s) < 2 or s[-1] != '"':
                self.syntax("a sync scope string", at=self.p - 1)
            inst.syncscope = unquote(s)
            self.expect(")", "')' after the sync scope")
        orders = []
        while self.tok() in ORDERINGS:
            orders.append(self.take())
        if len(orders) != need:
            self.err(at, f"{need} memory ordering(s)", f"{len(orders)}")
        if orders:
            inst.ordering = orders[0]
            if len(orders) > 1:
                inst.failure_ordering = orders[1]
        if inst.syncscope is not None and need == 0:
            self.err(at, "no sync scope on a non-atomic access", f"syncscope(\"{inst.syncscope}\")")

    def gep(self, inst: Instruction) -> None:
        self.flag_words(inst, ("inbounds", "nusw", "nuw"), "a getelementptr flag", False)
        sat = self.p
        st = self.parse_type()
        if not is_sized(st):
            self.syntax("a sized source element type", f"type {st}", sat)
        inst.source_type = st
        self.expect(",", "',' after the source element type")
        pat = self.p
        tp = self.parse_type()
        bat = self.p
        self.operand(inst.operands, tp)
        del pat
        inst.type = tp
        sp = scalar_of(tp)
        if isinstance(sp, PtrType):
            inst.addrspace = sp.addrspace
        else:
            self.err(bat, "a pointer base", f"type {tp}")
        while self.tok() == ",":
            n2 = self.peek2()
            if n2 == "align" or n2[0] == "!":
                break
            self.p += 1
            iat = self.p
            ti = self.parse_type()
            if not isinstance(scalar_of(ti), IntType):
                self.err(iat, "an integer index", f"type {ti}")
            self.operand(inst.operands, ti)
            if isinstance(ti, VectorType) and not isinstance(inst.type, VectorType):
                inst.type = VectorType(ti.count, tp)

    # -------------------------------------------------------------------- calls
    def call(self, inst: Instruction, form: int, op_at: int) -> None:
        op = inst.opcode
        if op != "call" and op != "callbr":
            inst.tail = op
            inst.opcode = "call"
            self.expect("call", f"'call' after '{op}'")
        fmf = []
        fmf_at = self.p
        while self.tok() in _FMF:
            fmf.append(self.take())
        inst.flags = frozenset(fmf)
        t = self.tok()
        if t in CALLING_CONVENTIONS:
            inst.cc = t
            self.p += 1
        elif t == "cc":
            self.p += 1
            inst.cc = f"cc {self.uint('a calling convention number')}"
        rat = self.p
        ret_attrs = self.attributes("ret")
        inst.ret_attrs = tuple(ret_attrs)
        if self.tok() == "addrspace":
            self.addrspace()
        rt = self.parse_type()
        if ret_attrs:
            self.check_attr_types(ret_attrs, rt, rat)
        if fmf and not fp_math_type(rt):
            self.err(fmf_at, "fast-math flags only on a call of floating-point (vector) type", f"type {rt}")
        inst.type = rt
        fnp = None
        if self.tok() == "(":  # an explicit function type
            self.p += 1
            params = []
            vararg = False
            if self.tok() != ")":
                while True:
                    if self.accept("..."):
                        vararg = True
                        break
                    params.append(self.parse_type())
                    if not self.accept(","):
                        break
            self.expect(")", "')' closing the function type")
            fnp = (tuple(params), vararg)
            inst.fn_type = (rt, fnp[0], fnp[1])
        cat = self.p
        c = self.tok()
        callee_name = None
        if c == "asm":
            self.p += 1
            ws = []
            for w in _ASM_WORDS:  # each at most once, in this order
                if self.tok() == w:
                    ws.append(w)
                    self.p += 1
            asm = self.take()
            if asm[0] != '"' or len(asm) < 2 or asm[-1] != '"':
                self.syntax("the asm string", at=self.p - 1)
            self.expect(",", "',' after the asm string")
            cons = self.take()
            if cons[0] != '"' or len(cons) < 2 or cons[-1] != '"':
                self.syntax("the asm constraint string", at=self.p - 1)
            ia = InlineAsm(asm[1:-1], cons[1:-1], "sideeffect" in ws, "alignstack" in ws, "inteldialect" in ws,
                           "unwind" in ws)
            inst.inline_asm = ia
            inst.callee_value = ia
            if rt is not VOID and not any(c.startswith("=") for c in ia.constraints.split(",")):
                self.err(cat, "inline asm that returns void (its constraints have no output)", f"type {rt}")
        elif c[0] == "@" and len(c) > 1:
            self.p += 1
            callee_name = local_name(c)
        elif c[0] == "%" and len(c) > 1:
            lst: list = []
            self.operand(lst, PTR, "callee")
            inst.callee_value = lst[0]
            if lst[0] is None:
                self.callee_lists.append((inst, lst))
        else:
            self.syntax("a function, a pointer or inline asm as callee")
        self.expect("(", "'(' opening the call arguments")
        ops = inst.operands
        arg_attrs = []
        arg_types = []
        arg_at = []
        if self.tok() != ")":
            while True:
                ty = self.parse_type()
                pat = self.p
                attrs = self.attributes("param") if self.toks[pat][0] != "%" else []
                if attrs:
                    self.check_attr_types(attrs, ty, pat)
                arg_at.append(self.p)
                self.operand(ops, ty, "call argument")
                arg_types.append(ty)
                arg_attrs.append(tuple(attrs))
                if not self.accept(","):
                    break
        self.expect(")", "')' closing the call arguments")
        inst.arg_attrs = arg_attrs
        items = self.attributes("fn")
        inst.attr_items = tuple(items)
        self.attr_users.append(inst)
        if self.tok() == "[":
            self.p += 1
            bundles = []
            while True:
                tag = self.take()
                if tag[0] != '"' or len(tag) < 2 or tag[-1] != '"':
                    self.syntax("an operand bundle tag string", at=self.p - 1)
                self.expect("(", "'(' after the operand bundle tag")
                vals: list = []
                if self.tok() != ")":
                    while True:
                        bt = self.parse_type()
                        self.operand(vals, bt, "operand bundle")
                        if not self.accept(","):
                            break
                self.expect(")", "')' closing the operand bundle")
                bundles.append((tag[1:-1], vals))
                if not self.accept(","):
                    break
            self.expect("]", "']' closing the operand bundles")
            inst.bundles = bundles
        if form == F_CALLBR:
            self.expect("to", "'to' after the callbr arguments")
            refs = [self.label_ref()]
            self.expect("[", "'[' opening the indirect destinations")
            if self.tok() != "]":
                while True:
                    refs.append(self.label_ref())
                    if not self.accept(","):
                        break
            self.expect("]", "']' closing the indirect destinations")
            self.branch_refs.append((inst, refs, "callbr"))
        if callee_name is not None:
            self.bind_callee(inst, callee_name, cat, arg_types, arg_at)
        self.trailing(inst)

    def implicit_declaration(self, name: str, ret: Type, arg_types: list, at: int) -> Function:
        """The declaration LLVM makes for an intrinsic called without one (at the end)."""
        sp = self.span(at)
        f = Function(name, None, ret, [], frozenset(), True, [], sp, self.mod, (), (), False)
        f.args = [Argument(str(i), t, frozenset(), i, f, sp, "", ()) for i, t in enumerate(arg_types)]
        self.functions[name] = f
        self.implicit.append(f)
        return f

    def bind_callee(self, inst: Instruction, name: str, at: int, arg_types: list, arg_at: list) -> None:
        f = self.functions.get(name)
        if f is None and name.startswith("llvm.") and name not in self.globals:
            f = self.implicit_declaration(name, inst.type, arg_types, at)
        if f is None:
            g = self.globals.get(name)
            if g is not None:
                inst.callee_value = GlobalRef(name, PtrType(g.addrspace))
            else:
                self.err(at, "a declared function", f"undefined function '@{quote_name(name)}'")
            return
        inst.callee = name
        inst.callee_value = GlobalRef(name, PTR)
        if f in self.implicit:
            return  # an undeclared intrinsic called with another signature: LLVM remangles its name
        if f.ret_type != inst.type:
            self.err(at, f"call of '@{quote_name(name)}' returning {f.ret_type}", f"return type {inst.type}")
        ptys = [a.type for a in f.args]
        n = len(arg_types)
        if len(ptys) != n and not (f.vararg and n >= len(ptys)):
            self.err(at, f"{len(ptys)} argument(s) for '@{quote_name(name)}'", f"{n}")
            return
        for i, (pt, ty) in enumerate(zip(ptys, arg_types)):
            if pt != ty:
                self.err(arg_at[i], f"argument {i + 1} of '@{quote_name(name)}' of type {pt}",
                         f"type {ty} (type mismatch in call argument)")


_FLAG_WORDS: Final = frozenset({"nuw", "nsw", "exact", "disjoint", "nneg", "inbounds", "nusw"}) | _FMF
_ONCE_FLAGS: Final = frozenset({"nuw", "nsw", "exact", "disjoint", "nneg"})
_CAST_FLAGS: Final = {"trunc": ("nuw", "nsw"), "zext": ("nneg",), "uitofp": ("nneg",)}
_ALIGNED: Final = frozenset({"load", "store", "atomicrmw", "cmpxchg", "alloca"})

__all__ = ["InstParser", "OPCODES", "Type", "FloatType", "LABEL", "is_first_class", "unquote"]


_FLAG_RANK: Final = {w: i for i, w in enumerate(("fast", "reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn",
                                                 "inbounds", "nuw", "nsw", "exact", "disjoint", "nneg"))}


def _in_order(ws: list) -> bool:
    """Whether flags written ``ws`` are printed as written: each once, in opt's order, not
    all seven fast-math flags (printed 'fast'), not 'fast' with others, not 'nusw' (a
    getelementptr's 'nusw' is printed after 'inbounds', or dropped with it)."""
    last = -1
    for w in ws:
        r = _FLAG_RANK.get(w, -1)
        if r <= last:
            return False
        last = r
    if "fast" in ws:
        return len(ws) == 1
    return len(ws) < 7


def is_sized(ty: Type, seen: frozenset = frozenset()) -> bool:
    """Whether values of ``ty`` have a size in memory (LLVM's ``Type::isSized``): not void,
    label, metadata or token, and no opaque struct inside."""
    t = type(ty)
    if t is IntType or t is FloatType or t is PtrType or t is VectorType:
        return True
    if t is ArrayType:
        return is_sized(ty.elem, seen)  # type: ignore[attr-defined]
    if t is StructType:
        return all(is_sized(e, seen) for e in ty.elems)  # type: ignore[attr-defined]
    if t is NamedStructType:
        body = ty.body  # type: ignore[attr-defined]
        name = ty.name  # type: ignore[attr-defined]
        return body is not None and name not in seen and is_sized(body, seen | {name})
    return False


def fp_math_type(ty: Type) -> bool:
    """A type LLVM 19 lets a phi, select or call carry fast-math flags on: floating point,
    or a vector or (nested) array of it."""
    while type(ty) is ArrayType:
        ty = ty.elem  # type: ignore[attr-defined]
    return type(scalar_of(ty)) is FloatType

"""The IR reader's instruction forms: the operands of each opcode, as LLVM 19's parser reads them.

Stage job: for ``patterns/ir/parser_body.py``, one instruction after its opcode -> the
``Instruction``'s fields (flags, result type, operands, per-opcode fields), the type
rules LLVM checks on them reported as semantic errors, the branch targets and phi
blocks recorded for the end of the body, then the trailing ``, align N`` and
``, !name !N`` items (calls, labels and those items: ``patterns/ir/parser_calls.py``).
``OPCODES`` maps each opcode read to its form.
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import (BINOP_FLAGS, FAST_MATH, FP_PREDICATES, I1, INT_PREDICATES, LABEL, ORDERINGS, PTR,
                              RMW_OPS, VOID, ArrayType, Constant, FloatType, IntType, NamedStructType, PtrType,
                              StructType, Type, VectorType, is_first_class)
from patterns.ir.function import Instruction
from patterns.ir.opcodes import CASTS, FP_BINOPS, INT_BINOPS
from patterns.ir.parser_base import ptr_type, scalar_of
from patterns.ir.parser_calls import CallParser, fp_math_type
from patterns.ir.parser_values import cast_ok, local_name
from patterns.ir.spelling import unquote

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


class InstParser(CallParser):
    """The per-opcode forms (``opcode_form``) over the calls, values and metadata of ``CallParser``."""

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
            self.call(inst, form == F_CALLBR, op_at)
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

_FLAG_WORDS: Final = frozenset({"nuw", "nsw", "exact", "disjoint", "nneg", "inbounds", "nusw"}) | _FMF
_ONCE_FLAGS: Final = frozenset({"nuw", "nsw", "exact", "disjoint", "nneg"})
_CAST_FLAGS: Final = {"trunc": ("nuw", "nsw"), "zext": ("nneg",), "uitofp": ("nneg",)}

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

"""The exact IR path: raw records -> the linked ``Module``, every problem of the file reported.

Stage job: the raw records (``RawFunc``/``RawInst``/``RawVal`` of ``patterns/ir/exact_raw.py``,
from the lark grammar, ``patterns/ir/exact_lark.py``, or the line reader
``patterns/ir/reader_lines.py``) -> ``Resolver`` -> the ``Module``, or every problem of the
file as one ``file:line:col`` error each (``ErrorList``). This is the path that reports
errors and handles the whole supported subset of LLVM IR; ``parse_module``
(``patterns/ir/reader.py``) uses it whenever the direct builder
(``patterns/ir/reader_direct.py``) gives up. ``Resolver`` is the top layer: module items,
functions, blocks and the fields an instruction has before its operands (opcode words,
flags, result type and name, numbered as LLVM numbers unnamed values); the operands
come from ``patterns/ir/exact_operands.py``, the values from ``patterns/ir/exact_values.py``.
"""

from __future__ import annotations

from tdgen.errors import ParseError, Span

from patterns.ir.core import (BINOP_FLAGS, CALLING_CONVENTIONS, CAST_FLAGS, CAST_OPS, FAST_MATH, FP_PREDICATES,
                              GEP_FLAGS, I1, INT_PREDICATES, LINKAGE_WORDS, ORDERINGS, PTR, RMW_OPS, VOID, GlobalVar,
                              Module, StructType, Type, Value, VectorType, VoidType, is_first_class)
from patterns.ir.datalayout import LayoutError, error_span, layout_of_text
from patterns.ir.exact_operands import OperandResolver
from patterns.ir.exact_raw import RawFunc, RawInst
from patterns.ir.function import Argument, BasicBlock, Function, Instruction
from patterns.ir.spelling import quote_name, unquote


class Resolver(OperandResolver):
    """Raw records -> linked AST, collecting every error of the file."""

    def run(self, records: list) -> Module:
        mod = Module([], self.path)
        raw_funcs = []
        layout = None
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
            elif r[0] == "target" and r[1] == "datalayout":
                layout = r  # the last one counts, as in LLVM
        mod.globals = self.globals
        if layout is not None:
            mod.data_layout = self.data_layout(layout[2], layout[3])
        self.attr_groups = mod.attr_groups
        for rf in raw_funcs:
            f = self.function(rf, mod)
            if f is not None:
                mod.functions.append(f)
        for rf in self.implicit:
            mod.functions.append(self.function(rf, mod))
        self.diag.check()
        return mod

    def data_layout(self, text: str, span: Span):
        """The ``DataLayout`` of a ``target datalayout`` string (``span``: its opening
        quote), or None after reporting why it is malformed (at the offending component;
        at the quote when the string has escapes, whose columns would not match)."""
        escaped = "\\" in text
        try:
            return layout_of_text(unquote('"' + text + '"') if escaped else text)
        except LayoutError as e:
            where = span if escaped else error_span(e, span)
            self.diag.add(ParseError(where, e.message))
            return None

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
                    self.err(span, f"a new block label", f"redefinition of label '%{quote_name(name)}'",
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
                self.err(b.span, "a new name", f"redefinition of '%{quote_name(b.name)}'", record=rec)
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
                         "returns void)", f"'%{quote_name(inst.name)}'", record=rec)
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


def _assign_slots(f: Function) -> None:
    """The names opt prints: named values keep their names, unnamed ones are renumbered
    0, 1, ... over arguments, then blocks and instructions in order."""
    n = 0
    for a in f.args:
        if a.name.isdigit():
            a.slot = str(n)
            n += 1
        else:
            a.slot = quote_name(a.name)
    for b in f.blocks:
        if b.name.isdigit():
            b.slot = str(n)
            n += 1
        else:
            b.slot = quote_name(b.name)
        for i in b.instructions:
            if i.name is None:
                continue
            if i.name.isdigit():
                i.slot = str(n)
                n += 1
            else:
                i.slot = quote_name(i.name)

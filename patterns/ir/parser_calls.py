"""The IR reader's call layer: calls and callbr, branch labels and an instruction's trailing items.

Stage job: for ``patterns/ir/parser_insts.py`` (which reads every other opcode's
operands), a ``call``/``tail call``/``callbr`` after its opcode -> the ``Instruction``'s
call fields (fast-math flags, calling convention, return and argument attributes, an
explicit function type, the callee: a function bound to its declaration and checked
against its signature, a pointer, or inline asm; function attributes, operand
bundles, callbr's destinations), an undeclared intrinsic's implicit declaration (as
LLVM makes one); and, shared with the other forms, ``label %name`` operands and the
trailing ``, align N`` / ``, addrspace(N)`` / ``, !name !N`` items.
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import (CALLING_CONVENTIONS, FAST_MATH, PTR, VOID, ArrayType, FloatType, GlobalRef, InlineAsm,
                              PtrType, Type)
from patterns.ir.function import Argument, Function, Instruction
from patterns.ir.parser_base import ptr_type, scalar_of
from patterns.ir.parser_metadata import MD_NODE, MetadataParser
from patterns.ir.parser_values import local_name
from patterns.ir.spelling import quote_name

_FMF: Final = frozenset(FAST_MATH)
_ASM_WORDS: Final = ("sideeffect", "alignstack", "inteldialect", "unwind")
_ALIGNED: Final = frozenset({"load", "store", "atomicrmw", "cmpxchg", "alloca"})


class CallParser(MetadataParser):
    """Calls, labels and trailing items over the values and metadata of ``MetadataParser``."""

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

    # -------------------------------------------------------------------- calls
    def call(self, inst: Instruction, callbr: bool, op_at: int) -> None:
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
        if callbr:
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


def fp_math_type(ty: Type) -> bool:
    """A type LLVM 19 lets a phi, select or call carry fast-math flags on: floating point,
    or a vector or (nested) array of it."""
    while type(ty) is ArrayType:
        ty = ty.elem  # type: ignore[attr-defined]
    return type(scalar_of(ty)) is FloatType

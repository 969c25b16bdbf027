"""Print IR instructions the way ``opt-19 -S`` (and ``print<uniformity>``) prints them.

Stage job: AST ``Instruction`` -> one line (``switch``/``callbr`` span several lines,
as in opt) in opt's canonical form: unnamed values renumbered by slot, constants
canonical (``true``, ``-1``, ``1.000000e+00``, ``0xH3C00``), ``align`` always present
(when the source omits it, what LLVM's parser gives from the module's data layout,
``layout_of``: the ABI alignment of a load's or store's type, the preferred alignment
of an alloca's, the store size of an atomicrmw's or cmpxchg's), flags in opt's order,
call-site attribute groups renumbered as opt numbers them (per printed function).

Not reproduced (see tests/test_ir.py for the comparison with opt): metadata
node renumbering (``!N`` is printed as written), attribute groups of intrinsic
declarations (opt replaces them with the intrinsic's own attributes, which changes the
numbering of later call-site groups), and ``bfloat`` rounding of decimal literals.

The instructions, blocks and functions printed here are those of
``patterns/ir/function.py``, read by their fields only: that module's
``Instruction.text`` calls this one, so this one does not import it back.
"""

from __future__ import annotations

from typing import Any, Final

from patterns.ir.core import FAST_MATH, Constant, IntType, Module, Type, Value
from patterns.ir.datalayout import DEFAULT_LAYOUT, DataLayout
from patterns.ir.opcodes import INT_BINOPS
from patterns.ir.spelling import quote_name

def layout_of(inst: Any) -> DataLayout:
    """The data layout ``inst`` is printed with: its module's (``Module.data_layout``),
    else LLVM's default (a module read without a target)."""
    f = inst.function
    m = f.module if f is not None else None
    dl = m.data_layout if m is not None else None
    return dl if dl is not None else DEFAULT_LAYOUT


def _op(v: Value | None) -> str:
    if v is None:
        return "<invalid>"
    return _type_text(v.type) + " " + v.ref


def _fmf(flags) -> str:
    fl = [f for f in FAST_MATH if f in flags]
    if "fast" in flags or {"reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn"} <= set(flags):
        return "fast "
    order = ("reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn")
    fl = [f for f in order if f in flags]
    return "".join(f + " " for f in fl)


_BINOP_FLAG_ORDER: Final = ("nuw", "nsw", "exact", "disjoint")


def _mem_tail(inst: Any) -> str:
    s = ""
    if inst.syncscope is not None:
        s += f' syncscope("{inst.syncscope}")'
    if inst.ordering is not None:
        s += f" {inst.ordering}"
    if inst.failure_ordering is not None:
        s += f" {inst.failure_ordering}"
    return s


def _md(inst: Any) -> str:
    md = inst._metadata  # not ``inst.metadata``: that would allocate a list
    if not md:
        return ""
    return "".join(f", {name} {body}" for name, body in md)


def _attr_slot(inst: Any) -> str:
    f = inst.function
    m = f.module if f is not None else None
    if not inst.attrs and not inst.attr_items:
        return ""
    key = canonical_attrs(inst.attrs)
    if not key:
        return ""
    if m is None:
        return ""
    slots = _function_attr_slots(m, f)
    n = slots.get(key)
    return f" #{n}" if n is not None else ""


_TYPE_TEXT: Final[dict] = {}


def _type_text(t: Type) -> str:
    """``str(t)``, cached by object (types are immutable; the entry keeps ``t`` alive so
    its id is not reused while cached)."""
    hit = _TYPE_TEXT.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    s = str(t)
    if len(_TYPE_TEXT) > 4096:
        _TYPE_TEXT.clear()
    _TYPE_TEXT[id(t)] = (t, s)
    return s


_INT_BINOPS: Final = frozenset(INT_BINOPS)


def instruction_text(inst: Any) -> str:
    op = inst.opcode
    name = inst.name
    if name is not None:
        slot = inst.slot
        pre = "%" + (slot if slot is not None else quote_name(name)) + " = "
    else:
        pre = ""
    o = inst.operands
    if op in _INT_BINOPS:
        fl = "".join(f + " " for f in _BINOP_FLAG_ORDER if f in inst.flags) if inst.flags else ""
        a, b = o
        body = f"{op} {fl}{_type_text(inst.type)} {a.ref if a else '?'}, {b.ref if b else '?'}"
    elif op in ("fadd", "fsub", "fmul", "fdiv", "frem"):
        body = f"{op} {_fmf(inst.flags)}{inst.type} {o[0].ref}, {o[1].ref}"
    elif op == "fneg":
        body = f"fneg {_fmf(inst.flags)}{_op(o[0])}"
    elif op == "icmp":
        ss = "samesign " if "samesign" in inst.flags else ""
        a, b = o
        body = f"icmp {ss}{inst.predicate} {_type_text(a.type)} {a.ref}, {b.ref}"
    elif op == "fcmp":
        body = f"fcmp {_fmf(inst.flags)}{inst.predicate} {_op(o[0])}, {o[1].ref}"
    elif op == "select":
        fmf = _fmf(inst.flags) if inst.flags else ""
        body = f"select {fmf}{_op(o[0])}, {_op(o[1])}, {_op(o[2])}"
    elif op == "phi":
        pairs = ", ".join(f"[ {v.ref if v else '?'}, {b.ref if b else '?'} ]" for v, b in inst.incoming)
        fmf = _fmf(inst.flags) if inst.flags else ""
        body = f"phi {fmf}{_type_text(inst.type)} {pairs}"
    elif op == "br":
        if o:
            t, e = inst.targets
            body = f"br {_op(o[0])}, label {t.ref}, label {e.ref}"
        else:
            body = f"br label {inst.targets[0].ref}"
    elif op == "switch":
        cases = "".join(f"\n    {_op(c)}, label {b.ref}" for c, b in inst.cases)
        body = f"switch {_op(o[0])}, label {inst.targets[0].ref} [{cases}\n  ]"
    elif op == "ret":
        body = f"ret {_op(o[0])}" if o else "ret void"
    elif op == "unreachable":
        body = "unreachable"
    elif op in ("call", "callbr"):
        body = _call_text(inst)
    elif op == "load":
        w = ("atomic " if inst.atomic else "") + ("volatile " if inst.volatile else "")
        align = inst.align if inst.align is not None else layout_of(inst).abi_align(inst.type)
        body = f"load {w}{inst.type}, {_op(o[0])}{_mem_tail(inst)}, align {align}"
    elif op == "store":
        w = ("atomic " if inst.atomic else "") + ("volatile " if inst.volatile else "")
        align = inst.align if inst.align is not None else layout_of(inst).abi_align(o[0].type)
        body = f"store {w}{_op(o[0])}, {_op(o[1])}{_mem_tail(inst)}, align {align}"
    elif op == "atomicrmw":
        w = "volatile " if inst.volatile else ""
        align = inst.align if inst.align is not None else layout_of(inst).store_size(inst.type)
        body = f"atomicrmw {w}{inst.rmw_op} {_op(o[0])}, {_op(o[1])}{_mem_tail(inst)}, align {align}"
    elif op == "cmpxchg":
        w = ("weak " if inst.weak else "") + ("volatile " if inst.volatile else "")
        align = inst.align if inst.align is not None else layout_of(inst).store_size(o[1].type)
        body = f"cmpxchg {w}{_op(o[0])}, {_op(o[1])}, {_op(o[2])}{_mem_tail(inst)}, align {align}"
    elif op == "fence":
        body = "fence" + _mem_tail(inst)
    elif op == "getelementptr":
        fl = "".join(f + " " for f in ("inbounds", "nusw", "nuw") if f in inst.flags)
        if "inbounds" in inst.flags:
            fl = fl.replace("nusw ", "")
        idx = "".join(f", {_op(x)}" for x in o[1:])
        body = f"getelementptr {fl}{inst.source_type}, {_op(o[0])}{idx}"
    elif op in ("trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
                "ptrtoint", "inttoptr", "bitcast", "addrspacecast"):
        fl = "".join(f + " " for f in ("nuw", "nsw", "nneg") if f in inst.flags)
        body = f"{op} {fl}{_op(o[0])} to {inst.type}"
    elif op == "extractelement":
        body = f"extractelement {_op(o[0])}, {_op(o[1])}"
    elif op == "insertelement":
        body = f"insertelement {_op(o[0])}, {_op(o[1])}, {_op(o[2])}"
    elif op == "shufflevector":
        body = f"shufflevector {_op(o[0])}, {_op(o[1])}, {_op(o[2])}"
    elif op == "extractvalue":
        body = f"extractvalue {_op(o[0])}" + "".join(f", {i}" for i in inst.indices)
    elif op == "insertvalue":
        body = f"insertvalue {_op(o[0])}, {_op(o[1])}" + "".join(f", {i}" for i in inst.indices)
    elif op == "alloca":
        size = ""
        if o and not (isinstance(o[0], Constant) and o[0].type == IntType(32) and o[0].value == 1):
            size = f", {_op(o[0])}"
        align = inst.align if inst.align is not None else layout_of(inst).pref_align(inst.source_type)
        aspace = f", addrspace({inst.addrspace})" if inst.addrspace else ""
        ina = "inalloca " if "inalloca" in inst.flags else ""
        body = f"alloca {ina}{inst.source_type}{size}, align {align}{aspace}"
    elif op == "freeze":
        body = f"freeze {_op(o[0])}"
    else:  # pragma: no cover - every parsed opcode is handled above
        body = op
    if not inst._metadata:  # no metadata (and no list allocated for it)
        return pre + body
    return pre + body + _md(inst)


def _call_text(inst: Any) -> str:
    parts = []
    if inst.tail:
        parts.append(inst.tail + " ")
    parts.append(inst.opcode + " ")
    parts.append(_fmf(inst.flags))
    if inst.cc is not None and inst.cc != "ccc":
        parts.append(inst.cc + " ")
    for a in inst.ret_attrs:
        parts.append(a + " ")
    if inst.fn_type is not None and inst.fn_type[2]:
        ret, params, _ = inst.fn_type
        plist = ", ".join(map(str, params)) + (", ..." if params else "...")
        parts.append(f"{ret} ({plist}) ")
    else:
        parts.append(f"{inst.type} ")
    cv = inst.callee_value
    parts.append(cv.ref if cv is not None else "@?")
    args = []
    for v, attrs in zip(inst.operands, inst.arg_attrs):
        a = " ".join(str(x) for x in attrs)
        args.append(f"{v.type} {a + ' ' if a else ''}{v.ref}" if v is not None else "?")
    parts.append("(" + ", ".join(args) + ")")
    parts.append(_attr_slot(inst))
    if inst.bundles:
        bs = ", ".join(f'"{tag}"(' + ", ".join(_op(v) for v in vals) + ")" for tag, vals in inst.bundles)
        parts.append(f" [ {bs} ]")
    if inst.opcode == "callbr":
        t = inst.targets
        ind = ", ".join(f"label {b.ref}" for b in t[1:])
        parts.append(f"\n          to label {t[0].ref} [{ind}]")
    return "".join(parts)


# ---------------------------------------------------------------- attribute groups

# memory-effect attributes LLVM 19 upgrades to memory(...)
_MEM_UPGRADE: Final = {"readnone": "none", "readonly": "read", "writeonly": "write"}


def canonical_attrs(attrs) -> tuple:
    """A function/call-site attribute set in opt's canonical order (upgraded)."""
    attrs = set(attrs)
    mem = None
    loc = None
    for w, m in _MEM_UPGRADE.items():
        if w in attrs:
            attrs.discard(w)
            mem = m
    for w, l in (("argmemonly", "argmem"), ("inaccessiblememonly", "inaccessiblemem"),
                 ("inaccessiblemem_or_argmemonly", "argmem+inaccessiblemem")):
        if w in attrs:
            attrs.discard(w)
            loc = l
    if mem is not None or loc is not None:
        m = mem or "readwrite"
        if loc is None:
            attrs.add(f"memory({m})")
        elif loc == "argmem+inaccessiblemem":
            attrs.add(f"memory(argmem: {m}, inaccessiblemem: {m})")
        else:
            attrs.add(f"memory({loc}: {m})")
    enum = sorted(a for a in attrs if "(" not in a and not a.startswith('"') and " " not in a)
    intlike = sorted(a for a in attrs if ("(" in a or " " in a) and not a.startswith('"'))
    strings = sorted((a for a in attrs if a.startswith('"')), key=lambda a: a.split("=")[0])
    return tuple(enum + intlike + strings)


_SLOT_CACHE: Final[dict] = {}


def _function_attr_slots(m: Module, fn: Any) -> dict:
    """Attribute-group numbers as opt assigns them when it prints an instruction of
    ``fn``: LLVM's slot tracker numbers the function-attribute sets of every function of
    the module, in module order, then the call-site function-attribute sets of the
    instructions of ``fn`` alone (the function being printed), in instruction order; a
    set already numbered keeps its number."""
    hit = _SLOT_CACHE.get(id(m))
    if hit is None or hit[0] is not m:
        base: dict = {}
        for f in m.functions:
            key = canonical_attrs(f.attrs)
            if key and key not in base:
                base[key] = len(base)
        hit = (m, base, {})
        _SLOT_CACHE.clear()  # (one module at a time: a long run does not keep every module alive)
        _SLOT_CACHE[id(m)] = hit
    per_fn: dict = hit[2]
    got = per_fn.get(id(fn))
    if got is not None and got[0] is fn:
        return got[1]
    slots = dict(hit[1])
    for b in fn.blocks:
        for i in b.instructions:
            if i.opcode in ("call", "callbr", "invoke") and i.attrs:
                key = canonical_attrs(i.attrs)
                if key and key not in slots:
                    slots[key] = len(slots)
    per_fn[id(fn)] = (fn, slots)
    return slots


def function_text(f) -> str:
    """The body of a function as opt prints it (instructions and labels only)."""
    lines = []
    for b in f.blocks:
        if b is not f.blocks[0] or not b.name.isdigit():
            lines.append(f"{b.slot}:")
        for i in b.instructions:
            lines.append("  " + i.text)
    return "\n".join(lines)


__all__ = ["instruction_text", "function_text", "layout_of", "canonical_attrs"]

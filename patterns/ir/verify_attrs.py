"""The attribute, calling-convention and metadata-placement rules of LLVM 19's verifier,
for ``patterns.ir.verify``.

Checked (each with its rule in our ``expected X, found Y`` form):

- a parameter attribute fits its parameter's type (LLVM's
  ``AttributeFuncs::typeIncompatible``): ``zeroext`` and ``signext`` need a scalar
  integer, ``range(...)`` an integer or integer vector of its own width;
  ``nofpclass(...)`` a floating-point type or vectors and arrays of it; ``align`` a
  pointer or pointer vector; the other pointer attributes (``nonnull``, ``noalias``,
  ``nocapture``, ``readonly``, ``readnone``, ``dereferenceable(_or_null)``,
  ``byval``/``byref``/``sret``/``inalloca``/``preallocated``/``elementtype``,
  ``writable``, ``dead_on_unwind``, ``initializes``, ``nest``, ``swifterror``) a scalar
  pointer;
- ``optnone`` comes with ``noinline``; ``returned`` is on a parameter of the return type
  (vectors of any shape are let through); ``immarg`` only on intrinsics' parameters, and
  calls pass a literal (integer or floating-point constant) for it;
- atomic loads and stores, atomicrmw and cmpxchg of integer or floating-point type
  access a power-of-two number of bytes;
- calling conventions: ``byref`` pointers into the stack address space (the data
  layout's alloca address space; 0 in a module with neither layout nor triple) are refused by the
  conventions that refuse ``byval``; ``sret`` is refused by the kernel and shader conventions
  (``amdgpu_kernel``, ``spir_kernel``, ``amdgpu_ps/vs/gs/hs/cs``, ``amdgpu_cs_chain*``),
  ``byval``/``inalloca``/``preallocated`` by the same without ``spir_kernel``, varargs by
  those and ``fastcc`` (LLVM 19's table, measured against opt-19);
- ``amdgpu_kernel``, ``spir_kernel``, ``amdgpu_cs_chain`` and
  ``amdgpu_cs_chain_preserve`` functions return ``void`` (LLVM's generic verifier holds
  this table of calling conventions; it is IR syntax, not target behaviour);
- instruction metadata: ``!range`` only on loads, calls and invokes of integer (or
  integer-vector) type, its bounds of that (scalar) type; ``!nonnull`` and
  ``!align`` only on pointer-typed loads; ``!dereferenceable(_or_null)`` only on
  pointer-typed loads and inttoptr;
- ``immarg`` parameters of the intrinsics LLVM 19 knows are those of its tables
  (``patterns/ir/intrinsic_immargs.py``), whatever the declaration says (LLVM replaces a
  known intrinsic's declared attributes by its table's); the target's intrinsics are
  known when the reader is given the target's table (``TargetHooks.intrinsic_immargs``);
  any other callee's are those its declaration marks.

Where this stops: the attributes of return values and of call-site arguments, and the
contents of metadata nodes (``!range``'s pairs beyond their type, ``!align``'s power of
two) are not checked; attributes not listed above are taken as compatible with every type.
"""

from __future__ import annotations

from typing import Final

from tdgen.errors import Diagnostics, ParseError, Span, expected

from patterns.ir.core import ArrayType, FloatType, IntType, PtrType, VectorType
from patterns.ir.intrinsic_immargs import intrinsic_immargs as table_immargs

_INT_ONLY: Final = frozenset({"zeroext", "signext"})
_PTR_ONLY: Final = frozenset({"nonnull", "noalias", "nocapture", "readonly", "readnone", "writable",
                              "dead_on_unwind", "swifterror", "nest"})
_PTR_ONLY_PREFIX: Final = ("dereferenceable(", "dereferenceable_or_null(", "byval(", "byref(", "sret(",
                           "inalloca(", "preallocated(", "elementtype(", "initializes(")
_VOID_RETURN_CC: Final = frozenset({"amdgpu_kernel", "spir_kernel", "amdgpu_cs_chain", "amdgpu_cs_chain_preserve"})
# LLVM 19's verifier, per calling convention (measured against opt-19 -passes=verify)
_NO_SRET_CC: Final = frozenset({"amdgpu_kernel", "spir_kernel", "amdgpu_ps", "amdgpu_vs", "amdgpu_gs", "amdgpu_hs",
                                "amdgpu_cs", "amdgpu_cs_chain", "amdgpu_cs_chain_preserve"})
_NO_BYVAL_CC: Final = _NO_SRET_CC - {"spir_kernel"}
_NO_VARARG_CC: Final = _NO_SRET_CC | {"fastcc"}
_STACK_ARGS: Final = ("byval(", "inalloca(", "preallocated(")


def _scalar(ty):
    return ty.elem if isinstance(ty, VectorType) else ty


def _fp_compatible(ty) -> bool:
    while isinstance(ty, (VectorType, ArrayType)):
        ty = ty.elem
    return isinstance(ty, FloatType)


def _incompatible(attr: str, ty) -> str | None:
    """Why ``attr`` does not fit a parameter of type ``ty`` (None: it fits)."""
    if attr in _INT_ONLY and not isinstance(ty, IntType):
        return "an integer parameter"
    if attr.startswith("range("):
        s = _scalar(ty)
        if not isinstance(s, IntType):
            return "an integer or integer-vector parameter"
        width = attr[len("range("):].split(" ", 1)[0]
        if width != f"i{s.bits}":
            return f"width:i{s.bits}"
    if attr.startswith("nofpclass(") and not _fp_compatible(ty):
        return "a floating-point parameter (or a vector or array of them)"
    if attr.startswith("align ") and not isinstance(_scalar(ty), PtrType):
        return "a pointer or pointer-vector parameter"
    if (attr in _PTR_ONLY or attr.startswith(_PTR_ONLY_PREFIX)) and not isinstance(ty, PtrType):
        return "a pointer parameter"
    return None


def verify_attributes(fn, errors: Diagnostics) -> None:
    """The rules above for ``fn`` (a definition or a declaration)."""
    for a in fn.args:
        for attr in getattr(a, "attr_text", None) or sorted(a.attrs):
            if not isinstance(attr, str):
                continue
            why = _incompatible(attr, a.type)
            if why is None:
                continue
            where = a.span or fn.span or Span("<input>")
            if why.startswith("width:"):
                errors.add(ParseError(where, expected(f"a range of {why[6:]} values on %{a.name}", f"'{attr}'")))
            else:
                errors.add(ParseError(where, expected(f"'{attr}' on {why}", f"it on %{a.name} of type {a.type}")))
    if "optnone" in fn.attrs and "noinline" not in fn.attrs:
        errors.add(ParseError(fn.span, expected(f"'noinline' with 'optnone' on @{fn.name}", "'optnone' alone")))
    if fn.cc in _VOID_RETURN_CC and str(fn.ret_type) != "void":
        errors.add(ParseError(fn.span, expected(f"a void return type for the {fn.cc} calling convention",
                                                f"{fn.ret_type}")))
    if fn.vararg and fn.cc in _NO_VARARG_CC:
        errors.add(ParseError(fn.span, expected(f"fixed parameters for the {fn.cc} calling convention",
                                                "a variadic function")))
    for a in fn.args:
        where = a.span or fn.span or Span("<input>")
        for attr in a.attrs if isinstance(a.attrs, frozenset) else ():
            if not isinstance(attr, str):
                continue
            if attr.startswith("byref(") and fn.cc in _NO_BYVAL_CC and isinstance(a.type, PtrType) \
                    and a.type.addrspace == _stack_addrspace(fn.module):
                errors.add(ParseError(where, expected(f"a 'byref' pointer outside the stack address space "
                                                      f"({a.type.addrspace}) under the {fn.cc} calling convention",
                                                      f"'{attr}' on %{a.name} of type {a.type}")))
            elif attr.startswith("sret(") and fn.cc in _NO_SRET_CC or attr.startswith(_STACK_ARGS) and fn.cc in _NO_BYVAL_CC:
                errors.add(ParseError(where, expected(f"no '{attr.split('(')[0]}' parameter under the {fn.cc} "
                                                      "calling convention", f"'{attr}' on %{a.name}")))
            elif attr == "returned" and a.type != fn.ret_type and not (
                    isinstance(a.type, VectorType) and isinstance(fn.ret_type, VectorType)):
                errors.add(ParseError(where, expected(f"a 'returned' parameter of the return type {fn.ret_type}",
                                                      f"%{a.name} of type {a.type}")))
            elif attr == "immarg" and not fn.name.startswith("llvm."):
                errors.add(ParseError(where, expected("'immarg' on a parameter of an intrinsic",
                                                      f"it on %{a.name} of @{fn.name}")))


def _stack_addrspace(mod) -> int:
    """The address space of allocas: the data layout's; without one, LLVM's default (0)
    when the module names no triple, else unknown (-1: opt-19 infers the layout from the
    triple's target, which the reader does not know)."""
    dl = getattr(mod, "data_layout", None)
    if dl is not None:
        return dl.alloca_addrspace
    return -1 if getattr(mod, "triple", "") else 0


def _immediate(v) -> bool:
    """An integer or floating-point literal (LLVM's ConstantInt / ConstantFP; a scalar
    zeroinitializer is one)."""
    kind = getattr(v, "kind", None)
    if kind in ("int", "float"):
        return not isinstance(v.type, VectorType)
    return kind == "zero" and isinstance(v.type, (IntType, FloatType))


def verify_call(inst, functions: dict, errors: Diagnostics, intrinsic_immargs: str = "") -> None:
    """A call passes a literal for every ``immarg`` parameter of its callee: those of
    LLVM's tables for an intrinsic they know (the generic one and the target's
    ``intrinsic_immargs`` text), else those its declaration marks."""
    name = inst.callee
    f = functions.get(name) if name else None
    if f is None:
        return
    # an intrinsic LLVM knows has its table's attributes (the declaration's are replaced)
    known = table_immargs(name, intrinsic_immargs) if name.startswith("llvm.") else None
    for i, (a, v) in enumerate(zip(f.args, inst.operands or ())):
        if (i in known if known is not None else "immarg" in a.attrs) and not _immediate(v):
            errors.add(ParseError(inst.span, expected(
                f"an integer or floating-point literal as argument {i + 1} of @{f.name} (immarg)",
                f"{getattr(v, 'ref', v)}")))


def verify_atomic_size(inst, errors: Diagnostics) -> None:
    """An atomic load, store, atomicrmw or cmpxchg accesses a power-of-two number of bytes."""
    op = inst.opcode
    if op == "load":
        ty = inst.type
    elif op == "store":
        ty = inst.source_type
    elif op == "atomicrmw":
        ty = inst.type
    else:  # cmpxchg: { T, i1 }
        ty = inst.type.elems[0] if hasattr(inst.type, "elems") else None
    bits = ty.bits if isinstance(ty, (IntType, FloatType)) else None
    if bits is None:
        return
    if bits < 8 or bits & (bits - 1):
        errors.add(ParseError(inst.span, expected(
            f"an atomic {op} of a power-of-two number of bytes", f"{bits} bits ({ty})")))


def verify_metadata_placement(inst, errors: Diagnostics, metadata: dict) -> None:
    """The metadata-placement rules above for one instruction (``metadata``: the module's
    numbered nodes, ``!N`` -> text)."""
    md = inst.metadata
    if not md:
        return
    op = inst.opcode
    for name, node in md:
        msg = None
        if name == "!range" and op not in ("load", "call", "invoke"):
            msg = expected("!range metadata on a load, call or invoke", f"it on '{op}'")
        elif name == "!range" and not isinstance(_scalar(inst.type), IntType):
            # a range's bounds are integers: no other result type can match them
            msg = expected("!range metadata on an integer-typed instruction", f"it on '{op}' of type {inst.type}")
        elif name == "!range":
            msg = _range_type(node, metadata, str(_scalar(inst.type)))
        elif name in ("!nonnull", "!align", "!dereferenceable", "!dereferenceable_or_null"):
            if not isinstance(inst.type, PtrType):
                msg = expected(f"{name} metadata on a pointer-typed instruction", f"it on '{op}' of type {inst.type}")
            elif op != "load" and not (op == "inttoptr" and name.startswith("!dereferenceable")):
                where = "a load or inttoptr" if name.startswith("!dereferenceable") else "a load"
                msg = expected(f"{name} metadata on {where} (calls take attributes instead)", f"it on '{op}'")
        if msg is not None:
            errors.add(ParseError(inst.span, msg))


def _range_type(node: str, metadata: dict, want: str) -> str | None:
    """The error of a ``!range`` node (``!N`` or an inline ``!{...}``) whose bounds are not
    of the instruction's (scalar) type ``want``, or None."""
    text = metadata.get(node, node) if node[1:].isdigit() else node
    for word in text.replace("{", " ").replace(",", " ").split():
        if word[0] == "i" and word[1:].isdigit() and word != want:
            return expected(f"!range bounds of the instruction's type {want}", f"type {word} in {node}")
    return None

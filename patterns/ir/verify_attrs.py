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
- ``optnone`` comes with ``noinline``;
- ``amdgpu_kernel``, ``spir_kernel``, ``amdgpu_cs_chain`` and
  ``amdgpu_cs_chain_preserve`` functions return ``void`` (LLVM's generic verifier holds
  this table of calling conventions; it is IR syntax, not target behaviour);
- instruction metadata: ``!range`` only on loads, calls and invokes of integer (or
  integer-vector) type; ``!nonnull`` and
  ``!align`` only on pointer-typed loads; ``!dereferenceable(_or_null)`` only on
  pointer-typed loads and inttoptr.

Where this stops: the attributes of return values and of call-site arguments, and the
contents of metadata nodes (``!range``'s pairs and their width, ``!align``'s power of
two) are not checked; attributes not listed above are taken as compatible with every type.
"""

from __future__ import annotations

from typing import Final

from tdgen.errors import Diagnostics, ParseError, Span, expected

from patterns.ir.core import ArrayType, FloatType, IntType, PtrType, VectorType

_INT_ONLY: Final = frozenset({"zeroext", "signext"})
_PTR_ONLY: Final = frozenset({"nonnull", "noalias", "nocapture", "readonly", "readnone", "writable",
                              "dead_on_unwind", "swifterror", "nest"})
_PTR_ONLY_PREFIX: Final = ("dereferenceable(", "dereferenceable_or_null(", "byval(", "byref(", "sret(",
                           "inalloca(", "preallocated(", "elementtype(", "initializes(")
_VOID_RETURN_CC: Final = frozenset({"amdgpu_kernel", "spir_kernel", "amdgpu_cs_chain", "amdgpu_cs_chain_preserve"})


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


def verify_metadata_placement(inst, errors: Diagnostics) -> None:
    """The metadata-placement rules above for one instruction."""
    md = inst.metadata
    if not md:
        return
    op = inst.opcode
    for name, _ in md:
        msg = None
        if name == "!range" and op not in ("load", "call", "invoke"):
            msg = expected("!range metadata on a load, call or invoke", f"it on '{op}'")
        elif name == "!range" and not isinstance(_scalar(inst.type), IntType):
            # a range's bounds are integers: no other result type can match them
            msg = expected("!range metadata on an integer-typed instruction", f"it on '{op}' of type {inst.type}")
        elif name in ("!nonnull", "!align", "!dereferenceable", "!dereferenceable_or_null"):
            if not isinstance(inst.type, PtrType):
                msg = expected(f"{name} metadata on a pointer-typed instruction", f"it on '{op}' of type {inst.type}")
            elif op != "load" and not (op == "inttoptr" and name.startswith("!dereferenceable")):
                where = "a load or inttoptr" if name.startswith("!dereferenceable") else "a load"
                msg = expected(f"{name} metadata on {where} (calls take attributes instead)", f"it on '{op}'")
        if msg is not None:
            errors.add(ParseError(inst.span, msg))

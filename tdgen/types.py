"""Value types (TableGen's MVTs) and LLVM intrinsic types, as frozen values.

- ``ValueType``: a machine value type as SelectionDAG patterns name it (``i32``,
  ``v2f16``, ``iPTR``, ``OtherVT``). ``VALUE_TYPES`` maps every standard name to its
  value; the module also exports ``i1 i8 i16 i32 i64 f16 f32 f64`` etc. as constants.
- ``IntrinsicType``: a type in an ``Intrinsic<...>`` signature, rendered with its
  TableGen spelling in ``.tablegen`` (``llvm_i32_ty``, ``llvm_anyint_ty``,
  ``LLVMMatchType<0>``, ``LLVMQualPointerType<3>``) and, when fixed, its ``vt``.

Both are plain data (no spans): they are values, not declarations.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ValueType:
    """A machine value type.

    ``kind`` is ``"int"``, ``"float"``, ``"vector"``, ``"ptr"`` or ``"other"``;
    ``bits`` the total size (0 when it has none, e.g. OtherVT); for vectors ``elem``
    names the element type and ``count`` the number of elements."""

    name: str
    kind: str
    bits: int
    elem: str | None = None
    count: int = 1

    def __str__(self) -> str:
        return self.name

    @property
    def is_int(self) -> bool:
        """Integer scalar or integer vector (what SDTCisInt accepts)."""
        if self.kind == "vector":
            return VALUE_TYPES[self.elem].kind == "int"  # type: ignore[index]
        return self.kind == "int"

    @property
    def is_fp(self) -> bool:
        """Floating-point scalar or vector (what SDTCisFP accepts)."""
        if self.kind == "vector":
            return VALUE_TYPES[self.elem].kind == "float"  # type: ignore[index]
        return self.kind == "float"

    @property
    def is_vector(self) -> bool:
        return self.kind == "vector"

    @property
    def is_ptr(self) -> bool:
        return self.kind == "ptr"

    @property
    def ir(self) -> str:
        """The LLVM IR spelling of this type (``f32`` -> ``float``, ``v2f16`` -> ``<2 x half>``);
        ``iPTR`` is ``ptr``. OtherVT/untyped have none: a ValueError naming them."""
        if self.kind == "vector":
            return f"<{self.count} x {self.scalar.ir}>"
        if self.kind == "float":
            return {"f16": "half", "bf16": "bfloat", "f32": "float", "f64": "double"}[self.name]
        if self.kind == "ptr":
            return "ptr"
        if self.kind == "other":
            raise ValueError(f"value type {self.name} has no LLVM IR type")
        return self.name

    @property
    def scalar(self) -> "ValueType":
        return VALUE_TYPES[self.elem] if self.kind == "vector" else self  # type: ignore[index]


def _vt_table() -> dict[str, ValueType]:
    out: dict[str, ValueType] = {}
    for b in (1, 8, 16, 32, 64, 128):
        out[f"i{b}"] = ValueType(f"i{b}", "int", b)
    for b in (16, 32, 64):
        out[f"f{b}"] = ValueType(f"f{b}", "float", b)
    out["bf16"] = ValueType("bf16", "float", 16)
    for elem, counts in (
        ("i1", (2, 4, 8, 16, 32, 64)),
        ("i8", (2, 4, 8, 16)),
        ("i16", (2, 4, 8, 16)),
        ("i32", (2, 3, 4, 8, 16)),
        ("i64", (2, 4, 8)),
        ("f16", (2, 4, 8, 16)),
        ("bf16", (2, 4, 8)),
        ("f32", (2, 3, 4, 8, 16)),
        ("f64", (2, 4, 8)),
    ):
        for n in counts:
            name = f"v{n}{elem}"
            out[name] = ValueType(name, "vector", n * out[elem].bits, elem, n)
    out["iPTR"] = ValueType("iPTR", "ptr", 0)
    out["OtherVT"] = ValueType("OtherVT", "other", 0)
    out["untyped"] = ValueType("untyped", "other", 0)
    return out


VALUE_TYPES: dict[str, ValueType] = _vt_table()

i1 = VALUE_TYPES["i1"]
i8 = VALUE_TYPES["i8"]
i16 = VALUE_TYPES["i16"]
i32 = VALUE_TYPES["i32"]
i64 = VALUE_TYPES["i64"]
f16 = VALUE_TYPES["f16"]
f32 = VALUE_TYPES["f32"]
f64 = VALUE_TYPES["f64"]
v2i32 = VALUE_TYPES["v2i32"]
v4i32 = VALUE_TYPES["v4i32"]
v2f16 = VALUE_TYPES["v2f16"]
v2i16 = VALUE_TYPES["v2i16"]
iPTR = VALUE_TYPES["iPTR"]
OtherVT = VALUE_TYPES["OtherVT"]
untyped = VALUE_TYPES["untyped"]


def value_type(name: str) -> ValueType | None:
    """The standard value type called ``name``, or None."""
    return VALUE_TYPES.get(name)


@dataclass(frozen=True)
class IntrinsicType:
    """One type in an intrinsic signature.

    ``tablegen``: its TableGen spelling. ``vt``: the fixed value type (None for
    overloaded/matched types and pointers). ``overload``: ``"anyint"``, ``"any"``,
    ``"anyfloat"``, ``"anyvector"``, ``"anyptr"`` for overloaded slots.
    ``match``: the overload index for ``LLVMMatchType<N>``. ``addrspace``: for pointers."""

    tablegen: str
    vt: ValueType | None = None
    overload: str | None = None
    match: int | None = None
    addrspace: int | None = None

    def __str__(self) -> str:
        return self.tablegen

    @property
    def is_overloaded(self) -> bool:
        return self.overload is not None

    @property
    def ir(self) -> str:
        """The LLVM IR spelling when fixed (``i32``, ``<2 x i32>``, ``ptr addrspace(3)``)."""
        if self.vt is not None:
            return self.vt.ir
        if self.addrspace is not None:
            return "ptr" if self.addrspace == 0 else f"ptr addrspace({self.addrspace})"
        return self.tablegen


def _fixed(vt: ValueType) -> IntrinsicType:
    return IntrinsicType(f"llvm_{vt.name}_ty", vt=vt)


llvm_i1_ty = _fixed(i1)
llvm_i8_ty = _fixed(i8)
llvm_i16_ty = _fixed(i16)
llvm_i32_ty = _fixed(i32)
llvm_i64_ty = _fixed(i64)
llvm_f16_ty = IntrinsicType("llvm_half_ty", vt=f16)
llvm_f32_ty = IntrinsicType("llvm_float_ty", vt=f32)
llvm_f64_ty = IntrinsicType("llvm_double_ty", vt=f64)
llvm_half_ty = llvm_f16_ty
llvm_float_ty = llvm_f32_ty
llvm_double_ty = llvm_f64_ty
llvm_v2i32_ty = _fixed(v2i32)
llvm_v4i32_ty = _fixed(v4i32)
llvm_v2f16_ty = _fixed(v2f16)
llvm_ptr_ty = IntrinsicType("llvm_ptr_ty", addrspace=0)
llvm_anyint_ty = IntrinsicType("llvm_anyint_ty", overload="anyint")
llvm_anyfloat_ty = IntrinsicType("llvm_anyfloat_ty", overload="anyfloat")
llvm_any_ty = IntrinsicType("llvm_any_ty", overload="any")
llvm_anyvector_ty = IntrinsicType("llvm_anyvector_ty", overload="anyvector")
llvm_anyptr_ty = IntrinsicType("llvm_anyptr_ty", overload="anyptr")


def LLVMMatchType(index: int) -> IntrinsicType:
    """The same type as overloaded slot ``index`` (``LLVMMatchType<index>``)."""
    return IntrinsicType(f"LLVMMatchType<{index}>", match=index)


def LLVMQualPointerType(addrspace: int) -> IntrinsicType:
    """An opaque pointer in ``addrspace`` (``LLVMQualPointerType<N>``)."""
    return IntrinsicType(f"LLVMQualPointerType<{addrspace}>", addrspace=addrspace)


INTRINSIC_TYPES: dict[str, IntrinsicType] = {
    t.tablegen: t
    for t in (
        llvm_i1_ty, llvm_i8_ty, llvm_i16_ty, llvm_i32_ty, llvm_i64_ty,
        llvm_f16_ty, llvm_f32_ty, llvm_f64_ty, llvm_v2i32_ty, llvm_v4i32_ty,
        llvm_v2f16_ty, llvm_ptr_ty, llvm_anyint_ty, llvm_anyfloat_ty, llvm_any_ty,
        llvm_anyvector_ty, llvm_anyptr_ty,
    )
}

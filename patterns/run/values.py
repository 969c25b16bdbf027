"""Constants and types of the reference interpreter: a ``Constant`` as lane values, the
sizes and field offsets of types, and the bytes of a value in memory.

A lane value is ``(bits, poison)`` (see ``patterns/run/ops.py``); an aggregate (struct,
or the ``{T, i1}`` of ``cmpxchg`` and the ``*.with.overflow`` intrinsics) is a tuple of
lane values, one per field. ``undef`` is treated as poison: LLVM lets each use of undef
take any value, and this model never picks one, so undef reaching a store or a branch is
reported like poison.
"""

from __future__ import annotations

import re

import numpy as np

from patterns.ir.core import ArrayType, Constant, FloatType, IntType, PtrType, StructType, VectorType
from patterns.run.ops import from_float, mask_of
from patterns.run.ub import NotModeled

U64 = np.uint64


def scalar_bits(t) -> int:
    """Bits of a scalar type's value in ``bits`` (pointers: 64)."""
    if isinstance(t, IntType):
        return t.bits
    if isinstance(t, FloatType):
        return t.bits
    return 64


def constant_value(c, L: int, resolve_global) -> object:
    """The lane value (broadcast to ``L`` lanes) of constant ``c``; ``resolve_global(ref)``
    gives the address of a global. NotModeled for constants this model does not read."""
    t = c.type
    if c.__class__.__name__ == "GlobalRef":
        return np.full(L, U64(resolve_global(c)), dtype=U64), np.zeros(L, dtype=bool)
    kind = c.kind
    if isinstance(t, StructType):
        if kind in ("zero", "undef", "poison"):
            return tuple(constant_value(Constant(e, kind, kind), L, resolve_global) for e in t.elems)
        if kind == "aggregate":
            return tuple(constant_value(e, L, resolve_global) for e in c.elements)
        raise NotModeled(None, f"the constant {c}")
    if isinstance(t, VectorType):
        n = t.count
        if kind in ("zero", "null"):
            return np.zeros((L, n), dtype=U64), np.zeros((L, n), dtype=bool)
        if kind in ("undef", "poison"):
            return np.zeros((L, n), dtype=U64), np.ones((L, n), dtype=bool)
        if kind == "aggregate":
            parts = [constant_value(e, L, resolve_global) for e in c.elements]
            return np.stack([p[0] for p in parts], axis=1), np.stack([p[1] for p in parts], axis=1)
        if kind == "splat" or c.text.startswith("splat"):
            raise NotModeled(None, f"the constant {c}")
        raise NotModeled(None, f"the constant {c}")
    if kind in ("undef", "poison"):
        return np.zeros(L, dtype=U64), np.ones(L, dtype=bool)
    if kind in ("zero", "null"):
        return np.zeros(L, dtype=U64), np.zeros(L, dtype=bool)
    if kind == "int" and isinstance(t, IntType):
        v = c._u if c._u is not None else int(c.text, 0) & ((1 << t.bits) - 1)
        if t.bits > 64:
            raise NotModeled(None, f"integers wider than 64 bits ({t})")
        return np.full(L, U64(v), dtype=U64), np.zeros(L, dtype=bool)
    if kind == "float" and isinstance(t, FloatType):
        if t.name not in ("half", "float", "double"):
            raise NotModeled(None, f"the floating-point type {t}")
        bits = float_constant_bits(c)
        return np.full(L, U64(bits), dtype=U64), np.zeros(L, dtype=bool)
    raise NotModeled(None, f"the constant {c}")


def float_constant_bits(c) -> int:
    """The bits of a float constant: from its hexadecimal spelling when it has one
    (``0x...`` is a double's bits for float/double, ``0xH...`` half's own), else its
    decimal value rounded to the type."""
    t, text = c.type, c.text
    if text.startswith("0xH"):
        return int(text[3:], 16)
    if text.startswith("0x"):
        d = np.array([int(text[2:], 16)], dtype="<u8").view(np.float64)
        return int(from_float(d.astype({"float": np.float32, "double": np.float64, "half": np.float16}[t.name]),
                              t.name, canonical_nan=False)[0])
    v = float(c.value)
    return int(from_float(np.array([v]).astype({"float": np.float32, "double": np.float64,
                                                 "half": np.float16}[t.name]), t.name, canonical_nan=False)[0])


# ================================================================ memory layout


def struct_offsets(dl, t: StructType) -> list[int]:
    """Byte offset of each field of ``t`` (LLVM's StructLayout)."""
    out, off = [], 0
    for e in t.elems:
        a = 1 if t.packed else dl.abi_align(e)
        off = (off + a - 1) // a * a
        out.append(off)
        off += dl.alloc_size(e)
    return out


def to_memory(dl, t, value) -> tuple[np.ndarray, np.ndarray]:
    """(bytes (L, store size) uint8, poison per lane) of a value of type ``t``."""
    bits, poison = value
    if isinstance(t, VectorType):
        et = t.elem
        if scalar_bits(et) % 8:
            raise NotModeled(None, f"a vector of {et} in memory")
        parts = [scalar_bytes(bits[:, k], dl.store_size(et)) for k in range(t.count)]
        return np.concatenate(parts, axis=1), poison.any(axis=1)
    if isinstance(t, (IntType, FloatType, PtrType)):
        return scalar_bytes(bits, dl.store_size(t)), poison
    raise NotModeled(None, f"a load or store of type {t}")


def from_memory(dl, t, data: np.ndarray, init: np.ndarray) -> object:
    """The lane value of type ``t`` read from bytes ``data`` (bytes never written, per
    ``init``, make the lane poison)."""
    if isinstance(t, VectorType):
        es = dl.store_size(t.elem)
        bits = np.stack([bytes_scalar(data[:, k * es:(k + 1) * es], scalar_bits(t.elem))
                         for k in range(t.count)], axis=1)
        pois = np.stack([~init[:, k * es:(k + 1) * es].all(axis=1) for k in range(t.count)], axis=1)
        return bits, pois
    if isinstance(t, (IntType, FloatType, PtrType)):
        return bytes_scalar(data, scalar_bits(t)), ~init.all(axis=1)
    raise NotModeled(None, f"a load or store of type {t}")


def scalar_bytes(bits: np.ndarray, n: int) -> np.ndarray:
    v = np.ascontiguousarray(bits.astype("<u8"))
    return v.view(np.uint8).reshape(len(v), 8)[:, :n]


def bytes_scalar(data: np.ndarray, bits: int) -> np.ndarray:
    L, n = data.shape
    full = np.zeros((L, 8), dtype=np.uint8)
    full[:, :n] = data
    return full.view("<u8").reshape(L).astype(U64) & mask_of(bits)


# ================================================================ constant GEPs

_TYPE_RE = re.compile(r"\(\s*(.+?),\s*ptr")


def const_gep_source(c) -> object:
    """The source element type of a constant ``getelementptr`` expression (read from its
    text, which the reader keeps)."""
    m = _TYPE_RE.search(c.text)
    if not m:
        raise NotModeled(None, f"the constant expression {c.text}")
    return parse_simple_type(m.group(1).strip())


def parse_simple_type(s: str):
    """Integer, float, pointer, array and (non-packed) struct types written in IR syntax."""
    s = s.strip()
    if s.startswith("[") and s.endswith("]"):
        n, rest = s[1:-1].split(" x ", 1)
        return ArrayType(int(n), parse_simple_type(rest))
    if s.startswith("<") and s.endswith(">"):
        n, rest = s[1:-1].split(" x ", 1)
        return VectorType(int(n), parse_simple_type(rest))
    if s.startswith("{") and s.endswith("}"):
        inner, parts, depth, cur = s[1:-1], [], 0, ""
        for ch in inner:
            if ch in "[{<(":
                depth += 1
            elif ch in "]}>)":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        if cur.strip():
            parts.append(cur)
        return StructType(tuple(parse_simple_type(p) for p in parts))
    if re.fullmatch(r"i[0-9]+", s):
        return IntType(int(s[1:]))
    if s in ("half", "float", "double", "bfloat"):
        return FloatType(s)
    m = re.fullmatch(r"ptr(?: addrspace\(([0-9]+)\))?", s)
    if m:
        return PtrType(int(m.group(1) or 0))
    raise NotModeled(None, f"the type {s} in a constant expression")

"""LLVM IR's value operations over the lanes of a wave: integer and float arithmetic, casts,
comparisons, with LLVM's poison rules.

A value is a pair ``(bits, poison)`` of numpy arrays over the lanes (shape ``(L,)``, or
``(L, n)`` for an ``<n x T>`` vector): ``bits`` uint64 holding the value's bits (integers
of up to 64 bits zero-extended; floats as their IEEE bit pattern; pointers as addresses),
``poison`` bool. Each function returns the result's bits and the lanes it makes poison;
the interpreter ORs in the operands' poison. Division by zero and signed ``INT_MIN / -1``
are immediate undefined behaviour: ``div_trap`` says which lanes do it.

Poison (LangRef): ``add``/``sub``/``mul``/``shl`` with ``nsw``/``nuw`` that wrap, a shift
by at least the width, ``exact`` division or shift that drops nonzero bits, ``or
disjoint`` with common bits, ``trunc nuw/nsw`` that changes the value, ``zext/uitofp
nneg`` of a negative value, ``fptosi/fptoui`` out of range or NaN, and ``nnan``/``ninf``
flags meeting a NaN/infinity (operand or result).

Float arithmetic is IEEE-754 in numpy's half/float/double (round to nearest even,
subnormals kept: LLVM's default ``denormal-fp-math=ieee``). LLVM leaves a NaN result's
sign and payload open; this model makes every NaN an arithmetic operation produces the
positive quiet NaN with a zero payload (``0x7e00``, ``0x7fc00000``, ``0x7ff8...``).
``fneg``, ``fabs`` and ``copysign`` only change the sign bit (LLVM's rule).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

U64 = np.uint64
FLOAT_DTYPES = {"half": (np.float16, np.uint16), "float": (np.float32, np.uint32), "double": (np.float64, np.uint64)}
QNAN = {"half": 0x7E00, "float": 0x7FC00000, "double": 0x7FF8000000000000}
FLOAT_WIDTH = {"half": 16, "float": 32, "double": 64}


_MASKS = [np.uint64((1 << b) - 1) for b in range(64)] + [np.uint64(0xFFFFFFFFFFFFFFFF)]


def mask_of(bits: int) -> np.uint64:
    """The uint64 mask of the low ``bits`` bits (1..64)."""
    return _MASKS[bits]


def sext(x: np.ndarray, bits: int) -> np.ndarray:
    """The signed value (int64) of ``bits``-bit values ``x``."""
    x = x.astype(np.int64) if x.dtype != np.int64 else x
    if bits == 64:
        return x
    sh = 64 - bits
    return (x << sh) >> sh


def wrap(x: np.ndarray, bits: int) -> np.ndarray:
    """int64/uint64 values reduced to ``bits`` bits, as uint64."""
    return x.astype(U64) & mask_of(bits) if bits < 64 else x.astype(U64)


def _fits_signed(v: np.ndarray, bits: int) -> np.ndarray:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return (v >= lo) & (v <= hi)


# ============================================================== integer binary ops


def int_binop(op: str, a: np.ndarray, b: np.ndarray, bits: int, flags) -> tuple[np.ndarray, np.ndarray]:
    """(result bits, lanes made poison) of integer ``op`` on ``bits``-bit operands."""
    m = mask_of(bits)
    zero = np.zeros(a.shape, dtype=bool)
    with np.errstate(all="ignore"):
        if op == "add":
            r = (a + b) & m
            pz = zero
            if "nuw" in flags:
                pz = pz | (r < a)
            if "nsw" in flags:
                pz = pz | _signed_overflow("add", a, b, r, bits)
            return r, pz
        if op == "sub":
            r = (a - b) & m
            pz = zero
            if "nuw" in flags:
                pz = pz | (b > a)
            if "nsw" in flags:
                pz = pz | _signed_overflow("sub", a, b, r, bits)
            return r, pz
        if op == "mul":
            r = (a * b) & m
            pz = zero
            if "nuw" in flags or "nsw" in flags:
                if bits <= 31:
                    if "nuw" in flags:
                        pz = pz | ((a * b) > m)
                    if "nsw" in flags:
                        pz = pz | ~_fits_signed(sext(a, bits) * sext(b, bits), bits)
                else:
                    pz = pz | _wide_mul_overflow(a, b, bits, flags)
            return r, pz
        if op in ("and", "or", "xor"):
            r = a & b if op == "and" else (a | b if op == "or" else a ^ b)
            pz = ((a & b) != 0) if op == "or" and "disjoint" in flags else zero
            return r, pz
        if op in ("shl", "lshr", "ashr"):
            big = b >= U64(bits)
            s = np.where(big, U64(0), b)
            if op == "shl":
                r = (a << s) & m
                pz = big.copy()
                if "nuw" in flags:
                    pz |= (r >> s) != a
                if "nsw" in flags:
                    pz |= wrap(sext(r, bits) >> s.astype(np.int64), bits) != a
                return r, pz
            if op == "lshr":
                r = a >> s
            else:
                r = wrap(sext(a, bits) >> s.astype(np.int64), bits)
            pz = big.copy()
            if "exact" in flags:
                pz |= (a & ((U64(1) << s) - U64(1))) != 0
            return r, pz
        if op in ("udiv", "urem"):
            d = np.where(b == 0, U64(1), b)
            r = a // d if op == "udiv" else a % d
            pz = ((a % d) != 0) if op == "udiv" and "exact" in flags else zero
            return r & m, pz
        if op in ("sdiv", "srem"):
            sa, sb = sext(a, bits), sext(b, bits)
            sb = np.where((sb == 0) | ((sb == -1) & (sa == -(1 << (bits - 1)) if bits < 64 else sa == np.iinfo(np.int64).min)),
                          1, sb)
            rem = np.fmod(sa, sb)
            if op == "srem":
                return wrap(rem, bits), zero
            q = (sa - rem) // sb
            pz = (rem != 0) if "exact" in flags else zero
            return wrap(q, bits), pz
    raise KeyError(op)


def div_trap(op: str, a: np.ndarray, b: np.ndarray, bits: int) -> np.ndarray:
    """Lanes where ``op`` (udiv/sdiv/urem/srem) is immediate undefined behaviour."""
    bad = b == 0
    if op in ("sdiv", "srem"):
        bad = bad | ((a == U64(1 << (bits - 1))) & (b == mask_of(bits)))
    return bad


def _signed_overflow(op: str, a, b, r, bits: int) -> np.ndarray:
    sign = U64(1 << (bits - 1))
    if op == "add":
        return ((~(a ^ b)) & (a ^ r) & sign) != 0
    return ((a ^ b) & (a ^ r) & sign) != 0


def _wide_mul_overflow(a, b, bits: int, flags) -> np.ndarray:
    out = np.zeros(a.shape, dtype=bool)
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    for i in np.ndindex(a.shape):
        x, y = int(a[i]), int(b[i])
        bad = False
        if "nuw" in flags:
            bad |= x * y >= (1 << bits)
        if "nsw" in flags:
            sx = x - (1 << bits) if x >> (bits - 1) else x
            sy = y - (1 << bits) if y >> (bits - 1) else y
            bad |= not lo <= sx * sy <= hi
        out[i] = bad
    return out


# ============================================================== comparisons

def icmp(pred: str, a: np.ndarray, b: np.ndarray, bits: int) -> np.ndarray:
    if pred in ("eq", "ne"):
        return (a == b) if pred == "eq" else (a != b)
    if pred[0] == "s":
        a, b = sext(a, bits), sext(b, bits)
    k = pred[1:]
    return {"gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b}[k]


def as_float(bits: np.ndarray, name: str) -> np.ndarray:
    ft, ut = FLOAT_DTYPES[name]
    return bits.astype(ut).view(ft)


def from_float(f: np.ndarray, name: str, *, canonical_nan: bool = True) -> np.ndarray:
    ft, ut = FLOAT_DTYPES[name]
    f = np.asarray(f, dtype=ft)
    out = f.view(ut).astype(U64)
    if canonical_nan:
        out = np.where(np.isnan(f), U64(QNAN[name]), out)
    return out


def fcmp(pred: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``fcmp pred`` on float arrays (ordered predicates false on NaN, unordered true)."""
    uno = np.isnan(x) | np.isnan(y)
    if pred == "false":
        return np.zeros(x.shape, dtype=bool)
    if pred == "true":
        return np.ones(x.shape, dtype=bool)
    if pred == "ord":
        return ~uno
    if pred == "uno":
        return uno
    with np.errstate(invalid="ignore"):
        base = {"eq": x == y, "gt": x > y, "ge": x >= y, "lt": x < y, "le": x <= y, "ne": (x < y) | (x > y)}[pred[1:]]
    return base & ~uno if pred[0] == "o" else base | uno


def float_binop(op: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if op == "fadd":
            return x + y
        if op == "fsub":
            return x - y
        if op == "fmul":
            return x * y
        if op == "fdiv":
            return x / y
        if op == "frem":
            return np.fmod(x, y)
    raise KeyError(op)


def fast_math_poison(flags, *vals: np.ndarray) -> np.ndarray:
    """Lanes ``nnan``/``ninf`` (or ``fast``) make poison: any operand or the result NaN/inf."""
    out = np.zeros(vals[0].shape, dtype=bool)
    if "nnan" in flags or "fast" in flags:
        for v in vals:
            out |= np.isnan(v)
    if "ninf" in flags or "fast" in flags:
        for v in vals:
            out |= np.isinf(v)
    return out


def fma_exact(x: np.ndarray, y: np.ndarray, z: np.ndarray, name: str) -> np.ndarray:
    """``x * y + z`` rounded once to ``name``'s precision (round to nearest even):
    computed exactly with fractions for the finite lanes, IEEE rules for the others."""
    ft = FLOAT_DTYPES[name][0]
    with np.errstate(all="ignore"):
        out = (x.astype(np.float64) * y.astype(np.float64) + z.astype(np.float64)).astype(ft)
    fin = np.isfinite(x) & np.isfinite(y) & np.isfinite(z)
    for i in zip(*np.nonzero(fin)) if fin.ndim > 1 else ((k,) for k in np.flatnonzero(fin)):
        exact = Fraction(float(x[i])) * Fraction(float(y[i])) + Fraction(float(z[i]))
        out[i] = round_fraction(exact, name, negative_zero=exact == 0 and _zero_sign(x[i], y[i], z[i]))
    return out


def _zero_sign(x, y, z) -> bool:
    prod_neg = np.signbit(x) != np.signbit(y)
    return bool(prod_neg and np.signbit(z))  # -0 only when both addends are -0


def round_fraction(q: Fraction, name: str, *, negative_zero: bool = False):
    """The ``name`` float nearest to ``q`` (ties to even), overflowing to infinity."""
    ft = FLOAT_DTYPES[name][0]
    if q == 0:
        return ft(-0.0) if negative_zero else ft(0.0)
    d = float(q)  # correctly rounded to double
    with np.errstate(over="ignore"):
        cand = ft(d)
    if name == "double" or Fraction(d) == q:
        return cand
    # double rounding only matters at a midpoint of the narrower type
    lo, hi = (cand, np.nextafter(cand, ft(np.inf))) if Fraction(float(cand)) < q else (
        np.nextafter(cand, ft(-np.inf)), cand)
    if not np.isfinite(lo) or not np.isfinite(hi):
        return cand
    dl, dh = q - Fraction(float(lo)), Fraction(float(hi)) - q
    if dl < dh:
        return lo
    if dh < dl:
        return hi
    return lo if int(np.asarray(lo).view(FLOAT_DTYPES[name][1])) % 2 == 0 else hi


# ============================================================== casts


def cast(op: str, bits: np.ndarray, src, dst, flags) -> tuple[np.ndarray, np.ndarray]:
    """(result bits, poison lanes) of cast ``op`` from type ``src`` to ``dst`` (scalars)."""
    zero = np.zeros(bits.shape, dtype=bool)
    if op == "trunc":
        r = bits & mask_of(dst.bits)
        pz = zero
        if "nuw" in flags:
            pz = pz | (r != bits)
        if "nsw" in flags:
            pz = pz | (wrap(sext(r, dst.bits), src.bits) != bits)
        return r, pz
    if op == "zext":
        pz = ((bits >> U64(src.bits - 1)) & U64(1)) == 1 if "nneg" in flags else zero
        return bits, pz
    if op == "sext":
        return wrap(sext(bits, src.bits), dst.bits), zero
    if op in ("bitcast", "ptrtoint", "inttoptr", "addrspacecast"):
        width = getattr(dst, "bits", 64) if op != "addrspacecast" else 64
        return (bits & mask_of(width)) if op in ("ptrtoint", "inttoptr") else bits, zero
    if op in ("sitofp", "uitofp"):
        v = sext(bits, src.bits) if op == "sitofp" else bits
        pz = (((bits >> U64(src.bits - 1)) & U64(1)) == 1) if "nneg" in flags else zero
        return from_float(int_to_float(v, dst.name, signed=op == "sitofp"), dst.name), pz
    if op in ("fptosi", "fptoui"):
        f = as_float(bits, src.name).astype(np.float64)
        with np.errstate(all="ignore"):
            t = np.trunc(f)
            if op == "fptosi":
                lo, hi = -(2.0 ** (dst.bits - 1)), 2.0 ** (dst.bits - 1)
            else:
                lo, hi = 0.0, 2.0 ** dst.bits
            bad = np.isnan(f) | (t < lo) | (t >= hi)
            safe = np.where(bad, 0.0, t)
        if op == "fptoui" and dst.bits == 64:
            r = safe.astype(U64)
        else:
            r = wrap(safe.astype(np.int64), dst.bits)
        return r, bad
    if op in ("fpext", "fptrunc"):
        f = as_float(bits, src.name)
        ft = FLOAT_DTYPES[dst.name][0]
        with np.errstate(all="ignore"):
            out = f.astype(ft)
        return from_float(out, dst.name), zero
    raise KeyError(op)


def int_to_float(v: np.ndarray, name: str, *, signed: bool) -> np.ndarray:
    """Integers (int64 when signed, else uint64) rounded once to ``name`` (ties to even)."""
    ft = FLOAT_DTYPES[name][0]
    if name == "double" or (name == "float" and np.all(np.abs(v.astype(np.float64)) < 2.0 ** 53)):
        if name == "double":
            # numpy rounds int64/uint64 -> float64 correctly
            return v.astype(np.float64)
        return v.astype(np.float64).astype(ft) if np.all(np.abs(v.astype(np.float64)) < 2.0 ** 24) else \
            np.array([round_fraction(Fraction(int(x)), name) for x in v.ravel()], dtype=ft).reshape(v.shape)
    return np.array([round_fraction(Fraction(int(x)), name) for x in v.ravel()], dtype=ft).reshape(v.shape)

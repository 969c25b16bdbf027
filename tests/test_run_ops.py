"""The reference interpreter's operations against Python's own integer and float semantics.

Each operation is checked two ways: directly (patterns.run.ops over arrays of random
operands, results and poison lanes compared with Python's unbounded integers and
``struct``-rounded floats), and end to end (an IR kernel computing the operation per lane
from buffers, run by the interpreter; its stores compared with the same Python
results, and its first poison lane with the first lane where Python says the flags fail).
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from patterns.ir.core import FloatType, IntType
from patterns.run import ops
from patterns.run.api import run_ir
from patterns.run.launch import ArgValue, Buffer, Launch

WIDTHS = (1, 7, 8, 16, 32, 33, 63, 64)
INT_OPS = ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "udiv", "sdiv", "urem", "srem")


def _signed(v: int, bits: int) -> int:
    return v - (1 << bits) if v >> (bits - 1) & 1 else v


def _python_int(op: str, a: int, b: int, bits: int, flags) -> tuple[int | None, bool]:
    """(result, poison) by Python's integers; result None for immediate UB."""
    m = (1 << bits) - 1
    sa, sb = _signed(a, bits), _signed(b, bits)
    if op in ("add", "sub", "mul"):
        f = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y}[op]
        r = f(a, b) & m
        pz = ("nuw" in flags and not 0 <= f(a, b) <= m) or (
            "nsw" in flags and not -(1 << (bits - 1)) <= f(sa, sb) < (1 << (bits - 1)))
        return r, pz
    if op in ("and", "or", "xor"):
        r = {"and": a & b, "or": a | b, "xor": a ^ b}[op]
        return r, op == "or" and "disjoint" in flags and (a & b) != 0
    if op in ("shl", "lshr", "ashr"):
        if b >= bits:
            return 0, True
        if op == "shl":
            r = (a << b) & m
            pz = ("nuw" in flags and (a << b) > m) or ("nsw" in flags and _signed(r, bits) != sa * (1 << b))
            return r, pz
        r = (a >> b) if op == "lshr" else (sa >> b) & m
        exact = "exact" in flags and ((a if op == "lshr" else sa) & ((1 << b) - 1)) != 0
        return r, exact
    if b == 0 or (op in ("sdiv", "srem") and sa == -(1 << (bits - 1)) and sb == -1):
        return None, False
    if op == "udiv":
        return a // b, "exact" in flags and a % b != 0
    if op == "urem":
        return a % b, False
    q = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
    if op == "sdiv":
        return q & m, "exact" in flags and sa != q * sb
    return (sa - q * sb) & m, False


def _operands(rng, bits: int, n: int) -> np.ndarray:
    m = (1 << bits) - 1
    special = [0, 1, m, m >> 1, (m >> 1) + 1, 2, bits - 1, bits]
    vals = [int(x) & m for x in rng.integers(0, 2**63, n, dtype=np.int64)]
    vals = [v >> int(rng.integers(0, bits)) for v in vals]  # mixed magnitudes
    vals[: len(special)] = [s & m for s in special]
    return np.array(vals, dtype=np.uint64)


FLAGSETS = {"add": ((), ("nsw",), ("nuw",), ("nuw", "nsw")), "sub": ((), ("nsw",), ("nuw",)),
            "mul": ((), ("nsw",), ("nuw",)), "shl": ((), ("nsw",), ("nuw",)), "lshr": ((), ("exact",)),
            "ashr": ((), ("exact",)), "udiv": ((), ("exact",)), "sdiv": ((), ("exact",)), "or": ((), ("disjoint",))}


@pytest.mark.parametrize("bits", WIDTHS)
@pytest.mark.parametrize("op", INT_OPS)
def test_int_binop_matches_python(op, bits):
    rng = np.random.default_rng(bits * 100 + INT_OPS.index(op))
    n = 96
    a = _operands(rng, bits, n)
    b = np.roll(_operands(rng, bits, n), 3)
    if op in ("shl", "lshr", "ashr"):
        b = b % np.uint64(bits + 2)  # in range mostly, some out of range
    for flags in FLAGSETS.get(op, ((),)):
        fs = frozenset(flags)
        r, pz = ops.int_binop(op, a.copy(), b.copy(), bits, fs)
        trap = ops.div_trap(op, a, b, bits) if op in ("udiv", "sdiv", "urem", "srem") else np.zeros(n, bool)
        for k in range(n):
            want, wpz = _python_int(op, int(a[k]), int(b[k]), bits, fs)
            if want is None:
                assert trap[k], (op, bits, int(a[k]), int(b[k]))
                continue
            assert not trap[k]
            assert bool(pz[k]) == wpz, (op, flags, bits, int(a[k]), int(b[k]))
            if not wpz:
                assert int(r[k]) == want, (op, flags, bits, int(a[k]), int(b[k]), int(r[k]), want)


@pytest.mark.parametrize("bits", WIDTHS)
def test_icmp_matches_python(bits):
    rng = np.random.default_rng(bits)
    a, b = _operands(rng, bits, 64), np.roll(_operands(rng, bits, 64), 5)
    b[::7] = a[::7]
    py = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "ugt": lambda x, y: x > y,
          "uge": lambda x, y: x >= y, "ult": lambda x, y: x < y, "ule": lambda x, y: x <= y}
    for pred in ("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle"):
        got = ops.icmp(pred, a, b, bits)
        for k in range(64):
            x, y = int(a[k]), int(b[k])
            if pred[0] == "s":
                x, y = _signed(x, bits), _signed(y, bits)
                want = py["u" + pred[1:]](x, y)
            else:
                want = py[pred](x, y)
            assert bool(got[k]) == want, (pred, bits, x, y)


@pytest.mark.parametrize("src,dst", [(8, 32), (1, 32), (32, 64), (16, 8), (64, 33), (33, 7)])
def test_int_casts_match_python(src, dst):
    rng = np.random.default_rng(src * 7 + dst)
    a = _operands(rng, src, 64)
    S, D = IntType(src), IntType(dst)
    if dst > src:
        z, zp = ops.cast("zext", a, S, D, frozenset({"nneg"}))
        s, _ = ops.cast("sext", a, S, D, frozenset())
        for k in range(64):
            assert int(z[k]) == int(a[k])
            assert bool(zp[k]) == (_signed(int(a[k]), src) < 0)
            assert int(s[k]) == _signed(int(a[k]), src) & ((1 << dst) - 1)
    else:
        t, tp = ops.cast("trunc", a, S, D, frozenset({"nuw"}))
        t2, tp2 = ops.cast("trunc", a, S, D, frozenset({"nsw"}))
        for k in range(64):
            v = int(a[k])
            assert int(t[k]) == v & ((1 << dst) - 1)
            assert bool(tp[k]) == (v >= (1 << dst))
            assert bool(tp2[k]) == (_signed(v & ((1 << dst) - 1), dst) != _signed(v, src))


_FMT = {"half": "e", "float": "f", "double": "d"}


def _round(x: float, name: str) -> float:
    try:
        return struct.unpack(_FMT[name], struct.pack(_FMT[name], x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _floats(rng, name: str, n: int) -> np.ndarray:
    vals = rng.standard_normal(n) * np.exp2(rng.integers(-12, 12, n))
    vals[:8] = [0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 3.0]
    return vals.astype(ops.FLOAT_DTYPES[name][0])


@pytest.mark.parametrize("name", ("half", "float", "double"))
def test_float_arithmetic_matches_python(name):
    """Python's double arithmetic, rounded once to the type by struct (exact for half and
    float: a double holds their products and quotients with room for one rounding)."""
    rng = np.random.default_rng(len(name))
    x, y = _floats(rng, name, 64), np.roll(_floats(rng, name, 64), 9)
    for op, f in (("fadd", lambda a, b: a + b), ("fsub", lambda a, b: a - b), ("fmul", lambda a, b: a * b),
                  ("fdiv", lambda a, b: a / b if b else (math.copysign(math.inf, a) * math.copysign(1, b)
                                                         if a and not math.isnan(a) else math.nan))):
        got = ops.from_float(ops.float_binop(op, x, y), name)
        for k in range(64):
            a, b = float(x[k]), float(y[k])
            try:
                want = f(a, b)
            except (OverflowError, ZeroDivisionError, ValueError):
                continue
            if name == "double" and op == "fdiv" and not b:
                pass
            want = _round(want, name) if not math.isnan(want) else want
            gv = float(ops.as_float(got[k:k + 1], name)[0])
            if math.isnan(want):
                assert int(got[k]) == ops.QNAN[name], (op, a, b)
            else:
                assert gv == want and math.copysign(1, gv) == math.copysign(1, want), (op, name, a, b, gv, want)


@pytest.mark.parametrize("name", ("half", "float", "double"))
def test_fma_rounds_once(name):
    from fractions import Fraction

    rng = np.random.default_rng(3)
    x, y, z = (_floats(rng, name, 48)[8:] for _ in range(3))
    got = ops.fma_exact(x, y, z, name)
    ft = ops.FLOAT_DTYPES[name][0]
    for k in range(len(x)):
        exact = Fraction(float(x[k])) * Fraction(float(y[k])) + Fraction(float(z[k]))
        with np.errstate(all="ignore"):
            c = ft(float(exact))
        if not np.isfinite(c):
            continue
        cands = [c, np.nextafter(c, ft(np.inf)), np.nextafter(c, ft(-np.inf))]
        cands = [v for v in cands if np.isfinite(v)]
        best = min(abs(Fraction(float(v)) - exact) for v in cands)
        near = [v for v in cands if abs(Fraction(float(v)) - exact) == best]
        even = [v for v in near if int(np.array(v).view(ops.FLOAT_DTYPES[name][1])) % 2 == 0]
        want = (even or near)[0]
        assert float(got[k]) == float(want), (name, float(x[k]), float(y[k]), float(z[k]))


def test_fcmp_all_predicates():
    x = np.array([1.0, np.nan, 2.0, -0.0, np.inf], dtype=np.float32)
    y = np.array([1.0, 1.0, 1.0, 0.0, np.nan], dtype=np.float32)
    for pred in ("oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno"):
        got = ops.fcmp(pred, x, y)
        for k in range(5):
            a, b = float(x[k]), float(y[k])
            uno = math.isnan(a) or math.isnan(b)
            base = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b, "ne": a != b,
                    "rd": True, "no": False}[pred[1:] if pred not in ("ord", "uno") else pred[1:]]
            want = (base and not uno) if pred[0] == "o" else (base or uno)
            if pred == "uno":
                want = uno
            assert bool(got[k]) == want, (pred, a, b)


def test_fp_to_int_out_of_range_is_poison():
    F, I8 = FloatType("float"), IntType(8)
    bits = ops.from_float(np.array([-1.0, 255.9, 256.0, np.nan, 3.7], dtype=np.float32), "float")
    r, pz = ops.cast("fptoui", bits, F, I8, frozenset())
    assert pz.tolist() == [True, False, True, True, False]
    assert int(r[1]) == 255 and int(r[4]) == 3
    r, pz = ops.cast("fptosi", bits, F, I8, frozenset())
    assert pz.tolist() == [False, True, True, True, False]
    assert int(r[0]) == 0xFF


# ------------------------------------------------------------------ end to end

KERNEL = """
define amdgpu_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out) {{
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %pa = getelementptr inbounds {ty}, ptr addrspace(1) %a, i32 %t
  %pb = getelementptr inbounds {ty}, ptr addrspace(1) %b, i32 %t
  %x = load {ty}, ptr addrspace(1) %pa
  %y = load {ty}, ptr addrspace(1) %pb
  %r = {op} {ty} %x, %y
  %po = getelementptr inbounds {ty}, ptr addrspace(1) %out, i32 %t
  store {ty} %r, ptr addrspace(1) %po
  ret void
}}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


def _launch(nbytes: int, a: bytes, b: bytes, lanes: int = 64) -> Launch:
    bufs = (Buffer("a", len(a), "i", a), Buffer("b", len(b), "i", b), Buffer("out", nbytes, "i", bytes(nbytes)))
    return Launch("k", lanes, 64, 1, tuple(ArgValue("buffer", buffer=x.name) for x in bufs), bufs)


@pytest.mark.parametrize("op", ("add nsw", "sub", "mul nuw", "shl", "ashr exact", "udiv", "srem", "xor"))
@pytest.mark.parametrize("bits", (8, 16, 32, 64))
def test_kernel_binop_per_lane(op, bits):
    rng = np.random.default_rng(bits)
    n = bits // 8
    a = _operands(rng, bits, 64)
    b = np.roll(_operands(rng, bits, 64), 1)
    if op.split()[0] in ("shl", "ashr"):
        b = b % np.uint64(bits)
    if op.split()[0] in ("udiv", "srem"):
        b = np.where(b == 0, np.uint64(3), b)
        b = np.where(b == np.uint64((1 << bits) - 1), np.uint64(5), b)
    res = run_ir(KERNEL.format(ty=f"i{bits}", op=op), target="amdgpu", launch=_launch(64 * n, a.astype("<u8").view(np.uint8).reshape(64, 8)
                                                               [:, :n].tobytes(),
                                                               b.astype("<u8").view(np.uint8).reshape(64, 8)
                                                               [:, :n].tobytes()))
    name, *flags = op.split()
    want = [_python_int(name, int(a[k]), int(b[k]), bits, frozenset(flags)) for k in range(64)]
    first_poison = next((k for k, (_, p) in enumerate(want) if p), None)
    if first_poison is None:
        assert res.undefined is None
        assert [s.value for s in res.stores] == [w for w, _ in want]
        assert [s.local for s in res.stores] == list(range(64))
    else:
        assert res.undefined is not None and res.undefined.kind == "poison"
        assert res.undefined.lane == first_poison


@pytest.mark.parametrize("name", ("half", "float", "double"))
def test_kernel_float_per_lane(name):
    rng = np.random.default_rng(11)
    x, y = _floats(rng, name, 64), np.roll(_floats(rng, name, 64), 2)
    res = run_ir(KERNEL.format(ty=name, op="fmul"), _launch(64 * x.itemsize, x.tobytes(), y.tobytes()),
                 target="amdgpu")
    assert res.undefined is None
    for k, s in enumerate(res.stores):
        want = _round(float(x[k]) * float(y[k]), name)
        got = struct.unpack(_FMT[name], s.value.to_bytes(x.itemsize, "little"))[0]
        assert (math.isnan(want) and s.value == ops.QNAN[name]) or got == want

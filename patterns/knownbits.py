"""KnownBits as LLVM's llvm/Support/KnownBits.h keeps them (bits known zero, bits known
one) and the transfer functions the IR and DAG analyses share: KnownBits::computeForAddCarry
(add, sub), KnownBits::mul, shifts by a constant or by an amount known only partly
(KnownBits::shl/lshr/ashr: the bits common to every possible amount)."""

from __future__ import annotations

__all__ = ["Known", "clz", "ctz", "const_known", "add_carry", "shift_const", "shift_known", "mul_known"]


def clz(u: int, bits: int) -> int:
    return bits - u.bit_length()


def ctz(u: int, bits: int) -> int:
    return bits if u == 0 else (u & -u).bit_length() - 1


class Known:
    """KnownBits: masks of bits known zero and known one."""

    __slots__ = ("zero", "one", "bits")

    def __init__(self, zero: int, one: int, bits: int):
        self.zero, self.one, self.bits = zero, one, bits

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1

    def unknown(self) -> bool:
        return not (self.zero | self.one)

    def min_value(self) -> int:
        return self.one

    def max_value(self) -> int:
        return ~self.zero & self.mask

    def intersect(self, o: "Known") -> "Known":
        return Known(self.zero & o.zero, self.one & o.one, self.bits)

    def conflict(self) -> bool:
        return bool(self.zero & self.one)

    def lead_zeros(self) -> int:
        return clz(~self.zero & self.mask, self.bits)

    def trail_zeros(self) -> int:
        return ctz(~self.zero & self.mask, self.bits)


def const_known(u: int, bits: int) -> Known:
    m = (1 << bits) - 1
    return Known(~u & m, u & m, bits)


def add_carry(l: Known, r: Known, carry_zero: bool, carry_one: bool) -> Known:
    """KnownBits::computeForAddCarry."""
    m = l.mask
    ps_zero = ((~l.zero & m) + (~r.zero & m) + (0 if carry_zero else 1)) & m
    ps_one = (l.one + r.one + (1 if carry_one else 0)) & m
    c_zero = ~(ps_zero ^ l.zero ^ r.zero) & m
    c_one = ps_one ^ l.one ^ r.one
    known = (l.zero | l.one) & (r.zero | r.one) & (c_zero | c_one)
    return Known(~ps_one & known & m, ps_one & known, l.bits)


def shift_const(k: Known, op: str, c: int) -> Known:
    m, b = k.mask, k.bits
    if op == "shl":
        return Known(((k.zero << c) | ((1 << c) - 1)) & m, (k.one << c) & m, b)
    if op == "lshr":
        return Known((k.zero >> c) | (m & ~(m >> c)), k.one >> c, b)
    # ashr: the sign bit's knowledge is copied into the vacated high bits
    hi = m & ~(m >> c)
    z, o = k.zero >> c, k.one >> c
    if k.zero >> (b - 1) & 1:
        z |= hi
    if k.one >> (b - 1) & 1:
        o |= hi
    return Known(z, o, b)


def shift_known(k: Known, op: str, amt: Known) -> Known:
    """KnownBits::shl/lshr/ashr for an amount known only partly: the bits common to
    every shift by an amount the amount's known bits allow (amounts >= the width are
    poison and left out; all of them poison gives all-zero known bits)."""
    b = k.bits
    lo = min(amt.min_value(), b)
    if k.unknown():
        if op == "shl":
            return Known((1 << lo) - 1, 0, b)
        if op == "lshr":
            return Known(k.mask & ~(k.mask >> lo) if lo < b else k.mask, 0, b)
        return Known(0, 0, b)
    hi = amt.max_value()
    hi = b - 1 if hi >= b else hi
    res = None
    for s in range(lo, hi + 1):
        if s & amt.zero or (amt.one | s) != s:
            continue
        r = shift_const(k, op, s)
        res = r if res is None else res.intersect(r)
        if res.unknown():
            break
    if res is None or res.conflict():
        return Known(k.mask, 0, b)
    return res


def mul_known(l: Known, r: Known) -> Known:
    """KnownBits::mul: high zeros from the product of the maxima, the low bits exact
    as far as both operands' low bits are known."""
    b, m = l.bits, l.mask
    prod = l.max_value() * r.max_value()
    lead = 0 if prod > m else clz(prod, b)
    t0, t1 = ctz(~(l.zero | l.one) & m, b), ctz(~(r.zero | r.one) & m, b)
    z0, z1 = l.trail_zeros(), r.trail_zeros()
    tz = z0 + z1
    small = min(t0 - z0, t1 - z1)
    known = min(small + tz, b)
    bottom = ((l.one & ((1 << t0) - 1)) * (r.one & ((1 << t1) - 1))) & m
    lowmask = (1 << known) - 1
    zero = (m & ~(m >> lead)) | (~bottom & lowmask)
    return Known(zero & m, bottom & lowmask, b)

"""KnownBits as LLVM's llvm/Support/KnownBits.h keeps them (bits known zero, bits known
one) and the transfer functions the IR and DAG analyses share: KnownBits::computeForAddCarry
(add, sub), KnownBits::mul, shifts by a constant or by an amount known only partly
(KnownBits::shl/lshr/ashr: the bits common to every possible amount).

Each transfer function also exists on the two masks as plain integers (``*_masks``:
operands and result as ``(zero, one)`` pairs, no object per step), which
patterns.irpasses uses for the many values its known-bits queries reach; the ``Known``
versions wrap them."""

from __future__ import annotations

__all__ = ["Known", "clz", "ctz", "const_known", "add_carry", "add_carry_masks", "shift_const", "shift_known",
           "shift_masks", "mul_known", "mul_masks"]


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
    z, o = add_carry_masks(l.zero, l.one, r.zero, r.one, (1 << l.bits) - 1, carry_zero, carry_one)
    return Known(z, o, l.bits)


def add_carry_masks(lz: int, lo: int, rz: int, ro: int, m: int, carry_zero: bool, carry_one: bool) -> tuple:
    """``add_carry`` on masks: operands known zero ``lz``/``rz`` and known one
    ``lo``/``ro``, ``m`` the width's all-ones mask; (zero, one) of the sum."""
    ps_zero = ((~lz & m) + (~rz & m) + (0 if carry_zero else 1)) & m
    ps_one = (lo + ro + (1 if carry_one else 0)) & m
    c_zero = ~(ps_zero ^ lz ^ rz) & m
    c_one = ps_one ^ lo ^ ro
    known = (lz | lo) & (rz | ro) & (c_zero | c_one)
    return ~ps_one & known & m, ps_one & known


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
    z, o = shift_masks(k.zero, k.one, op, amt.zero, amt.one, k.bits, amt.bits)
    return Known(z, o, k.bits)


def shift_masks(kz: int, ko: int, op: str, az: int, ao: int, b: int, amt_bits: int) -> tuple:
    """``shift_known`` on masks: the shifted value's (``b`` bits wide) and the amount's
    (``amt_bits`` wide); (zero, one) of the result."""
    m = (1 << b) - 1
    lo = ao if ao < b else b  # (the least possible amount)
    if not (kz | ko):
        if op == "shl":
            return (1 << lo) - 1, 0
        if op == "lshr":
            return (m & ~(m >> lo) if lo < b else m), 0
        return 0, 0
    hi = ~az & ((1 << amt_bits) - 1)  # (the greatest possible amount)
    if hi >= b:
        hi = b - 1
    rz = ro = -1  # (all ones: nothing intersected yet)
    seen = False
    sign_z = kz >> (b - 1) & 1
    sign_o = ko >> (b - 1) & 1
    for s in range(lo, hi + 1):
        if s & az or (ao | s) != s:
            continue
        # shift_const by s, on the masks
        if op == "shl":
            z, o = ((kz << s) | ((1 << s) - 1)) & m, (ko << s) & m
        elif op == "lshr":
            z, o = (kz >> s) | (m & ~(m >> s)), ko >> s
        else:
            z, o = kz >> s, ko >> s
            if sign_z:
                z |= m & ~(m >> s)
            if sign_o:
                o |= m & ~(m >> s)
        rz &= z
        ro &= o
        seen = True
        if not (rz | ro):
            break
    if not seen or rz & ro:
        return m, 0
    return rz, ro


def mul_known(l: Known, r: Known) -> Known:
    """KnownBits::mul: high zeros from the product of the maxima, the low bits exact
    as far as both operands' low bits are known."""
    z, o = mul_masks(l.zero, l.one, r.zero, r.one, l.bits, r.bits)
    return Known(z, o, l.bits)


def mul_masks(lz: int, lo: int, rz: int, ro: int, b: int, rb: int) -> tuple:
    """``mul_known`` on masks (operands ``b`` and ``rb`` bits wide); (zero, one)."""
    m = (1 << b) - 1
    rm = (1 << rb) - 1
    prod = (~lz & m) * (~rz & rm)
    lead = 0 if prod > m else b - prod.bit_length()
    t0, t1 = _ctz(~(lz | lo) & m, b), _ctz(~(rz | ro) & m, b)
    z0, z1 = _ctz(~lz & m, b), _ctz(~rz & rm, rb)
    tz = z0 + z1
    small = min(t0 - z0, t1 - z1)
    known = min(small + tz, b)
    bottom = ((lo & ((1 << t0) - 1)) * (ro & ((1 << t1) - 1))) & m
    lowmask = (1 << known) - 1
    zero = (m & ~(m >> lead)) | (~bottom & lowmask)
    return zero & m, bottom & lowmask


def _ctz(u: int, bits: int) -> int:
    return bits if u == 0 else (u & -u).bit_length() - 1

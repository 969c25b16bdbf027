"""KnownBits as LLVM's llvm/Support/KnownBits.h keeps them (bits known zero, bits known
one) and the transfer functions the IR and DAG analyses share: KnownBits::computeForAddCarry
(add, sub), KnownBits::mul, shifts by a constant or by an amount known only partly
(KnownBits::shl/lshr/ashr: the bits common to every possible amount).

Each transfer function also exists on the two masks as plain integers (``*_masks``:
operands and result as ``(zero, one)`` pairs, no object per step), which
patterns.llc.valuetracking uses for the many values its known-bits queries reach; the ``Known``
versions wrap them."""

from __future__ import annotations

from patterns.support.intops import clz, ctz

__all__ = ["Known", "const_known", "add_carry", "add_carry_masks", "shift_const", "shift_known",
           "shift_masks", "mul_known", "mul_masks"]


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
    t0, t1 = ctz(~(lz | lo) & m, b), ctz(~(rz | ro) & m, b)
    z0, z1 = ctz(~lz & m, b), ctz(~rz & rm, rb)
    tz = z0 + z1
    small = min(t0 - z0, t1 - z1)
    known = min(small + tz, b)
    bottom = ((lo & ((1 << t0) - 1)) * (ro & ((1 << t1) - 1))) & m
    lowmask = (1 << known) - 1
    zero = (m & ~(m >> lead)) | (~bottom & lowmask)
    return zero & m, bottom & lowmask


# --- the integer intrinsics: KnownBits::umax/umin/smax/smin/abs and the counts --------
# (all on (zero, one) masks of ``bits`` bits)

def _lead_ones(x: int, bits: int) -> int:
    return bits - (~x & ((1 << bits) - 1)).bit_length()


def _make_ge(z: int, o: int, val: int, bits: int) -> tuple[int, int]:
    """KnownBits::makeGE: the known bits of a value that is also >= ``val`` (unsigned):
    in the leading positions where the value cannot exceed ``val``, ``val``'s ones."""
    n = _lead_ones(z | val, bits)
    return z, o | (val & ~((1 << (bits - n)) - 1))


def umax_masks(lz: int, lo: int, rz: int, ro: int, bits: int) -> tuple[int, int]:
    """KnownBits::umax: an operand whose minimum reaches the other's maximum is the
    result; otherwise the bits common to each side made >= the other's minimum."""
    m = (1 << bits) - 1
    if lo >= ~rz & m:
        return lz, lo
    if ro >= ~lz & m:
        return rz, ro
    a = _make_ge(lz, lo, ro, bits)
    b = _make_ge(rz, ro, lo, bits)
    return a[0] & b[0], a[1] & b[1]


def umin_masks(lz: int, lo: int, rz: int, ro: int, bits: int) -> tuple[int, int]:
    """KnownBits::umin: umax of the complemented values, complemented."""
    o, z = umax_masks(lo, lz, ro, rz, bits)
    return z, o


def _flip_sign(z: int, o: int, bits: int) -> tuple[int, int]:
    """Swap the sign bit between the masks (signed order <-> unsigned order)."""
    s = 1 << (bits - 1)
    return (z & ~s) | (o & s), (o & ~s) | (z & s)


def smax_masks(lz: int, lo: int, rz: int, ro: int, bits: int) -> tuple[int, int]:
    """KnownBits::smax: umax with the sign bit flipped."""
    a, b = _flip_sign(lz, lo, bits), _flip_sign(rz, ro, bits)
    return _flip_sign(*umax_masks(a[0], a[1], b[0], b[1], bits), bits)


def smin_masks(lz: int, lo: int, rz: int, ro: int, bits: int) -> tuple[int, int]:
    """KnownBits::smin: umax of the values mapped [smin, smax] -> [umax, 0]
    (complemented except the sign bit), mapped back."""
    s = 1 << (bits - 1)

    def flip(z, o):
        return (o & ~s) | (z & s), (z & ~s) | (o & s)

    a, b = flip(lz, lo), flip(rz, ro)
    return flip(*umax_masks(a[0], a[1], b[0], b[1], bits))


def signed_min_max(z: int, o: int, bits: int) -> tuple[int, int]:
    """(getSignedMinValue, getSignedMaxValue) as signed integers."""
    s = 1 << (bits - 1)
    m = (1 << bits) - 1
    lo = o | (s if not z & s else 0)
    hi = ~z & m
    if not o & s:
        hi &= ~s
    return lo - (1 << bits) if lo & s else lo, hi - (1 << bits) if hi & s else hi


def abs_masks(z: int, o: int, bits: int, int_min_poison: bool) -> tuple:
    """KnownBits::abs."""
    m = (1 << bits) - 1
    s = 1 << (bits - 1)
    if z & s:  # non-negative: itself
        return z, o
    if o & s:  # negative: 0 - x
        tz, to = z, o
        min_tz = ctz(~z & m, bits)
        if int_min_poison and bin(z).count("1") + 2 == bits:
            to |= 1 << min_tz
        rz, ro = add_carry_masks(m, 0, to, tz, m, False, True)  # 0 + ~x + 1
        if int_min_poison:  # (sub nsw 0, x): the signed range of the result
            xlo, xhi = signed_min_max(tz, to, bits)
            smin, smax = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
            lo_v = max(smin, min(smax, 0 - xhi))
            hi_v = max(smin, min(smax, 0 - xlo))
            if lo_v >= 0:
                n = _lead_ones(lo_v & (s - 1), bits - 1)
                ro |= (s - 1) & ~((1 << (bits - 1 - n)) - 1)
                rz |= s
            if hi_v < 0:
                n = (bits - 1) - (hi_v & (s - 1)).bit_length()
                rz |= (s - 1) & ~((1 << (bits - 1 - n)) - 1)
                ro |= s
            if rz & ro:
                rz, ro = m, 0
            if bin(to).count("1") == 1 and bin(~tz & m).count("1") != 1:
                to2, tz2 = to & ~s, tz | s
                lead = clz(~tz2 & m, bits)
                ro |= ((1 << (bits - 1)) - 1) & ~((1 << (bits - lead)) - 1)
        return rz, ro
    max_tz = ctz(o, bits)
    min_tz = ctz(~z & m, bits)
    rz, ro = (1 << min_tz) - 1, 0
    if max_tz == min_tz and max_tz < bits:
        ro |= 1 << max_tz
    if int_min_poison or (o and o != s):
        ro &= ~s
        rz |= s
    return rz, ro


def count_masks(kind: str, z: int, o: int, bits: int, zero_poison: bool = False) -> tuple:
    """The known bits of ctpop / ctlz / cttz of a value with known bits (z, o): zero
    from the bit width of the largest possible count up (ctlz/cttz with a zero input
    poison count at most ``bits - 1``, ValueTracking's rule)."""
    m = (1 << bits) - 1
    if kind == "ctpop":
        most = bin(~z & m).count("1")
    elif kind == "ctlz":
        most = clz(o, bits)
    else:
        most = ctz(o, bits)
    if zero_poison and kind != "ctpop" and most > bits - 1:
        most = bits - 1
    return m & ~((1 << most.bit_length()) - 1), 0


def reverse_masks(z: int, o: int, bits: int) -> tuple:
    """KnownBits::reverseBits."""
    return int(format(z, f"0{bits}b")[::-1], 2), int(format(o, f"0{bits}b")[::-1], 2)

"""The known-bits transfer functions of the ISD opcodes, on ``Known`` values (not nodes): the
binary ops, shifts, the integer intrinsic nodes (counts, min/max, abs, bitreverse),
sign_extend_inreg, the sign-bit step of ComputeNumSignBits, and the shared ``Known``
answers (``unknown``, ``lz_known``)."""

from __future__ import annotations

from typing import Final

from patterns.support.knownbits import abs_masks, add_carry, count_masks, Known, mul_known, reverse_masks, shift_known, shift_masks, smax_masks, smin_masks, umax_masks, umin_masks


_UNKNOWN: Final[dict] = {}


def unknown(bits: int) -> Known:
    """The shared Known of ``bits`` bits with no bit known (Known values are never
    changed once made)."""
    k = _UNKNOWN.get(bits)
    if k is None:
        k = _UNKNOWN[bits] = Known(0, 0, bits)
    return k


UNK32: Final = unknown(32)
_LZ_KNOWN: Final[dict] = {}  # (leading zeros, bits) -> Known


def lz_known(lz: int, bits: int) -> Known:
    """The shared Known of a ``bits``-bit value with ``lz`` known leading zeros."""
    k = _LZ_KNOWN.get((lz, bits))
    if k is None:
        m = (1 << bits) - 1
        k = _LZ_KNOWN[(lz, bits)] = Known(m & ~(m >> lz) if lz < bits else m, 0, bits)
    return k


KB_MINMAX: Final = {"ISD::UMIN": umin_masks, "ISD::UMAX": umax_masks, "ISD::SMIN": smin_masks, "ISD::SMAX": smax_masks}
_KB_COUNT: Final = {"ISD::CTPOP": "ctpop", "ISD::CTLZ": "ctlz", "ISD::CTLZ_ZERO_UNDEF": "ctlz", "ISD::CTTZ": "cttz",
                    "ISD::CTTZ_ZERO_UNDEF": "cttz"}
KB_INTRINSIC: Final = frozenset(KB_MINMAX) | frozenset(_KB_COUNT) | {"ISD::BITREVERSE", "ISD::ABS"}


def sext_in_reg_known(k: Known, ext: int) -> Known:
    """KnownBits::sextInReg: the low ``ext`` bits, their top bit copied upward."""
    bits = k.bits
    if ext >= bits:
        return k
    m = (1 << bits) - 1
    low = (1 << ext) - 1
    high = m & ~low
    z, o = k.zero & low, k.one & low
    if z >> (ext - 1) & 1:
        z |= high
    if o >> (ext - 1) & 1:
        o |= high
    if not (z | o):
        return UNK32 if bits == 32 else unknown(bits)
    return Known(z, o, bits)


def kb_intrinsic(opc: str, bits: int, ka: Known, kb: Known | None) -> Known:
    """SelectionDAG::computeKnownBits of the counting, bit-reversing, abs and min/max
    nodes from their operands' (KnownBits::umin/umax/smin/smax, abs with INT_MIN
    allowed; a count is below 2^(bit width of its largest possible value), with no
    zero-undef clamp in the DAG)."""
    if kb is not None:
        z, o = KB_MINMAX[opc](ka.zero, ka.one, kb.zero, kb.one, bits)
    elif opc == "ISD::BITREVERSE":
        z, o = reverse_masks(ka.zero, ka.one, bits)
    elif opc == "ISD::ABS":
        z, o = abs_masks(ka.zero, ka.one, bits, False)
    else:
        z, o = count_masks(_KB_COUNT[opc], ka.zero, ka.one, bits)
    if not (z | o):
        return UNK32 if bits == 32 else unknown(bits)
    return Known(z, o, bits)


def kb_binop(opc: str, bits: int, ka: Known, kb: Known) -> Known:
    if opc == "ISD::AND":
        return Known(ka.zero | kb.zero, ka.one & kb.one, bits)
    if opc == "ISD::OR":
        return Known(ka.zero & kb.zero, ka.one | kb.one, bits)
    if opc == "ISD::XOR":
        return Known((ka.zero & kb.zero) | (ka.one & kb.one), (ka.zero & kb.one) | (ka.one & kb.zero), bits)
    if opc == "ISD::ADD":
        return add_carry(ka, kb, True, False)
    if opc == "ISD::SUB":
        return add_carry(ka, Known(kb.one, kb.zero, bits), False, True)
    if opc == "ISD::MUL":
        return mul_known(ka, kb)
    return shift_known(ka, _KB_SHIFT[opc], kb)


def kb_shift_masks(opc: str, bits: int, ka: Known, kb: Known) -> tuple:
    """``kb_binop`` for a shift, as (zero, one) masks: by a constant amount (every bit
    of ``kb`` known, less than ``bits``) directly, what knownbits.shift_masks computes
    for one possible amount; other amounts by shift_masks."""
    az, c = kb.zero, kb.one
    if c >= bits or (az | c) != (1 << kb.bits) - 1:
        return shift_masks(ka.zero, ka.one, _KB_SHIFT[opc], az, c, bits, kb.bits)
    m = (1 << bits) - 1
    kz, ko = ka.zero, ka.one
    if not (kz | ko):
        if opc == "ISD::SHL":
            return (1 << c) - 1, 0
        if opc == "ISD::SRL":
            return m & ~(m >> c), 0
        return 0, 0
    if opc == "ISD::SHL":
        z, o = ((kz << c) | ((1 << c) - 1)) & m, (ko << c) & m
    elif opc == "ISD::SRL":
        z, o = (kz >> c) | (m & ~(m >> c)), ko >> c
    else:
        z, o = kz >> c, ko >> c
        if kz >> (bits - 1) & 1:
            z |= m & ~(m >> c)
        if ko >> (bits - 1) & 1:
            o |= m & ~(m >> c)
    if z & o:
        return m, 0  # (conflicting operand bits: shift_masks' answer)
    return z, o


KB_BINOPS: Final = frozenset({"ISD::AND", "ISD::OR", "ISD::XOR", "ISD::ADD", "ISD::SUB", "ISD::MUL",
                               "ISD::SHL", "ISD::SRL", "ISD::SRA"})
_KB_SHIFT: Final = {"ISD::SHL": "shl", "ISD::SRL": "lshr", "ISD::SRA": "ashr"}


def sign_bits_step(k: Known, bits: int, t: int) -> int:
    """ComputeNumSignBits of ``x - 1`` or ``0 - x`` from x's known bits ``k`` and sign
    bits ``t``: every bit for an x in {0, 1} (the result is 0 or -1), ``t`` for a
    non-negative x (no carry out), else 0 (the general rule applies)."""
    if (k.zero | 1) == (1 << bits) - 1:
        return bits
    return t if k.zero >> (bits - 1) & 1 else 0

"""Fixed-width integer arithmetic: the one definition of wrap-around, sign, width and bit counts.

Every stage that folds or reasons about an ``iN`` value (the IR readers and passes, the
DAG builder and combiner, the C++ predicate evaluation of ``tdgen.cppexpr``, known bits)
uses these, so a
value means the same thing everywhere: an ``iN`` value is held as a Python int, either
unsigned (``0 <= u < 2**N``, as ``APInt::getZExtValue``) or signed (``-2**(N-1) <= s <
2**(N-1)``, as ``getSExtValue``). A value type that is not an integer has width 0.
"""

from __future__ import annotations

from typing import Final

__all__ = ["mask", "to_signed", "signed_of_unsigned", "int_width", "wrap_vt", "clz", "ctz"]

_WIDTH: Final[dict] = {}


def mask(bits: int) -> int:
    """The ``bits`` low bits set."""
    return (1 << bits) - 1


def to_signed(x: int, bits: int) -> int:
    """``x`` wrapped to ``bits`` bits and read as two's complement (getSExtValue); 0
    for ``bits`` 0."""
    x &= (1 << bits) - 1
    return x - (1 << bits) if bits and x >> (bits - 1) else x


def signed_of_unsigned(u: int, bits: int) -> int:
    """An unsigned ``bits``-bit value (already in range) read as signed."""
    return u - (1 << bits) if u >> (bits - 1) else u


def int_width(vt: str) -> int:
    """N for the integer value type ``iN``, 0 for any other type (cached)."""
    w = _WIDTH.get(vt)
    if w is None:
        w = _WIDTH[vt] = int(vt[1:]) if vt[:1] == "i" and vt[1:].isdigit() else 0
    return w


def wrap_vt(value: int, vt: str) -> int:
    """``value`` wrapped to the width of the integer type ``vt`` and read as signed (as
    ``APInt::getSExtValue`` prints a constant); unchanged for a type that is not an
    integer or is ``i0``."""
    bits = int_width(vt)
    if bits == 0:
        return value
    value &= (1 << bits) - 1
    if value >> (bits - 1):
        value -= 1 << bits
    return value


def clz(u: int, bits: int) -> int:
    """Leading zero bits of the unsigned ``bits``-bit value ``u`` (``bits`` for 0)."""
    return bits - u.bit_length()


def ctz(u: int, bits: int) -> int:
    """Trailing zero bits of ``u`` (``bits`` for 0)."""
    return bits if u == 0 else (u & -u).bit_length() - 1

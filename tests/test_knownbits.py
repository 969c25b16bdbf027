"""The KnownBits transfer functions of the integer intrinsics (patterns.support.knownbits), checked
exhaustively on 4-bit values: every answer is sound (each value the operation can give
agrees with the known bits), and the functions are not trivially weak (they find as
many known bits as the exact answer in most cases, as LLVM's algorithms do)."""

from __future__ import annotations

import itertools

from patterns.support.knownbits import (abs_masks, count_masks, reverse_masks, smax_masks, smin_masks, umax_masks,
                                umin_masks)

BITS = 4
M = (1 << BITS) - 1
KNOWNS = [(z, o) for z in range(16) for o in range(16) if not z & o]


def values(k):
    z, o = k
    return [v for v in range(16) if not v & z and v & o == o]


def signed(v):
    return v - 16 if v & 8 else v


def exact(outs):
    """The known bits every value in ``outs`` shares."""
    z, o = M, M
    for v in outs:
        z &= ~v & M
        o &= v
    return z, o


def check(result, outs):
    z, o = result
    assert all(not v & z and v & o == o for v in outs), (result, outs)
    ez, eo = exact(outs)
    return (z | o) == (ez | eo)


def test_min_max_sound_and_mostly_exact():
    ops = {umax_masks: lambda a, b: max(a, b), umin_masks: lambda a, b: min(a, b),
           smax_masks: lambda a, b: max(signed(a), signed(b)) & M,
           smin_masks: lambda a, b: min(signed(a), signed(b)) & M}
    for f, op in ops.items():
        hits = total = 0
        for a, b in itertools.product(KNOWNS, KNOWNS):
            outs = [op(x, y) for x in values(a) for y in values(b)]
            hits += check(f(a[0], a[1], b[0], b[1], BITS), outs)
            total += 1
        assert hits / total > 0.9, (f.__name__, hits / total)


def test_abs_counts_reverse_sound():
    for k in KNOWNS:
        vs = values(k)
        for poison in (False, True):
            check(abs_masks(k[0], k[1], BITS, poison), [abs(signed(v)) & M for v in vs if not (poison and v == 8)])
        check(count_masks("ctpop", *k, BITS), [bin(v).count("1") for v in vs])
        check(count_masks("ctlz", *k, BITS), [BITS - v.bit_length() for v in vs])
        check(count_masks("cttz", *k, BITS), [BITS if not v else (v & -v).bit_length() - 1 for v in vs])
        assert check(reverse_masks(*k, BITS), [int(format(v, "04b")[::-1], 2) for v in vs])
    # a known non-negative value is its own abs; ctpop of a 3-bit value is at most 3
    assert abs_masks(0b1000, 0b0001, BITS, False) == (0b1000, 0b0001)
    assert count_masks("ctpop", 0b1000, 0, BITS) == (0b1100, 0)

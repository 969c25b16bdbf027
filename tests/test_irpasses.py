"""patterns.irpasses: the constant-range implication of isImpliedCondICmps, and that the
IR passes never fail on valid IR.

The regions are checked against brute-force enumeration on narrow integers (every
predicate, every constant); the implication is then exactly LLVM's rule: the dominating
region inside the asked one -> true, disjoint -> false, else unknown.
"""

from __future__ import annotations

import pytest

from patterns.irpasses import _disjoint, _region, _subset

@pytest.fixture(scope="module")
def amdgpu():
    from tdgen.spec import load_target

    return load_target("amdgpu")


_PREDS = ("eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge")


def _holds(pred: str, v: int, c: int, bits: int) -> bool:
    half = 1 << (bits - 1)

    def s(x):
        return x - (1 << bits) if x >= half else x

    return {"eq": v == c, "ne": v != c, "ult": v < c, "ule": v <= c, "ugt": v > c, "uge": v >= c,
            "slt": s(v) < s(c), "sle": s(v) <= s(c), "sgt": s(v) > s(c), "sge": s(v) >= s(c)}[pred]


def _members(region) -> set[int]:
    return {v for lo, hi in region for v in range(lo, hi + 1)}


@pytest.mark.parametrize("bits", [1, 3, 4])
def test_region_is_the_exact_icmp_region(bits):
    for pred in _PREDS:
        for c in range(1 << bits):
            region = _region(pred, c, bits)
            want = {v for v in range(1 << bits) if _holds(pred, v, c, bits)}
            assert _members(region) == want, (pred, c, region)
            # sorted, disjoint and not adjacent (what _subset relies on)
            assert all(a[1] + 1 < b[0] for a, b in zip(region, region[1:])), region


@pytest.mark.parametrize("bits", [3, 4])
def test_subset_and_disjoint_agree_with_sets(bits):
    for lp in _PREDS:
        for c1 in range(1 << bits):
            dom = _region(lp, c1, bits)
            for rp in _PREDS:
                for c2 in range(1 << bits):
                    sat = _region(rp, c2, bits)
                    a, b = _members(dom), _members(sat)
                    assert _subset(dom, sat) == (a <= b)
                    assert _disjoint(dom, sat) == (not (a & b))


def test_wide_regions_decide_implications():
    """32-bit regions far from small sets (x ugt 1000 implies x ugt 10; x slt -5 and
    x sgt 3 are disjoint) are decided, not given up on."""
    assert _subset(_region("ugt", 1000, 32), _region("ugt", 10, 32))
    assert not _subset(_region("ugt", 10, 32), _region("ugt", 1000, 32))
    assert _disjoint(_region("slt", (-5) & 0xFFFFFFFF, 32), _region("sgt", 3, 32))
    assert _subset(_region("slt", (-5) & 0xFFFFFFFF, 32), _region("ne", 0, 32))


@pytest.mark.parametrize("seed", [64, 127] + list(range(0, 40)))
def test_isel_never_fails_on_generated_cfgs(amdgpu, seed):
    """Kernels with irreducible cycles, switches, compares of one value against several
    constants under dominating branches (seeds 64 and 127 made isImpliedCondICmps fail
    before regions became exact intervals): selected, or rejected with a TdgenError
    (an operation the reference target does not model), never an internal exception."""
    from patterns.ir import parse_module
    from patterns.irgen import generate_kernel
    from patterns.isel import select_module
    from tdgen.errors import TdgenError

    module = parse_module(generate_kernel(seed, 300), f"k{seed}.ll")
    try:
        select_module(module, amdgpu)
    except TdgenError:
        pass

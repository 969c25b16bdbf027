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


# --- the fast paths of patterns.irpasses against the plain ones ---------------------------


def _kernels():
    from patterns.irgen import generate_kernel
    from patterns.iselgen import generate_isel_kernel

    for seed in range(12):
        yield generate_isel_kernel(seed, 120, constants=bool(seed % 2))
    for seed in range(6):
        yield generate_kernel(seed, 200)


def _fn(text):
    from patterns.ir import parse_module

    return next(f for f in parse_module(text, "k.ll").functions if not f.is_declaration)


def test_user_lists_and_scans_give_the_same_ir(amdgpu):
    """run_ir_passes reads the parser's user lists when ``fn.uses`` says they are
    current (dead instructions, the phis to simplify again, the instructions each
    rewrite visits); with ``fn.uses`` reset it scans the function instead. Both leave
    the same IR."""
    from patterns.divergence import analyze
    from patterns.ir_print import function_text
    from patterns.irpasses import run_ir_passes

    for text in _kernels():
        out = []
        for keep_uses in (True, False):
            fn = _fn(text)
            ua = analyze(fn, amdgpu)
            assert fn.uses is not None
            if not keep_uses:
                fn.uses = None
            run_ir_passes(fn, ua, amdgpu)
            out.append(function_text(fn))
        assert out[0] == out[1]


def test_cse_keys_are_equal_exactly_when_cse_key_is():
    """_cse_keys builds cheaper keys than _cse_key; the same instructions (operands as
    written) must get equal keys."""
    from patterns.irpasses import _CSE_OPS, _cse_key, _cse_keys

    for text in _kernels():
        key_of = _cse_keys()
        fn = _fn(text)
        insts = [i for b in fn.blocks for i in b.instructions if i.opcode in _CSE_OPS]
        slow, fast = {}, {}
        for i in insts:
            slow.setdefault(_cse_key(i, i.operands), []).append(i)
            fast.setdefault(key_of(i, i.operands), []).append(i)
        assert sorted(map(tuple, map(lambda g: [id(x) for x in g], slow.values()))) == \
            sorted(map(tuple, map(lambda g: [id(x) for x in g], fast.values())))


_CSE_DIAMOND = """define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b, i1 %c) {
entry:
  %x = add i32 %a, %b
  store i32 %x, ptr addrspace(1) %out
  br i1 %c, label %then, label %else
then:
  %y = add i32 %b, %a
  %p = mul i32 %a, %b
  %p2 = xor i32 %p, %y
  br label %join
else:
  %q = mul i32 %a, %b
  br label %join
join:
  %r = mul i32 %b, %a
  %s = add i32 %a, %b
  %t = phi i32 [ %p2, %then ], [ %q, %else ]
  %u = add i32 %t, %r
  %w = add i32 %u, %s
  store i32 %w, ptr addrspace(1) %out
  ret void
}
"""


def test_cse_table_holds_what_dominates():
    """EarlyCSE's table holds the instructions of the dominating blocks only: an equal
    instruction in a sibling block (then/else) or in a block that does not dominate
    (the join's predecessors) is no replacement; one in the entry is (commuted too)."""
    from patterns.irpasses import early_cse

    fn = _fn(_CSE_DIAMOND)
    rep = {i.name: getattr(v, "name", v) for i, v in early_cse(fn).items()}
    assert rep == {"y": "x", "s": "x"}


def test_divergence_of_multiplies_asked_lazily(amdgpu):
    """_divergent_after_simplification (only the values the multiplies depend on) agrees
    with _divergence_after_simplification (every instruction, in reverse post-order)."""
    from patterns.divergence import analyze
    from patterns.irpasses import _divergence_after_simplification, _divergent_after_simplification

    for text in _kernels():
        fn = _fn(text)
        ua = analyze(fn, amdgpu)
        insts = [i for b in fn.blocks for i in b.instructions]
        full = _divergence_after_simplification(fn, ua)
        assert _divergent_after_simplification(insts, ua) == [i for i in insts if full[i]]


def _ref_add_carry(lz, lo, rz, ro, m, cz, co):
    # the sum of the possible values with every unknown bit 0 (ones) and 1 (zeros),
    # carries known where both sums agree
    sum_zero = ((~lz & m) + (~rz & m) + (0 if cz else 1)) & m
    sum_one = (lo + ro + (1 if co else 0)) & m
    carry_known = (~(sum_zero ^ lz ^ rz) & m) | (sum_one ^ lo ^ ro)
    known = (lz | lo) & (rz | ro) & carry_known
    return ~sum_one & known & m, sum_one & known


def _ref_shift(kz, ko, op, az, ao, b, ab):
    m = (1 << b) - 1
    lo = min(ao, b)
    if not (kz | ko):
        if op == "shl":
            return (1 << lo) - 1, 0
        if op == "lshr":
            return (m & ~(m >> lo) if lo < b else m), 0
        return 0, 0
    res = None
    for s in range(lo, min(~az & ((1 << ab) - 1), b - 1) + 1):
        if s & az or (ao | s) != s:
            continue
        hi = m & ~(m >> s)
        if op == "shl":
            z, o = ((kz << s) | ((1 << s) - 1)) & m, (ko << s) & m
        elif op == "lshr":
            z, o = (kz >> s) | hi, ko >> s
        else:
            z = (kz >> s) | (hi if kz >> (b - 1) & 1 else 0)
            o = (ko >> s) | (hi if ko >> (b - 1) & 1 else 0)
        res = (z, o) if res is None else (res[0] & z, res[1] & o)
        if not (res[0] | res[1]):
            break
    if res is None or res[0] & res[1]:
        return m, 0
    return res


def _ref_mul(lz, lo, rz, ro, b):
    def ctz(u):
        return b if u == 0 else (u & -u).bit_length() - 1

    m = (1 << b) - 1
    prod = (~lz & m) * (~rz & m)
    lead = 0 if prod > m else b - prod.bit_length()
    t0, t1 = ctz(~(lz | lo) & m), ctz(~(rz | ro) & m)
    z0, z1 = ctz(~lz & m), ctz(~rz & m)
    known = min(min(t0 - z0, t1 - z1) + z0 + z1, b)
    bottom = ((lo & ((1 << t0) - 1)) * (ro & ((1 << t1) - 1))) & m
    low = (1 << known) - 1
    return ((m & ~(m >> lead)) | (~bottom & low)) & m, bottom & low


@pytest.mark.parametrize("bits", [4, 8, 32])
def test_known_bits_masks_match_the_definitions(bits):
    """The mask versions of the transfer functions (and the Known versions wrapping
    them) against their definitions, on random known bits (and every pair at 4 bits)."""
    import itertools
    import random

    from patterns.knownbits import Known, add_carry, add_carry_masks, mul_known, mul_masks, shift_known, shift_masks

    m = (1 << bits) - 1
    rnd = random.Random(bits)

    def pairs():
        if bits == 4:
            for z, o in itertools.product(range(16), repeat=2):
                if not z & o:
                    yield z, o
            return
        for _ in range(300):
            known = rnd.getrandbits(bits) & rnd.getrandbits(bits) | (rnd.getrandbits(bits) if rnd.random() < 0.3 else 0)
            val = rnd.getrandbits(bits)
            yield ~val & known & m, val & known

    ks = list(pairs())
    amts = ks if bits == 4 else ks[:40] + [(m & ~31, v) for v in range(0, 32, 7)] + [(0, 0)]
    for (lz, lo) in ks[:60] if bits == 4 else ks:
        for (rz, ro) in amts:
            for cz, co in ((True, False), (False, True)):
                want = _ref_add_carry(lz, lo, rz, ro, m, cz, co)
                assert add_carry_masks(lz, lo, rz, ro, m, cz, co) == want
                k = add_carry(Known(lz, lo, bits), Known(rz, ro, bits), cz, co)
                assert (k.zero, k.one) == want
            assert mul_masks(lz, lo, rz, ro, bits, bits) == _ref_mul(lz, lo, rz, ro, bits)
            k = mul_known(Known(lz, lo, bits), Known(rz, ro, bits))
            assert (k.zero, k.one) == _ref_mul(lz, lo, rz, ro, bits)
            for op in ("shl", "lshr", "ashr"):
                want = _ref_shift(lz, lo, op, rz, ro, bits, bits)
                assert shift_masks(lz, lo, op, rz, ro, bits, bits) == want
                k = shift_known(Known(lz, lo, bits), op, Known(rz, ro, bits))
                assert (k.zero, k.one) == want


def test_known_and_sign_bits_do_not_depend_on_query_order():
    """LLVM recomputes computeKnownBits / ComputeNumSignBits at every query, so an answer
    depends only on the value and the depth it is asked at (MaxAnalysisRecursionDepth
    cuts deep chains off). The memo must keep that: every (value, depth) answer of one
    pass, asked in a shuffled order after many other queries, equals a fresh pass's
    answer to that single query. The kernel's chains are longer than the depth limit
    and mix masks, shifts, adds, multiplies, selects and phis."""
    import random

    from patterns.ir import Instruction, parse_module
    from patterns.iselgen import generate_isel_kernel
    from patterns.irpasses import _MAX_DEPTH, _Pass

    fn = next(f for f in parse_module(generate_isel_kernel(11, 400, constants=True), "k.ll").functions
              if not f.is_declaration)
    values = [i for b in fn.blocks for i in b.instructions
              if isinstance(i, Instruction) and i.name is not None and getattr(i.type, "bits", 0) == 32]
    assert len(values) > 200
    queries = [(v, d) for v in values for d in range(_MAX_DEPTH + 1)]
    rng = random.Random(5)
    rng.shuffle(queries)
    memo = _Pass(fn, None, {})
    differing_depths = 0
    for v, d in queries[:1500]:
        fresh_k = _Pass(fn, None, {}).known(v, d)
        fresh_s = _Pass(fn, None, {}).sign_bits(v, d)
        assert memo.known(v, d) == fresh_k, (v.name, d)
        assert memo.sign_bits(v, d) == fresh_s, (v.name, d)
        if fresh_k != _Pass(fn, None, {}).known(v, 0):
            differing_depths += 1
    # the depth really matters for some of them (else this test would prove nothing)
    assert differing_depths > 0

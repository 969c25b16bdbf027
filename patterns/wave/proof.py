"""The proof of a shuffle lowering: run it on every case and compare with the reference per lane.

The job of this module:

- ``verify``: enumerate every mode x operand (all lanes plus out-of-range values) x
  width x representative exec/member masks, run the lowered sequence (parsed once,
  executed on the whole batch) and compare with ``patterns.wave.shuffle`` on every lane where
  the result is defined, including the predicate and that inactive lanes are untouched;
  ``verify_nvvm_c`` does the same for the runtime-``c`` lowering.
- ``check_batch``: that comparison for one lowering on one batch (``grid`` makes the
  batch of operands x mask pairs), counted in a ``Tally`` with the first
  ``Counterexample`` (which says how to reproduce it with ``tdgen shuffle``).

The lowerings under proof are read from ``patterns.wave.lowering`` at each call (a test
replaces one there to see the proof catch a wrong sequence).

Exec masks used for proofs. A lowered sequence here computes each lane's result from its
own lane and from the single lane it reads; whether that source lane is active is the
only cross-lane exec dependence. The mask set contains, for every lane bit ``k``, the
lanes with bit ``k`` set and the lanes with bit ``k`` clear, plus all and none: for any
two distinct lanes every one of the four (active, active) combinations occurs, so the
checked masks cover every exec pattern a lane's result can depend on. Representative
extra masks (halves, alternating, single lanes, seeded random ones) and member masks
differing from exec are checked as well.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from patterns.wave import shuffle as ref
from patterns.wave import lowering
from patterns.wave.lowering import SENTINEL, V_PRED, V_RES_HI, V_RES_LO, Lowering, run_lowering


# ---------------------------------------------------------------------------------------
# Case enumeration


def operands(wave: int) -> tuple[int, ...]:
    """Every lane plus out-of-range values (as 32-bit patterns)."""
    extra = [wave, wave + 1, 2 * wave - 1, 2 * wave, 255, 256 + 3, 0x7FFFFFFF, 0xFFFFFFFF, (-wave) & 0xFFFFFFFF,
             (-3) & 0xFFFFFFFF]
    return tuple(sorted(set(range(wave)) | set(extra)))


def mask_pairs(wave: int) -> tuple[tuple[int, int], ...]:
    """Representative (exec, membermask) pairs (see the module docstring)."""
    full = (1 << wave) - 1
    masks: list[int] = [full, 0]
    for k in range(wave.bit_length() - 1):
        m = sum(1 << i for i in range(wave) if (i >> k) & 1)
        masks += [m, full & ~m]
    half = (1 << (wave // 2)) - 1
    alt = sum(1 << i for i in range(0, wave, 2))
    masks += [half, full & ~half, alt, 1, 1 << (wave - 1), (1 << 3) | (1 << (wave - 2))]
    rnd = random.Random(20240601 + wave)
    masks += [rnd.getrandbits(wave) for _ in range(3)]
    pairs = [(m, m) for m in masks]
    quarter = (1 << (wave // 4)) - 1
    pairs += [(full, alt), (full, quarter), (alt, full), (half, full & ~alt)]
    seen: dict[tuple[int, int], None] = {}
    for p in pairs:
        seen.setdefault(p, None)
    return tuple(seen)


def _bits(masks, wave: int) -> np.ndarray:
    return np.array([[(m >> i) & 1 == 1 for i in range(wave)] for m in masks], dtype=bool)


@lru_cache(maxsize=4)
def lane_values(wave: int) -> tuple[np.ndarray, np.ndarray]:
    """The per-lane 32-bit values (low and high halves) every verification case uses.

    Distinct on every lane and between the halves, never 0 (what an inactive source
    reads) nor the sentinel, and spread over all 32 bits, so reading a wrong lane, the
    wrong half, a zero, or truncating shows. The same values in every case keep each
    counterexample reproducible with one ``tdgen shuffle --values ...`` command."""
    lane = np.arange(wave, dtype=np.uint64)
    lo = ((lane * np.uint64(0x9E3779B1) + np.uint64(0x1234567)) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    hi = ((lane * np.uint64(0x7FEB352D) + np.uint64(0xBEEF)) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    lo.flags.writeable = False
    hi.flags.writeable = False
    return lo, hi


def case_values(batch: int, wave: int) -> tuple[np.ndarray, np.ndarray]:
    """``lane_values`` as read-only (batch, wave) arrays."""
    lo, hi = lane_values(wave)
    return np.broadcast_to(lo, (batch, wave)), np.broadcast_to(hi, (batch, wave))


# ---------------------------------------------------------------------------------------
# Verification


@dataclass
class Counterexample:
    """The first lane where a lowering and the reference disagree, with all its inputs."""

    mode: str
    width: int | None
    c: int
    operand: int
    exec_mask: int
    membermask: int
    lane: int
    src_lane: int
    what: str  # "value" | "value (high half)" | "pred" | "inactive lane ... written"
    expected: object
    got: object
    wave: int
    kind: str
    bits: int = 32
    values: tuple[int, ...] = ()  # per lane (64-bit when bits == 64)

    def describe(self) -> str:
        w = f"width={self.width} " if self.width is not None else ""
        hexw = self.wave // 4
        src = (f", which holds 0x{self.values[self.src_lane]:x}"
               if self.values and 0 <= self.src_lane < len(self.values) else "")
        return (f"counterexample ({self.kind} lowering, wave{self.wave}, {self.bits}-bit): mode={self.mode} {w}"
                f"c=0x{self.c:x} operand={self.operand} exec=0x{self.exec_mask:0{hexw}x} "
                f"mask=0x{self.membermask:0{hexw}x} lane {self.lane} (reference source lane {self.src_lane}{src}): "
                f"{self.what} expected {self.expected}, got {self.got}")

    def reproduce(self, reference: bool = False) -> str:
        """A ``tdgen shuffle`` command running this exact case (the lowering, or the reference)."""
        how = "" if reference else " " + {"hip": "--hip"}.get(self.kind, "--lowered")
        shape = f"--width {self.width}" if self.width is not None else f"--c 0x{self.c:x}"
        hexw = self.wave // 4
        vals = f" --values {','.join(str(v) for v in self.values)}" if self.values else ""
        bits = " --bits 64" if self.bits == 64 else ""
        return (f"tdgen shuffle {self.mode} --operand {self.operand} {shape} --wave {self.wave} "
                f"--exec 0x{self.exec_mask:0{hexw}x} --mask 0x{self.membermask:0{hexw}x}{bits}{vals}{how}")

    def as_json(self) -> dict:
        return {"mode": self.mode, "width": self.width, "c": self.c, "operand": self.operand,
                "exec": f"0x{self.exec_mask:0{self.wave // 4}x}", "mask": f"0x{self.membermask:0{self.wave // 4}x}",
                "bits": self.bits, "values": list(self.values), "lane": self.lane, "src_lane": self.src_lane,
                "what": self.what, "expected": self.expected, "got": self.got, "wave": self.wave,
                "lowering": self.kind, "text": self.describe(), "reproduce": self.reproduce(),
                "reference": self.reproduce(reference=True)}


@dataclass
class Tally:
    cases: int = 0
    lanes: int = 0
    value_checked: int = 0
    pred_checked: int = 0
    undefined_not_member: int = 0
    undefined_source: int = 0
    inactive_checked: int = 0
    sequences: int = 0
    first: Counterexample | None = None
    failures: int = 0

    def add(self, other: "Tally") -> None:
        for k in ("cases", "lanes", "value_checked", "pred_checked", "undefined_not_member", "undefined_source",
                  "inactive_checked", "sequences", "failures"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        if self.first is None:
            self.first = other.first


def reference_for(mode: str, ops: np.ndarray, execs: np.ndarray, members: np.ndarray, cs) -> ref.ShuffleResult:
    """The reference outcome for a verification batch (values from ``case_values``)."""
    batch, wave = execs.shape
    lo, hi = case_values(batch, wave)
    both = lo.astype(np.uint64) | (hi.astype(np.uint64) << np.uint64(32))
    return ref.nvvm_shfl(mode, both, ops, cs, members, execs, wave)


def check_batch(low: Lowering, ops: np.ndarray, execs: np.ndarray, members: np.ndarray, cs: np.ndarray,
                width: int | None, mask_ints: list[tuple[int, int]], want: ref.ShuffleResult | None = None) -> Tally:
    """Run ``low`` on the batch and compare with the reference on every lane."""
    batch, wave = execs.shape
    lo, hi = case_values(batch, wave)
    st = run_lowering(low, lo, hi, ops, execs, cs if low.c is None else None)
    if want is None:
        want = reference_for(low.mode, ops, execs, members, cs)
    got_lo = st.vget(V_RES_LO)
    got_hi = st.vget(V_RES_HI)
    got_pred = st.vget(V_PRED)
    t = Tally(cases=batch, lanes=batch * wave, sequences=1)
    defined = want.defined
    t.value_checked = int(defined.sum())
    t.pred_checked = int(want.pred_defined.sum()) if low.has_pred else 0
    t.undefined_not_member = int((execs & ~members).sum())
    t.undefined_source = int((want.pred_defined & ~defined).sum())
    inactive = ~execs
    t.inactive_checked = int(inactive.sum())
    want_lo = (want.value & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    checks = [("value", lambda: defined & (got_lo != want_lo), want_lo, got_lo)]
    if low.bits == 64:
        want_hi = (want.value >> np.uint64(32)).astype(np.uint32)
        checks.append(("value (high half)", lambda: defined & (got_hi != want_hi), want_hi, got_hi))
    if low.has_pred:
        wp = want.pred.astype(np.uint32)
        checks.append(("pred", lambda: want.pred_defined & (got_pred != wp), wp, got_pred))
    sent = np.uint32(SENTINEL)
    for r, name in ((got_lo, "result"), (got_hi, "result high half"), (got_pred, "pred")):
        checks.append((f"inactive lane {name} register written", lambda r=r: inactive & (r != sent),
                       np.full((batch, wave), sent, dtype=np.uint32), r))
    bad_any = np.zeros((batch, wave), dtype=bool)
    first_idx = None
    for what, bad_fn, w_arr, g_arr in checks:
        bad = bad_fn()
        if bad.any():
            bad_any |= bad
            flat = int(np.flatnonzero(bad.ravel())[0])
            if first_idx is None or flat < first_idx[0]:
                first_idx = (flat, what, w_arr, g_arr)
    t.failures = int(bad_any.sum())
    if first_idx is not None:
        flat, what, w_arr, g_arr = first_idx
        b, lane = divmod(flat, wave)
        def fmt(v) -> str:
            v = int(v)
            if what == "pred" and v in (0, 1):  # a predicate register holding anything else shows as hex
                return "true" if v else "false"
            return f"0x{v:x}"

        e_int, m_int = mask_ints[b]
        vals = (lo[b].astype(np.uint64) | (hi[b].astype(np.uint64) << np.uint64(32))) if low.bits == 64 else lo[b]
        t.first = Counterexample(low.mode, width, int(np.asarray(cs).reshape(-1)[b] if np.ndim(cs) else cs),
                                 int(np.asarray(ops).reshape(batch, -1)[b, 0]), e_int, m_int, lane,
                                 int(want.src_lane[b, lane]), what, fmt(w_arr[b, lane]), fmt(g_arr[b, lane]),
                                 wave, low.kind, low.bits, tuple(int(v) for v in vals.tolist()))
    return t


@lru_cache(maxsize=64)
def _pair_bits(wave: int, pairs: tuple) -> tuple[np.ndarray, np.ndarray]:
    return _bits([p[0] for p in pairs], wave), _bits([p[1] for p in pairs], wave)


def grid(wave: int, ops_list, pairs):
    """The batch of every operand x (exec, member) mask pair: operands, exec and member
    masks as (batch, wave) bools, and the mask pairs as integers per case."""
    pairs = tuple(pairs)
    ops = np.repeat(np.array(ops_list, dtype=np.int64), len(pairs))
    e_ints = [p[0] for p in pairs] * len(ops_list)
    m_ints = [p[1] for p in pairs] * len(ops_list)
    pe, pm = _pair_bits(wave, pairs)
    execs = np.tile(pe, (len(ops_list), 1))
    members = np.tile(pm, (len(ops_list), 1))
    return ops, execs, members, list(zip(e_ints, m_ints))


@dataclass
class VerifyReport:
    wave: int
    bpermute_wave64: str
    kind: str
    widths: tuple[int, ...]
    n_operands: int
    n_mask_pairs: int
    by_bits: dict[int, Tally] = field(default_factory=dict)
    nvvm: Tally | None = None

    @property
    def first(self) -> Counterexample | None:
        for t in list(self.by_bits.values()) + ([self.nvvm] if self.nvvm else []):
            if t.first is not None:
                return t.first
        return None


def verify(wave: int, *, bpermute_wave64: str = "full", kind: str = "bpermute", bits: tuple[int, ...] = (32, 64),
           modes: tuple[str, ...] = ref.MODES, widths: tuple[int, ...] | None = None,
           nvvm_c: bool = False) -> VerifyReport:
    """The full enumeration for one wave size (see the module docstring)."""
    widths = widths or ref.widths(wave)
    ops_list = operands(wave)
    pairs = mask_pairs(wave)
    ops, execs, members, mask_ints = grid(wave, ops_list, pairs)
    rep = VerifyReport(wave, bpermute_wave64, kind, widths, len(ops_list), len(pairs))
    tallies = {nb: Tally() for nb in bits}
    for mode in modes:
        for w in widths:
            c = ref.clang_c(mode, w, wave)
            cs = np.full(len(ops), c, dtype=np.int64)
            want = reference_for(mode, ops, execs, members, cs)  # shared by the 32- and 64-bit runs
            for nb in bits:
                if kind == "hip":
                    low = lowering.lower_hip(mode, w, wave, bits=nb, bpermute_wave64=bpermute_wave64)
                else:
                    low = lowering.lower_cuda(mode, w, wave, bits=nb, bpermute_wave64=bpermute_wave64)
                tallies[nb].add(check_batch(low, ops, execs, members, cs, w, mask_ints, want))
    rep.by_bits = tallies
    if nvvm_c and kind == "bpermute":
        rep.nvvm = verify_nvvm_c(wave, bpermute_wave64=bpermute_wave64, modes=modes)
    return rep


def nvvm_c_values(wave: int) -> tuple[int, ...]:
    full = wave - 1
    clamps = sorted({0, full, 0x15 & full, full >> 1, 1})
    return tuple((seg << 8) | cl for seg in range(wave) for cl in clamps)


def verify_nvvm_c(wave: int, *, bpermute_wave64: str = "full", modes=ref.MODES) -> Tally:
    """Runtime-``c`` lowering against ``shfl.sync`` for every segment mask and several clamps."""
    full = (1 << wave) - 1
    alt = sum(1 << i for i in range(0, wave, 2))
    pairs = ((full, full), (alt, alt), (full, alt))
    ops_list = operands(wave)
    cvals = nvvm_c_values(wave)
    tally = Tally()
    for mode in modes:
        low = lowering.lower(mode, wave, None, bits=32, bpermute_wave64=bpermute_wave64)
        ops, execs, members, mask_ints = grid(wave, ops_list, pairs)
        n = len(ops)
        cs = np.repeat(np.array(cvals, dtype=np.int64), n)
        tally.add(check_batch(low, np.tile(ops, len(cvals)), np.tile(execs, (len(cvals), 1)),
                              np.tile(members, (len(cvals), 1)), cs, None, mask_ints * len(cvals)))
    return tally

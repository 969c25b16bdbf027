"""Lowering of warp shuffles to wave-model instruction sequences, and their proof.

The job of this module:

- ``lower``: turn ``shfl.sync.<mode>`` (CUDA width -> clang's ``c``, or any constant or
  runtime ``c``) into wave-model assembly for wave32/wave64: lane id via
  ``v_mbcnt_lo/hi``, the PTX index arithmetic, the predicate via a compare, and
  ``ds_bpermute_b32``. 64-bit values are two 32-bit permutes sharing the index. On a
  wave64 target whose ds_bpermute only reaches its own 32-lane half (``"half"``) the
  other half is read through ``v_permlane64_b32`` with all lanes enabled, then selected.
- ``lower_hip``: HIP's index formulas as a wave-model sequence (for comparison).
- ``verify``: enumerate every mode x operand (all lanes plus out-of-range values) x
  width x representative exec/member masks, run the lowered sequence (parsed once,
  executed on the whole batch) and compare with ``patterns.wave.shuffle`` on every lane where
  the result is defined, including the predicate and that inactive lanes are untouched.
- ``choose``: for a constant operand, the cheapest sequence proven equal to the
  reference: a plain copy, a DPP lane move, ``ds_swizzle_b32`` (bit-mask or quad-perm), a
  readlane broadcast, else ``ds_bpermute_b32`` with the operand folded into the index
  arithmetic (``lower_constant``). Candidates are screened by their full-exec lane map,
  then each one is proven with the same per-lane comparison as ``verify`` over the whole
  exec/member mask set; the cheapest proven one wins (ties: the order above). For 64-bit
  values each candidate moves both halves and is proven on both (``bits=64``).
  ``prove_constant_choices`` runs ``choose`` for every constant operand and width.

Register convention of every sequence: ``v0``/``v1`` value low/high half, ``v2`` operand
``b``, ``s4`` the ``c`` operand when it is a runtime value; results in ``v3``/``v4``
(low/high) and ``v5`` (predicate, 0 or 1). Temporaries are ``v10``-``v22`` and
``s[20:23]``.

Cost model (weights per instruction class, documented and deliberately simple): VALU,
SALU and DPP moves 1, cross-lane VALU (readlane, permlane64) 2, an LDS-path DS
instruction 4 (issue plus the wait for its result; ``s_waitcnt`` itself counts 0), and
``s_nop N`` its N + 1 wait states. Chosen sequences keep their inputs (v0/v1) intact; a
DPP move whose ``old`` operand was just written by a VALU gets the 2 wait states GFX9
requires (LLVM avoids the preload by doing the move in place, ``v_mov_b32_dpp v0, v0``).

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
import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from patterns.wave import shuffle as ref
from patterns.wave.asm import swizzle_offset_text
from patterns.wave.assembler import Code, assemble_cached
from patterns.wave.execute import Dpp
from patterns.wave.state import WaveState

COST = {"valu": 1, "salu": 1, "dpp": 1, "lane": 2, "ds": 4, "wait": 0}

V_VAR_LO, V_VAR_HI, V_OPND, V_RES_LO, V_RES_HI, V_PRED = 0, 1, 2, 3, 4, 5
S_C = 4
SENTINEL = 0xDEADBEEF


def code_cost(code: Code) -> int:
    return sum(COST[op.kind] + op.stall for op in code.ops)


@dataclass(frozen=True)
class Lowering:
    """One lowered shuffle: the assembly text and what it implements."""

    mode: str
    wave: int
    c: int | None  # None: c is a runtime value in s4
    bits: int
    bpermute_wave64: str
    kind: str  # "bpermute" | "hip" | "copy" | "dpp" | "swizzle" | "readlane"
    asm: str
    has_pred: bool = True
    note: str = ""

    @property
    def code(self) -> Code:
        return assemble_cached(self.asm, self.wave)

    @property
    def cost(self) -> int:
        return code_cost(self.code)


def _vcc(wave: int) -> str:
    return "vcc_lo" if wave == 32 else "vcc"


def _lane_id(wave: int) -> list[str]:
    """v10 = lane id (mbcnt_lo, plus mbcnt_hi in wave64)."""
    out = ["v_mbcnt_lo_u32_b32 v10, -1, 0"]
    if wave == 64:
        out.append("v_mbcnt_hi_u32_b32 v10, -1, v10")
    return out


def _crosses_halves(mode: str, c: int | None, wave: int) -> bool:
    """May lane and source lane lie in different 32-lane halves? (wave64)"""
    if wave != 64 or c is None:
        return wave == 64
    segmask = (c >> 8) & 63
    return mode == "bfly" or not segmask & 32


def lower(mode: str, wave: int, c: int | None, *, bits: int = 32, bpermute_wave64: str = "full") -> Lowering:
    """PTX ``shfl.sync.<mode>`` as a wave-model sequence; ``c`` constant or None (runtime s4)."""
    if mode not in ref.MODES:
        raise ValueError(mode)
    full = wave - 1
    vcc = _vcc(wave)
    L = _lane_id(wave)
    L.append(f"v_and_b32 v11, {full}, v2")  # bval = b[k-1:0]
    if c is None:
        L += [
            "s_lshr_b32 s20, s4, 8",
            f"s_and_b32 s20, s20, {full}",  # segmask
            f"s_and_b32 s21, s4, {full}",  # clamp
            "s_andn2_b32 s21, s21, s20",  # clamp & ~segmask
            f"s_xor_b32 s22, s20, {full}",  # ~segmask
        ]
        seg, clamp_out, notseg = "s20", "s21", "s22"
    else:
        segmask, clamp = (c >> 8) & full, c & full
        seg, clamp_out, notseg = str(segmask), str(clamp & ~segmask & full), str(~segmask & full)
    L.append(f"v_and_b32 v12, {seg}, v10")  # minLane
    L.append(f"v_or_b32 v13, {clamp_out}, v12")  # maxLane
    if mode == "idx":
        L += [f"v_and_b32 v14, {notseg}, v11", "v_or_b32 v14, v12, v14", f"v_cmp_le_u32 {vcc}, v14, v13"]
    elif mode == "up":
        L += ["v_sub_u32 v14, v10, v11", f"v_cmp_ge_i32 {vcc}, v14, v13"]
    elif mode == "down":
        L += ["v_add_u32 v14, v10, v11", f"v_cmp_le_u32 {vcc}, v14, v13"]
    else:
        L += ["v_xor_b32 v14, v10, v11", f"v_cmp_le_u32 {vcc}, v14, v13"]
    L += [
        f"v_cndmask_b32 v14, v10, v14, {vcc}",  # j = pval ? j : lane
        f"v_cndmask_b32 v5, 0, 1, {vcc}",  # predicate
        "v_lshlrev_b32 v15, 2, v14",  # byte address
    ]
    _emit_permute(L, mode, c, wave, bits, bpermute_wave64)
    return Lowering(mode, wave, c, bits, bpermute_wave64, "bpermute", "\n".join(L) + "\n")


def _emit_permute(L: list[str], mode: str, c: int | None, wave: int, bits: int, bpermute_wave64: str) -> None:
    """Read the value(s) from lane v14 (byte address in v15) into v3 (and v4)."""
    halves = [("v0", "v3", "v16", "v17", "v18")]
    if bits == 64:
        halves.append(("v1", "v4", "v19", "v20", "v21"))
    if wave == 64 and bpermute_wave64 == "half" and _crosses_halves(mode, c, wave):
        # each half of a GFX10+ wave64 permutes on its own: read the own half and the
        # swapped copy of the other half with every lane enabled, then select per lane
        L.append("s_or_saveexec_b64 s[20:21], -1")
        for src, _dst, swapped, own, other in halves:
            L += [f"v_permlane64_b32 {swapped}, {src}", f"ds_bpermute_b32 {own}, v15, {src}",
                  f"ds_bpermute_b32 {other}, v15, {swapped}"]
        L += ["s_waitcnt lgkmcnt(0)", "s_mov_b64 exec, s[20:21]",
              "v_xor_b32 v22, v10, v14", "v_and_b32 v22, 32, v22", "v_cmp_ne_u32 s[22:23], 0, v22"]
        for _src, dst, _swapped, own, other in halves:
            L.append(f"v_cndmask_b32 {dst}, {own}, {other}, s[22:23]")
    else:
        for src, dst, *_ in halves:
            L.append(f"ds_bpermute_b32 {dst}, v15, {src}")
        L.append("s_waitcnt lgkmcnt(0)")


def lower_constant(mode: str, operand: int, width: int, wave: int, *, bits: int = 32,
                   bpermute_wave64: str = "full") -> Lowering:
    """ds_bpermute with the constant operand folded into the index arithmetic (value only)."""
    c = ref.clang_c(mode, width, wave)
    bval = operand & (wave - 1)
    seg = (c >> 8) & (wave - 1)
    notseg = ~seg & (wave - 1)
    vcc = _vcc(wave)
    L = _lane_id(wave)
    if mode == "idx":  # clamp is all ones: the source is always in range
        L.append(f"v_and_or_b32 v14, v10, {seg}, {bval & notseg}")
    elif mode == "up":  # in range iff the position in the segment is >= bval
        L += [f"v_subrev_u32 v14, {bval}, v10", f"v_and_b32 v12, {notseg}, v10",
              f"v_cmp_le_u32 {vcc}, {bval}, v12", f"v_cndmask_b32 v14, v10, v14, {vcc}"]
    elif mode == "down":  # in range iff position + bval <= width - 1
        L += [f"v_add_u32 v14, {bval}, v10", f"v_and_b32 v12, {notseg}, v10",
              f"v_cmp_ge_i32 {vcc}, {width - 1 - bval}, v12", f"v_cndmask_b32 v14, v10, v14, {vcc}"]
    else:  # reads of a later segment keep the own value
        L += [f"v_xor_b32 v14, {bval}, v10", f"v_or_b32 v13, {width - 1}, v10",
              f"v_cmp_le_u32 {vcc}, v14, v13", f"v_cndmask_b32 v14, v10, v14, {vcc}"]
    L.append("v_lshlrev_b32 v15, 2, v14")
    _emit_permute(L, mode, c, wave, bits, bpermute_wave64)
    return Lowering(mode, wave, c, bits, bpermute_wave64, "bpermute", "\n".join(L) + "\n", has_pred=False,
                    note="ds_bpermute with the operand folded into the index")


def lower_cuda(mode: str, width: int, wave: int, *, bits: int = 32, bpermute_wave64: str = "full") -> Lowering:
    return lower(mode, wave, ref.clang_c(mode, width, wave), bits=bits, bpermute_wave64=bpermute_wave64)


def lower_hip(mode: str, width: int, wave: int, *, bits: int = 32, bpermute_wave64: str = "full") -> Lowering:
    """HIP's ``__shfl*`` index formulas followed by ds_bpermute (no predicate)."""
    w = width
    vcc = _vcc(wave)
    L = _lane_id(wave)
    if mode == "idx":
        L += [f"v_and_b32 v14, {w - 1}, v2", f"v_and_b32 v12, {(~(w - 1)) & 0xFFFFFFFF}, v10", "v_add_u32 v14, v14, v12"]
    elif mode == "up":
        L += ["v_sub_u32 v14, v10, v2", f"v_and_b32 v12, {(~(w - 1)) & 0xFFFFFFFF}, v10",
              f"v_cmp_lt_i32 {vcc}, v14, v12", f"v_cndmask_b32 v14, v14, v10, {vcc}"]
    elif mode == "down":
        L += ["v_add_u32 v14, v10, v2", f"v_and_b32 v12, {w - 1}, v10", "v_add_u32 v12, v12, v2",
              f"v_cmp_ge_i32 {vcc}, v12, {w}", f"v_cndmask_b32 v14, v14, v10, {vcc}"]
    else:
        L += ["v_xor_b32 v14, v10, v2", f"v_add_u32 v12, {w}, v10", f"v_and_b32 v12, {(~(w - 1)) & 0xFFFFFFFF}, v12",
              f"v_cmp_ge_i32 {vcc}, v14, v12", f"v_cndmask_b32 v14, v14, v10, {vcc}"]
    L.append("v_lshlrev_b32 v15, 2, v14")
    L.append("ds_bpermute_b32 v3, v15, v0")
    if bits == 64:
        L.append("ds_bpermute_b32 v4, v15, v1")
    L.append("s_waitcnt lgkmcnt(0)")
    return Lowering(mode, wave, ref.clang_c(mode, width, wave), bits, bpermute_wave64, "hip",
                    "\n".join(L) + "\n", has_pred=False)


# ---------------------------------------------------------------------------------------
# Running a lowering on a batch


def run_lowering(low: Lowering, values_lo, values_hi, operand, exec_mask, c=None):
    """Execute ``low`` once for a whole batch; returns the final ``WaveState``."""
    exec_mask = np.asarray(exec_mask, dtype=bool)
    batch, wave = exec_mask.shape
    st = WaveState(wave, batch, bpermute_wave64=low.bpermute_wave64, exec_mask=exec_mask)
    for r, vals in ((V_VAR_LO, values_lo), (V_VAR_HI, values_hi)):
        a = np.asarray(vals)
        if a.dtype != np.uint32:
            a = (a.astype(np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        st.v[r] = np.broadcast_to(a, (batch, wave)).copy()
    opnd = np.asarray(operand, dtype=np.int64)
    if opnd.ndim == 1:
        opnd = opnd[:, None]
    st.v[V_OPND] = np.broadcast_to(opnd & 0xFFFFFFFF, (batch, wave)).astype(np.uint32)
    for r in (V_RES_LO, V_RES_HI, V_PRED):
        st.v[r] = np.full((batch, wave), SENTINEL, dtype=np.uint32)
    if c is not None:
        st.sset(S_C, np.asarray(c, dtype=np.int64))
    return low.code.execute(st)


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
                    low = lower_hip(mode, w, wave, bits=nb, bpermute_wave64=bpermute_wave64)
                else:
                    low = lower_cuda(mode, w, wave, bits=nb, bpermute_wave64=bpermute_wave64)
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
        low = lower(mode, wave, None, bits=32, bpermute_wave64=bpermute_wave64)
        ops, execs, members, mask_ints = grid(wave, ops_list, pairs)
        n = len(ops)
        cs = np.repeat(np.array(cvals, dtype=np.int64), n)
        tally.add(check_batch(low, np.tile(ops, len(cvals)), np.tile(execs, (len(cvals), 1)),
                              np.tile(members, (len(cvals), 1)), cs, None, mask_ints * len(cvals)))
    return tally


# ---------------------------------------------------------------------------------------
# Constant operands: the cheapest proven sequence


@dataclass(frozen=True)
class Choice:
    mode: str
    operand: int
    width: int
    wave: int
    lowering: Lowering
    cost: int
    considered: tuple[tuple[str, int, str], ...]  # (kind, cost, verdict) of every candidate family tried
    proof: Tally


def _reference_map(mode: str, operand: int, width: int, wave: int) -> np.ndarray:
    full = np.ones((1, wave), dtype=bool)
    r = ref.cuda_shfl(mode, np.arange(wave, dtype=np.uint64)[None, :], np.array([operand]), width, full, full, wave)
    return r.src_lane[0]


@lru_cache(maxsize=8)
def _swizzle_index(wave: int) -> dict[bytes, int]:
    """Lane map (as bytes) -> the preferred modelled ds_swizzle offset producing it.

    Quad-perm encodings are preferred, then the smallest bit-mask offset (deterministic)."""
    offs = np.array(list(range(0x8000)) + [0x8000 | q for q in range(256)], dtype=np.int64)
    lane = np.arange(wave, dtype=np.int64)[None, :]
    o = offs[:, None]
    bm = (lane & 32) | ((((lane & 31) & (o & 31)) | ((o >> 5) & 31)) ^ ((o >> 10) & 31))
    qp = (lane & ~3) | ((o >> (2 * (lane & 3))) & 3)
    maps = np.where((o & 0x8000) != 0, qp, bm)
    index: dict[bytes, int] = {}
    for i in np.argsort(-(offs >> 15), kind="stable"):  # quad-perm offsets first
        index.setdefault(maps[i].tobytes(), int(offs[i]))
    return index


def _dpp_candidates(wave: int, allow_wave_shifts: bool) -> list[Dpp]:
    cands = [Dpp("quad_perm", (a, b, c, d)) for a in range(4) for b in range(4) for c in range(4) for d in range(4)]
    for name in ("row_shl", "row_shr", "row_ror"):
        cands += [Dpp(name, (n,)) for n in range(1, 16)]
    cands += [Dpp("row_mirror", ()), Dpp("row_half_mirror", ())]
    if allow_wave_shifts:
        cands += [Dpp(n, (1,)) for n in ("wave_shl", "wave_shr", "wave_rol", "wave_ror")]
    return cands


@lru_cache(maxsize=8)
def _dpp_maps(wave: int, allow_wave_shifts: bool):
    """Every DPP candidate, its lane map (invalid source -> own lane) and whether all sources are valid."""
    dpps = _dpp_candidates(wave, allow_wave_shifts)
    lane = np.arange(wave)
    maps, valid_all = [], []
    for d in dpps:
        src, valid = d.source_lanes(wave)
        maps.append(np.where(valid, src, lane))
        valid_all.append(bool(valid.all()))
    return tuple(dpps), np.stack(maps), tuple(valid_all)


def prove(low: Lowering, operand: int, width: int) -> Tally:
    """``low`` against the reference for one constant operand, on every mask pair."""
    pairs = mask_pairs(low.wave)
    ops, execs, members, mask_ints = grid(low.wave, [operand], pairs)
    c = ref.clang_c(low.mode, width, low.wave)
    return check_batch(low, ops, execs, members, np.full(len(ops), c, dtype=np.int64), width, mask_ints)


_HIGH_HALF = {"v0": "v1", "v3": "v4"}


def _widen(low: Lowering) -> Lowering:
    """A 32-bit lane move applied to both halves of a 64-bit value (v1 -> v4 after v0 -> v3)."""
    high = re.sub(r"\bv[03]\b", lambda m: _HIGH_HALF[m.group(0)], low.asm)
    return Lowering(low.mode, low.wave, low.c, 64, low.bpermute_wave64, low.kind, low.asm + high, low.has_pred,
                    low.note)


def candidates(mode: str, operand: int, width: int, wave: int, bpermute_wave64: str = "full",
               bits: int = 32) -> list[Lowering]:
    """Cheap candidate sequences whose full-exec lane map matches the reference."""
    t = _reference_map(mode, operand, width, wave)
    lane = np.arange(wave)
    c = ref.clang_c(mode, width, wave)
    out: list[Lowering] = []

    def mk(kind, asm, note):
        low = Lowering(mode, wave, c, 32, bpermute_wave64, kind, asm, has_pred=False, note=note)
        return _widen(low) if bits == 64 else low

    if np.array_equal(t, lane):
        out.append(mk("copy", "v_mov_b32 v3, v0\n", "every lane keeps its own value"))
    # DPP (wave shifts only on GFX9-style wave64 targets)
    dpps, dmaps, dvalid = _dpp_maps(wave, wave == 64 and bpermute_wave64 == "full")
    dhit = np.flatnonzero((dmaps == t[None, :]).all(axis=1))
    if dhit.size:
        i = int(dhit[0])
        d = dpps[i]
        if dvalid[i]:
            asm = f"v_mov_b32_dpp v3, v0 {d.text()}\n"
        else:  # lanes without a valid source keep the old value: preload own value; the DPP
            # instruction reads that VGPR, and GFX9 needs 2 wait states after a VALU write to it
            asm = f"v_mov_b32 v3, v0\ns_nop 1\nv_mov_b32_dpp v3, v0 {d.text()}\n"
        out.append(mk("dpp", asm, f"DPP {d.text().split(' ')[0]}"))
    off = _swizzle_index(wave).get(t.astype(np.int64).tobytes())
    if off is not None:
        out.append(mk("swizzle", f"ds_swizzle_b32 v3, v0 offset:{swizzle_offset_text(off)}\ns_waitcnt lgkmcnt(0)\n",
                      f"ds_swizzle offset 0x{off:04x}"))
    if (t == t[0]).all():
        out.append(mk("readlane", f"v_readlane_b32 s20, v0, {int(t[0])}\nv_mov_b32 v3, s20\n",
                      f"broadcast of lane {int(t[0])}"))
    return out


def choose(mode: str, operand: int, width: int, wave: int, bpermute_wave64: str = "full",
           bits: int = 32) -> Choice:
    """The cheapest sequence proven equal to ``__shfl*_sync`` for a constant operand.

    Every candidate, and the ds_bpermute fallback, is run against the reference on every
    lane of every mask pair (``prove``); the cheapest one with no mismatch wins."""
    considered: list[tuple[str, int, str]] = []
    best: tuple[int, int, Lowering, Tally] | None = None
    cands = candidates(mode, operand, width, wave, bpermute_wave64, bits)
    fallback = lower_constant(mode, operand, width, wave, bits=bits, bpermute_wave64=bpermute_wave64)
    for order, low in enumerate(cands + [fallback]):
        proof = prove(low, operand, width)
        verdict = "proven" if proof.failures == 0 else f"rejected ({proof.first.describe() if proof.first else ''})"
        considered.append((low.kind, low.cost, verdict))
        if proof.failures == 0 and (best is None or (low.cost, order) < (best[0], best[1])):
            best = (low.cost, order, low, proof)
    if best is None:  # the general ds_bpermute lowering failed its proof: a bug here, say which case
        raise RuntimeError(f"no proven sequence for {mode} operand {operand} width {width} wave{wave}: "
                           f"{considered[-1][2]}")
    return Choice(mode, operand, width, wave, best[2], best[0], tuple(considered), best[3])


@dataclass(frozen=True)
class ConstantSummary:
    """``choose`` for every mode x operand 0..wave-1 x width of one wave size."""

    choices: int
    chosen: tuple[tuple[str, int], ...]  # (kind, how many), sorted
    total_cost: int
    bpermute_cost: int  # the same shuffles all done with the ds_bpermute fallback

    def as_json(self) -> dict:
        return {"choices": self.choices, "chosen": dict(self.chosen), "total_cost": self.total_cost,
                "bpermute_cost": self.bpermute_cost}


def prove_constant_choices(wave: int, bpermute_wave64: str = "full") -> ConstantSummary:
    chosen: dict[str, int] = {}
    total = bperm = n = 0
    for mode in ref.MODES:
        for w in ref.widths(wave):
            for b in range(wave):
                ch = choose(mode, b, w, wave, bpermute_wave64)
                chosen[ch.lowering.kind] = chosen.get(ch.lowering.kind, 0) + 1
                total += ch.cost
                bperm += ch.considered[-1][1]  # the fallback is always tried last
                n += 1
    return ConstantSummary(n, tuple(sorted(chosen.items())), total, bperm)

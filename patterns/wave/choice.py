"""Constant shuffle operands: the cheapest sequence proven equal to the reference.

``choose``: for a constant operand, the cheapest sequence proven equal to the
reference: a plain copy, a DPP lane move, ``ds_swizzle_b32`` (bit-mask or quad-perm), a
readlane broadcast, else ``ds_bpermute_b32`` with the operand folded into the index
arithmetic (``patterns.wave.lowering.lower_constant``). Candidates are screened by their
full-exec lane map, then each one is proven (``prove``) with the same per-lane comparison
as ``patterns.wave.proof.verify`` over the whole exec/member mask set; the cheapest proven
one wins (ties: the order above). For 64-bit values each candidate moves both halves and
is proven on both (``bits=64``). ``prove_constant_choices`` runs ``choose`` for every
constant operand and width.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from patterns.wave import shuffle as ref
from patterns.wave.asm import swizzle_offset_text
from patterns.wave.execute import Dpp
from patterns.wave.lowering import Lowering, lower_constant
from patterns.wave.proof import Tally, check_batch, grid, mask_pairs


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

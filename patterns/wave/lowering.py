"""Lowering of warp shuffles to wave-model instruction sequences.

The job of this module:

- ``lower``: turn ``shfl.sync.<mode>`` (CUDA width -> clang's ``c``, or any constant or
  runtime ``c``) into wave-model assembly for wave32/wave64: lane id via
  ``v_mbcnt_lo/hi``, the PTX index arithmetic, the predicate via a compare, and
  ``ds_bpermute_b32``. 64-bit values are two 32-bit permutes sharing the index. On a
  wave64 target whose ds_bpermute only reaches its own 32-lane half (``"half"``) the
  other half is read through ``v_permlane64_b32`` with all lanes enabled, then selected.
  ``lower_cuda`` takes CUDA's width instead of ``c``; ``lower_constant`` folds a
  constant operand into the index arithmetic (value only).
- ``lower_hip``: HIP's index formulas as a wave-model sequence (for comparison).
- ``run_lowering``: execute a lowering once on a whole batch of cases.

Their proof against ``patterns.wave.shuffle`` is patterns/wave/proof.py; the cheapest
proven sequence for a constant operand, patterns/wave/choice.py.

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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from patterns.wave import shuffle as ref
from patterns.wave.assembler import Code, assemble_cached
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

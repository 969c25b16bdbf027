"""The registers of a batch of waves: ``WaveState``.

A ``WaveState`` is *batched*: it holds ``batch`` independent waves of ``wave`` (32 or 64)
lanes side by side, so one run of a parsed sequence evaluates thousands of shuffle cases
at once (numpy, vectorised over batch x lanes). Each wave has an exec mask, VCC, a VGPR
file (32 bits per lane) and an SGPR file (32-bit registers s0..s105 plus vcc_lo/hi and
exec_lo/hi, numbered as in the GCN encoding). ``pack_mask``/``unpack_mask`` convert
between a lane mask (bools per lane) and its 32-bit SGPR words.
"""

from __future__ import annotations

import numpy as np

U32 = np.uint32
MASK32 = 0xFFFFFFFF

# SGPR numbering of the special 32-bit halves (as in the GCN encoding).
VCC_LO, VCC_HI, EXEC_LO, EXEC_HI = 106, 107, 126, 127
NUM_SGPRS = 106
NUM_VGPRS = 256


class WaveState:
    """Registers of ``batch`` independent waves of ``wave`` lanes each."""

    def __init__(self, wave: int = 64, batch: int = 1, *, bpermute_wave64: str = "full",
                 exec_mask=None):
        if wave not in (32, 64):
            raise ValueError(f"wave size must be 32 or 64, not {wave}")
        if bpermute_wave64 not in ("full", "half"):
            raise ValueError(f"bpermute_wave64 must be 'full' or 'half', not {bpermute_wave64!r}")
        self.wave = wave
        self.batch = batch
        self.bpermute_wave64 = bpermute_wave64
        self.lane = np.arange(wave, dtype=np.int64)
        self.v: dict[int, np.ndarray] = {}
        self.s: dict[int, np.ndarray] = {}
        self.vcc = np.zeros((batch, wave), dtype=bool)
        if exec_mask is None:
            self.exec = np.ones((batch, wave), dtype=bool)
        else:
            self.exec = np.broadcast_to(np.asarray(exec_mask, dtype=bool), (batch, wave)).copy()

    # --- lane masks as integers (for printing / tests)
    @staticmethod
    def mask_from_int(value: int, wave: int) -> np.ndarray:
        return np.array([(value >> i) & 1 for i in range(wave)], dtype=bool)

    @staticmethod
    def mask_to_int(bits) -> int:
        return sum(1 << i for i, b in enumerate(np.asarray(bits).tolist()) if b)

    # --- VGPRs
    def vget(self, r: int) -> np.ndarray:
        a = self.v.get(r)
        if a is None:
            a = self.v[r] = np.zeros((self.batch, self.wave), dtype=U32)
        return a

    def vset_all(self, r: int, values) -> None:
        """Set a VGPR on every lane (test/driver helper, ignores exec)."""
        self.v[r] = np.broadcast_to(np.asarray(values, dtype=np.int64) & MASK32, (self.batch, self.wave)).astype(U32)

    def vwrite(self, r: int, val, enable=None) -> None:
        en = self.exec if enable is None else enable
        old = self.vget(r)
        if not old.flags.writeable:
            old = self.v[r] = old.copy()
        np.copyto(old, np.asarray(val).astype(U32, copy=False), where=en, casting="unsafe")

    # --- SGPRs (32-bit view)
    def sget(self, r: int) -> np.ndarray:
        if r in (VCC_LO, VCC_HI):
            return pack_mask(self.vcc, r == VCC_HI, self.wave)
        if r in (EXEC_LO, EXEC_HI):
            return pack_mask(self.exec, r == EXEC_HI, self.wave)
        a = self.s.get(r)
        if a is None:
            a = self.s[r] = np.zeros(self.batch, dtype=U32)
        return a

    def sset(self, r: int, val) -> None:
        val = np.broadcast_to(np.asarray(val).astype(np.int64) & MASK32, (self.batch,)).astype(U32)
        if r in (VCC_LO, VCC_HI):
            _unpack_into(self.vcc, val, r == VCC_HI, self.wave)
        elif r in (EXEC_LO, EXEC_HI):
            _unpack_into(self.exec, val, r == EXEC_HI, self.wave)
        else:
            self.s[r] = val.copy()


_SHIFTS32 = np.arange(32, dtype=np.uint64)


def pack_mask(bits: np.ndarray, hi: bool, wave: int) -> np.ndarray:
    """The 32-bit SGPR word per wave of a lane mask's low (or ``hi``) 32 lanes."""
    if hi and wave == 32:
        return np.zeros(bits.shape[0], dtype=U32)
    part = bits[:, 32:64] if hi else bits[:, 0:32]
    return (part.astype(np.uint64) << _SHIFTS32[: part.shape[1]]).sum(axis=1).astype(U32)


def unpack_mask(words: np.ndarray) -> np.ndarray:
    """The 32 lane bits of each 32-bit SGPR word (shape (batch, 32))."""
    return ((words.astype(np.uint64)[:, None] >> _SHIFTS32) & 1).astype(bool)


def _unpack_into(bits: np.ndarray, words: np.ndarray, hi: bool, wave: int) -> None:
    if hi and wave == 32:
        return
    if hi:
        bits[:, 32:64] = unpack_mask(words)
    else:
        bits[:, 0:32] = unpack_mask(words)[:, : min(32, wave)]

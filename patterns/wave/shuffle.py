"""Reference semantics of warp shuffles: NVVM/PTX ``shfl.sync``, CUDA ``__shfl_*_sync``, HIP.

The job of this module: say, per lane, what a shuffle must return, independently of any
lowering. All functions are vectorised over a batch of cases (arrays of shape
``(batch, wave)``) so the verifier can compare thousands of cases at once.

NVVM/PTX (``llvm.nvvm.shfl.sync.{idx,up,down,bfly}.i32(membermask, a, b, c)``, PTX ISA
``shfl.sync``), written for a wave of ``N = 2**k`` lanes (``k = 5`` is exactly PTX)::

    lane = lane id; bval = b[k-1:0]; clamp = c[k-1:0]; segmask = c[8+k-1:8]
    maxLane = (lane & segmask) | (clamp & ~segmask); minLane = lane & segmask
    up:   j = lane - bval; pval = j >= maxLane      (signed)
    down: j = lane + bval; pval = j <= maxLane
    bfly: j = lane ^ bval; pval = j <= maxLane
    idx:  j = minLane | (bval & ~segmask); pval = j <= maxLane
    if not pval: j = lane
    d = a[j]; p = pval

CUDA (as clang's ``__clang_cuda_intrinsics.h`` builds it): ``__shfl_sync(mask, var, srcLane,
width)`` is ``shfl.sync.idx`` with ``c = ((warpSize - width) << 8) | 0x1f``; ``_down`` and
``_xor`` (bfly) use the same ``c``; ``_up`` uses ``((warpSize - width) << 8)`` (clamp 0).
For a wave of N lanes we use ``warpSize = N`` and clamp ``N - 1``. 64-bit values are two
32-bit shuffles of the halves with the same operands.

Undefined results (how the model reports them): a lane that is active but not in
``membermask`` (undefined behaviour for that lane), and a lane whose source lane ``j`` is
not active or not in ``membermask`` (value undefined; the predicate is still defined since
it depends only on lane ids). Undefined values are ``defined == False`` here and ``null``
in JSON; inactive lanes execute nothing (value and predicate not written, ``null``).

HIP (``amd_warp_functions.h``) computes an index and calls ``ds_bpermute(index << 2, var)``:

    __shfl:      index = (srcLane & (width-1)) + (self & ~(width-1))
    __shfl_up:   index = self - delta; if index < (self & ~(width-1)): index = self
    __shfl_down: index = self + delta; if (self & (width-1)) + delta >= width: index = self
    __shfl_xor:  index = self ^ laneMask; if index >= ((self + width) & ~(width-1)): index = self

It agrees with CUDA for in-range operands and differs for out-of-range ones (CUDA/PTX uses
only ``b[4:0]``); ``hip_shfl`` models it exactly, including reading 0 from inactive lanes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from patterns.wave.execute import permute_lane

MODES = ("idx", "up", "down", "bfly")
ALIASES = {"idx": "idx", "shfl": "idx", "up": "up", "down": "down", "bfly": "bfly", "xor": "bfly"}
CUDA_NAMES = {"idx": "__shfl_sync", "up": "__shfl_up_sync", "down": "__shfl_down_sync", "bfly": "__shfl_xor_sync"}
NVVM_NAMES = {m: f"llvm.nvvm.shfl.sync.{m}.i32" for m in MODES}
HIP_NAMES = {"idx": "__shfl", "up": "__shfl_up", "down": "__shfl_down", "bfly": "__shfl_xor"}


def widths(wave: int) -> tuple[int, ...]:
    """Every power-of-two width up to the wave size."""
    return tuple(1 << i for i in range(wave.bit_length()) if (1 << i) <= wave)


def clang_c(mode: str, width: int, wave: int = 32) -> int:
    """The ``c`` operand clang passes for a CUDA shuffle of ``width`` lanes."""
    clamp = 0 if mode == "up" else wave - 1
    return ((wave - width) << 8) | clamp


def split_c(c, wave: int):
    """(segmask, clamp) packed in ``c`` for a wave of ``wave`` lanes."""
    c = np.asarray(c, dtype=np.int64)
    return (c >> 8) & (wave - 1), c & (wave - 1)


@dataclass(frozen=True)
class ShuffleResult:
    """Per-lane outcome of a shuffle for a batch of cases (arrays of shape (batch, wave))."""

    value: np.ndarray  # uint64; meaningful where ``defined``
    defined: np.ndarray  # bool: the value is defined (lane executes, source defined)
    pred: np.ndarray  # bool: the returned predicate (meaningful where ``pred_defined``)
    pred_defined: np.ndarray  # bool: lane executes and is in membermask
    src_lane: np.ndarray  # int64: lane j the value comes from


def _as2d(x, batch: int, wave: int, dtype) -> np.ndarray:
    """Broadcast a scalar, a per-case vector (batch,) or a (batch|1, wave|1) array."""
    a = np.asarray(x, dtype=dtype)
    if a.ndim == 1:
        a = a[:, None]
    return np.broadcast_to(a, (batch, wave))


def nvvm_shfl(mode: str, a, b, c, membermask, exec_mask, wave: int = 32) -> ShuffleResult:
    """``shfl.sync.<mode>`` on a batch: ``a`` values (batch, wave); ``b`` operand (per case
    or per lane); ``c`` packed segment mask/clamp (per case); ``membermask`` and
    ``exec_mask`` bool (batch, wave)."""
    if mode not in MODES:
        raise ValueError(mode)
    exec_mask = np.asarray(exec_mask, dtype=bool)
    batch = exec_mask.shape[0]
    lane = np.arange(wave, dtype=np.int64)[None, :]
    bval = _as2d(b, batch, wave, np.int64) & (wave - 1)
    segmask, clamp = split_c(c, wave)
    segmask = _as2d(segmask, batch, wave, np.int64) if np.ndim(segmask) else segmask
    clamp = _as2d(clamp, batch, wave, np.int64) if np.ndim(clamp) else clamp
    full = wave - 1
    max_lane = (lane & segmask) | (clamp & (full & ~segmask))
    min_lane = lane & segmask
    if mode == "up":
        j = lane - bval
        pval = j >= max_lane
    elif mode == "down":
        j = lane + bval
        pval = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        pval = j <= max_lane
    else:
        j = min_lane | (bval & (full & ~segmask))
        pval = j <= max_lane
    j = np.where(pval, j, lane)
    j = np.broadcast_to(j, (batch, wave))
    member = np.asarray(membermask, dtype=bool)
    member = np.broadcast_to(member, (batch, wave))
    participating = exec_mask & member
    flat = j + (np.arange(batch, dtype=np.int64) * wave)[:, None]
    src_ok = participating.reshape(-1)[flat]
    vals = np.ascontiguousarray(np.broadcast_to(np.asarray(a, dtype=np.uint64), (batch, wave))).reshape(-1)[flat]
    return ShuffleResult(
        value=vals,
        defined=participating & src_ok,
        pred=np.broadcast_to(pval, (batch, wave)),
        pred_defined=participating,
        src_lane=j,
    )


def cuda_shfl(mode: str, var, operand, width: int, membermask, exec_mask, wave: int = 32) -> ShuffleResult:
    """``__shfl[_up|_down|_xor]_sync(mask, var, operand, width)`` on a batch."""
    if width not in widths(wave):
        raise ValueError(f"width must be a power of two 1..{wave}, not {width}")
    return nvvm_shfl(mode, var, operand, clang_c(mode, width, wave), membermask, exec_mask, wave)


def hip_index(mode: str, operand, width: int, wave: int) -> np.ndarray:
    """HIP's lane index (before ``<< 2``) for every lane; ``operand`` per case or lane."""
    self_ = np.arange(wave, dtype=np.int64)[None, :]
    b = np.asarray(operand, dtype=np.int64)
    if b.ndim == 1:
        b = b[:, None]
    # the operand is a 32-bit int in HIP; reduce to its signed 32-bit value
    b = ((b & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
    w = width
    if mode == "idx":
        return (b & (w - 1)) + (self_ & ~(w - 1))
    if mode == "up":
        delta = b & 0xFFFFFFFF  # unsigned int lane_delta
        idx = self_ - delta
        idx = ((idx & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000  # int arithmetic wraps
        return np.where(idx < (self_ & ~(w - 1)), self_, idx)
    if mode == "down":
        delta = b & 0xFFFFFFFF
        idx = ((self_ + delta) & 0xFFFFFFFF ^ 0x80000000) - 0x80000000
        test = (((self_ & (w - 1)) + delta) & 0xFFFFFFFF ^ 0x80000000) - 0x80000000
        return np.where(test >= w, self_, idx)
    idx = self_ ^ b
    return np.where(idx >= ((self_ + w) & ~(w - 1)), self_, idx)


def hip_shfl(mode: str, var, operand, width: int, exec_mask, wave: int = 64,
             bpermute_wave64: str = "full") -> ShuffleResult:
    """HIP's ``__shfl*`` on a batch, with ds_bpermute semantics (inactive source -> 0)."""
    exec_mask = np.asarray(exec_mask, dtype=bool)
    batch = exec_mask.shape[0]
    idx = np.broadcast_to(hip_index(mode, operand, width, wave), (batch, wave))
    j = np.broadcast_to(permute_lane(idx << 2, wave, bpermute_wave64), (batch, wave))
    vals = np.take_along_axis(np.broadcast_to(np.asarray(var, dtype=np.uint64), (batch, wave)), j, axis=1)
    ok = np.take_along_axis(exec_mask, j, axis=1)
    vals = np.where(ok, vals, np.uint64(0))
    return ShuffleResult(value=vals, defined=exec_mask.copy(), pred=np.zeros((batch, wave), dtype=bool),
                         pred_defined=np.zeros((batch, wave), dtype=bool), src_lane=j)


def lanes_of(mask: int, wave: int) -> np.ndarray:
    """A lane mask integer as a bool row (1, wave)."""
    return np.array([[(mask >> i) & 1 == 1 for i in range(wave)]], dtype=bool)


def to_json_lists(res: ShuffleResult, row: int = 0, bits: int = 32) -> tuple[list, list]:
    """(result, pred) of one case as JSON-ready lists (None where undefined)."""
    mask = (1 << bits) - 1
    vals = [int(v) & mask if d else None for v, d in zip(res.value[row].tolist(), res.defined[row].tolist())]
    preds = [bool(p) if d else None for p, d in zip(res.pred[row].tolist(), res.pred_defined[row].tolist())]
    return vals, preds

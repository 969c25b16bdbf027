"""Instruction semantics of the wave model: what each checked instruction does to a ``WaveState``.

The checked operands (``V``, ``S``, ``Imm``, ``LaneMask``, made by
patterns/wave/assembler.py) and how they are read and written; the tables of VALU/SALU
operations; the cross-lane instructions; and ``bind``, which turns one checked
instruction into the function that executes it. Semantics follow the AMD
GCN3/Vega/RDNA ISA descriptions:

- ``v_mbcnt_lo_u32_b32 d, mask, s``: ``popcount(mask & ((1 << lane) - 1)[31:0]) + s``;
  ``v_mbcnt_hi_u32_b32`` counts bits [63:32]. ``mbcnt_hi(-1, mbcnt_lo(-1, 0))`` is the
  lane id.
- ``ds_bpermute_b32 d, addr, data offset:N``: lane i reads ``data[((addr_i + N) >> 2)``
  modulo the wave size]; a source lane that is not active gives 0; inactive lanes are not
  written. In wave64 the target chooses: ``"full"`` (GFX9: all 64 lanes addressable) or
  ``"half"`` (GFX10+: each 32-lane half permutes on its own, index bits [6:2]).
- ``ds_permute_b32``: forward permute; each active lane writes its data to slot
  ``index``; when several lanes write one slot the highest lane wins; slots nobody wrote
  read as 0; each active lane then reads its own slot.
- ``ds_swizzle_b32 d, data offset:N``: quad-permute mode (``offset[15]=1``, selectors in
  ``offset[7:0]``) or bit-mask mode (``offset[15]=0``: and/or/xor masks in
  ``offset[4:0]``/``[9:5]``/``[14:10]``) within 32-lane groups; an inactive source gives 0.
  Offsets >= 0x8100 (other modes of later generations) are rejected.
- ``v_mov_b32_dpp``: DPP lane moves (quad_perm, row_shl/shr/ror, row_mirror,
  row_half_mirror, row_bcast:15/31, wave_shl/shr/rol/ror) with row_mask/bank_mask and
  bound_ctrl: an invalid or inactive source lane writes 0 with ``bound_ctrl:0``, else
  leaves the destination lane unchanged.
- ``v_permlane64_b32 d, s``: swaps the two 32-lane halves of a wave64 (no-op in wave32).
- VALU writes only active lanes; VOPC compares write 0 for inactive lanes; readlane,
  readfirstlane and writelane ignore exec (readfirstlane of an empty exec reads lane 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from patterns.wave.state import MASK32, U32, WaveState, pack_mask, unpack_mask

# ---------------------------------------------------------------------------------------
# Operands after checking


@dataclass(frozen=True)
class V:  # VGPR
    n: int


@dataclass(frozen=True)
class S:  # 32-bit SGPR (incl. vcc_lo/hi, exec_lo/hi)
    n: int


@dataclass(frozen=True)
class Imm:
    value: int  # already reduced to 32 bits (unsigned); ``wide`` keeps sign-extension for 64-bit ops
    wide: int


@dataclass(frozen=True)
class LaneMask:
    """A lane-mask operand: ``vcc``, ``exec`` or an SGPR pair / single SGPR in wave32."""

    kind: str  # "vcc" | "exec" | "sgpr"
    n: int = 0


def _src32(st: WaveState, op) -> np.ndarray | np.uint32:
    """A 32-bit source, broadcastable to (batch, wave)."""
    if isinstance(op, V):
        return st.vget(op.n)
    if isinstance(op, S):
        return st.sget(op.n)[:, None]
    return U32(op.value)


def _ssrc(st: WaveState, op) -> np.ndarray:
    if isinstance(op, S):
        return st.sget(op.n)
    return np.full(st.batch, op.value, dtype=U32)


def _mask_read(st: WaveState, op) -> np.ndarray:
    if isinstance(op, LaneMask):
        if op.kind == "vcc":
            return st.vcc.copy()
        if op.kind == "exec":
            return st.exec.copy()
        bits = np.zeros((st.batch, st.wave), dtype=bool)
        bits[:, : min(32, st.wave)] = unpack_mask(st.sget(op.n))[:, : min(32, st.wave)]
        if st.wave == 64:
            bits[:, 32:] = unpack_mask(st.sget(op.n + 1))
        return bits
    # immediate: sign-extended 64-bit pattern
    w = op.wide & ((1 << 64) - 1)
    return np.broadcast_to(WaveState.mask_from_int(w, st.wave), (st.batch, st.wave)).copy()


def _mask_write(st: WaveState, op: LaneMask, bits: np.ndarray) -> None:
    if op.kind == "vcc":
        st.vcc = bits.copy()
    elif op.kind == "exec":
        st.exec = bits.copy()
    else:
        st.sset(op.n, pack_mask(bits, False, st.wave))
        if st.wave == 64:
            st.sset(op.n + 1, pack_mask(bits, True, st.wave))


# ---------------------------------------------------------------------------------------
# Instruction semantics


def _i32(x):
    return np.asarray(x).astype(U32, copy=False).view(np.int32) if isinstance(x, np.ndarray) else np.int32(np.uint32(x).view(np.int32))


def _valu2(fn):
    def run(st: WaveState, d, a, b):
        st.vwrite(d.n, fn(_src32(st, a), _src32(st, b)))
    return run


def _shift_amt(x):
    return (np.asarray(x).astype(U32) & U32(31))


VALU2: dict[str, Callable] = {
    "v_add_u32": lambda a, b: (a + b),
    "v_add_nc_u32": lambda a, b: (a + b),
    "v_sub_u32": lambda a, b: (a - b),
    "v_sub_nc_u32": lambda a, b: (a - b),
    "v_subrev_u32": lambda a, b: (b - a),
    "v_and_b32": lambda a, b: (a & b),
    "v_or_b32": lambda a, b: (a | b),
    "v_xor_b32": lambda a, b: (a ^ b),
    "v_lshlrev_b32": lambda a, b: (np.asarray(b).astype(U32) << _shift_amt(a)),
    "v_lshrrev_b32": lambda a, b: (np.asarray(b).astype(U32) >> _shift_amt(a)),
    "v_ashrrev_i32": lambda a, b: (_i32(np.asarray(b).astype(U32)) >> _shift_amt(a).astype(np.int32)).view(U32),
    "v_min_u32": lambda a, b: np.minimum(np.asarray(a, dtype=U32), np.asarray(b, dtype=U32)),
    "v_max_u32": lambda a, b: np.maximum(np.asarray(a, dtype=U32), np.asarray(b, dtype=U32)),
    "v_min_i32": lambda a, b: np.minimum(_i32(np.asarray(a, dtype=U32)), _i32(np.asarray(b, dtype=U32))).view(U32),
    "v_max_i32": lambda a, b: np.maximum(_i32(np.asarray(a, dtype=U32)), _i32(np.asarray(b, dtype=U32))).view(U32),
    "v_mul_lo_u32": lambda a, b: (np.asarray(a, dtype=np.uint64) * np.asarray(b, dtype=np.uint64) & MASK32).astype(U32),
}

VALU3: dict[str, Callable] = {
    "v_and_or_b32": lambda a, b, c: (a & b) | c,
    "v_or3_b32": lambda a, b, c: a | b | c,
    "v_lshl_or_b32": lambda a, b, c: (np.asarray(a, dtype=U32) << _shift_amt(b)) | c,
    "v_lshl_add_u32": lambda a, b, c: (np.asarray(a, dtype=U32) << _shift_amt(b)) + c,
    "v_add_lshl_u32": lambda a, b, c: np.asarray(a + b, dtype=U32) << _shift_amt(c),
    "v_add3_u32": lambda a, b, c: a + b + c,
    "v_xad_u32": lambda a, b, c: (a ^ b) + c,
    "v_bfi_b32": lambda a, b, c: (a & b) | (~np.asarray(a, dtype=U32) & c),
}

CMP = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}

SALU2: dict[str, Callable] = {
    "s_add_u32": lambda a, b: a + b,
    "s_sub_u32": lambda a, b: a - b,
    "s_and_b32": lambda a, b: a & b,
    "s_or_b32": lambda a, b: a | b,
    "s_xor_b32": lambda a, b: a ^ b,
    "s_andn2_b32": lambda a, b: a & ~b,
    "s_lshl_b32": lambda a, b: a << (b & U32(31)),
    "s_lshr_b32": lambda a, b: a >> (b & U32(31)),
    "s_min_u32": np.minimum,
    "s_max_u32": np.maximum,
}

SALU64: dict[str, Callable] = {
    "s_and_b64": lambda a, b: a & b,
    "s_or_b64": lambda a, b: a | b,
    "s_xor_b64": lambda a, b: a ^ b,
    "s_andn2_b64": lambda a, b: a & ~b,
    "s_orn2_b64": lambda a, b: a | ~b,
}

SAVEEXEC = {
    "s_and_saveexec": lambda e, s: s & e,
    "s_or_saveexec": lambda e, s: s | e,
    "s_xor_saveexec": lambda e, s: s ^ e,
    "s_andn2_saveexec": lambda e, s: s & ~e,
}


@lru_cache(maxsize=64)
def _mbcnt_imm(value: int, hi: bool, wave: int) -> np.ndarray:
    lanes = np.arange(wave) - (32 if hi else 0)
    return np.array([bin(value & ((1 << max(0, min(int(x), 32))) - 1)).count("1") for x in lanes], dtype=U32)


def _mbcnt(st: WaveState, d, mask, base, hi: bool):
    if isinstance(mask, Imm):
        st.vwrite(d.n, _mbcnt_imm(mask.value, hi, st.wave)[None, :] + _src32(st, base))
        return
    words = _ssrc(st, mask)
    bits = unpack_mask(words)  # (B, 32)
    prefix = np.concatenate([np.zeros((st.batch, 1), dtype=np.int64), np.cumsum(bits, axis=1)], axis=1)
    lanes = st.lane - 32 if hi else st.lane
    idx = np.clip(lanes, 0, 32)
    cnt = prefix[:, idx].astype(U32)
    st.vwrite(d.n, cnt + _src32(st, base))


def gather(arr: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``arr[b, idx[b, i]]`` for every case b and lane i (idx broadcastable to arr)."""
    b, n = arr.shape
    idx = np.broadcast_to(idx, (b, n))
    flat = idx + (np.arange(b, dtype=np.int64) * n)[:, None]
    return arr.reshape(-1)[flat]


def permute_lane(byte_addr, wave: int, bpermute_wave64: str = "full") -> np.ndarray:
    """Lane a DS (b)permute byte address names for each lane (last axis = lanes): bits
    [6:2] in wave32, [7:2] in a "full" wave64, [6:2] within the own half in a "half" one.
    Any integer dtype (only the low 8 bits count, so 32-bit wrap-around does not matter)."""
    a = np.asarray(byte_addr) >> 2
    if wave == 64 and bpermute_wave64 == "full":
        return a & 63
    a = a & 31
    if wave == 64:
        return a | (np.arange(wave, dtype=a.dtype) & 32)
    return a


def _lane_of_addr(st: WaveState, addr: np.ndarray, offset: int) -> np.ndarray:
    return permute_lane(addr + U32(offset) if offset else addr, st.wave, st.bpermute_wave64)


def _bpermute(st: WaveState, d, addr, data, offset: int):
    src_lane = _lane_of_addr(st, st.vget(addr.n), offset)
    vals = gather(st.vget(data.n), src_lane)
    vals[~gather(st.exec, src_lane)] = 0
    st.vwrite(d.n, vals)


def _permute(st: WaveState, d, addr, data, offset: int):
    tgt = _lane_of_addr(st, st.vget(addr.n), offset)
    B, N = st.batch, st.wave
    writer = np.full((B, N), -1, dtype=np.int64)
    rows = np.broadcast_to(np.arange(B)[:, None], (B, N))
    act = st.exec
    # highest writing lane wins: maximum over the lanes that target each slot
    np.maximum.at(writer, (rows[act], tgt[act]), np.broadcast_to(st.lane, (B, N))[act])
    src = st.vget(data.n)
    got = np.take_along_axis(src, np.maximum(writer, 0), axis=1)
    tmp = np.where(writer >= 0, got, U32(0))
    st.vwrite(d.n, tmp)


def swizzle_source_lanes(offset: int, wave: int) -> np.ndarray:
    """Lane each lane reads for a ds_swizzle offset (ValueError if not modelled)."""
    lane = np.arange(wave, dtype=np.int64)
    if not 0 <= offset <= 0xFFFF:
        raise ValueError("swizzle offset must be 0..0xffff")
    if offset & 0x8000:
        if offset > 0x80FF:
            raise ValueError("only quad-perm (0x8000-0x80ff) and bit-mask (< 0x8000) offsets are modelled")
        sel = np.array([(offset >> (2 * k)) & 3 for k in range(4)], dtype=np.int64)
        return (lane & ~3) | sel[lane & 3]
    and_m, or_m, xor_m = offset & 31, (offset >> 5) & 31, (offset >> 10) & 31
    return (lane & 32) | ((((lane & 31) & and_m) | or_m) ^ xor_m)


def _swizzle(st: WaveState, d, data, offset: int):
    src_lane = np.broadcast_to(swizzle_source_lanes(offset, st.wave), (st.batch, st.wave))
    vals = np.take_along_axis(st.vget(data.n), src_lane, axis=1)
    ok = np.take_along_axis(st.exec, src_lane, axis=1)
    st.vwrite(d.n, np.where(ok, vals, U32(0)))


@dataclass(frozen=True)
class Dpp:
    """A decoded DPP control: ``ctrl`` name, its argument, masks and bound_ctrl."""

    ctrl: str
    arg: tuple[int, ...]
    row_mask: int = 0xF
    bank_mask: int = 0xF
    bound_ctrl: bool = False

    def source_lanes(self, wave: int) -> tuple[np.ndarray, np.ndarray]:
        """(source lane, valid) per lane, before exec and the row/bank masks."""
        lane = np.arange(wave, dtype=np.int64)
        row, pos = lane >> 4, lane & 15
        c, a = self.ctrl, self.arg
        valid = np.ones(wave, dtype=bool)
        if c == "quad_perm":
            src = (lane & ~3) | np.array(a, dtype=np.int64)[lane & 3]
        elif c == "row_shl":
            src = lane + a[0]
            valid = pos + a[0] <= 15
        elif c == "row_shr":
            src = lane - a[0]
            valid = pos - a[0] >= 0
        elif c == "row_ror":
            src = (row << 4) | ((pos - a[0]) & 15)
        elif c == "row_mirror":
            src = (row << 4) | (15 - pos)
        elif c == "row_half_mirror":
            src = (lane & ~7) | (7 - (lane & 7))
        elif c == "row_bcast":
            if a[0] == 15:
                src = (row << 4) - 1
                valid = row >= 1
            else:
                src = np.full(wave, 31, dtype=np.int64)
                valid = row >= 2
        elif c == "wave_shl":
            src = lane + 1
            valid = src < wave
        elif c == "wave_shr":
            src = lane - 1
            valid = src >= 0
        elif c == "wave_rol":
            src = (lane + 1) % wave
        elif c == "wave_ror":
            src = (lane - 1) % wave
        else:  # pragma: no cover - checked at assembly
            raise ValueError(c)
        src = np.where(valid, src, 0)
        return src, valid

    def text(self) -> str:
        if self.ctrl == "quad_perm":
            head = "quad_perm:[" + ",".join(str(x) for x in self.arg) + "]"
        elif self.ctrl in ("row_mirror", "row_half_mirror"):
            head = self.ctrl
        else:
            head = f"{self.ctrl}:{self.arg[0]}"
        tail = f" row_mask:0x{self.row_mask:x} bank_mask:0x{self.bank_mask:x}"
        return head + tail + (" bound_ctrl:0" if self.bound_ctrl else "")


def _dpp_mov(st: WaveState, d, s, dpp: Dpp):
    src, valid = dpp.source_lanes(st.wave)
    lane = st.lane
    enabled = (((dpp.row_mask >> (lane >> 4)) & 1) == 1) & (((dpp.bank_mask >> ((lane >> 2) & 3)) & 1) == 1)
    srcb = np.broadcast_to(src, (st.batch, st.wave))
    vals = np.take_along_axis(st.vget(s.n), srcb, axis=1)
    ok = valid[None, :] & np.take_along_axis(st.exec, srcb, axis=1)
    write = st.exec & enabled[None, :]
    if dpp.bound_ctrl:
        st.vwrite(d.n, np.where(ok, vals, U32(0)), write)
    else:
        st.vwrite(d.n, vals, write & ok)


def _permlane64(st: WaveState, d, s):
    if st.wave == 32:
        st.vwrite(d.n, st.vget(s.n))
        return
    src = st.vget(s.n)
    st.vwrite(d.n, np.concatenate([src[:, 32:], src[:, :32]], axis=1))


def _readlane(st: WaveState, d, s, lane_sel):
    ln = (_ssrc(st, lane_sel).astype(np.int64) & (st.wave - 1))
    st.sset(d.n, st.vget(s.n)[np.arange(st.batch), ln])


def _readfirstlane(st: WaveState, d, s):
    first = np.where(st.exec.any(axis=1), st.exec.argmax(axis=1), 0)
    st.sset(d.n, st.vget(s.n)[np.arange(st.batch), first])


def _writelane(st: WaveState, d, ssrc, lane_sel):
    ln = (_ssrc(st, lane_sel).astype(np.int64) & (st.wave - 1))
    en = st.lane[None, :] == ln[:, None]
    st.vwrite(d.n, _ssrc(st, ssrc)[:, None], en)


def _cmp(st: WaveState, dst, a, b, op, signed: bool):
    x = np.broadcast_to(_src32(st, a), (st.batch, st.wave))
    y = np.broadcast_to(_src32(st, b), (st.batch, st.wave))
    if signed:
        x, y = _i32(np.asarray(x, dtype=U32)), _i32(np.asarray(y, dtype=U32))
    res = CMP[op](x, y) & st.exec
    _mask_write(st, dst, res)


def _cndmask(st: WaveState, d, a, b, m):
    sel = _mask_read(st, m)
    st.vwrite(d.n, np.where(sel, _src32(st, b), _src32(st, a)))


def bind(mn: str, ops: list, extra, wave: int) -> Callable[[WaveState], None]:
    if mn in VALU2:
        f = _valu2(VALU2[mn])
        d, a, b = ops
        return lambda st: f(st, d, a, b)
    if mn in VALU3:
        f3 = VALU3[mn]
        d, a, b, c = ops
        return lambda st: st.vwrite(d.n, f3(_src32(st, a), _src32(st, b), _src32(st, c)))
    if mn == "v_mov_b32":
        d, a = ops
        return lambda st: st.vwrite(d.n, _src32(st, a))
    if mn == "v_not_b32":
        d, a = ops
        return lambda st: st.vwrite(d.n, ~np.asarray(_src32(st, a), dtype=U32))
    if mn == "v_cndmask_b32":
        d, a, b, m = ops
        return lambda st: _cndmask(st, d, a, b, m)
    if mn.startswith("v_mbcnt_"):
        d, m, b = ops
        hi = "_hi_" in mn
        return lambda st: _mbcnt(st, d, m, b, hi)
    if mn.startswith("v_cmp_"):
        _, _, opn, t = mn.split("_")
        d, a, b = ops
        return lambda st: _cmp(st, d, a, b, opn, t == "i32")
    if mn == "v_readlane_b32":
        return lambda st: _readlane(st, *ops)
    if mn == "v_readfirstlane_b32":
        return lambda st: _readfirstlane(st, *ops)
    if mn == "v_writelane_b32":
        return lambda st: _writelane(st, *ops)
    if mn == "v_permlane64_b32":
        return lambda st: _permlane64(st, *ops)
    if mn == "v_mov_b32_dpp":
        return lambda st: _dpp_mov(st, ops[0], ops[1], extra)
    if mn == "ds_bpermute_b32":
        return lambda st: _bpermute(st, ops[0], ops[1], ops[2], extra)
    if mn == "ds_permute_b32":
        return lambda st: _permute(st, ops[0], ops[1], ops[2], extra)
    if mn == "ds_swizzle_b32":
        return lambda st: _swizzle(st, ops[0], ops[1], extra)
    if mn in SALU2:
        f = SALU2[mn]
        d, a, b = ops
        return lambda st: st.sset(d.n, f(_ssrc(st, a), _ssrc(st, b)))
    if mn == "s_mov_b32":
        d, a = ops
        return lambda st: st.sset(d.n, _ssrc(st, a))
    if mn == "s_not_b32":
        d, a = ops
        return lambda st: st.sset(d.n, ~_ssrc(st, a))
    if mn in SALU64:
        f = SALU64[mn]
        d, a, b = ops
        return lambda st: _mask_write(st, d, f(_mask_read(st, a), _mask_read(st, b)))
    if mn == "s_mov_b64":
        d, a = ops
        return lambda st: _mask_write(st, d, _mask_read(st, a))
    if mn == "s_not_b64":
        d, a = ops
        return lambda st: _mask_write(st, d, ~_mask_read(st, a))
    base = mn.rsplit("_", 1)[0]
    if base in SAVEEXEC:
        f = SAVEEXEC[base]
        d, a = ops

        def saveexec(st: WaveState):
            old = st.exec.copy()
            src = _mask_read(st, a)
            _mask_write(st, d, old)
            st.exec = f(old, src)
        return saveexec
    if mn == "s_nop":
        return lambda st: None
    raise AssertionError(mn)  # pragma: no cover

"""Executable model of one AMDGPU-style wavefront running wave-model assembly text.

The job of this module: parse instruction text (grammar ``wave_asm.lark``) into
dataclass ASTs, check each instruction's operands and modifiers (all errors of a program
reported together as ``ParseError``), assemble it once into a ``Code`` object, and execute
that code on a ``WaveState``.

A ``WaveState`` is *batched*: it holds ``batch`` independent waves of ``wave`` (32 or 64)
lanes side by side, so one run of a parsed sequence evaluates thousands of shuffle cases
at once (numpy, vectorised over batch x lanes). Each wave has an exec mask, VCC, a VGPR
file (32 bits per lane) and an SGPR file (32-bit registers s0..s105 plus vcc_lo/hi and
exec_lo/hi).

Semantics follow the AMD GCN3/Vega/RDNA ISA descriptions:

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

The text accepts LLVM's printed forms for what it models (``_e32``/``_e64`` encoding
suffixes, ``s_waitcnt vmcnt(0) lgkmcnt(0)``, ``offset:swizzle(...)``), so llc-19 output
for these instructions runs unchanged (tests/test_shuffle.py uses that as an oracle).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np
from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from tdgen.errors import Diagnostics, ParseError, Span, expected

GRAMMAR = Path(__file__).resolve().parent / "wave_asm.lark"

U32 = np.uint32
MASK32 = 0xFFFFFFFF

# SGPR numbering of the special 32-bit halves (as in the GCN encoding).
VCC_LO, VCC_HI, EXEC_LO, EXEC_HI = 106, 107, 126, 127
NUM_SGPRS = 106
NUM_VGPRS = 256

# ---------------------------------------------------------------------------------------
# AST (one dataclass per grammar rule/alternative)


@dataclass(frozen=True)
class NameOp:
    name: str
    span: Span


@dataclass(frozen=True)
class RegRange:
    name: str
    lo: int
    hi: int
    span: Span


@dataclass(frozen=True)
class CallOp:
    name: str
    arg: int
    span: Span


@dataclass(frozen=True)
class NumberOp:
    value: int
    text: str
    span: Span


@dataclass(frozen=True)
class NumberVal:
    value: int
    text: str


@dataclass(frozen=True)
class ListVal:
    values: tuple[int, ...]


@dataclass(frozen=True)
class SwizzleVal:
    mode: str
    args: tuple[int | str, ...]


@dataclass(frozen=True)
class Modifier:
    name: str
    value: NumberVal | ListVal | SwizzleVal | None  # None: a bare flag (row_mirror)
    span: Span
    text: str


@dataclass(frozen=True)
class Instr:
    mnemonic: str
    operands: tuple[NameOp | RegRange | CallOp | NumberOp, ...]
    modifiers: tuple[Modifier, ...]
    span: Span
    text: str


@dataclass(frozen=True)
class Program:
    instrs: tuple[Instr, ...]
    path: str


def _num(tok: Token) -> int:
    s = str(tok)
    neg = s.startswith("-")
    body = s[1:] if neg else s
    v = int(body, 16) if body[:2].lower() == "0x" else int(body, 10)
    return -v if neg else v


class _ToAst(Transformer):
    def __init__(self, path: str, text: str):
        super().__init__()
        self.path = path
        self.lines = text.splitlines()

    def _span(self, meta) -> Span:
        return Span(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.path, tok.line, tok.column, tok.end_line, tok.end_column)

    def _text(self, meta) -> str:
        if meta.line != meta.end_line:
            return self.lines[meta.line - 1][meta.column - 1 :].strip()
        return self.lines[meta.line - 1][meta.column - 1 : meta.end_column - 1]

    @v_args(meta=True)
    def program(self, meta, items):
        return Program(tuple(i for i in items if isinstance(i, Instr)), self.path)

    @v_args(meta=True)
    def instr(self, meta, items):
        mn = items[0]
        ops = tuple(i for i in items[1:] if i is not None and not isinstance(i, Modifier))
        mods = tuple(i for i in items[1:] if isinstance(i, Modifier))
        return Instr(str(mn), ops, mods, self._tok_span(mn), self._text(meta))

    def name_op(self, items):
        (tok,) = items
        return NameOp(str(tok), self._tok_span(tok))

    def reg_range(self, items):
        name, lo, hi = items
        return RegRange(str(name), _num(lo), _num(hi), self._tok_span(name))

    def call_op(self, items):
        name, arg = items
        return CallOp(str(name), _num(arg), self._tok_span(name))

    def number_op(self, items):
        (tok,) = items
        return NumberOp(_num(tok), str(tok), self._tok_span(tok))

    @v_args(meta=True)
    def modifier(self, meta, items):
        name, val = (items[0], None) if len(items) == 1 else items
        return Modifier(str(name), val, self._tok_span(name), self._text(meta))

    def number_val(self, items):
        (tok,) = items
        return NumberVal(_num(tok), str(tok))

    def list_val(self, items):
        return ListVal(tuple(_num(t) for t in items))

    def swizzle_val(self, items):
        mode = str(items[0])
        args: list[int | str] = []
        for t in items[1:]:
            if t.type == "STRING":
                args.append(str(t)[1:-1])
            else:
                args.append(_num(t))
        return SwizzleVal(mode, tuple(args))


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(
        GRAMMAR.read_text(),
        start="program",
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=False,
    )


_TOKEN_WORDS = {
    "IDENT": "a name",
    "NUMBER": "a number",
    "STRING": "a string",
    "_NL": "end of line",
    "COMMA": "','",
    "COLON": "':'",
    "LSQB": "'['",
    "RSQB": "']'",
    "LPAR": "'('",
    "RPAR": "')'",
    "$END": "end of input",
}


def _describe_expected(names) -> str:
    words = sorted({_TOKEN_WORDS.get(n, n.lower()) for n in names})
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def parse_asm(text: str, path: str = "<asm>") -> Program:
    """Parse wave-model assembly text into a ``Program`` AST (syntax errors only)."""
    try:
        tree = _parser().parse(text if text.endswith("\n") else text + "\n")
    except UnexpectedCharacters as e:
        ch = text.splitlines()[e.line - 1][e.column - 1 : e.column] if e.line >= 1 else ""
        raise ParseError(Span(path, e.line, e.column), expected("an instruction, operand or modifier", repr(ch))) from None
    except UnexpectedToken as e:
        tok = e.token
        found = "end of line" if tok.type == "_NL" else ("end of input" if tok.type == "$END" else repr(str(tok)))
        line = tok.line if tok.line is not None else e.line
        col = tok.column if tok.column is not None else e.column
        raise ParseError(Span(path, line, col), expected(_describe_expected(e.expected), found)) from None
    except UnexpectedEOF as e:
        raise ParseError(Span(path, max(1, len(text.splitlines())), 1), expected(_describe_expected(e.expected), "end of input")) from None
    except UnexpectedInput as e:  # pragma: no cover - other lark errors
        raise ParseError(Span(path, e.line, e.column), expected("valid wave-model assembly", "unparsable text")) from None
    return _ToAst(path, text).transform(tree)


# ---------------------------------------------------------------------------------------
# Wave state


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
            return _pack(self.vcc, r == VCC_HI, self.wave)
        if r in (EXEC_LO, EXEC_HI):
            return _pack(self.exec, r == EXEC_HI, self.wave)
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


def _pack(bits: np.ndarray, hi: bool, wave: int) -> np.ndarray:
    if hi and wave == 32:
        return np.zeros(bits.shape[0], dtype=U32)
    part = bits[:, 32:64] if hi else bits[:, 0:32]
    return (part.astype(np.uint64) << _SHIFTS32[: part.shape[1]]).sum(axis=1).astype(U32)


def _unpack(words: np.ndarray) -> np.ndarray:
    return ((words.astype(np.uint64)[:, None] >> _SHIFTS32) & 1).astype(bool)


def _unpack_into(bits: np.ndarray, words: np.ndarray, hi: bool, wave: int) -> None:
    if hi and wave == 32:
        return
    if hi:
        bits[:, 32:64] = _unpack(words)
    else:
        bits[:, 0:32] = _unpack(words)[:, : min(32, wave)]


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
        bits[:, : min(32, st.wave)] = _unpack(st.sget(op.n))[:, : min(32, st.wave)]
        if st.wave == 64:
            bits[:, 32:] = _unpack(st.sget(op.n + 1))
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
        st.sset(op.n, _pack(bits, False, st.wave))
        if st.wave == 64:
            st.sset(op.n + 1, _pack(bits, True, st.wave))


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
    bits = _unpack(words)  # (B, 32)
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


# ---------------------------------------------------------------------------------------
# Assembly: checking operands against each mnemonic's signature


@dataclass(frozen=True)
class Op:
    """One checked instruction: its text, cost class and executor."""

    mnemonic: str
    text: str
    kind: str  # "valu" | "salu" | "dpp" | "ds" | "wait" | "lane"
    run: Callable[[WaveState], None] = field(compare=False, repr=False)
    stall: int = 0  # wait states an s_nop inserts


@dataclass(frozen=True)
class Code:
    """An assembled program: parse once, ``execute`` many times."""

    ops: tuple[Op, ...]
    path: str = "<asm>"

    def execute(self, st: WaveState) -> WaveState:
        for op in self.ops:
            op.run(st)
        return st

    def text(self) -> str:
        return "\n".join(op.text for op in self.ops) + "\n"

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for op in self.ops:
            out[op.kind] = out.get(op.kind, 0) + 1
        return dict(sorted(out.items()))


# operand signature letters:
#  vd VGPR dest, vs VGPR src, src 32-bit src (v/s/imm), ss scalar src (s/imm), sd SGPR dest,
#  md lane-mask dest, ms lane-mask src (mask or imm), ln lane select (s/imm)
SIGS: dict[str, tuple[tuple[str, ...], str]] = {}
for _m in VALU2:
    SIGS[_m] = (("vd", "src", "src"), "valu")
for _m in ("v_mov_b32", "v_not_b32"):
    SIGS[_m] = (("vd", "src"), "valu")
for _m in VALU3:
    SIGS[_m] = (("vd", "src", "src", "src"), "valu")
SIGS["v_cndmask_b32"] = (("vd", "src", "src", "ms"), "valu")
SIGS["v_mbcnt_lo_u32_b32"] = (("vd", "ss", "src"), "valu")
SIGS["v_mbcnt_hi_u32_b32"] = (("vd", "ss", "src"), "valu")
for _op in CMP:
    for _t in ("u32", "i32"):
        SIGS[f"v_cmp_{_op}_{_t}"] = (("md", "src", "src"), "valu")
SIGS["v_readlane_b32"] = (("sd", "vs", "ln"), "lane")
SIGS["v_readfirstlane_b32"] = (("sd", "vs"), "lane")
SIGS["v_writelane_b32"] = (("vd", "ss", "ln"), "lane")
SIGS["v_permlane64_b32"] = (("vd", "vs"), "lane")
SIGS["v_mov_b32_dpp"] = (("vd", "vs"), "dpp")
SIGS["ds_bpermute_b32"] = (("vd", "vs", "vs"), "ds")
SIGS["ds_permute_b32"] = (("vd", "vs", "vs"), "ds")
SIGS["ds_swizzle_b32"] = (("vd", "vs"), "ds")
for _m in SALU2:
    SIGS[_m] = (("sd", "ss", "ss"), "salu")
SIGS["s_mov_b32"] = (("sd", "ss"), "salu")
SIGS["s_not_b32"] = (("sd", "ss"), "salu")
for _m in SALU64:
    SIGS[_m] = (("md", "ms", "ms"), "salu")
SIGS["s_mov_b64"] = (("md", "ms"), "salu")
SIGS["s_not_b64"] = (("md", "ms"), "salu")
for _m in SAVEEXEC:
    SIGS[_m + "_b64"] = (("md", "ms"), "salu")
    SIGS[_m + "_b32"] = (("md", "ms"), "salu")
SIGS["s_waitcnt"] = (("wait*",), "wait")
SIGS["s_nop"] = (("ss",), "wait")

MNEMONICS = tuple(sorted(SIGS))

MODIFIERS: dict[str, tuple[str, ...]] = {
    "ds_bpermute_b32": ("offset",),
    "ds_permute_b32": ("offset",),
    "ds_swizzle_b32": ("offset",),
    "v_mov_b32_dpp": ("quad_perm", "row_shl", "row_shr", "row_ror", "row_mirror", "row_half_mirror",
                      "row_bcast", "wave_shl", "wave_shr", "wave_rol", "wave_ror",
                      "row_mask", "bank_mask", "bound_ctrl"),
}

_OPERAND_WORDS = {
    "vd": "a VGPR v0..v255",
    "vs": "a VGPR v0..v255",
    "src": "a VGPR, SGPR or 32-bit integer",
    "ss": "an SGPR or 32-bit integer",
    "sd": "an SGPR s0..s105, vcc_lo/vcc_hi or exec_lo/exec_hi",
    "md": "a lane mask (vcc, exec or an SGPR pair s[n:n+1])",
    "ms": "a lane mask (vcc, exec, an SGPR pair s[n:n+1]) or an integer",
    "ln": "an SGPR or integer lane number",
}

_SPECIAL32 = {"vcc_lo": VCC_LO, "vcc_hi": VCC_HI, "exec_lo": EXEC_LO, "exec_hi": EXEC_HI}


def _describe(op) -> str:
    if isinstance(op, NameOp):
        return repr(op.name)
    if isinstance(op, RegRange):
        return repr(f"{op.name}[{op.lo}:{op.hi}]")
    if isinstance(op, CallOp):
        return repr(f"{op.name}({op.arg})")
    return repr(op.text)


def _reg_number(name: str, prefix: str, limit: int) -> int | None:
    if len(name) > 1 and name[0] == prefix and name[1:].isdigit():
        n = int(name[1:])
        if n < limit and (name[1:] == "0" or not name[1:].startswith("0")):
            return n
    return None


class _Checker:
    def __init__(self, wave: int, diags: Diagnostics):
        self.wave = wave
        self.diags = diags

    def err(self, span: Span, what: str, found: str) -> None:
        self.diags.add(ParseError(span, expected(what, found)))

    def operand(self, kind: str, op, mn: str, idx: int):
        where = f"{_OPERAND_WORDS[kind]} as operand {idx} of {mn}"
        if kind in ("vd", "vs"):
            if isinstance(op, NameOp):
                n = _reg_number(op.name, "v", NUM_VGPRS)
                if n is not None:
                    return V(n)
            self.err(op.span, where, _describe(op))
            return None
        if kind in ("src", "ss", "ln", "sd"):
            if isinstance(op, NameOp):
                if kind == "src":
                    n = _reg_number(op.name, "v", NUM_VGPRS)
                    if n is not None:
                        return V(n)
                n = _reg_number(op.name, "s", NUM_SGPRS)
                if n is not None:
                    return S(n)
                if op.name in _SPECIAL32:
                    return S(_SPECIAL32[op.name])
                if self.wave == 32 and op.name in ("vcc", "exec"):
                    return S(_SPECIAL32[op.name + "_lo"])
            elif isinstance(op, NumberOp) and kind != "sd":
                if -(1 << 31) <= op.value <= MASK32:
                    return Imm(op.value & MASK32, op.value if op.value < (1 << 31) else op.value - (1 << 32))
                self.err(op.span, "a 32-bit integer (-2147483648..4294967295)", repr(op.text))
                return None
            self.err(op.span, where, _describe(op))
            return None
        if kind in ("md", "ms"):
            if isinstance(op, NameOp):
                if op.name in ("vcc", "exec"):
                    return LaneMask(op.name)
                if self.wave == 32 and op.name in ("vcc_lo", "exec_lo"):
                    return LaneMask(op.name[:-3])
                if self.wave == 32:
                    n = _reg_number(op.name, "s", NUM_SGPRS)
                    if n is not None:
                        return LaneMask("sgpr", n)
            elif isinstance(op, RegRange) and op.name == "s":
                if op.lo % 2 == 0 and op.hi == op.lo + 1 and op.hi < NUM_SGPRS:
                    return LaneMask("sgpr", op.lo)
                self.err(op.span, "an aligned SGPR pair s[2k:2k+1] below s106", _describe(op))
                return None
            elif isinstance(op, NumberOp) and kind == "ms":
                if -(1 << 63) <= op.value < (1 << 64):
                    return Imm(op.value & MASK32, op.value)
            self.err(op.span, where, _describe(op))
            return None
        raise AssertionError(kind)  # pragma: no cover

    def instr(self, ins: Instr) -> Op | None:
        mn = ins.mnemonic
        if mn not in SIGS and mn[-4:] in ("_e32", "_e64") and mn[:-4] in SIGS and mn[:2] == "v_":
            mn = mn[:-4]  # LLVM's explicit encoding suffix (VOP1/2/C as _e32, VOP3 as _e64)
        if mn not in SIGS:
            self.err(ins.span, "an instruction mnemonic of the wave model (e.g. ds_bpermute_b32, v_add_u32)", repr(mn))
            return None
        sig, kind = SIGS[mn]
        n_before = len(self.diags.errors)
        allowed = MODIFIERS.get(mn, ())
        mods: dict[str, Modifier] = {}
        for m in ins.modifiers:
            if m.name not in allowed:
                what = (f"one of the modifiers {', '.join(allowed)} of {mn}" if allowed
                        else f"no modifier after {mn}")
                self.err(m.span, what, repr(m.text))
            elif m.name in mods:
                self.err(m.span, f"modifier '{m.name}' at most once", "a second one")
            else:
                mods[m.name] = m
        if sig == ("wait*",):
            for op in ins.operands:
                if not (isinstance(op, CallOp) and op.name in ("lgkmcnt", "vmcnt", "expcnt") and 0 <= op.arg <= 63):
                    self.err(op.span, "lgkmcnt(N), vmcnt(N) or expcnt(N) with N 0..63 as operand of s_waitcnt", _describe(op))
            if len(self.diags.errors) > n_before:
                return None
            return Op(mn, ins.text, kind, lambda st: None)
        if len(ins.operands) != len(sig):
            span = ins.operands[len(sig)].span if len(ins.operands) > len(sig) else ins.span
            found = f"{len(ins.operands)}"
            self.err(span, f"{len(sig)} operands for {mn}", found)
            return None
        ops = [self.operand(k, o, mn, i + 1) for i, (k, o) in enumerate(zip(sig, ins.operands))]
        extra = self.modifiers(mn, mods, ins)
        if len(self.diags.errors) > n_before:
            return None
        stall = ops[0].value + 1 if mn == "s_nop" and isinstance(ops[0], Imm) else 0
        return Op(mn, ins.text, kind, _bind(mn, ops, extra, self.wave), stall)

    def modifiers(self, mn: str, mods: dict[str, Modifier], ins: Instr):
        if mn in ("ds_bpermute_b32", "ds_permute_b32"):
            m = mods.get("offset")
            if m is None:
                return 0
            if isinstance(m.value, NumberVal) and 0 <= m.value.value <= 0xFFFF:
                return m.value.value
            self.err(m.span, "offset:0..65535 (an unsigned 16-bit byte offset)", repr(m.text))
            return 0
        if mn == "ds_swizzle_b32":
            m = mods.get("offset")
            if m is None:
                return 0
            if isinstance(m.value, SwizzleVal):
                try:
                    return encode_swizzle_macro(m.value.mode, m.value.args)
                except ValueError as e:
                    self.err(m.span, str(e), repr(m.text))
                    return 0
            if isinstance(m.value, NumberVal) and 0 <= m.value.value <= 0xFFFF:
                off = m.value.value
                if off & 0x8000 and off > 0x80FF:
                    self.err(m.span, "a swizzle offset in bit-mask mode (< 0x8000) or quad-perm mode (0x8000..0x80ff)",
                             repr(m.text))
                return off
            self.err(m.span, "offset:0..65535 or offset:swizzle(...)", repr(m.text))
            return 0
        if mn == "v_mov_b32_dpp":
            return self.dpp(mods, ins)
        return None

    def dpp(self, mods: dict[str, Modifier], ins: Instr) -> Dpp | None:
        ctrls = [m for k, m in mods.items() if k not in ("row_mask", "bank_mask", "bound_ctrl")]
        if len(ctrls) != 1:
            span = ctrls[1].span if len(ctrls) > 1 else ins.span
            self.err(span, "exactly one DPP control (quad_perm, row_shl, row_shr, row_ror, row_mirror, "
                     "row_half_mirror, row_bcast, wave_shl/shr/rol/ror)", f"{len(ctrls)}")
            return None
        c = ctrls[0]
        arg: tuple[int, ...] = ()
        v = c.value
        if c.name == "quad_perm":
            if isinstance(v, ListVal) and len(v.values) == 4 and all(0 <= x <= 3 for x in v.values):
                arg = v.values
            else:
                self.err(c.span, "quad_perm:[a,b,c,d] with each selector 0..3", repr(c.text))
                return None
        elif c.name in ("row_shl", "row_shr", "row_ror"):
            if isinstance(v, NumberVal) and 1 <= v.value <= 15:
                arg = (v.value,)
            else:
                self.err(c.span, f"{c.name}:1..15", repr(c.text))
                return None
        elif c.name in ("row_mirror", "row_half_mirror"):
            # written bare in LLVM syntax; the grammar needs a value, accept ':1' form too
            arg = ()
        elif c.name == "row_bcast":
            if isinstance(v, NumberVal) and v.value in (15, 31):
                arg = (v.value,)
            else:
                self.err(c.span, "row_bcast:15 or row_bcast:31", repr(c.text))
                return None
        else:  # wave_*
            if isinstance(v, NumberVal) and v.value == 1:
                arg = (1,)
            else:
                self.err(c.span, f"{c.name}:1", repr(c.text))
                return None
        masks = {}
        for k in ("row_mask", "bank_mask"):
            m = mods.get(k)
            if m is None:
                masks[k] = 0xF
            elif isinstance(m.value, NumberVal) and 0 <= m.value.value <= 0xF:
                masks[k] = m.value.value
            else:
                self.err(m.span, f"{k}:0x0..0xf", repr(m.text))
                return None
        bc = mods.get("bound_ctrl")
        if bc is not None and not (isinstance(bc.value, NumberVal) and bc.value.value in (0, 1)):
            self.err(bc.span, "bound_ctrl:0 or bound_ctrl:1", repr(bc.text))
            return None
        return Dpp(c.name, arg, masks["row_mask"], masks["bank_mask"], bc is not None)


def _bind(mn: str, ops: list, extra, wave: int) -> Callable[[WaveState], None]:
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


# ---------------------------------------------------------------------------------------
# ds_swizzle offset macros (LLVM assembler syntax)


def _pow2(n) -> bool:
    return isinstance(n, int) and n > 0 and n & (n - 1) == 0


def encode_swizzle_macro(mode: str, args: tuple) -> int:
    """Offset of ``swizzle(MODE, args...)`` as LLVM's AMDGPU assembler writes it."""
    if mode == "QUAD_PERM":
        if len(args) == 4 and all(isinstance(a, int) and 0 <= a <= 3 for a in args):
            return 0x8000 | sum(a << (2 * k) for k, a in enumerate(args))
        raise ValueError("swizzle(QUAD_PERM,a,b,c,d) with selectors 0..3")
    if mode == "BITMASK_PERM":
        if len(args) == 1 and isinstance(args[0], str) and len(args[0]) == 5 and set(args[0]) <= set("01pi"):
            and_m = or_m = xor_m = 0
            for k, ch in enumerate(reversed(args[0])):
                if ch == "1":
                    or_m |= 1 << k
                elif ch == "p":
                    and_m |= 1 << k
                elif ch == "i":
                    and_m |= 1 << k
                    xor_m |= 1 << k
            return and_m | (or_m << 5) | (xor_m << 10)
        raise ValueError('swizzle(BITMASK_PERM,"xxxxx") with 5 characters from 0, 1, p, i')
    if mode == "SWAP":
        if len(args) == 1 and _pow2(args[0]) and args[0] <= 16:
            return 0x1F | (args[0] << 10)
        raise ValueError("swizzle(SWAP,n) with n a power of two 1..16")
    if mode == "REVERSE":
        if len(args) == 1 and _pow2(args[0]) and 2 <= args[0] <= 32:
            return 0x1F | ((args[0] - 1) << 10)
        raise ValueError("swizzle(REVERSE,n) with n a power of two 2..32")
    if mode == "BROADCAST":
        if (len(args) == 2 and _pow2(args[0]) and 2 <= args[0] <= 32 and isinstance(args[1], int)
                and 0 <= args[1] < args[0]):
            return (0x1F & ~(args[0] - 1)) | (args[1] << 5)
        raise ValueError("swizzle(BROADCAST,size,lane) with size a power of two 2..32 and lane < size")
    raise ValueError("a swizzle mode QUAD_PERM, BITMASK_PERM, SWAP, REVERSE or BROADCAST")


def swizzle_offset_text(offset: int) -> str:
    """Our own readable form of a modelled swizzle offset (QUAD_PERM or BITMASK_PERM)."""
    if offset & 0x8000:
        return "swizzle(QUAD_PERM," + ",".join(str((offset >> (2 * k)) & 3) for k in range(4)) + ")"
    and_m, or_m, xor_m = offset & 31, (offset >> 5) & 31, (offset >> 10) & 31
    chars = []
    for k in range(4, -1, -1):
        if (and_m >> k) & 1 and not (or_m >> k) & 1:
            chars.append("i" if (xor_m >> k) & 1 else "p")
        else:
            chars.append(str(((or_m >> k) ^ (xor_m >> k)) & 1))
    return 'swizzle(BITMASK_PERM,"' + "".join(chars) + '")'


# ---------------------------------------------------------------------------------------
# Entry points


def assemble(text: str, path: str = "<asm>", wave: int = 64) -> Code:
    """Parse and check a whole program; all errors are reported together."""
    prog = parse_asm(text, path)
    diags = Diagnostics()
    checker = _Checker(wave, diags)
    ops = [checker.instr(i) for i in prog.instrs]
    diags.check()
    return Code(tuple(o for o in ops if o is not None), path)


@lru_cache(maxsize=4096)
def _assemble_line(line: str, wave: int) -> tuple[Op, ...]:
    return assemble(line, "<asm>", wave).ops


@lru_cache(maxsize=1024)
def assemble_cached(text: str, wave: int) -> Code:
    """Assemble generated text, caching per line (sequences share most of their lines).

    Meant for sequences the tool generates; user text goes through ``assemble`` so that
    error positions refer to the whole file."""
    ops: list[Op] = []
    for line in text.splitlines():
        if line.strip():
            ops.extend(_assemble_line(line, wave))
    return Code(tuple(ops), "<asm>")


def run_asm(text: str, *, wave: int = 64, batch: int = 1, exec_mask=None, vgprs: dict | None = None,
            sgprs: dict | None = None, bpermute_wave64: str = "full", path: str = "<asm>") -> WaveState:
    """Assemble and run ``text`` once; ``vgprs`` maps register number -> per-lane values."""
    code = assemble(text, path, wave)
    st = WaveState(wave, batch, bpermute_wave64=bpermute_wave64, exec_mask=exec_mask)
    for r, vals in (vgprs or {}).items():
        st.vset_all(r, vals)
    for r, val in (sgprs or {}).items():
        st.sset(r, val)
    return code.execute(st)

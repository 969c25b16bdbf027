"""The wave-model assembler: parsed instructions checked and bound into executable ``Code``.

The job of this module: check each instruction of a parsed program (patterns/wave/asm.py)
against its mnemonic's operand signature (``SIGS``) and allowed modifiers
(``MODIFIERS``), reporting every error of a program together as ``ParseError``; bind each
checked instruction to its executor (patterns/wave/execute.py) once, into a ``Code``
object that ``execute``s on a ``WaveState`` as many times as wanted. Entry points:
``assemble`` (user text, errors located in the whole file), ``assemble_cached``
(generated sequences, cached per line), ``run_asm`` (assemble and run once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from tdgen.errors import Diagnostics, ParseError, Span, expected

from patterns.wave.asm import (CallOp, Instr, ListVal, Modifier, NameOp, NumberOp, NumberVal, RegRange, SwizzleVal,
                               encode_swizzle_macro, parse_asm)
from patterns.wave.execute import CMP, SALU2, SALU64, SAVEEXEC, VALU2, VALU3, Dpp, Imm, LaneMask, S, V, bind
from patterns.wave.state import EXEC_HI, EXEC_LO, MASK32, NUM_SGPRS, NUM_VGPRS, VCC_HI, VCC_LO, WaveState


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
        return Op(mn, ins.text, kind, bind(mn, ops, extra, self.wave), stall)

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


def clear_caches() -> None:
    """Forget every assembled sequence of ``assemble_cached`` (benchmarks time assembling too)."""
    assemble_cached.cache_clear()
    _assemble_line.cache_clear()


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

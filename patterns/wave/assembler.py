"""The wave-model assembler: parsed instructions checked and bound into executable ``Code``.

The job of this module: check each instruction of a parsed program (patterns/wave/asm.py)
against its mnemonic's operand signature (``SIGS``) and allowed modifiers
(``MODIFIERS``), reporting every error of a program together as ``ParseError``; bind each
checked instruction to its executor (patterns/wave/execute.py) once, into a ``Code``
object that ``execute``s on a ``WaveState`` as many times as wanted. Entry points:
``assemble`` (user text, errors located in the whole file), ``assemble_cached``
(generated sequences, cached per line), ``run_asm`` (assemble and run once).

What is accepted, llvm-mc-19 accepts for some GPU of the wave size (wave64: GFX9
``-mcpu=gfx900``, GFX10/11 with ``+wavefrontsize64``; wave32: ``-mcpu=gfx1010`` /
``gfx1100`` with ``+wavefrontsize32``), checked by tests/test_fuzz_wave_asm.py. The rules
that takes: operand widths (a lane mask is 64-bit in wave64 and in ``_b64``
instructions, 32-bit -- ``vcc_lo``, ``exec_lo``, ``sN`` -- in wave32 and in ``_b32`` ones;
``vcc``/``exec`` are never 32-bit operands); SGPRs s0..s101 in wave64 (GFX9's count) and
s0..s105 in wave32; the VALU encodings (``_e32``: src1 a VGPR, a compare's result and
v_cndmask's mask in vcc; VOP3-only instructions take no ``_e32``, the lane instructions
no suffix); the constant bus (at most one scalar value -- SGPR, lane mask or literal --
read by a VALU instruction in wave64, two in wave32); literals (none in a VOP3 encoding
in wave64, at most one distinct one in wave32 and in a SALU instruction); no DPP
``row_bcast`` / ``wave_*`` controls in wave32 and no ``_saveexec_b32`` in wave64;
``s_nop`` with an immediate; ``s_waitcnt`` with at least one counter; ``#`` a comment only
at the start of a line. The rules are GFX9's in wave64 and GFX10's in wave32, so some
text one of the wider GPUs takes is refused (the model is never the more lenient).
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

# VALU encodings (GFX9/GFX10): VOP1, VOP2 and VOPC have an e32 form (and a VOP3 one);
# these exist only as VOP3; the lane instructions take no encoding suffix at all
VOP3_ONLY = frozenset(VALU3) | {"v_mul_lo_u32", "v_mbcnt_lo_u32_b32", "v_mbcnt_hi_u32_b32"}
NO_SUFFIX = frozenset({"v_readlane_b32", "v_writelane_b32", "v_readfirstlane_b32", "v_permlane64_b32",
                       "v_mov_b32_dpp"})
# instructions whose operands the constant-bus rule does not cover (lane selects, DPP)
NO_BUS_RULE = NO_SUFFIX
# the constant-bus limit: scalar values (SGPRs, lane masks, literals) one VALU reads
BUS_LIMIT = {64: 1, 32: 2}
SGPR_LIMIT = {64: 102, 32: NUM_SGPRS}  # s0..s101 on GFX9, s0..s105 on GFX10
WAVE64_DPP = frozenset({"row_bcast", "wave_shl", "wave_shr", "wave_rol", "wave_ror"})


def _is_inline(v: int) -> bool:
    """An integer inline constant (-16..64): no literal needed."""
    return -16 <= v <= 64


def lane_mask_width(mn: str, wave: int) -> int:
    """The width of ``mn``'s lane-mask operands: the wave's for a compare and v_cndmask,
    64 for ``_b64`` scalar instructions, 32 for ``_b32`` ones."""
    if mn.startswith("v_"):
        return wave
    return 32 if mn.endswith("_b32") else 64


_OPERAND_WORDS = {
    "vd": "a VGPR v0..v255",
    "vs": "a VGPR v0..v255",
    "src": "a VGPR, SGPR or 32-bit integer",
    "ss": "an SGPR or 32-bit integer",
    "sd": "an SGPR s0..s105, vcc_lo/vcc_hi or exec_lo/exec_hi",
    "md": "a lane mask (vcc, exec or an SGPR pair s[n:n+1])",
    "ms": "a lane mask (vcc, exec, an SGPR pair s[n:n+1]) or an integer",
    "md32": "a 32-bit lane mask (vcc_lo, exec_lo or an SGPR sN)",
    "ms32": "a 32-bit lane mask (vcc_lo, exec_lo or an SGPR sN) or an integer",
    "ln": "an SGPR or an inline constant -16..64 (lane number)",
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
        self.sgprs = SGPR_LIMIT.get(wave, NUM_SGPRS)
        self.mask_width = wave

    def err(self, span: Span, what: str, found: str) -> None:
        self.diags.add(ParseError(span, expected(what, found)))

    def operand(self, kind: str, op, mn: str, idx: int):
        if kind in ("md", "ms") and self.mask_width == 32:
            return self.mask32(kind, op, mn, idx)
        if kind == "ms" and mn == "v_cndmask_b32":
            kind = "md"  # (a register mask only)
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
                n = _reg_number(op.name, "s", self.sgprs)
                if n is not None:
                    return S(n)
                if op.name in _SPECIAL32:
                    return S(_SPECIAL32[op.name])
            elif isinstance(op, NumberOp) and kind == "ln":
                if _is_inline(op.value):  # (a lane select takes no literal constant)
                    return Imm(op.value & MASK32, op.value)
                self.err(op.span, f"an SGPR or an inline constant -16..64 as operand {idx} of {mn}", repr(op.text))
                return None
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
            elif isinstance(op, RegRange) and op.name == "s":
                if op.lo % 2 == 0 and op.hi == op.lo + 1 and op.hi < self.sgprs:
                    return LaneMask("sgpr", op.lo)
                self.err(op.span, f"an aligned SGPR pair s[2k:2k+1] below s{self.sgprs}", _describe(op))
                return None
            elif isinstance(op, NumberOp) and kind == "ms" and mn != "v_cndmask_b32":
                if -(1 << 63) <= op.value < (1 << 64):
                    return Imm(op.value & MASK32, op.value)
            self.err(op.span, where, _describe(op))
            return None
        raise AssertionError(kind)  # pragma: no cover

    def mask32(self, kind: str, op, mn: str, idx: int):
        """A 32-bit lane mask: vcc_lo, exec_lo, an SGPR (or, as a source, an integer)."""
        if isinstance(op, NameOp):
            if op.name in ("vcc_lo", "exec_lo"):
                return LaneMask(op.name[:-3])
            n = _reg_number(op.name, "s", self.sgprs)
            if n is not None:
                return LaneMask("sgpr", n)
        elif isinstance(op, NumberOp) and kind == "ms" and mn != "v_cndmask_b32":
            if -(1 << 31) <= op.value <= MASK32:
                return Imm(op.value & MASK32, op.value)
        why = " (vcc and exec are 64-bit: write vcc_lo, exec_lo)" if isinstance(op, NameOp) and \
            op.name in ("vcc", "exec") else ""
        words = _OPERAND_WORDS[("md" if mn == "v_cndmask_b32" else kind) + "32"]  # (a register mask only)
        self.err(op.span, f"{words} as operand {idx} of {mn}{why}", _describe(op))
        return None

    def instr(self, ins: Instr) -> Op | None:
        mn = ins.mnemonic
        suffix = ""
        if mn not in SIGS and mn[-4:] in ("_e32", "_e64") and mn[:-4] in SIGS and mn[:2] == "v_":
            mn, suffix = mn[:-4], mn[-4:]  # LLVM's explicit encoding suffix (VOP1/2/C as _e32, VOP3 as _e64)
        if mn not in SIGS:
            self.err(ins.span, "an instruction mnemonic of the wave model (e.g. ds_bpermute_b32, v_add_u32)", repr(mn))
            return None
        if suffix and mn in NO_SUFFIX:
            self.err(ins.span, f"{mn} without an encoding suffix", repr(ins.mnemonic))
            return None
        if suffix == "_e32" and mn in VOP3_ONLY:
            self.err(ins.span, f"{mn} or {mn}_e64 (it has only the VOP3 encoding)", repr(ins.mnemonic))
            return None
        if "_saveexec_b32" in mn and self.wave != 32:
            self.err(ins.span, f"{mn[:-4]}_b64 in wave64 ({mn} is a wave32 instruction)", repr(mn))
            return None
        self.mask_width = lane_mask_width(mn, self.wave)
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
            if not ins.operands:
                self.err(ins.span, "a counter lgkmcnt(N), vmcnt(N) or expcnt(N) after s_waitcnt", "none")
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
        if mn == "s_nop" and not (isinstance(ins.operands[0], NumberOp) and 0 <= ins.operands[0].value <= 0xFFFF):
            self.err(ins.operands[0].span, "an immediate 0..65535 (wait states less one) as operand 1 of s_nop",
                     _describe(ins.operands[0]))
            return None
        ops = [self.operand(k, o, mn, i + 1) for i, (k, o) in enumerate(zip(sig, ins.operands))]
        extra = self.modifiers(mn, mods, ins)
        if len(self.diags.errors) > n_before:
            return None
        if kind in ("valu", "salu") and mn not in NO_BUS_RULE:
            self.encoding(mn, suffix, ins, ops)
            if len(self.diags.errors) > n_before:
                return None
        stall = ops[0].value + 1 if mn == "s_nop" and isinstance(ops[0], Imm) else 0
        return Op(mn, ins.text, kind, bind(mn, ops, extra, self.wave), stall)

    def encoding(self, mn: str, suffix: str, ins: Instr, ops: list) -> None:
        """The encoding rules of a VALU or SALU instruction's checked operands (see the
        module docstring): the e32 form's operand places, the constant bus, literals."""
        srcs = ops[1:]
        spans = [o.span for o in ins.operands[1:]]
        literals = {o.value for o in srcs if isinstance(o, Imm) and not _is_inline(o.wide)}
        if mn.startswith("s_"):
            if len(literals) > 1:
                self.err(ins.span, f"at most one literal constant (outside -16..64) in {mn}", f"{len(literals)}")
            return
        vcc = LaneMask("vcc")
        two_src = mn in VALU2 or mn.startswith("v_cmp_") or mn == "v_cndmask_b32"
        e32 = False
        if two_src and mn not in VOP3_ONLY:
            e32 = isinstance(ops[2], V) and (not mn.startswith("v_cmp_") or ops[0] == vcc) \
                and (mn != "v_cndmask_b32" or ops[3] == vcc)
            if suffix == "_e32" and not e32:
                vcc_name = "vcc_lo" if self.wave == 32 else "vcc"
                self.err(ins.span, f"the operands of {mn}_e32 (src1 a VGPR"
                         + (f", the result in {vcc_name}" if mn.startswith("v_cmp_") else "")
                         + (f", the mask in {vcc_name}" if mn == "v_cndmask_b32" else "") + ")",
                         repr(ins.text))
                return
            e32 = e32 and suffix != "_e64"
        elif mn in ("v_mov_b32", "v_not_b32"):
            e32 = suffix != "_e64"
        scalars: set = set()
        for o in srcs:
            if isinstance(o, (S, LaneMask)):
                scalars.add(o)
            elif isinstance(o, Imm) and not _is_inline(o.wide):
                scalars.add(("literal", o.value))
        limit = BUS_LIMIT.get(self.wave, 1)
        if len(scalars) > limit:
            self.err(spans[0] if spans else ins.span, f"at most {limit} scalar value{'s' if limit > 1 else ''} "
                     f"(SGPRs, lane masks, literal constants) read by {mn} in wave{self.wave}", f"{len(scalars)}")
            return
        if literals and not e32 and self.wave == 64:
            self.err(ins.span, f"no literal constant (outside -16..64) in the VOP3 encoding of {mn} in wave64 (GFX9)",
                     f"{len(literals)}")
        elif len(literals) > 1:
            self.err(ins.span, f"at most one literal constant (outside -16..64) in {mn}", f"{len(literals)}")

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
        if self.wave == 32 and c.name in WAVE64_DPP:
            self.err(c.span, "a DPP control of wave32 GPUs (quad_perm, row_shl, row_shr, row_ror, row_mirror, "
                     "row_half_mirror)", repr(c.text))
            return None
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
            if v is not None:  # (written bare: llvm-mc takes no value after these)
                self.err(c.span, f"{c.name} without a value", repr(c.text))
                return None
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

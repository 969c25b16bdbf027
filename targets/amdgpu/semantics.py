"""What each instruction of the AMDGPU subset does on a wave (``tdgen.model.semantics``).

Kept in one table by instruction name, attached to the defs by ``with_semantics`` in
spec.py (the modules declaring the instructions stay as they are); a name here that no
def has is a spec error. Facts from the GCN3/Vega ISA (gfx900):

- SALU ALU ops write SCC: s_add_i32/s_sub_i32 the signed overflow; the bitwise ops,
  shifts, s_bcnt1, s_abs and s_bfe ``result != 0``; s_min/s_max whether src0 was
  chosen (src0 < src1, resp. >); s_mul_i32, s_brev, s_flbit/s_ff1, s_sext and s_bfm
  leave SCC alone.
- Shift amounts and bit-field offsets/widths use their low 5 bits (s_bfe: offset
  bits [4:0], width bits [22:16] of src1; a width of 32 or more keeps every bit above the
  offset); v_*rev shifts take the amount in src0.
- v_add_u32/v_sub_u32 with the clamp bit saturate (unsigned); the 24-bit multiplies
  read the low 24 bits of each source (sign-extended for _i24); their clamp bit is not
  modelled (the selection always sets it 0; a 1 reads as 0).
- v_readlane_b32 reads lane ``src1 & (wave - 1)`` whatever exec is; readfirstlane
  reads the first active lane (lane 0 when none is); ds_permute/bpermute and
  ds_swizzle as the wave model has them (an inactive source lane gives 0).
- v_mad_u64_u32: ``vdst = zext(src0) * zext(src1) + src2`` (64 bits), ``sdst`` each
  lane's carry out (a lane mask); the clamp bit is not modelled.
- find-first-bit ops give -1 (all ones) for an input without the bit they look for.
"""

from __future__ import annotations

from dataclasses import replace

from tdgen.errors import SpecError, expected
from tdgen.model import Sem

S = Sem


def _nz(x):
    return S.ne(x, 0)


def _salu2(value, scc="nz"):
    """A SOP2 op ``sdst = value``; SCC the non-zero test of the result (or given)."""
    if scc is None:
        return S.wave(sdst=value)
    return S.wave(sdst=value, SCC=_nz(value) if scc == "nz" else scc)


def _sadd_overflow(a, b, r):
    # signed overflow of r = a + b: a and b of one sign, r of the other
    return S.slt(S.and_(S.xor(a, r), S.xor(b, r)), 0)


def _ssub_overflow(a, b, r):
    # signed overflow of r = a - b: a and b of different signs, r's sign not a's
    return S.slt(S.and_(S.xor(a, b), S.xor(a, r)), 0)


def _amt(x):
    return S.and_(x, 31)


def _valu(**writes):
    return S.lane(**writes)


_ADD = S.add("src0", "src1")


def _mods(src: str):
    """An f32 VOP3 source with its modifiers: abs clears the sign bit, then neg flips it."""
    m = f"{src}_modifiers"
    absolute = S.select(S.ne(S.and_(m, 2), 0), S.and_(src, 0x7FFFFFFF), src)
    return S.xor(absolute, S.select(S.ne(S.and_(m, 1), 0), 0x80000000, 0))
_SUB = S.sub("src0", "src1")
_U24 = 0xFFFFFF


def _mul_u24(a, b):
    return S.mul(S.and_(a, _U24), S.and_(b, _U24))


def _mul_i24(a, b):
    return S.mul(S.sext_from(a, bits=24), S.sext_from(b, bits=24))


def _sbfe(signed: bool):
    off = S.and_("src1", 31)
    width = S.and_(S.lshr("src1", 16), 127)
    op = S.bfe_i if signed else S.bfe_u
    return _salu2(op("src0", off, width))


SEMANTICS = {
    # --- SALU (alu.py, salu_logic.py) -------------------------------------------------
    "S_ADD_I32": S.wave(sdst=_ADD, SCC=_sadd_overflow(S.op("src0"), S.op("src1"), _ADD)),
    "S_SUB_I32": S.wave(sdst=_SUB, SCC=_ssub_overflow(S.op("src0"), S.op("src1"), _SUB)),
    "S_AND_B32": _salu2(S.and_("src0", "src1")),
    "S_OR_B32": _salu2(S.or_("src0", "src1")),
    "S_XOR_B32": _salu2(S.xor("src0", "src1")),
    "S_XNOR_B32": _salu2(S.not_(S.xor("src0", "src1"))),
    "S_NOT_B32": _salu2(S.not_("src0")),
    "S_LSHL_B32": _salu2(S.shl("src0", _amt("src1"))),
    "S_LSHR_B32": _salu2(S.lshr("src0", _amt("src1"))),
    "S_ASHR_I32": _salu2(S.ashr("src0", _amt("src1"))),
    "S_MUL_I32": _salu2(S.mul("src0", "src1"), None),
    "S_ANDN2_B32": _salu2(S.and_("src0", S.not_("src1"))),
    "S_ORN2_B32": _salu2(S.or_("src0", S.not_("src1"))),
    "S_NAND_B32": _salu2(S.not_(S.and_("src0", "src1"))),
    "S_NOR_B32": _salu2(S.not_(S.or_("src0", "src1"))),
    # --- SALU bit ops (bitops.py) -----------------------------------------------------
    "S_BCNT1_I32_B32": _salu2(S.ctpop("src0")),
    "S_BREV_B32": _salu2(S.bitreverse("src0"), None),
    # the 64-bit forms (i64.py): the same operations on SReg_64 operands
    "S_XNOR_B64": _salu2(S.not_(S.xor("src0", "src1"))),
    "S_NOT_B64": _salu2(S.not_("src0")),
    "S_BREV_B64": _salu2(S.bitreverse("src0"), None),
    "S_BCNT1_I32_B64": _salu2(S.trunc(S.ctpop("src0"), bits=32)),
    "S_FLBIT_I32_B32": _salu2(S.ffbh_u("src0"), None),
    "S_FF1_I32_B32": _salu2(S.ffbl("src0"), None),
    "S_FLBIT_I32": _salu2(S.ffbh_i("src0"), None),
    "S_MIN_I32": _salu2(S.smin("src0", "src1"), S.slt("src0", "src1")),
    "S_MAX_I32": _salu2(S.smax("src0", "src1"), S.sgt("src0", "src1")),
    "S_MIN_U32": _salu2(S.umin("src0", "src1"), S.ult("src0", "src1")),
    "S_MAX_U32": _salu2(S.umax("src0", "src1"), S.ugt("src0", "src1")),
    "S_ABS_I32": _salu2(S.abs("src0")),
    "S_SEXT_I32_I8": _salu2(S.sext_from("src0", bits=8), None),
    "S_SEXT_I32_I16": _salu2(S.sext_from("src0", bits=16), None),
    "S_BFE_U32": _sbfe(False),
    "S_BFE_I32": _sbfe(True),
    "S_BFM_B32": _salu2(S.shl(S.sub(S.shl(1, _amt("src0")), 1), _amt("src1")), None),
    # --- VALU (alu.py) ----------------------------------------------------------------
    "V_ADD_U32_e64": _valu(vdst=S.select(S.ne("clamp", 0), S.select(S.ult(_ADD, "src0"), 0xFFFFFFFF, _ADD), _ADD)),
    "V_SUB_U32_e64": _valu(vdst=S.select(S.ne("clamp", 0), S.select(S.ult("src0", "src1"), 0, _SUB), _SUB)),
    "V_MUL_LO_U32_e64": _valu(vdst=S.mul("src0", "src1")),
    "V_AND_B32_e64": _valu(vdst=S.and_("src0", "src1")),
    "V_OR_B32_e64": _valu(vdst=S.or_("src0", "src1")),
    "V_XOR_B32_e64": _valu(vdst=S.xor("src0", "src1")),
    "V_NOT_B32_e32": _valu(vdst=S.not_("src0")),
    "V_LSHLREV_B32_e64": _valu(vdst=S.shl("src1", _amt("src0"))),
    "V_LSHRREV_B32_e64": _valu(vdst=S.lshr("src1", _amt("src0"))),
    "V_ASHRREV_I32_e64": _valu(vdst=S.ashr("src1", _amt("src0"))),
    # --- VALU bit ops (bitops.py) -----------------------------------------------------
    "V_BCNT_U32_B32_e64": _valu(vdst=S.add(S.ctpop("src0"), "src1")),
    "V_BFREV_B32_e64": _valu(vdst=S.bitreverse("src0")),
    "V_FFBH_U32_e64": _valu(vdst=S.ffbh_u("src0")),
    "V_FFBL_B32_e64": _valu(vdst=S.ffbl("src0")),
    "V_FFBH_I32_e64": _valu(vdst=S.ffbh_i("src0")),
    "V_MIN_I32_e64": _valu(vdst=S.smin("src0", "src1")),
    "V_MAX_I32_e64": _valu(vdst=S.smax("src0", "src1")),
    "V_MIN_U32_e64": _valu(vdst=S.umin("src0", "src1")),
    "V_MAX_U32_e64": _valu(vdst=S.umax("src0", "src1")),
    "V_MIN3_I32_e64": _valu(vdst=S.smin(S.smin("src0", "src1"), "src2")),
    "V_MAX3_I32_e64": _valu(vdst=S.smax(S.smax("src0", "src1"), "src2")),
    "V_MIN3_U32_e64": _valu(vdst=S.umin(S.umin("src0", "src1"), "src2")),
    "V_MAX3_U32_e64": _valu(vdst=S.umax(S.umax("src0", "src1"), "src2")),
    "V_BFE_U32_e64": _valu(vdst=S.bfe_u("src0", _amt("src1"), _amt("src2"))),
    "V_BFE_I32_e64": _valu(vdst=S.bfe_i("src0", _amt("src1"), _amt("src2"))),
    "V_BFM_B32_e64": _valu(vdst=S.shl(S.sub(S.shl(1, _amt("src0")), 1), _amt("src1"))),
    # --- VOP3 three-operand ops (vop3.py) ---------------------------------------------
    "V_LSHL_ADD_U32_e64": _valu(vdst=S.add(S.shl("src0", _amt("src1")), "src2")),
    "V_ADD_LSHL_U32_e64": _valu(vdst=S.shl(S.add("src0", "src1"), _amt("src2"))),
    "V_ADD3_U32_e64": _valu(vdst=S.add(S.add("src0", "src1"), "src2")),
    "V_LSHL_OR_B32_e64": _valu(vdst=S.or_(S.shl("src0", _amt("src1")), "src2")),
    "V_AND_OR_B32_e64": _valu(vdst=S.or_(S.and_("src0", "src1"), "src2")),
    "V_OR3_B32_e64": _valu(vdst=S.or_(S.or_("src0", "src1"), "src2")),
    "V_XAD_U32_e64": _valu(vdst=S.add(S.xor("src0", "src1"), "src2")),
    "V_BFI_B32_e64": _valu(vdst=S.or_(S.and_("src0", "src1"), S.and_(S.not_("src0"), "src2"))),
    "V_MAD_U64_U32_e64": _valu(
        vdst=S.add(S.mul(S.zext("src0", bits=64), S.zext("src1", bits=64)), "src2"),
        sdst=S.ult(S.add(S.mul(S.zext("src0", bits=64), S.zext("src1", bits=64)), "src2"), "src2")),
    # --- f32 arithmetic (fp32.py): the source modifiers applied (SISrcMods: 1 neg, 2 abs);
    # clamp and omod are taken as 0, as the selection emits them ---------------------
    "V_ADD_F32_e64": _valu(vdst=S.fadd(_mods("src0"), _mods("src1"))),
    "V_SUB_F32_e64": _valu(vdst=S.fsub(_mods("src0"), _mods("src1"))),
    "V_MUL_F32_e64": _valu(vdst=S.fmul(_mods("src0"), _mods("src1"))),
    # --- 24-bit multiplies (mul24.py) -------------------------------------------------
    "V_MUL_U32_U24_e64": _valu(vdst=_mul_u24("src0", "src1")),
    "V_MUL_I32_I24_e64": _valu(vdst=_mul_i24("src0", "src1")),
    "V_MAD_U32_U24_e64": _valu(vdst=S.add(_mul_u24("src0", "src1"), "src2")),
    "V_MAD_I32_I24_e64": _valu(vdst=S.add(_mul_i24("src0", "src1"), "src2")),
    # --- lane reads and counts (lanes.py) ---------------------------------------------
    "V_READLANE_B32": _valu(vdst=S.readlane("src0", "src1")),
    "V_READFIRSTLANE_B32": _valu(vdst=S.readfirstlane("src0")),
    "V_MBCNT_LO_U32_B32_e64": _valu(vdst=S.mbcnt_lo("src0", "src1")),
    "V_MBCNT_HI_U32_B32_e64": _valu(vdst=S.mbcnt_hi("src0", "src1")),
    # --- DS cross-lane (ds.py) --------------------------------------------------------
    "DS_PERMUTE_B32": _valu(vdst=S.permute(S.add("addr", S.zext("offset", bits=32)), "data0")),
    "DS_BPERMUTE_B32": _valu(vdst=S.bpermute(S.add("addr", S.zext("offset", bits=32)), "data0")),
    "DS_SWIZZLE_B32": _valu(vdst=S.swizzle("addr", S.zext("offset", bits=32))),
}


def with_semantics(defs: tuple) -> tuple:
    """``defs`` with each named instruction's ``semantics`` set from ``SEMANTICS``; a
    name no def has is a SpecError at this table."""
    names = {getattr(d, "name", None) for d in defs}
    missing = sorted(set(SEMANTICS) - names)
    if missing:
        sem = SEMANTICS[missing[0]]
        raise SpecError(sem.span, expected("an instruction of the target", f"'{missing[0]}'"),
                        record=missing[0], field="semantics")
    return tuple(replace(d, semantics=SEMANTICS[d.name]) if getattr(d, "name", None) in SEMANTICS
                 and getattr(d, "semantics", None) is None else d for d in defs)

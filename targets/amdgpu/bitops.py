"""Bit-counting, bit-field, min/max, abs and in-register sign extension (gfx900).

The operations LLVM's divergence-driven isel tests exercise, each with its SALU form for
uniform nodes and VALU form for divergent ones (opcode names as LLVM 19 has them, checked
with llc-19 -mtriple=amdgcn -mcpu=gfx900 -stop-after=amdgpu-isel):

- ctpop: s_bcnt1_i32_b32 / v_bcnt_u32_b32 (src, 0); bitreverse: s_brev_b32 / v_bfrev_b32;
- ctlz_zero_undef: s_flbit_i32_b32 / v_ffbh_u32; cttz_zero_undef: s_ff1_i32_b32 /
  v_ffbl_b32 (llc lowers a zero-defined ctlz/cttz to these plus umin(.., 32));
- llvm.amdgcn.sffbh (signed find-first-bit-high) lowered to AMDGPUISD::FFBH_I32:
  s_flbit_i32 / v_ffbh_i32;
- smin/smax/umin/umax: s_min_i32 ... / v_min_i32_e64 ...; abs: s_abs_i32, divergent
  abs = v_max_i32(x, v_sub_u32(0, x));
- sext_inreg i8/i16 (width a value-type leaf): s_sext_i32_i8/i16 / v_bfe_i32(x, 0, 8|16);
- AMDGPUISD::BFE_U32 (the combine of ``and (srl x, c), 2^w-1``): v_bfe_u32 for divergent
  nodes; AMDGPUISD::BFE_I32 (``sra (shl x, c1), c2``, c1 <= c2): v_bfe_i32. Not modeled: s_bfe_u32, whose second operand packs offset and width into one
  immediate (``c | w << 16``) -- that needs an SDNodeXForm in the result, which the spec
  model lacks; uniform bit-field extracts therefore stay s_lshr + s_and.
"""

from tdgen.hw import DivergenceKind
from tdgen.model import (
    DivergenceFrag,
    Instruction,
    Intrinsic,
    IntrNoMem,
    IntrSpeculatable,
    Lowering,
    DIVERGENT_PREDICATE,
    UNIFORM_PREDICATE,
    Pat,
    PatFrag,
    SDNode,
    SDTCisSameAs,
    SDTCisVT,
    SDTypeProfile,
)
from tdgen.types import VALUE_TYPES, LLVMMatchType, llvm_anyint_ty

from .formats import SOP1_32, SOP2_32, VOP1_32, VOP3_32

i32 = VALUE_TYPES["i32"]

SDTIntUnaryOp32 = SDTypeProfile(1, 1, [SDTCisVT(0, i32), SDTCisSameAs(0, 1)], name="SDTIntUnaryOp32")
SDTIntBitField32 = SDTypeProfile(
    1, 3, [SDTCisVT(0, i32), SDTCisSameAs(0, 1), SDTCisVT(2, i32), SDTCisVT(3, i32)], name="SDTIntBitField32")

AMDGPUffbh_i32 = SDNode("AMDGPUffbh_i32", "AMDGPUISD::FFBH_I32", SDTIntUnaryOp32)
AMDGPUbfe_u32 = SDNode("AMDGPUbfe_u32", "AMDGPUISD::BFE_U32", SDTIntBitField32)
AMDGPUbfe_i32 = SDNode("AMDGPUbfe_i32", "AMDGPUISD::BFE_I32", SDTIntBitField32)

DivergentTernaryFrag = DivergenceFrag("DivergentTernaryFrag", "divergent", 3)


def _sext_inreg_frag(div: str, vt: str) -> PatFrag:
    # The width of sext_inreg is a VT operand (SDTCisVTSmallerThanOp): llvm-tblgen wants the
    # value type written inside the fragment, so a generic Uniform/DivergentBinFrag<sext_inreg>
    # cannot carry it -- one fragment per (divergence, width), like LLVM's *SextInreg<VT>.
    return PatFrag(f"{div.capitalize()}SextInreg_{vt}", ["src"], f"(sext_inreg node:$src, {vt})",
                   predicate_code=UNIFORM_PREDICATE if div == "uniform" else DIVERGENT_PREDICATE,
                   divergence=div)


FRAGS = tuple(_sext_inreg_frag(d, vt) for d in ("uniform", "divergent") for vt in ("i8", "i16"))
FRAG_CLASSES = (DivergentTernaryFrag,)

PROFILES = (SDTIntUnaryOp32, SDTIntBitField32)
NODES = (AMDGPUffbh_i32, AMDGPUbfe_u32, AMDGPUbfe_i32)

int_amdgcn_sffbh = Intrinsic(
    "int_amdgcn_sffbh", [llvm_anyint_ty], [LLVMMatchType(0)], [IntrNoMem, IntrSpeculatable],
    divergence=DivergenceKind.FOLLOWS_OPERANDS, default_attrs=True,
)
INTRINSICS = (int_amdgcn_sffbh,)
LOWERINGS = (Lowering(int_amdgcn_sffbh, AMDGPUffbh_i32),)


_SCC = ["SCC"]
# SALU ops that write SCC on gfx900 (checked with llc's MIR: implicit-def $scc)
_WRITES_SCC = {"S_BCNT1_I32_B32", "S_ABS_I32", "S_MIN_I32", "S_MAX_I32", "S_MIN_U32", "S_MAX_U32"}


def _s1(name, mn, op):
    return Instruction(name, SOP1_32, [mn], pattern=f"(set i32:$sdst, (UniformUnaryFrag<{op}> i32:$src0))",
                       implicit_defs=_SCC if name in _WRITES_SCC else None)


def _v1(name, mn, op):
    return Instruction(name, VOP1_32, [mn], pattern=f"(set i32:$vdst, (DivergentUnaryFrag<{op}> i32:$src0))")


def _s2(name, mn, op):
    return Instruction(name, SOP2_32, [mn], pattern=f"(set i32:$sdst, (UniformBinFrag<{op}> i32:$src0, i32:$src1))",
                       lets={"isCommutable": 1}, implicit_defs=_SCC if name in _WRITES_SCC else None)


def _v2(name, mn, op):
    return Instruction(name, VOP3_32, [mn], pattern=f"(set i32:$vdst, (DivergentBinFrag<{op}> i32:$src0, i32:$src1))",
                       lets={"isCommutable": 1})


DEFS = (
    _s1("S_BCNT1_I32_B32", "s_bcnt1_i32_b32", "ctpop"),
    Instruction("V_BCNT_U32_B32_e64", VOP3_32, ["v_bcnt_u32_b32"]),
    _s1("S_BREV_B32", "s_brev_b32", "bitreverse"),
    _v1("V_BFREV_B32_e64", "v_bfrev_b32", "bitreverse"),
    _s1("S_FLBIT_I32_B32", "s_flbit_i32_b32", "ctlz_zero_undef"),
    _v1("V_FFBH_U32_e64", "v_ffbh_u32", "ctlz_zero_undef"),
    _s1("S_FF1_I32_B32", "s_ff1_i32_b32", "cttz_zero_undef"),
    _v1("V_FFBL_B32_e64", "v_ffbl_b32", "cttz_zero_undef"),
    _s1("S_FLBIT_I32", "s_flbit_i32", "AMDGPUffbh_i32"),
    _v1("V_FFBH_I32_e64", "v_ffbh_i32", "AMDGPUffbh_i32"),
    _s2("S_MIN_I32", "s_min_i32", "smin"),
    _s2("S_MAX_I32", "s_max_i32", "smax"),
    _s2("S_MIN_U32", "s_min_u32", "umin"),
    _s2("S_MAX_U32", "s_max_u32", "umax"),
    _v2("V_MIN_I32_e64", "v_min_i32", "smin"),
    _v2("V_MAX_I32_e64", "v_max_i32", "smax"),
    _v2("V_MIN_U32_e64", "v_min_u32", "umin"),
    _v2("V_MAX_U32_e64", "v_max_u32", "umax"),
    _s1("S_ABS_I32", "s_abs_i32", "abs"),
    Instruction("S_SEXT_I32_I8", SOP1_32, ["s_sext_i32_i8"]),
    Instruction("S_SEXT_I32_I16", SOP1_32, ["s_sext_i32_i16"]),
    Instruction("V_BFE_I32_e64", VOP3_32, ["v_bfe_i32"], ins="(ins VGPR_32:$src0, VGPR_32:$src1, VGPR_32:$src2)",
                asm="v_bfe_i32 $vdst, $src0, $src1, $src2"),
    Instruction("V_BFE_U32_e64", VOP3_32, ["v_bfe_u32"], ins="(ins VGPR_32:$src0, VGPR_32:$src1, VGPR_32:$src2)",
                asm="v_bfe_u32 $vdst, $src0, $src1, $src2"),
)

PATTERNS = (
    Pat("(i32 (DivergentUnaryFrag<ctpop> i32:$src))", "(V_BCNT_U32_B32_e64 $src, (i32 0))"),
    Pat("(i32 (DivergentUnaryFrag<abs> i32:$src))", "(V_MAX_I32_e64 $src, (V_SUB_U32_e64 (i32 0), $src, 0))"),
    # sign_extend_inreg: uniform -> the SOP1 sign extensions; divergent -> v_bfe_i32 of
    # the low 8/16 bits.
    Pat("(i32 (UniformSextInreg_i8 i32:$src))", "(S_SEXT_I32_I8 $src)"),
    Pat("(i32 (UniformSextInreg_i16 i32:$src))", "(S_SEXT_I32_I16 $src)"),
    Pat("(i32 (DivergentSextInreg_i8 i32:$src))", "(V_BFE_I32_e64 $src, (i32 0), (i32 8))"),
    Pat("(i32 (DivergentSextInreg_i16 i32:$src))", "(V_BFE_I32_e64 $src, (i32 0), (i32 16))"),
    Pat("(i32 (DivergentTernaryFrag<AMDGPUbfe_u32> i32:$src, i32:$off, i32:$width))",
        "(V_BFE_U32_e64 $src, $off, $width)"),
    Pat("(i32 (DivergentTernaryFrag<AMDGPUbfe_i32> i32:$src, i32:$off, i32:$width))",
        "(V_BFE_I32_e64 $src, $off, $width)"),
)

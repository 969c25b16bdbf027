"""Bit-counting, bit-field, min/max, abs and in-register sign extension (gfx900).

The operations LLVM's divergence-driven isel tests exercise, each with its SALU form for
uniform nodes and VALU form for divergent ones (opcode names as LLVM 19 has them, checked
with llc-19 -mtriple=amdgcn -mcpu=gfx900 -stop-after=amdgpu-isel):

- ctpop: s_bcnt1_i32_b32 / v_bcnt_u32_b32 (src, 0); bitreverse: s_brev_b32 / v_bfrev_b32;
- ctlz_zero_undef: s_flbit_i32_b32 / v_ffbh_u32; cttz_zero_undef: s_ff1_i32_b32 /
  v_ffbl_b32 (llc lowers a zero-defined ctlz/cttz to these plus umin(.., 32)); after
  legalization they are the AMDGPUISD::FFBH_U32 / FFBL_B32 nodes, matched by patterns
  of their own;
- llvm.amdgcn.sffbh (signed find-first-bit-high) lowered to AMDGPUISD::FFBH_I32:
  s_flbit_i32 / v_ffbh_i32;
- smin/smax/umin/umax: s_min_i32 ... / v_min_i32_e64 ...; abs: s_abs_i32, divergent
  abs = v_max_i32(x, v_sub_u32(0, x));
- sext_inreg i8/i16 (width a value-type leaf): s_sext_i32_i8/i16 / v_bfe_i32(x, 0, 8|16);
- bit-field extracts: AMDGPU selects them in C++ before the matcher table
  (``AMDGPUDAGToDAGISel::Select`` sends i32 and/srl/sra/sign_extend_inreg and the
  BFE_U32/BFE_I32 nodes to ``SelectS_BFE``); modeled as the ``CustomSelect``
  ``SELECT_S_BFE`` below: ``(and (srl x, b), mask)``, ``(srl (and x, mask), b)``,
  ``(srl|sra (shl x, a), c)`` with 0 < a <= c < 32, ``(sext_inreg (srl x, b), iN)``
  and BFE nodes with constant offset/width become s_bfe_u32/s_bfe_i32 with one packed
  immediate ``offset | width << 16`` when the source value is uniform, v_bfe_u32/
  v_bfe_i32 with separate immediates when it is divergent. The table keeps LLVM's plain
  ``AMDGPUbfe_u32/i32`` -> v_bfe patterns (no divergence predicate, as VOP3Inst has
  them) for BFE nodes with register offset/width, and LLVM's BFEPattern shapes with a
  register offset or width (``(and (srl x, y), mask)``, ``x & ((1 << y) - 1)``:
  v_bfe_u32 when divergent) and BFMPatterns (``((1 << a) - 1) << b``: s_bfm_b32 /
  v_bfm_b32).
"""

from tdgen.hw import DivergenceKind
from tdgen.model import (
    CustomSelect,
    Instruction,
    Intrinsic,
    IntrNoMem,
    IntrSpeculatable,
    Lowering,
    DIVERGENT_PREDICATE,
    UNIFORM_PREDICATE,
    ImmLeaf,
    Pat,
    PatFrag,
    SDNode,
    SDNodeXForm,
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
# what legalization makes of ctlz_zero_undef / cttz_zero_undef (the hardware's find-first
# -bit, -1 for a zero input: so no known bits; patterns.dag.combine.driver._legalize)
AMDGPUffbh_u32_impl = SDNode("AMDGPUffbh_u32_impl", "AMDGPUISD::FFBH_U32", SDTIntUnaryOp32)
AMDGPUffbl_b32_impl = SDNode("AMDGPUffbl_b32_impl", "AMDGPUISD::FFBL_B32", SDTIntUnaryOp32)
AMDGPUbfe_u32 = SDNode("AMDGPUbfe_u32", "AMDGPUISD::BFE_U32", SDTIntBitField32)
AMDGPUbfe_i32 = SDNode("AMDGPUbfe_i32", "AMDGPUISD::BFE_I32", SDTIntBitField32)
# three-operand min/max (SITargetLowering::performMinMaxCombine: a min/max of a one-use
# min/max of the same kind); selected to the VOP3 v_min3/v_max3 whatever the divergence
# (SALU has no three-operand form)
SDTIntTernaryOp32 = SDTypeProfile(
    1, 3, [SDTCisVT(0, i32), SDTCisSameAs(0, 1), SDTCisSameAs(0, 2), SDTCisSameAs(0, 3)], name="SDTIntTernaryOp32")
AMDGPUsmin3 = SDNode("AMDGPUsmin3", "AMDGPUISD::SMIN3", SDTIntTernaryOp32)
AMDGPUsmax3 = SDNode("AMDGPUsmax3", "AMDGPUISD::SMAX3", SDTIntTernaryOp32)
AMDGPUumin3 = SDNode("AMDGPUumin3", "AMDGPUISD::UMIN3", SDTIntTernaryOp32)
AMDGPUumax3 = SDNode("AMDGPUumax3", "AMDGPUISD::UMAX3", SDTIntTernaryOp32)


def _sext_inreg_frag(div: str, vt: str) -> PatFrag:
    # The width of sext_inreg is a VT operand (SDTCisVTSmallerThanOp): llvm-tblgen wants the
    # value type written inside the fragment, so a generic Uniform/DivergentBinFrag<sext_inreg>
    # cannot carry it -- one fragment per (divergence, width), like LLVM's *SextInreg<VT>.
    return PatFrag(f"{div.capitalize()}SextInreg_{vt}", ["src"], f"(sext_inreg node:$src, {vt})",
                   predicate_code=UNIFORM_PREDICATE if div == "uniform" else DIVERGENT_PREDICATE,
                   divergence=div)


# LLVM's BFEPattern (SIInstructions.td, instantiated for V_BFE_U32/V_BFE_I32): bit-field
# extracts with a register offset or width, which SelectS_BFE leaves to the table
# (its shapes need constants). The mask's population count is the width.
IMMZeroBasedBitfieldMask = ImmLeaf("IMMZeroBasedBitfieldMask", i32, "return isMask_32(Imm);")
IMMPopCount = SDNodeXForm(
    "IMMPopCount", "imm",
    "return CurDAG->getTargetConstant(llvm::popcount(N->getZExtValue()), SDLoc(N), MVT::i32);",
    doc="the number of ones of a low-bit mask: the field width",
)
add_oneuse = PatFrag("add_oneuse", ["src0", "src1"], "(add node:$src0, node:$src1)", has_one_use=True)
shl_oneuse = PatFrag("shl_oneuse", ["src0", "src1"], "(shl node:$src0, node:$src1)", has_one_use=True)

XFORMS = (IMMPopCount,)
FRAGS = tuple(_sext_inreg_frag(d, vt) for d in ("uniform", "divergent") for vt in ("i8", "i16")) + (
    IMMZeroBasedBitfieldMask, add_oneuse, shl_oneuse)

PROFILES = (SDTIntUnaryOp32, SDTIntBitField32, SDTIntTernaryOp32)
NODES = (AMDGPUffbh_i32, AMDGPUffbh_u32_impl, AMDGPUffbl_b32_impl, AMDGPUbfe_u32, AMDGPUbfe_i32, AMDGPUsmin3, AMDGPUsmax3, AMDGPUumin3, AMDGPUumax3)

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
    *(Instruction(f"V_{k}3_{t}_e64", VOP3_32, [f"v_{k.lower()}3_{t.lower()}"],
                  ins="(ins VGPR_32:$src0, VGPR_32:$src1, VGPR_32:$src2)",
                  asm=f"v_{k.lower()}3_{t.lower()} $vdst, $src0, $src1, $src2",
                  pattern=f"(set i32:$vdst, (AMDGPU{'s' if t == 'I32' else 'u'}{k.lower()}3 "
                          "i32:$src0, i32:$src1, i32:$src2))")
      for k in ("MIN", "MAX") for t in ("I32", "U32")),
    Instruction("S_SEXT_I32_I8", SOP1_32, ["s_sext_i32_i8"]),
    Instruction("S_SEXT_I32_I16", SOP1_32, ["s_sext_i32_i16"]),
    Instruction("V_BFE_I32_e64", VOP3_32, ["v_bfe_i32"], ins="(ins VGPR_32:$src0, VGPR_32:$src1, VGPR_32:$src2)",
                asm="v_bfe_i32 $vdst, $src0, $src1, $src2"),
    Instruction("V_BFE_U32_e64", VOP3_32, ["v_bfe_u32"], ins="(ins VGPR_32:$src0, VGPR_32:$src1, VGPR_32:$src2)",
                asm="v_bfe_u32 $vdst, $src0, $src1, $src2"),
    # src1 packs the field: offset in bits [5:0], width in bits [22:16]; selected only by
    # SELECT_S_BFE (a TableGen result cannot compute the packed immediate from two operands)
    Instruction("S_BFE_U32", SOP2_32, ["s_bfe_u32"], implicit_defs=_SCC),
    Instruction("S_BFE_I32", SOP2_32, ["s_bfe_i32"], implicit_defs=_SCC),
    # bit-field masks ((1 << width) - 1) << offset: selected by BFMPatterns below
    Instruction("S_BFM_B32", SOP2_32, ["s_bfm_b32"]),
    Instruction("V_BFM_B32_e64", VOP3_32, ["v_bfm_b32"]),
)

PATTERNS = (
    # LLVM's AMDGPUffbh_u32 / AMDGPUffbl_b32 fragments match ctlz_zero_undef /
    # cttz_zero_undef and the target nodes legalization makes of them; here the target
    # nodes get patterns of their own beside the instructions' own
    Pat("(i32 (UniformUnaryFrag<AMDGPUffbh_u32_impl> i32:$src))", "(S_FLBIT_I32_B32 $src)"),
    Pat("(i32 (DivergentUnaryFrag<AMDGPUffbh_u32_impl> i32:$src))", "(V_FFBH_U32_e64 $src)"),
    Pat("(i32 (UniformUnaryFrag<AMDGPUffbl_b32_impl> i32:$src))", "(S_FF1_I32_B32 $src)"),
    Pat("(i32 (DivergentUnaryFrag<AMDGPUffbl_b32_impl> i32:$src))", "(V_FFBL_B32_e64 $src)"),
    Pat("(i32 (DivergentUnaryFrag<ctpop> i32:$src))", "(V_BCNT_U32_B32_e64 $src, (i32 0))"),
    # v_bcnt_u32_b32 adds its second source: a divergent count feeding an add is one
    # instruction (a uniform count stays s_bcnt1 + the add)
    Pat("(i32 (add (i32 (DivergentUnaryFrag<ctpop> i32:$popcnt)), i32:$val))", "(V_BCNT_U32_B32_e64 $popcnt, $val)"),
    Pat("(i32 (DivergentUnaryFrag<abs> i32:$src))", "(V_MAX_I32_e64 $src, (V_SUB_U32_e64 (i32 0), $src, 0))"),
    # legalization expands i32 abs to smax(x, 0 - x) (patterns.dag.combine.driver._legalize_abs): a
    # uniform one is s_abs_i32 again by this pattern (SOPInstructions.td has it)
    Pat("(UniformBinFrag<smax> i32:$x, (i32 (ineg i32:$x)))", "(S_ABS_I32 SReg_32:$x)"),
    # sign_extend_inreg: uniform -> the SOP1 sign extensions; divergent -> v_bfe_i32 of
    # the low 8/16 bits.
    Pat("(i32 (UniformSextInreg_i8 i32:$src))", "(S_SEXT_I32_I8 $src)"),
    Pat("(i32 (UniformSextInreg_i16 i32:$src))", "(S_SEXT_I32_I16 $src)"),
    Pat("(i32 (DivergentSextInreg_i8 i32:$src))", "(V_BFE_I32_e64 $src, (i32 0), (i32 8))"),
    Pat("(i32 (DivergentSextInreg_i16 i32:$src))", "(V_BFE_I32_e64 $src, (i32 0), (i32 16))"),
    # no divergence predicate (LLVM's VOP3Inst patterns have none): a uniform BFE node
    # with a register offset or width is a VALU op; constant ones never get here
    # (SELECT_S_BFE takes them first)
    Pat("(i32 (AMDGPUbfe_u32 i32:$src, i32:$off, i32:$width))", "(V_BFE_U32_e64 $src, $off, $width)"),
    Pat("(i32 (AMDGPUbfe_i32 i32:$src, i32:$off, i32:$width))", "(V_BFE_I32_e64 $src, $off, $width)"),
    # BFEPattern: (x >> y) & mask (no one-use condition: a shift with other users is
    # selected again for them); x & ((1 << y) - 1). Divergent only: a uniform and keeps
    # s_lshr_b32 + s_and_b32 (llc-19). LLVM's other BFEPattern shapes (x & ~(-1 << y),
    # x & (-1 >> (32 - y)), shifts by 32 - y) are not modeled.
    Pat("(i32 (DivergentBinFrag<and> (i32 (srl i32:$src, i32:$rshift)), IMMZeroBasedBitfieldMask:$mask))",
        "(V_BFE_U32_e64 $src, $rshift, (i32 (IMMPopCount $mask)))"),
    Pat("(DivergentBinFrag<and> i32:$src, (add_oneuse (shl_oneuse 1, i32:$width), -1))",
        "(V_BFE_U32_e64 $src, (i32 0), $width)"),
    # BFMPatterns (SIInstructions.td): ((1 << a) - 1) << b and (1 << a) - 1 (no one-use
    # condition), the SALU form for a uniform root, the VALU one for a divergent root
    Pat("(i32 (UniformBinFrag<shl> (i32 (add (i32 (shl 1, i32:$a)), -1)), i32:$b))", "(S_BFM_B32 $a, $b)"),
    Pat("(i32 (UniformBinFrag<add> (i32 (shl 1, i32:$a)), -1))", "(S_BFM_B32 $a, (i32 0))"),
    Pat("(i32 (DivergentBinFrag<shl> (i32 (add (i32 (shl 1, i32:$a)), -1)), i32:$b))", "(V_BFM_B32_e64 $a, $b)"),
    Pat("(i32 (DivergentBinFrag<add> (i32 (shl 1, i32:$a)), -1))", "(V_BFM_B32_e64 $a, (i32 0))"),
)

# The model of AMDGPUDAGToDAGISel::SelectS_BFE / SelectS_BFEFromShifts / getBFE32 and of
# the BFE_I32/BFE_U32 case of Select, in the order the C++ tests the shapes (checked
# against llc-19 -mcpu=gfx900 on minimal kernels, tests/test_isel_llc.py). No one-use
# conditions: an inner srl/and/shl with other users is selected again on its own.
_S_BFE_MODEL = """
def bfe32(cur, signed, val, offset, width):
    # the source value's divergence picks the unit (getBFE32)
    if val.divergent:
        return cur.machine_node("V_BFE_I32_e64" if signed else "V_BFE_U32_e64", val,
                                cur.target_constant(offset), cur.target_constant(width))
    return cur.machine_node("S_BFE_I32" if signed else "S_BFE_U32", val,
                            cur.target_constant(offset | (width << 16)))


def from_shifts(N, cur):
    # (srl|sra (shl a, b), c) -> BFE a, c - b, 32 - c  when 0 < b <= c < 32
    shl = N.ops[0]
    b, c = cur.const(shl.ops[1]), cur.const(N.ops[1])
    if b is None or c is None:
        return cur.decline("the shift amounts are not both constants")
    if not 0 < b <= c < 32:
        return cur.decline(f"shift amounts {b}, {c} are not 0 < b <= c < 32")
    return bfe32(cur, N.opcode == "ISD::SRA", shl.ops[0], c - b, 32 - c)


def select(N, cur):
    opc, op0 = N.opcode, N.ops[0]
    if opc in ("AMDGPUISD::BFE_U32", "AMDGPUISD::BFE_I32"):
        off, width = cur.const(N.ops[1]), cur.const(N.ops[2])
        if off is None or width is None:
            return cur.decline("offset or width is not a constant")
        return bfe32(cur, opc == "AMDGPUISD::BFE_I32", op0, off, width)
    if opc == "ISD::AND":
        if op0.opcode != "ISD::SRL":
            return cur.decline("operand 0 is not srl")
        shift, mask = cur.const(op0.ops[1]), cur.const(N.ops[1])
        if shift is None or mask is None or not cur.is_mask_32(mask):
            return cur.decline("not (and (srl x, constant), low-bit mask)")
        return bfe32(cur, False, op0.ops[0], shift, cur.popcount(mask))
    if opc == "ISD::SRL":
        if op0.opcode == "ISD::AND":
            shift, mask = cur.const(N.ops[1]), cur.const(op0.ops[1])
            if shift is None or mask is None or not cur.is_mask_32(mask >> shift):
                return cur.decline("not (srl (and x, mask), constant) with mask >> constant a low-bit mask")
            return bfe32(cur, False, op0.ops[0], shift, cur.popcount(mask >> shift))
        if op0.opcode == "ISD::SHL":
            return from_shifts(N, cur)
        return cur.decline("operand 0 is neither and nor shl")
    if opc == "ISD::SRA":
        if op0.opcode == "ISD::SHL":
            return from_shifts(N, cur)
        return cur.decline("operand 0 is not shl")
    if opc == "ISD::SIGN_EXTEND_INREG":
        # sext_inreg (srl x, b), iN -> BFE_I32 x, b, N
        if op0.opcode != "ISD::SRL" or cur.const(op0.ops[1]) is None:
            return cur.decline("operand 0 is not srl by a constant")
        return bfe32(cur, True, op0.ops[0], cur.const(op0.ops[1]), cur.vt_bits(N.ops[1]))
    return None
"""

SELECT_S_BFE = CustomSelect(
    "SelectS_BFE",
    opcodes=("and", "srl", "sra", "sext_inreg", "AMDGPUbfe_u32", "AMDGPUbfe_i32"),
    emits=("S_BFE_U32", "S_BFE_I32", "V_BFE_U32_e64", "V_BFE_I32_e64"),
    model=_S_BFE_MODEL,
    vt="i32",
    doc="bit-field extracts: s_bfe_u32/s_bfe_i32 (packed offset | width << 16) for a uniform "
        "source, v_bfe_u32/v_bfe_i32 for a divergent one",
)
CUSTOM_SELECTS = (SELECT_S_BFE,)

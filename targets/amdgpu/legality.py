"""AMDGPU's lowering tables for gfx900 (LLVM 19's SITargetLowering and AMDGPUTargetLowering
constructors, the entries for what kernels contain), as ``tdgen.model.legality`` data.

Facts carried over (gfx900: has16BitInsts, no true16, wave64):

- register classes: i1 -> VReg_1 (the lane-mask pseudo class SILowerI1Copies rewrites; the
  spec declares no registers for it), i32 / i16 / v2i16 / v2f16 -> SReg_32 (LLVM adds f16
  too; the subset's SReg_32 does not hold f16, so f16 is not a legal type here yet), f32 ->
  VGPR_32 (getDefaultVectorSuperClassForBitWidth(32) without AGPRs), i64 / v2i32 ->
  SReg_64, f64 -> VReg_64. (The wider vector classes exist in LLVM; the subset declares
  none of them, so those types are not legal here.)
- ZeroOrOneBooleanContent for scalars and vectors.
- i32/i64: SDIV/UDIV/SREM/UREM, SMUL_LOHI/UMUL_LOHI, BSWAP (AMDGPUTargetLowering; SI
  makes BSWAP Legal again), CTTZ/CTLZ Expand; ADDC/ADDE/SUBC/SUBE Legal; SDIVREM/UDIVREM
  Custom; ROTL Expand, ROTR i64 Expand, FSHR i32 Legal; MUL/MULHU/MULHS i64 Expand;
  SMIN/SMAX/UMIN/UMAX i32 Legal; the counts of i64 Custom; ABS, UADDO, USUBO,
  UADDO_CARRY, USUBO_CARRY i32 Legal (SI); SHL_PARTS/SRA_PARTS/SRL_PARTS i64 Expand;
  CTLZ/CTLZ_ZERO_UNDEF/CTTZ/CTTZ_ZERO_UNDEF i32 Custom (LowerCTLZ_CTTZ, the
  ``lower_ctlz_cttz`` hook); BITREVERSE i32/i64 Legal; SELECT i1 Promote, i64 Custom;
  SETCC i1 Promote (to i32); SELECT_CC and BR_CC Expand; BRCOND Custom.
- i16 (has16BitInsts): SMIN/SMAX/UMIN/UMAX Legal; ROTR/ROTL Expand; SIGN_EXTEND, the
  divisions, BITREVERSE, the counts and CTPOP Promote.
- v2i32 (VectorIntTypes): the integer operations Expand -- they are unrolled into i32
  operations by the vector legalizer.
- f32: FMAD Legal (hasMadMacF32Insts), FMINNUM/FMAXNUM Custom, FMINNUM_IEEE/FMAXNUM_IEEE
  Legal, FDIV/FSIN/FCOS Custom, FABS/FFLOOR/FCEIL/FTRUNC Legal; f16 FMA Legal.
- Loads/stores: LOAD/STORE of v2i32 and i1 Custom, LOAD/STORE of i64/f64 Promote to v2i32,
  STORE of f32 Promote to i32; no extending loads to i64 (Expand), extending
  loads of i1 Promote and of i8/i16 Legal; truncating stores of i64 to i1/i8/i16/i32
  Expand.

Where it stops: the vector types wider than two elements, bf16, the atomics' and
address-space-cast Custom entries, and the rest of those constructors' entries are not
listed (the engine does not model those operations yet)."""

from tdgen.model import Legality, LoadExtAction, OperationAction, RegisterFor, TruncStoreAction
from tdgen.types import OtherVT, f16, f32, f64, i1, i16, i32, i64, i8, v2f16, v2i16, v2i32

from .registers import SReg_32, SReg_64, VGPR_32, VReg_64

_VECTOR_INT_EXPAND = (
    "ADD", "AND", "FP_TO_SINT", "FP_TO_UINT", "MUL", "MULHU", "MULHS", "OR", "SHL", "SRA", "SRL", "ROTL",
    "ROTR", "SUB", "SINT_TO_FP", "UINT_TO_FP", "SDIV", "UDIV", "SREM", "UREM", "SMUL_LOHI", "UMUL_LOHI",
    "SDIVREM", "UDIVREM", "SELECT", "VSELECT", "SELECT_CC", "XOR", "BSWAP", "CTPOP", "CTTZ", "CTLZ",
    "VECTOR_SHUFFLE", "SETCC", "ADDRSPACECAST",
)

LEGALITY = Legality(
    register_classes=(
        RegisterFor(i1, "VReg_1"),
        RegisterFor(i64, SReg_64),
        RegisterFor(i32, SReg_32),
        RegisterFor(f32, VGPR_32),
        RegisterFor(v2i32, SReg_64),
        RegisterFor(f64, VReg_64),
        RegisterFor(i16, SReg_32),
        RegisterFor(v2i16, SReg_32),
        RegisterFor(v2f16, SReg_32),
    ),
    boolean_contents="ZeroOrOneBooleanContent",
    boolean_vector_contents="ZeroOrOneBooleanContent",
    operations=(
        # AMDGPUTargetLowering
        OperationAction(("Constant",), (i32, i64), "Legal"),
        OperationAction(("ConstantFP",), (f32, f64), "Legal"),
        OperationAction(("LOAD", "STORE"), (i64, f64), "Promote", promote_to=v2i32),
        OperationAction(("STORE",), (f32,), "Promote", promote_to=i32),
        OperationAction(("SDIV", "UDIV", "SREM", "UREM"), (i32, i64), "Expand"),
        OperationAction(("SDIVREM", "UDIVREM"), (i32, i64), "Custom", lowering="LowerDIVREM"),
        OperationAction(("SMUL_LOHI", "UMUL_LOHI"), (i32, i64), "Expand"),
        OperationAction(("BSWAP", "CTTZ", "CTLZ"), (i32, i64), "Expand"),
        OperationAction(("ADDC", "SUBC", "ADDE", "SUBE"), (i32, i64), "Legal"),
        OperationAction(("FSHR",), (i32,), "Legal"),
        OperationAction(("ROTL",), (i32, i64), "Expand"),
        OperationAction(("ROTR",), (i64,), "Expand"),
        OperationAction(("MULHU", "MULHS"), (i16,), "Expand"),
        OperationAction(("MUL", "MULHU", "MULHS"), (i64,), "Expand"),
        OperationAction(("SELECT_CC",), (i64,), "Expand"),
        OperationAction(("SMIN", "UMIN", "SMAX", "UMAX"), (i32,), "Legal"),
        OperationAction(("CTTZ", "CTTZ_ZERO_UNDEF", "CTLZ", "CTLZ_ZERO_UNDEF"), (i64,), "Custom",
                        lowering="LowerCTLZ_CTTZ"),
        OperationAction(("CTLZ", "CTLZ_ZERO_UNDEF"), (i8, i16), "Custom", lowering="LowerCTLZ_CTTZ"),
        OperationAction(_VECTOR_INT_EXPAND, (v2i32,), "Expand"),
        OperationAction(("FCEIL", "FPOW", "FABS", "FFLOOR", "FROUNDEVEN", "FTRUNC", "FMINNUM", "FMAXNUM"), (f32,),
                        "Legal"),
        OperationAction(("FSUB",), (f64,), "Expand"),
        # SITargetLowering
        OperationAction(("LOAD", "STORE"), (v2i32, i1), "Custom", lowering="LowerLOAD_STORE"),
        OperationAction(("SELECT",), (i1,), "Promote"),
        OperationAction(("SELECT",), (i64,), "Custom", lowering="LowerSELECT"),
        OperationAction(("SELECT",), (f64,), "Promote", promote_to=i64),
        OperationAction(("SELECT_CC",), (f32, i32, i64, f64, i1), "Expand"),
        OperationAction(("SETCC",), (i1,), "Promote", promote_to=i32),
        OperationAction(("BRCOND",), (OtherVT,),
                        "Custom", lowering="LowerBRCOND"),
        OperationAction(("BR_CC",), (i1, i32, i64, f32, f64), "Expand"),
        OperationAction(("ABS", "UADDO", "USUBO"), (i32,), "Legal"),
        OperationAction(("UADDO_CARRY", "USUBO_CARRY"), (i32,), "Legal"),
        OperationAction(("SHL_PARTS", "SRA_PARTS", "SRL_PARTS"), (i64,), "Expand"),
        OperationAction(("BITREVERSE",), (i32, i64), "Legal"),
        OperationAction(("BSWAP",), (i64, i32), "Legal"),
        OperationAction(("FMAD",), (f32,), "Legal"),
        OperationAction(("CTLZ", "CTLZ_ZERO_UNDEF", "CTTZ", "CTTZ_ZERO_UNDEF"), (i32,), "Custom",
                        lowering="LowerCTLZ_CTTZ"),
        OperationAction(("UADDSAT", "USUBSAT"), (i32,), "Legal"),
        OperationAction(("SADDSAT", "SSUBSAT"), (i16, i32), "Legal"),
        OperationAction(("FMINNUM", "FMAXNUM"), (f32, f64), "Custom", lowering="LowerFMINNUM_FMAXNUM"),
        OperationAction(("FMINNUM_IEEE", "FMAXNUM_IEEE"), (f32, f64), "Legal"),
        OperationAction(("FSIN", "FCOS", "FDIV"), (f32,), "Custom", lowering="LowerTrig_FDIV"),
        OperationAction(("Constant", "SMIN", "SMAX", "UMIN", "UMAX", "UADDSAT", "USUBSAT"), (i16,), "Legal"),
        OperationAction(("ROTR", "ROTL", "SELECT_CC", "BR_CC"), (i16,), "Expand"),
        OperationAction(("SIGN_EXTEND", "SDIV", "UDIV", "SREM", "UREM", "BITREVERSE", "CTTZ", "CTTZ_ZERO_UNDEF",
                         "CTLZ", "CTLZ_ZERO_UNDEF", "CTPOP"), (i16,), "Promote"),
        OperationAction(("FMA",), (f16,), "Legal"),
        OperationAction(("AND", "OR", "XOR"), (v2i16,), "Promote", promote_to=i32),
    ),
    load_ext=(
        # no 64-bit extending loads: a 32-bit one and an extension
        LoadExtAction(("EXTLOAD", "SEXTLOAD", "ZEXTLOAD"), (i64,), (i1, i8, i16, i32), "Expand"),
        LoadExtAction(("EXTLOAD", "SEXTLOAD", "ZEXTLOAD"), (i32, i16), (i1,), "Promote"),
        LoadExtAction(("EXTLOAD", "SEXTLOAD", "ZEXTLOAD"), (i32, i16), (i8, i16), "Legal"),
        LoadExtAction(("EXTLOAD",), (f32,), (f16,), "Expand"),
        LoadExtAction(("EXTLOAD",), (f64,), (f16, f32), "Expand"),
    ),
    trunc_store=(
        TruncStoreAction(i64, i1, "Expand"),
        TruncStoreAction(i64, i8, "Expand"),
        TruncStoreAction(i64, i16, "Expand"),
        TruncStoreAction(i64, i32, "Expand"),
        TruncStoreAction(f32, f16, "Expand"),
        TruncStoreAction(f64, f16, "Expand"),
        TruncStoreAction(f64, f32, "Expand"),
    ),
)

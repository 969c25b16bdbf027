"""dslike: a small custom GPU whose warp shuffles run on a DS-like (LDS crossbar) unit.

What it models, following the porting guide:
- shuffle intrinsics ``llvm.dslike.shfl.{idx,up,down,bfly}.i32(value, lane_or_delta,
  clamp)`` (convergent, no memory), target SDNodes ``DSLikeISD::SHFL*_I32`` they are
  lowered to in LowerINTRINSIC_WO_CHAIN, and DS-like instructions selecting them;
- every ``llvm.nvvm.shfl.sync.{idx,up,down,bfly}.i32(mask, value, lane, clamp)`` is
  rewritten to the matching dslike shuffle (the mask is dropped: dslike shuffles always
  involve the whole active wave);
- ds_permute/ds_bpermute-style data permutes from a permute multiclass;
- readlane/readfirstlane (always uniform), lane id (source of divergence), and a
  uniform/divergent 32-bit add pair through divergence-predicate PatFrags.

Wave: 32 lanes by default; a 64-lane mode exists in which a DS permute only crosses
lanes within each 32-lane half (``bpermute_wave64="half"``).
"""

from tdgen.hw import DivergenceKind, DivergenceRule, UniformityModel, WaveModel
from tdgen.model import (
    Defm,
    InstrClass,
    InstrField,
    Instruction,
    Intrinsic,
    IntrConvergent,
    IntrNoCallback,
    IntrNoFree,
    IntrNoMem,
    IntrSpeculatable,
    IntrWillReturn,
    Lowering,
    Multiclass,
    Param,
    Ref,
    RegisterClass,
    Rewrite,
    SDNode,
    SDTCisSameAs,
    SDTCisVT,
    SDTypeProfile,
    Target,
    divergent,
    reg_names,
    uniform,
)
from tdgen.builtins import BUILTIN_NODES
from tdgen.types import f32, i32, llvm_i32_ty

# ---------------------------------------------------------------- registers
SReg_32 = RegisterClass("SReg_32", "scalar", [i32, f32], reg_names("S", 64), size=32)
VReg_32 = RegisterClass("VReg_32", "vector", [i32, f32], reg_names("V", 128), size=32)

# --------------------------------------------------------------- intrinsics
_SHFL_PROPS = [IntrNoMem, IntrConvergent, IntrWillReturn, IntrNoCallback, IntrNoFree]
_I32x3 = [llvm_i32_ty, llvm_i32_ty, llvm_i32_ty]

SHUFFLE_KINDS = ("idx", "up", "down", "bfly")

int_dslike_shfl_idx_i32 = Intrinsic(
    "int_dslike_shfl_idx_i32", [llvm_i32_ty], _I32x3, _SHFL_PROPS,
    divergence=DivergenceKind.FOLLOWS_OPERANDS, clang_builtin="__builtin_dslike_shfl_idx_i32",
)
int_dslike_shfl_up_i32 = Intrinsic(
    "int_dslike_shfl_up_i32", [llvm_i32_ty], _I32x3, _SHFL_PROPS,
    divergence=DivergenceKind.FOLLOWS_OPERANDS, clang_builtin="__builtin_dslike_shfl_up_i32",
)
int_dslike_shfl_down_i32 = Intrinsic(
    "int_dslike_shfl_down_i32", [llvm_i32_ty], _I32x3, _SHFL_PROPS,
    divergence=DivergenceKind.FOLLOWS_OPERANDS, clang_builtin="__builtin_dslike_shfl_down_i32",
)
int_dslike_shfl_bfly_i32 = Intrinsic(
    "int_dslike_shfl_bfly_i32", [llvm_i32_ty], _I32x3, _SHFL_PROPS,
    divergence=DivergenceKind.FOLLOWS_OPERANDS, clang_builtin="__builtin_dslike_shfl_bfly_i32",
)
int_dslike_ds_permute = Intrinsic(
    "int_dslike_ds_permute", [llvm_i32_ty], [llvm_i32_ty, llvm_i32_ty], _SHFL_PROPS,
    divergence=DivergenceKind.FOLLOWS_OPERANDS,
)
int_dslike_ds_bpermute = Intrinsic(
    "int_dslike_ds_bpermute", [llvm_i32_ty], [llvm_i32_ty, llvm_i32_ty], _SHFL_PROPS,
    divergence=DivergenceKind.FOLLOWS_OPERANDS,
)
int_dslike_readlane = Intrinsic(
    "int_dslike_readlane", [llvm_i32_ty], [llvm_i32_ty, llvm_i32_ty], _SHFL_PROPS,
    divergence=DivergenceKind.ALWAYS_UNIFORM,
)
int_dslike_readfirstlane = Intrinsic(
    "int_dslike_readfirstlane", [llvm_i32_ty], [llvm_i32_ty], _SHFL_PROPS,
    divergence=DivergenceKind.ALWAYS_UNIFORM,
)
int_dslike_lane_id = Intrinsic(
    "int_dslike_lane_id", [llvm_i32_ty], [], [IntrNoMem, IntrSpeculatable, IntrWillReturn],
    divergence=DivergenceKind.SOURCE,
)

SHUFFLES = {
    "idx": int_dslike_shfl_idx_i32,
    "up": int_dslike_shfl_up_i32,
    "down": int_dslike_shfl_down_i32,
    "bfly": int_dslike_shfl_bfly_i32,
}

# ----------------------------------------------------------------- SDNodes
# result = value from another lane: (i32 value, i32 lane/delta/mask, i32 clamp)
SDT_DSLikeShfl = SDTypeProfile(
    1, 3, [SDTCisVT(0, i32), SDTCisSameAs(0, 1), SDTCisVT(2, i32), SDTCisVT(3, i32)],
    name="SDT_DSLikeShfl",
)
shflidx = SDNode("shflidx", "DSLikeISD::SHFLIDX_I32", SDT_DSLikeShfl)
shflup = SDNode("shflup", "DSLikeISD::SHFLUP_I32", SDT_DSLikeShfl)
shfldown = SDNode("shfldown", "DSLikeISD::SHFLDOWN_I32", SDT_DSLikeShfl)
shflbfly = SDNode("shflbfly", "DSLikeISD::SHFLBFLY_I32", SDT_DSLikeShfl)
NODES = {"idx": shflidx, "up": shflup, "down": shfldown, "bfly": shflbfly}

# ------------------------------------------------------- divergence predicates
uniform_add = uniform(BUILTIN_NODES["add"], "uniform_add")
divergent_add = divergent(BUILTIN_NODES["add"], "divergent_add")

# ------------------------------------------------------------------ classes
DSlikep = InstrClass(
    "DSlikep",
    params=[Param("opName", "string")],
    fields=[
        InstrField("isRTN", "bit", 0),
        InstrField("has_vdst", "bit", 1),
        InstrField("has_src0", "bit", 1),
        InstrField("has_src1", "bit", 1),
        InstrField("PseudoInstr", "string", Ref("opName")),
        InstrField("NoRetOp", "string", ""),
    ],
    lets={"Namespace": "DSLike", "Size": 8, "mayLoad": 1, "mayStore": 1, "hasSideEffects": 0},
)

DSlikep_SHFL_RET = InstrClass(
    "DSlikep_SHFL_RET",
    params=[Param("opName", "string"), Param("rc", "RegisterClass"), Param("NoRetOp", "string", "")],
    parent=DSlikep,
    parent_args=[Ref("opName")],
    lets={
        "isRTN": 1,
        "has_vdst": 1,
        "has_src0": 1,
        "has_src1": 1,
        "mayLoad": 0,
        "mayStore": 0,
        "isConvergent": 1,
        "PseudoInstr": Ref("opName"),
        "NoRetOp": Ref("NoRetOp"),
        "outs": "(outs rc:$vdst)",
        "ins": "(ins rc:$src0, rc:$idx, rc:$src1)",
        "asm": "{opName} $vdst, $src0, $idx, $src1",
    },
)

DSlikep_PERMUTE = InstrClass(
    "DSlikep_PERMUTE",
    params=[Param("opName", "string"), Param("rc", "RegisterClass")],
    parent=DSlikep,
    parent_args=[Ref("opName")],
    lets={
        "isRTN": 1,
        "has_src1": 0,
        "mayLoad": 0,
        "mayStore": 0,
        "isConvergent": 1,
        "outs": "(outs rc:$vdst)",
        "ins": "(ins rc:$addr, rc:$src0)",
        "asm": "{opName} $vdst, $addr, $src0",
    },
)

ALU32 = InstrClass(
    "ALU32",
    params=[Param("opName", "string"), Param("rc", "RegisterClass")],
    lets={
        "Namespace": "DSLike", "Size": 4, "mayLoad": 0, "mayStore": 0, "hasSideEffects": 0,
        "outs": "(outs rc:$dst)",
        "ins": "(ins rc:$src0, rc:$src1)",
        "asm": "{opName} $dst, $src0, $src1",
    },
)

LaneRead = InstrClass(
    "LaneRead",
    params=[Param("opName", "string")],
    fields=[InstrField("Mnemonic", "string", Ref("opName"))],
    lets={
        "Namespace": "DSLike", "Size": 4, "mayLoad": 0, "mayStore": 0, "hasSideEffects": 0,
        "isConvergent": 1,
        "outs": "(outs SReg_32:$dst)",
    },
)

# -------------------------------------------------------------- multiclass
# defm DS_PERMUTE : DSlike_Permute<"ds_permute_b32", int_dslike_ds_permute> -> DS_PERMUTE_B32
DSlike_Permute = Multiclass(
    "DSlike_Permute",
    params=[Param("opName", "string"), Param("node", "SDPatternOperator")],
    defs=[
        Instruction(
            "_B32", DSlikep_PERMUTE, [Ref("opName"), VReg_32],
            pattern="(set i32:$vdst, (node i32:$addr, i32:$src0))",
        ),
    ],
)

# ---------------------------------------------------------------------- defs
DEFS = (
    Instruction("DS_SHFL_IDX_B32", DSlikep_SHFL_RET, ["ds_shfl_idx_b32", VReg_32],
                pattern="(set i32:$vdst, (shflidx i32:$src0, i32:$idx, i32:$src1))"),
    Instruction("DS_SHFL_UP_B32", DSlikep_SHFL_RET, ["ds_shfl_up_b32", VReg_32],
                pattern="(set i32:$vdst, (shflup i32:$src0, i32:$idx, i32:$src1))"),
    Instruction("DS_SHFL_DOWN_B32", DSlikep_SHFL_RET, ["ds_shfl_down_b32", VReg_32],
                pattern="(set i32:$vdst, (shfldown i32:$src0, i32:$idx, i32:$src1))"),
    Instruction("DS_SHFL_BFLY_B32", DSlikep_SHFL_RET, ["ds_shfl_bfly_b32", VReg_32],
                pattern="(set i32:$vdst, (shflbfly i32:$src0, i32:$idx, i32:$src1))"),
    Defm("DS_PERMUTE", DSlike_Permute, ["ds_permute_b32", int_dslike_ds_permute]),
    Defm("DS_BPERMUTE", DSlike_Permute, ["ds_bpermute_b32", int_dslike_ds_bpermute]),
    Instruction("S_ADD_U32", ALU32, ["s_add_u32", SReg_32],
                pattern="(set i32:$dst, (uniform_add i32:$src0, i32:$src1))",
                lets={"isCommutable": 1}),
    Instruction("V_ADD_U32", ALU32, ["v_add_u32", VReg_32],
                pattern="(set i32:$dst, (divergent_add i32:$src0, i32:$src1))",
                lets={"isCommutable": 1}),
    Instruction("V_READLANE_B32", LaneRead, ["v_readlane_b32"],
                ins="(ins VReg_32:$src0, SReg_32:$lane)",
                asm="v_readlane_b32 $dst, $src0, $lane",
                pattern="(set i32:$dst, (int_dslike_readlane i32:$src0, i32:$lane))"),
    Instruction("V_READFIRSTLANE_B32", LaneRead, ["v_readfirstlane_b32"],
                ins="(ins VReg_32:$src0)",
                asm="v_readfirstlane_b32 $dst, $src0",
                pattern="(set i32:$dst, (int_dslike_readfirstlane i32:$src0))"),
    Instruction("V_LANE_ID", None, (),
                outs="(outs VReg_32:$dst)", ins="(ins)", asm="v_lane_id $dst",
                pattern="(set i32:$dst, (int_dslike_lane_id))",
                lets={"Namespace": "DSLike", "Size": 4, "mayLoad": 0, "mayStore": 0,
                      "hasSideEffects": 0}),
)

# ------------------------------------------------------------------- lowering
LOWERINGS = tuple(Lowering(SHUFFLES[k], NODES[k], [0, 1, 2]) for k in SHUFFLE_KINDS)

# nvvm.shfl.sync.<k>.i32(mask, value, lane, clamp) -> dslike.shfl.<k>.i32(value, lane, clamp)
REWRITES = tuple(
    Rewrite(f"llvm.nvvm.shfl.sync.{k}.i32", SHUFFLES[k], [1, 2, 3], foreign_params=4)
    for k in SHUFFLE_KINDS
)

UNIFORMITY = UniformityModel(
    rules=(
        DivergenceRule("llvm.dslike.lane.id", DivergenceKind.SOURCE, "lane index"),
        DivergenceRule("llvm.dslike.readlane", DivergenceKind.ALWAYS_UNIFORM, "one lane's value"),
        DivergenceRule("llvm.dslike.readfirstlane", DivergenceKind.ALWAYS_UNIFORM, "first active lane's value"),
        DivergenceRule("llvm.nvvm.read.ptx.sreg.tid.*", DivergenceKind.SOURCE, "thread index"),
        DivergenceRule("llvm.nvvm.read.ptx.sreg.laneid", DivergenceKind.SOURCE, "lane index"),
    ),
    uniform_arg_ccs=frozenset({"ptx_kernel", "amdgpu_kernel"}),
    divergent_load_address_spaces=frozenset({0, 5}),
)

TARGET = Target(
    "dslike",
    namespace="DSLike",
    target_prefix="dslike",
    isd_namespace="DSLikeISD",
    description="custom GPU with DS-like cross-lane shuffles (porting guide)",
    intrinsics=(
        int_dslike_shfl_idx_i32, int_dslike_shfl_up_i32, int_dslike_shfl_down_i32,
        int_dslike_shfl_bfly_i32, int_dslike_ds_permute, int_dslike_ds_bpermute,
        int_dslike_readlane, int_dslike_readfirstlane, int_dslike_lane_id,
    ),
    profiles=(SDT_DSLikeShfl,),
    nodes=(shflidx, shflup, shfldown, shflbfly),
    frags=(uniform_add, divergent_add),
    register_classes=(SReg_32, VReg_32),
    classes=(DSlikep, DSlikep_SHFL_RET, DSlikep_PERMUTE, ALU32, LaneRead),
    multiclasses=(DSlike_Permute,),
    defs=DEFS,
    lowerings=LOWERINGS,
    rewrites=REWRITES,
    uniformity=UNIFORMITY,
    wave=WaveModel(sizes=(32, 64), default_size=32, bpermute_wave64="half"),
)

"""dslike: a small custom GPU whose warp shuffles run on a DS-like (LDS crossbar) unit.

What it models, following the porting guide:
- shuffle intrinsics ``llvm.dslike.shfl.{idx,up,down,bfly}.i32(value, lane_or_delta,
  clamp)`` (convergent, no memory), target SDNodes ``DSLikeISD::SHFL*_I32`` they are
  lowered to in LowerINTRINSIC_WO_CHAIN, and DS-like instructions selecting them;
- every ``llvm.nvvm.shfl.sync.{idx,up,down,bfly}.i32(mask, value, lane, clamp)`` is
  rewritten to the matching dslike shuffle (the mask is dropped: dslike shuffles always
  involve the whole active wave);
- ds_permute/ds_bpermute-style data permutes from a permute multiclass;
- readlane/readfirstlane (always uniform), lane id and work-item id (sources of
  divergence; ``llvm.nvvm.read.ptx.sreg.laneid``/``tid.x`` are rewritten to them), and
  a uniform/divergent 32-bit add pair through divergence-predicate PatFrags;
- what a whole kernel needs besides: a scalar move of an immediate, 32-bit loads (a
  scalar load for a uniform address, a vector one otherwise) and stores through 64-bit
  flat addresses (the pointers of address spaces 0, 1 and 4), for i32 and f32; the f32
  shuffles ``llvm.nvvm.shfl.sync.<k>.f32`` run on the same DS shuffle instructions;
- a kernel's end (``S_ENDPGM``, the wave stops) and i32 <-> f32 bitcasts as COPYs, both
  selected by the target's Select hooks (lowering.py);
- every instruction's semantics (``tdgen.model.semantics``): the shuffles are PTX's
  ``shfl.sync`` index rule (over the whole wave, ``log2(wave)`` lane bits) read through a
  full-wave bpermute; an inactive source lane reads 0.

Wave: 32 lanes by default; a 64-lane mode exists in which a DS permute only crosses
lanes within each 32-lane half (``bpermute_wave64="half"``).
"""

from tdgen.hw import DivergenceKind, DivergenceRule, UniformityModel, WaveModel
from tdgen.model import (
    UNIFORM_PREDICATE,
    Pat,
    PatFrag,
    Sem,
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
    reg_tuples,
    uniform,
)
from tdgen.builtins import BUILTIN_NODES
from tdgen.types import f32, i32, i64, llvm_float_ty, llvm_i32_ty

# ---------------------------------------------------------------- registers
SReg_32 = RegisterClass("SReg_32", "scalar", [i32, f32], reg_names("S", 64), size=32)
VReg_32 = RegisterClass("VReg_32", "vector", [i32, f32], reg_names("V", 128), size=32)
# 64-bit pairs for flat addresses
_S_PAIRS, _S_PARTS = reg_tuples(SReg_32.registers, 2, 2)
SReg_64 = RegisterClass("SReg_64", "scalar", [i64], _S_PAIRS, size=64, alignment=32,
                        subreg_indices=("sub0", "sub1"), subregs=_S_PARTS)
_V_PAIRS, _V_PARTS = reg_tuples(VReg_32.registers, 2, 1)
VReg_64 = RegisterClass("VReg_64", "vector", [i64], _V_PAIRS, size=64, alignment=32,
                        subreg_indices=("sub0", "sub1"), subregs=_V_PARTS)

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
int_dslike_workitem_id_x = Intrinsic(
    "int_dslike_workitem_id_x", [llvm_i32_ty], [], [IntrNoMem, IntrSpeculatable, IntrWillReturn],
    divergence=DivergenceKind.SOURCE,
)
_F32_SHFL = [llvm_float_ty, llvm_i32_ty, llvm_i32_ty]
SHUFFLES_F32 = {
    k: Intrinsic(f"int_dslike_shfl_{k}_f32", [llvm_float_ty], _F32_SHFL, _SHFL_PROPS,
                 divergence=DivergenceKind.FOLLOWS_OPERANDS)
    for k in ("idx", "up", "down", "bfly")
}

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
SDT_DSLikeShflF32 = SDTypeProfile(
    1, 3, [SDTCisVT(0, f32), SDTCisSameAs(0, 1), SDTCisVT(2, i32), SDTCisVT(3, i32)],
    name="SDT_DSLikeShflF32",
)
NODES_F32 = {k: SDNode(f"shfl{k}_f32", f"DSLikeISD::SHFL{k.upper()}_F32", SDT_DSLikeShflF32)
             for k in ("idx", "up", "down", "bfly")}

# ------------------------------------------------------- divergence predicates
uniform_add = uniform(BUILTIN_NODES["add"], "uniform_add")
divergent_add = divergent(BUILTIN_NODES["add"], "divergent_add")
# a constant is one value for the wave: the scalar unit's move (LLVM's constants are never
# divergent; the predicate says so to the matcher and the lint)
uniform_imm = uniform(BUILTIN_NODES["imm"], "uniform_imm")
# a load whose address (and so value) is the same on every lane: the scalar unit's
uniform_load = PatFrag("uniform_load", ["ptr"], "(load node:$ptr)", predicate_code=UNIFORM_PREDICATE,
                       divergence="uniform")


# ---------------------------------------------------------------- semantics
def _shfl_semantics(kind: str, lane_off: int = 0):
    """PTX shfl.sync over a wave of N = 2**k lanes (patterns.wave.shuffle's rule): lane
    ``j`` per ``kind`` from src0's lane, ``idx`` and the clamp/segment word src1; a lane
    whose ``j`` is out of its segment reads its own value. ``lane_off`` shifts the lane
    read (a deliberately wrong variant for the tests; 0 in the spec)."""
    S = Sem
    m = S.sub(S.wave_size(), 1)
    lane = S.lane_id()
    bval = S.and_("idx", m)
    clamp = S.and_("src1", m)
    seg = S.and_(S.lshr("src1", 8), m)
    min_lane = S.and_(lane, seg)
    max_lane = S.or_(min_lane, S.and_(clamp, S.not_(seg)))
    if kind == "idx":
        j = S.or_(min_lane, S.and_(bval, S.not_(seg)))
        ok = S.sle(j, max_lane)
    elif kind == "up":
        j = S.sub(lane, bval)
        ok = S.sge(j, max_lane)
    elif kind == "down":
        j = S.add(lane, bval)
        ok = S.sle(j, max_lane)
    else:
        j = S.xor(lane, bval)
        ok = S.sle(j, max_lane)
    src = S.select(ok, j, lane)
    if lane_off:
        src = S.add(src, lane_off)
    return S.lane(vdst=S.bpermute(S.shl(src, 2), "src0", wave64="full"))

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
_VALU_LETS = {"Namespace": "DSLike", "Size": 4, "mayLoad": 0, "mayStore": 0, "hasSideEffects": 0}

DEFS = (
    Instruction("DS_SHFL_IDX_B32", DSlikep_SHFL_RET, ["ds_shfl_idx_b32", VReg_32],
                pattern="(set i32:$vdst, (shflidx i32:$src0, i32:$idx, i32:$src1))",
                semantics=_shfl_semantics("idx")),
    Instruction("DS_SHFL_UP_B32", DSlikep_SHFL_RET, ["ds_shfl_up_b32", VReg_32],
                pattern="(set i32:$vdst, (shflup i32:$src0, i32:$idx, i32:$src1))",
                semantics=_shfl_semantics("up")),
    Instruction("DS_SHFL_DOWN_B32", DSlikep_SHFL_RET, ["ds_shfl_down_b32", VReg_32],
                pattern="(set i32:$vdst, (shfldown i32:$src0, i32:$idx, i32:$src1))",
                semantics=_shfl_semantics("down")),
    Instruction("DS_SHFL_BFLY_B32", DSlikep_SHFL_RET, ["ds_shfl_bfly_b32", VReg_32],
                pattern="(set i32:$vdst, (shflbfly i32:$src0, i32:$idx, i32:$src1))",
                semantics=_shfl_semantics("bfly")),
    Defm("DS_PERMUTE", DSlike_Permute, ["ds_permute_b32", int_dslike_ds_permute]),
    Defm("DS_BPERMUTE", DSlike_Permute, ["ds_bpermute_b32", int_dslike_ds_bpermute]),
    Instruction("S_ADD_U32", ALU32, ["s_add_u32", SReg_32],
                pattern="(set i32:$dst, (uniform_add i32:$src0, i32:$src1))",
                lets={"isCommutable": 1}, semantics=Sem.wave(dst=Sem.add("src0", "src1"))),
    Instruction("V_ADD_U32", ALU32, ["v_add_u32", VReg_32],
                pattern="(set i32:$dst, (divergent_add i32:$src0, i32:$src1))",
                lets={"isCommutable": 1}, semantics=Sem.lane(dst=Sem.add("src0", "src1"))),
    Instruction("V_READLANE_B32", LaneRead, ["v_readlane_b32"],
                ins="(ins VReg_32:$src0, SReg_32:$lane)",
                asm="v_readlane_b32 $dst, $src0, $lane",
                pattern="(set i32:$dst, (int_dslike_readlane i32:$src0, i32:$lane))",
                semantics=Sem.lane(dst=Sem.readlane("src0", "lane"))),
    Instruction("V_READFIRSTLANE_B32", LaneRead, ["v_readfirstlane_b32"],
                ins="(ins VReg_32:$src0)",
                asm="v_readfirstlane_b32 $dst, $src0",
                pattern="(set i32:$dst, (int_dslike_readfirstlane i32:$src0))",
                semantics=Sem.lane(dst=Sem.readfirstlane("src0"))),
    Instruction("V_LANE_ID", None, (),
                outs="(outs VReg_32:$dst)", ins="(ins)", asm="v_lane_id $dst",
                pattern="(set i32:$dst, (int_dslike_lane_id))",
                lets=_VALU_LETS, semantics=Sem.lane(dst=Sem.lane_id())),
    Instruction("V_WORKITEM_ID_X", None, (),
                outs="(outs VReg_32:$dst)", ins="(ins)", asm="v_workitem_id_x $dst",
                pattern="(set i32:$dst, (int_dslike_workitem_id_x))",
                lets=_VALU_LETS, semantics=Sem.lane(dst=Sem.workitem_id())),
    # a scalar move of a 32-bit immediate
    Instruction("S_MOV_B32", None, (),
                outs="(outs SReg_32:$dst)", ins="(ins i32imm:$imm)", asm="s_mov_b32 $dst, $imm",
                pattern="(set i32:$dst, (i32 uniform_imm:$imm))",
                lets={**_VALU_LETS, "isMoveImm": 1, "isAsCheapAsAMove": 1, "isReMaterializable": 1},
                semantics=Sem.wave(dst="imm")),
    # 32-bit loads and stores through a 64-bit flat address
    Instruction("S_LOAD_B32", None, (),
                outs="(outs SReg_32:$dst)", ins="(ins SReg_64:$addr)", asm="s_load_b32 $dst, $addr",
                pattern="(set i32:$dst, (uniform_load i64:$addr))",
                lets={**_VALU_LETS, "mayLoad": 1},
                semantics=Sem.wave(dst=Sem.load("addr", space="flat", bits=32))),
    Instruction("FLAT_LOAD_B32", None, (),
                outs="(outs VReg_32:$dst)", ins="(ins VReg_64:$addr)", asm="flat_load_b32 $dst, $addr",
                pattern="(set i32:$dst, (load i64:$addr))",
                lets={**_VALU_LETS, "mayLoad": 1},
                semantics=Sem.lane(dst=Sem.load("addr", space="flat", bits=32))),
    Instruction("FLAT_STORE_B32", None, (),
                outs="(outs)", ins="(ins VReg_32:$data, VReg_64:$addr)", asm="flat_store_b32 $addr, $data",
                pattern="(store i32:$data, i64:$addr)",
                lets={**_VALU_LETS, "mayStore": 1},
                semantics=Sem.lane(Sem.store("flat", "addr", "data", 32))),
    # the end of a kernel's program (selected for ISD::RET by lowering.py): the wave stops
    Instruction("S_ENDPGM", None, (),
                outs="(outs)", ins="(ins)", asm="s_endpgm",
                lets={"Namespace": "DSLike", "Size": 4, "mayLoad": 0, "mayStore": 0, "hasSideEffects": 1,
                      "isTerminator": 1, "isReturn": 1, "isBarrier": 1},
                semantics=Sem.wave(Sem.end())),
)

# the f32 forms: the same 32-bit instructions
PATTERNS = tuple(
    Pat(f"(f32 ({NODES_F32[k].name} f32:$src0, i32:$idx, i32:$src1))", f"(DS_SHFL_{k.upper()}_B32 $src0, $idx, $src1)")
    for k in SHUFFLE_KINDS
) + (
    Pat("(f32 (uniform_load i64:$addr))", "(S_LOAD_B32 $addr)"),
    Pat("(f32 (load i64:$addr))", "(FLAT_LOAD_B32 $addr)"),
    Pat("(store f32:$data, i64:$addr)", "(FLAT_STORE_B32 $data, $addr)"),
)

# ------------------------------------------------------------------- lowering
LOWERINGS = tuple(Lowering(SHUFFLES[k], NODES[k], [0, 1, 2]) for k in SHUFFLE_KINDS) + tuple(
    Lowering(SHUFFLES_F32[k], NODES_F32[k], [0, 1, 2]) for k in SHUFFLE_KINDS)

# nvvm.shfl.sync.<k>.i32(mask, value, lane, clamp) -> dslike.shfl.<k>.i32(value, lane, clamp)
REWRITES = tuple(
    Rewrite(f"llvm.nvvm.shfl.sync.{k}.i32", SHUFFLES[k], [1, 2, 3], foreign_params=4)
    for k in SHUFFLE_KINDS
) + tuple(
    Rewrite(f"llvm.nvvm.shfl.sync.{k}.f32", SHUFFLES_F32[k], [1, 2, 3], foreign_params=4)
    for k in SHUFFLE_KINDS
) + (
    Rewrite("llvm.nvvm.read.ptx.sreg.laneid", int_dslike_lane_id, [], foreign_params=0),
    Rewrite("llvm.nvvm.read.ptx.sreg.tid.x", int_dslike_workitem_id_x, [], foreign_params=0),
)

UNIFORMITY = UniformityModel(
    rules=(
        DivergenceRule("llvm.dslike.lane.id", DivergenceKind.SOURCE, "lane index"),
        DivergenceRule("llvm.dslike.workitem.id.x", DivergenceKind.SOURCE, "work-item index"),
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
        int_dslike_workitem_id_x, *SHUFFLES_F32.values(),
    ),
    profiles=(SDT_DSLikeShfl, SDT_DSLikeShflF32),
    nodes=(shflidx, shflup, shfldown, shflbfly, *NODES_F32.values()),
    frags=(uniform_add, divergent_add, uniform_imm, uniform_load),
    register_classes=(SReg_32, VReg_32, SReg_64, VReg_64),
    classes=(DSlikep, DSlikep_SHFL_RET, DSlikep_PERMUTE, ALU32, LaneRead),
    multiclasses=(DSlike_Permute,),
    defs=DEFS,
    patterns=PATTERNS,
    lowerings=LOWERINGS,
    rewrites=REWRITES,
    uniformity=UNIFORMITY,
    wave=WaveModel(sizes=(32, 64), default_size=32, bpermute_wave64="half"),
    hooks="lowering",
)

"""Targets built in Python for emitter paths the shipped targets do not reach.

- ``bare``: no intrinsics, target nodes, lowerings, rewrites or glob rules.
- ``ovl``: a register-pair class (sub-register indices), an overloaded intrinsic, a memory-reading intrinsic lowered through
  INTRINSIC_W_CHAIN, rewrites needing overload types and constant operands, glob rules
  with quotes in their notes.

Used by test_generate_edge.py (tblgen) and cpp_tools.py (g++).
"""

from __future__ import annotations

from tdgen.hw import DivergenceKind, DivergenceRule, UniformityModel
from tdgen.model import (
    Const, DivergenceFrag, ImmArg, InstrClass, Instruction, Intrinsic, IntrConvergent,
    IntrNoMem, IntrReadMem, Lowering, Pat, RegisterClass, Rewrite, SDNode, SDTCisVT,
    SDTypeProfile, Target, reg_names, reg_tuples,
)
from tdgen.types import LLVMMatchType, f32, f64, i32, i64, llvm_any_ty, llvm_i32_ty


def bare() -> Target:
    rc = RegisterClass("GPR32", "vector", (i32, f32), reg_names("R", 2))
    base = InstrClass("BareInst", lets=(("Size", 4),))
    mov = Instruction("MOV", base, outs="(outs GPR32:$d)", ins="(ins GPR32:$s)", asm="mov $d, $s")
    return Target("bare", "Bare", "bare", register_classes=(rc,), classes=(base,), defs=(mov,))


def overloaded() -> Target:
    rl = Intrinsic(
        "int_ovl_readlane", (llvm_any_ty,), (LLVMMatchType(0), llvm_i32_ty),
        (IntrNoMem, IntrConvergent, ImmArg(1)), DivergenceKind.ALWAYS_UNIFORM,
    )
    lid = Intrinsic("int_ovl_lane_id", (llvm_i32_ty,), (), (IntrNoMem,), DivergenceKind.SOURCE)
    # Reads memory: lowered through INTRINSIC_W_CHAIN to a node with a chain.
    ld = Intrinsic("int_ovl_lds_peek", (llvm_i32_ty,), (llvm_i32_ty,), (IntrReadMem,),
                   DivergenceKind.SOURCE, default_attrs=True)
    prof = SDTypeProfile(1, 1, (SDTCisVT(0, i32), SDTCisVT(1, i32)), name="SDT_OvlPeek")
    peek = SDNode("ovl_peek", "OvlISD::PEEK", prof, ("SDNPHasChain", "SDNPMayLoad"))
    rc = RegisterClass("VGPR", "vector", (i32,), reg_names("V", 4))
    sc = RegisterClass("SGPR", "scalar", (i32,), reg_names("S", 2))
    # 64-bit register pairs V0_V1, V2_V3 with sub-registers sub0/sub1.
    pairs, parts = reg_tuples(rc.registers, 2, 2)
    wide = RegisterClass("VReg_64", "vector", (i64, f64), pairs, subreg_indices=("sub0", "sub1"),
                         subregs=parts)
    ub = DivergenceFrag("UniformUnaryFrag", "uniform", 1)
    base = InstrClass("OvlInst")
    rdl = Instruction("READLANE", base, outs="(outs SGPR:$d)", ins="(ins VGPR:$s, i32imm:$l)",
                      asm="readlane $d, $s, $l")
    lane = Instruction("LANE_ID", base, outs="(outs VGPR:$d)", ins="(ins)", asm="lane_id $d",
                       pattern="(set i32:$d, (int_ovl_lane_id))")
    neg = Instruction("S_NOT", base, outs="(outs SGPR:$d)", ins="(ins SGPR:$s)", asm="s_not $d, $s")
    return Target(
        "ovl", "Ovl", "ovl",
        intrinsics=(rl, lid, ld), profiles=(prof,), nodes=(peek,), frag_classes=(ub,),
        register_classes=(rc, sc, wide), classes=(base,),
        defs=(rdl, lane, neg),
        patterns=(
            Pat("(i32 (int_ovl_readlane i32:$s, timm:$l))", "(READLANE $s, timm:$l)"),
            Pat("(UniformUnaryFrag<not> i32:$s)", "(S_NOT $s)", added_complexity=-1),
        ),
        lowerings=(Lowering(ld, peek),),
        rewrites=(
            Rewrite("llvm.nvvm.read.ptx.sreg.laneid", lid, ()),
            Rewrite("llvm.nvvm.shfl.sync.idx.i32", rl, (1, Const(0))),
        ),
        uniformity=UniformityModel(rules=(
            DivergenceRule("llvm.ovl.image.*", DivergenceKind.SOURCE, "reads \"lane\" data"),
            DivergenceRule("llvm.ovl.s.*", DivergenceKind.ALWAYS_UNIFORM),
        )),
    )


EDGE_TARGETS = {"bare": bare, "ovl": overloaded}

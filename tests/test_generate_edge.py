"""Emitter paths the shipped targets do not reach: a target with no target nodes,
lowerings, rewrites or glob rules, and one whose rewrites need overload types and
constant operands. Both must still give .td that llvm-tblgen-19 accepts and C++ that
g++ accepts."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from llvm_tools import LLVM_INCLUDE, require, require_llvm_headers
from tdgen import emit, emit_td
from tdgen.hw import DivergenceKind, DivergenceRule, UniformityModel
from tdgen.model import (
    Const, DivergenceFrag, ImmArg, InstrClass, Instruction, Intrinsic, IntrConvergent,
    IntrNoMem, IntrReadMem, Lowering, Pat, RegisterClass, Rewrite, SDNode, SDTCisVT,
    SDTypeProfile, Target, reg_names,
)
from tdgen.types import LLVMMatchType, f32, i32, llvm_any_ty, llvm_i32_ty


def _bare() -> Target:
    rc = RegisterClass("GPR32", "vector", (i32, f32), reg_names("R", 2))
    base = InstrClass("BareInst", lets=(("Size", 4),))
    mov = Instruction("MOV", base, outs="(outs GPR32:$d)", ins="(ins GPR32:$s)", asm="mov $d, $s")
    return Target("bare", "Bare", "bare", register_classes=(rc,), classes=(base,), defs=(mov,))


def _overloaded() -> Target:
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
    rc = RegisterClass("VGPR", "vector", (i32,), reg_names("V", 2))
    sc = RegisterClass("SGPR", "scalar", (i32,), reg_names("S", 2))
    ub = DivergenceFrag("UniformUnaryFrag", "uniform", 1)
    base = InstrClass("OvlInst")
    rdl = Instruction("READLANE", base, outs="(outs SGPR:$d)", ins="(ins VGPR:$s, i32imm:$l)",
                      asm="readlane $d, $s, $l")
    lane = Instruction("LANE_ID", base, outs="(outs VGPR:$d)", ins="(ins)", asm="lane_id $d",
                       pattern="(set i32:$d, (int_ovl_lane_id))")
    neg = Instruction("S_NOT", base, outs="(outs SGPR:$d)", ins="(ins SGPR:$s)", asm="s_not $d, $s")
    return Target(
        "ovl", "Ovl", "ovl",
        intrinsics=(rl, lid, ld), profiles=(prof,), nodes=(peek,), frag_classes=(ub,), register_classes=(rc, sc), classes=(base,),
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


@pytest.fixture(scope="module", params=["bare", "ovl"])
def built(request, tmp_path_factory) -> tuple[Target, Path]:
    target = _bare() if request.param == "bare" else _overloaded()
    out = tmp_path_factory.mktemp(request.param)
    for rel, text in emit.emit_target(request.param, target).items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    return target, out / request.param


def _run(cmd: list[str]) -> None:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stderr == "", f"{' '.join(cmd)}\n{r.stderr}"


def test_td_accepted(built):
    target, d = built
    exe = require("llvm-tblgen-19")
    require_llvm_headers()
    lay = emit_td.layout(target)
    inc = ["-I", str(LLVM_INCLUDE), "-I", str(d)]
    if target.intrinsics:
        _run([exe, *inc, "-gen-intrinsic-enums", f"-intrinsic-prefix={lay.intrinsic_prefix}",
              str(d / lay.intrinsics_td), "-o", str(d / lay.enum_header)])
    _run([exe, *inc, "-gen-intrinsic-impl", str(d / lay.intrinsics_td), "-o", "/dev/null"])
    for backend in ("-gen-dag-isel", "-gen-instr-info", "-gen-register-info"):
        _run([exe, *inc, backend, str(d / lay.main_td), "-o", "/dev/null"])


def test_cpp_compiles(built, tmp_path):
    """All C++ files of the target in one translation unit (they define distinct
    names), header first: one compiler run instead of four."""
    target, d = built
    test_td_accepted(built)  # makes the enum header
    gxx = shutil.which("g++") or pytest.skip("g++ not found")
    lay = emit_td.layout(target)
    unity = tmp_path / "unity.cpp"
    unity.write_text("".join(
        f'#include "{src}"\n'
        for src in (lay.isel_header, lay.isel_source, lay.rewrite_source, lay.divergence_source)
    ))
    _run([gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
          "-isystem", str(LLVM_INCLUDE), "-I", str(d), str(unity)])

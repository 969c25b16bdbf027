"""LLVM IR of the shuffle index arithmetic, for llc-19 to compile (differential tests and bench).

``ptx_index_ir`` is the PTX ``shfl.sync`` index arithmetic of
``patterns.wave.lowering.lower`` written as LLVM IR; ``lane_id_ir`` the lane id through
AMDGPU's ``llvm.amdgcn.mbcnt.lo/hi``, and ``IR_DECLS`` the declarations the kernels need
(with ``llvm.amdgcn.ds.bpermute``). tests/test_shuffle.py runs llc-19's code for them in
the wave model against the reference; bench/shuffles.py times llc-19 on them.
"""

from __future__ import annotations

from patterns.wave import shuffle as ref


def ptx_index_ir(mode: str, width: int, wave: int) -> list[str]:
    """The same PTX index arithmetic as LLVM IR (for llc-19 to compile): from ``%b`` and
    the lane id ``%lane`` to the source lane ``%jj`` and the predicate ``%p`` (i1)."""
    c = ref.clang_c(mode, width, wave)
    seg, clamp = (c >> 8) & (wave - 1), c & (wave - 1)
    body = {
        "idx": [f"  %t = and i32 %bval, {~seg & (wave - 1)}", "  %j = or i32 %min, %t", "  %p = icmp ule i32 %j, %max"],
        "up": ["  %j = sub i32 %lane, %bval", "  %p = icmp sge i32 %j, %max"],
        "down": ["  %j = add i32 %lane, %bval", "  %p = icmp ule i32 %j, %max"],
        "bfly": ["  %j = xor i32 %lane, %bval", "  %p = icmp ule i32 %j, %max"],
    }[mode]
    return [f"  %bval = and i32 %b, {wave - 1}", f"  %min = and i32 %lane, {seg}",
            f"  %max = or i32 %min, {clamp & ~seg & (wave - 1)}", *body, "  %jj = select i1 %p, i32 %j, i32 %lane"]


def lane_id_ir(wave: int) -> list[str]:
    """``%lane`` in LLVM IR via llvm.amdgcn.mbcnt.lo/hi."""
    hi = ("  %lane = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)" if wave == 64 else "  %lane = add i32 %lo, 0")
    return ["  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)", hi]


IR_DECLS = ("declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)\ndeclare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)\n"
            "declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)\n")

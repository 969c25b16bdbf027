"""AMDGPU's IR pass before selection, AMDGPUCodeGenPrepare's replaceMulWithMul24 (``mul24``):
a divergent 32-bit multiply whose operands fit in 24 bits becomes a call of
``llvm.amdgcn.mul.u24`` / ``.i24``. Run by the engine's IR pipeline (patterns.llc.pipeline)
as one of this target's ``TargetHooks.ir_passes`` (lowering.py), after EarlyCSE; the
operand widths come from the engine's ValueTracking (patterns.llc.valuetracking).
"""

from __future__ import annotations

from patterns.ir.function import Function
from patterns.llc.instsimplify import new_simplify_query
from patterns.llc.instsimplify_query import int_bits
from patterns.llc.valuetracking import known_bits, num_sign_bits


def _lead_zeros(k: tuple, v) -> int:
    """KnownBits::countMinLeadingZeros of the known bits ``k`` of ``v``."""
    bits = int_bits(v) or 1
    return bits - (~k[0] & ((1 << bits) - 1)).bit_length()


def mul24(fn: Function, ctx) -> int:
    """AMDGPUCodeGenPrepare's replaceMulWithMul24: a divergent i32 ``mul`` whose operands
    both fit in 24 bits -- unsigned (known leading zeros), else signed (sign bits) --
    becomes a call of ``llvm.amdgcn.mul.u24`` / ``llvm.amdgcn.mul.i24`` (the instruction is
    rewritten in place). Uniform multiplies stay (s_mul_i32). Only when the target
    lowers those intrinsics. ``ctx`` (patterns.llc.pipeline.IRPassContext): the target, and
    the uniformity analysis of ``fn`` as it is now (llc's rerun after EarlyCSE), asked for
    only when there is a 32-bit multiply. Returns how many were rewritten."""
    if not has_mul24_candidates(fn, ctx.target):
        return 0
    ua = ctx.analysis()
    is_div = ua.is_divergent
    div = [i for b in fn.blocks for i in b.instructions
           if i.opcode == "mul" and int_bits(i) == 32 and is_div(i)]
    if not div:
        return 0
    p = new_simplify_query(fn, None, {})
    done = 0
    for i in div:
        x, y = i.operands
        # (numBitsUnsigned <= 24 for both, else numBitsSigned <= 24 for both)
        if _lead_zeros(known_bits(p, x), x) >= 8 and _lead_zeros(known_bits(p, y), y) >= 8:
            name = "llvm.amdgcn.mul.u24.i32"
        elif num_sign_bits(p, x) >= 9 and num_sign_bits(p, y) >= 9:
            name = "llvm.amdgcn.mul.i24.i32"
        else:
            continue
        i.opcode = "call"
        i.callee = name
        i._text = None
        done += 1
    if done:
        fn.uses = None  # (a mul -> mul24 call keeps its verdict: the analysis stays)
    return done


def has_mul24_candidates(fn, target) -> bool:
    """Whether ``mul24`` has anything to ask the analysis about: the target lowers the
    24-bit multiply intrinsics and ``fn`` has a 32-bit ``mul``."""
    known = getattr(target, "intrinsics_by_ir_name", None) or {}
    if "llvm.amdgcn.mul.u24" not in known:
        return False
    return any(i.opcode == "mul" and int_bits(i) == 32 for b in fn.blocks for i in b.instructions)

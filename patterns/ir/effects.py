"""Which IR instructions have effects beyond their result: the side effects that keep an
instruction alive through llc's dead-code removal (``has_side_effect``: stores, branches,
returns, calls of non-intrinsics and of void intrinsics, volatile loads), and the integer
intrinsics without memory effects that are not convergent, which llc's IR passes may
simplify, CSE and move (``pure_intrinsic``: ctpop, ctlz, umin ...)."""

from __future__ import annotations

from typing import Final

from patterns.ir.function import Instruction

_INSTRUCTION: Final = Instruction


SIDE_EFFECTS: Final = frozenset({"store", "br", "ret", "switch", "unreachable", "atomicrmw", "cmpxchg", "fence"})


def has_side_effect(i) -> bool:
    if i.opcode in SIDE_EFFECTS:
        return True
    if i.opcode == "call":
        callee = i.callee or ""
        if not callee.startswith("llvm."):
            return True
        return str(i.type) == "void"
    if i.opcode == "load" and getattr(i, "volatile", False):
        return True
    return False


# The integer intrinsics modeled (no memory access, not convergent: EarlyCSE's
# SimpleValue takes their calls, InstSimplify's simplifyIntrinsic folds them)
PURE_INTRINSICS: Final = frozenset({"llvm.ctpop", "llvm.bitreverse", "llvm.bswap", "llvm.ctlz", "llvm.cttz", "llvm.abs",
                                    "llvm.smin", "llvm.smax", "llvm.umin", "llvm.umax"})


def pure_intrinsic(v):
    """``ctpop`` ... ``umax`` for a call of one of ``PURE_INTRINSICS``, else None."""
    c = v.callee if type(v) is _INSTRUCTION else None
    if not c or not c.startswith("llvm."):
        return None
    base = c.rsplit(".", 1)[0]
    return base[5:] if base in PURE_INTRINSICS else None

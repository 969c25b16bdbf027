"""GFX9 three-source VALU ALU ops (VOP3 only) that fold two 32-bit ALU nodes into one.

gfx900 selects these for divergent two-op trees when the inner node has one use and the
constant bus allows it (checked with llc-19 -mcpu=gfx900 -stop-after=amdgpu-isel):
v_add3_u32 (a+b)+c, v_or3_b32 (a|b)|c, v_and_or_b32 (a&b)|c, v_lshl_or_b32 (a<<b)|c,
v_lshl_add_u32 (a<<b)+c, v_add_lshl_u32 (a+b)<<c, v_xad_u32 (a^b)+c.

v_bfi_b32 (bit-field insert, ``(x & y) | (~x & z)``) for a divergent or/xor root in the
three shapes LLVM's BFIPatterns/SHA256MaPattern give it: the select form itself, the
SHA-256 Ch form ``z ^ (x & (y ^ z))`` and the Ma form ``(x & z) | (y & (x | z))`` (as
v_bfi_b32 (v_xor_b32 x, y), z, y). No one-use or constant-bus condition (llc-19 selects
it with two scalar operands and with an inner node that has other users).

Each pattern goes through a ``ThreeOp_<op1>_<op2>`` fragment: the outer node must be
divergent, the inner node used once, and at most one of the three operands may be a
uniform value that is not an inline constant (gfx900's VOP3 constant-bus limit is one
scalar operand). The predicate reads the fragment's operands, like LLVM's
PredicateCodeUsesOperands fragments; tdgen's matcher evaluates it on the DAG.
"""

from tdgen.model import ImmLeaf, Instruction, Pat, PatFrag, SDNodeXForm
from tdgen.types import VALUE_TYPES

from .formats import VOP3_32

# v_mad_u64_u32 {vdst, sdst} = src0 * src1 + src2 (u32 x u32 + u64 -> u64, carry-out in
# a scalar pair) is declared as LLVM declares it: VReg_64 result $vdst, SReg_64 carry-out
# $sdst, 32-bit sources src0/src1, a 64-bit addend src2 and the clamp bit. gfx9 also uses
# it for a 32-bit multiply-add: LLVM selects a divergent ``add (mul x, y), z`` whose mul
# has one use (the same ThreeOp fragment and constant-bus rule as v_add3_u32; the mul
# itself may be uniform, e.g. ``(mul %a, 7) + %tid``) into it, widening z to a pair
# whose high half is undefined (REG_SEQUENCE of z and an IMPLICIT_DEF, built in a scalar
# pair and left for SIFixSGPRCopies to move) and keeping the low half of the result
# (EXTRACT_SUBREG ... sub0, a COPY of %vdst.sub0 after isel). Checked against llc-19
# -mcpu=gfx900 in tests/test_isel_llc.py (single-op kernels mad_*). An immediate addend has
# its own pattern, as in LLVM 19's IMAD32_Pats: ``(ThreeOp_mul_add x, y, (i32 imm:$z))``,
# complexity 11, with the constant sign-extended to an i64 target constant (as_i64imm) as
# the addend; it wins over the sub-of-an-inline-constant pattern (complexity 8) for
# ``add (mul x, y), -35``, which the register form, sorted after it by its larger result,
# does not. Where the model stops: llc's operand legalization then moves a non-inline
# constant into a V_MOV_B64_PSEUDO pair (an opcode not modeled); the immediate stays an
# operand here.
_BUS_PREDICATE = """\
if (!N->isDivergent())
  return false;
// at most getConstantBusLimit() operands may come from scalar registers or literals
unsigned ScalarOperands = 0;
for (unsigned I = 0; I != 3; ++I)
  if (!Operands[I]->isDivergent() && !isInlineImmediate(Operands[I].getNode()))
    if (++ScalarOperands > Subtarget->getConstantBusLimit(AMDGPU::V_ADD3_U32_e64))
      return false;
return true;"""

_ONEUSE = {
    op: PatFrag(f"{op}_oneuse_3op", ["x", "y"], f"({op} node:$x, node:$y)", has_one_use=True)
    for op in ("add", "shl", "and", "or", "xor", "mul")
}


def _three(op1: str, op2: str) -> PatFrag:
    return PatFrag(f"ThreeOp_{op1}_{op2}", ["x", "y", "z"],
                   f"({op2} ({_ONEUSE[op1].name} node:$x, node:$y), node:$z)", predicate_code=_BUS_PREDICATE, uses_operands=True)


_OPS = (
    ("V_LSHL_ADD_U32_e64", "v_lshl_add_u32", "shl", "add"),
    ("V_ADD_LSHL_U32_e64", "v_add_lshl_u32", "add", "shl"),
    ("V_ADD3_U32_e64", "v_add3_u32", "add", "add"),
    ("V_LSHL_OR_B32_e64", "v_lshl_or_b32", "shl", "or"),
    ("V_AND_OR_B32_e64", "v_and_or_b32", "and", "or"),
    ("V_OR3_B32_e64", "v_or3_b32", "or", "or"),
    ("V_XAD_U32_e64", "v_xad_u32", "xor", "add"),
)

_THREE = {(a, b): _three(a, b) for a, b in [(a, b) for _n, _m, a, b in _OPS] + [("mul", "add")]}

FRAGS = tuple(_ONEUSE.values()) + tuple(_THREE.values())

# the i32 immediate as the 64-bit addend of v_mad_u64_u32 (LLVM's as_i64imm)
as_i64imm = SDNodeXForm(
    "as_i64imm", "imm",
    "return CurDAG->getTargetConstant(N->getSExtValue(), SDLoc(N), MVT::i64);",
    doc="the immediate, sign-extended to a 64-bit target constant",
)
# gfx9 (llvm/llvm-project#71035): a divergent i32 multiply by 2^k + 1 is (x << k) + x,
# selected as v_lshl_add_u32 x, k, x by a pattern on the mul (the DAG keeps the mul, so
# the combines and the patterns of its users see a mul). A mul whose one user is a
# divergent add is taken with that add first (v_mad_u64_u32, or v_add3_u32), as the
# selector visits users before operands.
IsPow2Plus1 = ImmLeaf("IsPow2Plus1", VALUE_TYPES["i32"], "return isPowerOf2_32(Imm - 1);")
Log2OfPow2Plus1 = SDNodeXForm(
    "Log2OfPow2Plus1", "imm",
    "return CurDAG->getTargetConstant(llvm::countr_zero(N->getZExtValue() - 1), SDLoc(N), MVT::i32);",
    doc="k of a multiplier 2^k + 1: the shift amount of v_lshl_add_u32",
)
XFORMS = (as_i64imm, Log2OfPow2Plus1)
FRAGS += (IsPow2Plus1,)

DEFS = tuple(
    Instruction(name, VOP3_32, [mn], ins="(ins VGPR_32:$src0, VGPR_32:$src1, VGPR_32:$src2)",
                asm=f"{mn} $vdst, $src0, $src1, $src2")
    for name, mn, _a, _b in _OPS
) + (
    Instruction("V_BFI_B32_e64", VOP3_32, ["v_bfi_b32"], ins="(ins VGPR_32:$src0, VGPR_32:$src1, VGPR_32:$src2)",
                asm="v_bfi_b32 $vdst, $src0, $src1, $src2"),
    Instruction("V_MAD_U64_U32_e64", VOP3_32, ["v_mad_u64_u32"], outs="(outs VReg_64:$vdst, SReg_64:$sdst)",
                ins="(ins VGPR_32:$src0, VGPR_32:$src1, VReg_64:$src2, clampmod0:$clamp)",
                asm="v_mad_u64_u32 $vdst, $sdst, $src0, $src1, $src2$clamp"),
)

PATTERNS = tuple(
    Pat(f"(i32 ({_THREE[(a, b)].name} i32:$src0, i32:$src1, i32:$src2))", f"({name} $src0, $src1, $src2)")
    for name, _mn, a, b in _OPS
) + (
    Pat("(i32 (ThreeOp_mul_add i32:$src0, i32:$src1, (i32 imm:$src2)))",
        "(EXTRACT_SUBREG (V_MAD_U64_U32_e64 $src0, $src1, (i64 (as_i64imm $src2)), 0), sub0)"),
    Pat("(i32 (ThreeOp_mul_add i32:$src0, i32:$src1, i32:$src2))",
        "(EXTRACT_SUBREG (V_MAD_U64_U32_e64 $src0, $src1, "
        "(REG_SEQUENCE SReg_64, $src2, sub0, (i32 (IMPLICIT_DEF)), sub1), 0), sub0)"),
    Pat("(i32 (DivergentBinFrag<mul> i32:$src0, IsPow2Plus1:$src1))",
        "(V_LSHL_ADD_U32_e64 $src0, (i32 (Log2OfPow2Plus1 $src1)), $src0)"),
    Pat("(DivergentBinFrag<or> (and i32:$y, i32:$x), (and i32:$z, (not i32:$x)))", "(V_BFI_B32_e64 $x, $y, $z)"),
    Pat("(DivergentBinFrag<xor> i32:$z, (and i32:$x, (xor i32:$y, i32:$z)))", "(V_BFI_B32_e64 $x, $y, $z)"),
    Pat("(DivergentBinFrag<or> (and i32:$x, i32:$z), (and i32:$y, (or i32:$x, i32:$z)))",
        "(V_BFI_B32_e64 (V_XOR_B32_e64 $x, $y), $z, $y)"),
)

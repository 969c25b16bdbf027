"""64-bit integer logic on AMDGPU (gfx900), where i64 is a legal type (SReg_64 in the lowering
table, targets/amdgpu/legality.py) and and/or/xor/not/bitreverse of i64 are Legal:

- uniform: the SALU's 64-bit forms (SOPInstructions.td): s_and_b64, s_or_b64, s_xor_b64,
  s_xnor_b64 (``not (xor_oneuse a, b)``), s_not_b64, s_brev_b64, and s_bcnt1_i32_b64
  (its i32 count; the i64 ctpop pattern that pairs it with a zero high half needs
  S_MOV_B32, which the selection stage defines). llc also selects s_and_b64 / s_or_b64 /
  s_xor_b64 for the lane-mask logic of i1 values (wave64), which the selection stage does
  not model yet: testkit.llc.modeled_opcodes leaves them out of the generated-kernel
  comparison until it does;
- divergent: the VALU has no 64-bit logic, so SIInstructions.td's patterns split the pair
  into its halves (``EXTRACT_SUBREG sub0/sub1``), apply the 32-bit instruction to each and
  rebuild the pair with ``REG_SEQUENCE VReg_64`` (divergent_i64_BinOp for and/or/xor, the
  ``not`` pair of v_not_b32, bitreverse as v_bfrev_b32 of the swapped halves);
- ``trunc`` of an i64 to i32 is its low half (``EXTRACT_SUBREG $a, sub0``).

Checked with llc-19 -mtriple=amdgcn -mcpu=gfx900 -stop-after=amdgpu-isel on the
divergence-driven corpus (not, xnor, bitreverse of i64; tests/test_isel_corpus.py)."""

from tdgen.model import Instruction, Pat

from .formats import SOP1_32, SOP2_32

_SCC = ["SCC"]


def _s2(name: str, mn: str, pattern: str) -> Instruction:
    return Instruction(name, SOP2_32, [mn], outs="(outs SReg_64:$sdst)", ins="(ins SReg_64:$src0, SReg_64:$src1)",
                       pattern=pattern, lets={"isCommutable": 1}, implicit_defs=_SCC)


DEFS = (
    _s2("S_AND_B64", "s_and_b64", "(set i64:$sdst, (UniformBinFrag<and> i64:$src0, i64:$src1))"),
    _s2("S_OR_B64", "s_or_b64", "(set i64:$sdst, (UniformBinFrag<or> i64:$src0, i64:$src1))"),
    _s2("S_XOR_B64", "s_xor_b64", "(set i64:$sdst, (UniformBinFrag<xor> i64:$src0, i64:$src1))"),
    _s2("S_XNOR_B64", "s_xnor_b64", "(set i64:$sdst, (UniformUnaryFrag<not> (xor_oneuse i64:$src0, i64:$src1)))"),
    Instruction("S_NOT_B64", SOP1_32, ["s_not_b64"], outs="(outs SReg_64:$sdst)", ins="(ins SReg_64:$src0)",
                pattern="(set i64:$sdst, (UniformUnaryFrag<not> i64:$src0))", implicit_defs=_SCC),
    Instruction("S_BREV_B64", SOP1_32, ["s_brev_b64"], outs="(outs SReg_64:$sdst)", ins="(ins SReg_64:$src0)",
                pattern="(set i64:$sdst, (UniformUnaryFrag<bitreverse> i64:$src0))"),
    Instruction("S_BCNT1_I32_B64", SOP1_32, ["s_bcnt1_i32_b64"], outs="(outs SReg_32:$sdst)",
                ins="(ins SReg_64:$src0)", implicit_defs=_SCC),
)


def _halves(inst: str, a: str, b: str | None, swap: bool = False) -> str:
    def half(sub: str) -> str:
        ops = f"(i32 (EXTRACT_SUBREG {a}, {sub}))"
        if b is not None:
            ops += f", (i32 (EXTRACT_SUBREG {b}, {sub}))"
        return f"({inst} {ops})"
    lo, hi = ("sub1", "sub0") if swap else ("sub0", "sub1")
    return f"(REG_SEQUENCE VReg_64, {half(lo)}, sub0, {half(hi)}, sub1)"


PATTERNS = (
    Pat("(i64 (DivergentBinFrag<and> i64:$src0, i64:$src1))", _halves("V_AND_B32_e64", "$src0", "$src1")),
    Pat("(i64 (DivergentBinFrag<or> i64:$src0, i64:$src1))", _halves("V_OR_B32_e64", "$src0", "$src1")),
    Pat("(i64 (DivergentBinFrag<xor> i64:$src0, i64:$src1))", _halves("V_XOR_B32_e64", "$src0", "$src1")),
    Pat("(i64 (DivergentUnaryFrag<not> i64:$src0))", _halves("V_NOT_B32_e32", "$src0", None)),
    Pat("(i64 (DivergentUnaryFrag<bitreverse> i64:$src0))", _halves("V_BFREV_B32_e64", "$src0", None, swap=True)),
    Pat("(i32 (trunc i64:$src0))", "(EXTRACT_SUBREG $src0, sub0)"),
)

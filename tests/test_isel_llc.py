"""Differential tests of the selector against llc-19 (the oracle) on the amdgpu target.

For every function, the multiset of *modeled* opcodes (S_/V_ instructions the amdgpu
reference target's patterns produce, see testkit.llc.modeled_opcodes) that we select
must equal the one in ``llc-19 -mtriple=amdgcn -mcpu=gfx900 -stop-after=amdgpu-isel``.

- ``test_each_operation_agrees``: every modeled operation, uniform and divergent, in a
  small kernel of its own (plus the reassociation and bit-field cases); all must agree.
- ``test_generated_kernels_agree``: seeded kernels from testkit.iselgen (diamonds,
  loops, uniform/divergent branches, kernel args, uniform loads, workitem id).
  ``TDGEN_ISEL_KERNELS`` sets how many (default 60, the CI bound; the >= 500 run is
  ``TDGEN_ISEL_KERNELS=500``), once with kernels whose operands are values only and once
  with small constants mixed in (more of llc's constant folds and known-bits rewrites come
  into play); each agreement rate is printed and must not fall below its entry in
  ``AGREEMENT_FLOORS`` (set just under the measured rate), so a regression in the DAG
  builder, IR passes, combines or matcher fails the test. Full agreement is the goal, not
  yet met: the remaining differences are mostly llc's LoopStrengthReduce (patterns/llc/lsr.py
  models one case of it) and combines not modeled or modeled in another order within a
  visit (see patterns/llc/ and patterns/dag/combine/); ``python
  bench/isel_triage.py --count 500 [--constants] [--ir-cause] [--pass-cause]`` lists them
  with the IR passes involved.
- ``test_sinking_matches_llc``: the IR Sink pass placement (patterns.dag.sink.sink_placement).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from llvm_tools import require

# (constants in the generated kernels, floor) for the 60 CI kernels, measured when the
# floors were set: 96.7% without and 96.7% with constants; and for any other count (the
# >= 500 runs), measured over 500: 99.2% and 98.0% (with the uniformity analysis rerun on
# the IR selected, CodeGenPrepare's branch folding, the dead code llc keeps until Sink,
# more LoopStrengthReduce cases and DAG combines).
# See the module docstring and bench/isel_triage.py (per-kernel differences, --pass-cause
# for their causes).
AGREEMENT_FLOORS = {False: 0.96, True: 0.96}
AGREEMENT_FLOORS_FULL = {False: 0.993, True: 0.985}
# the kernels with intrinsics mixed in (test_generated_kernels_with_intrinsics_agree),
# set under the rates measured over 60 and 500 kernels (before the intrinsics' folds
# were modeled: 89.5% of the first 200 without constants, 89.7% of 300 with them)
INTRINSIC_FLOORS = {False: 0.98, True: 0.98}  # (measured 98.3% / 98.3% of 60)
INTRINSIC_FLOORS_FULL = {False: 0.97, True: 0.97}  # (measured 97.2% / 97.6% of 500)

_OPS = {
    "add": "add i32 %x, %y", "sub": "sub i32 %x, %y", "mul": "mul i32 %x, %y", "and": "and i32 %x, %y",
    "or": "or i32 %x, %y", "xor": "xor i32 %x, %y", "shl": "shl i32 %x, %y", "lshr": "lshr i32 %x, %y",
    "ashr": "ashr i32 %x, %y", "not": "xor i32 %x, -1", "ctpop": "call i32 @llvm.ctpop.i32(i32 %x)",
    "brev": "call i32 @llvm.bitreverse.i32(i32 %x)", "ctlz": "call i32 @llvm.ctlz.i32(i32 %x, i1 true)",
    "cttz": "call i32 @llvm.cttz.i32(i32 %x, i1 true)", "ctlz0": "call i32 @llvm.ctlz.i32(i32 %x, i1 false)",
    "smin": "call i32 @llvm.smin.i32(i32 %x, i32 %y)", "umax": "call i32 @llvm.umax.i32(i32 %x, i32 %y)",
    "abs": "call i32 @llvm.abs.i32(i32 %x, i1 false)", "shlc": "shl i32 %x, 5", "mulc": "mul i32 %x, 12",
    "mul8": "mul i32 %x, 8", "subc": "sub i32 %x, 100", "addneg": "add i32 %x, -32",
    "bfe": "lshr i32 %x, 4\n  %r = and i32 %r0, 255", "bfe_top": "lshr i32 %x, 24\n  %r = and i32 %r0, 255",
    "xnor": "xor i32 %x, %y\n  %r = xor i32 %r0, -1", "andn2": "xor i32 %y, -1\n  %r = and i32 %x, %r0",
    "nor": "or i32 %x, %y\n  %r = xor i32 %r0, -1",
    "add3": "add i32 %x, %y\n  %r = add i32 %r0, %z", "or3": "or i32 %x, %y\n  %r = or i32 %r0, %z",
    "lshl_add": "shl i32 %x, 3\n  %r = add i32 %r0, %y", "xad": "xor i32 %x, %y\n  %r = add i32 %r0, %z",
    "reassoc": "add i32 %x, %y\n  %r = add i32 %r0, %z",
    "subnot": "xor i32 %y, -1\n  %r = sub i32 %x, %r0", "orxor": "xor i32 %x, %y\n  %r = or i32 %r0, %y",
    "mulneg": "mul i32 %x, -8", "mul9": "mul i32 %x, 9", "sra_nonneg": "lshr i32 %x, 3\n  %r = ashr i32 %r0, %y",
    # v_mad_u64_u32 for a divergent add of a one-use mul (the mul may be uniform; at most
    # one scalar operand), and no decomposition of mul 2^k+1 when it feeds that mad
    "mad": "mul i32 %x, 7\n  %r = add i32 %r0, %y", "mad_umul": "mul i32 %y, 7\n  %r = add i32 %r0, %x",
    "mad_bus": "mul i32 %x, %y\n  %r = add i32 %r0, %z", "mad9": "mul i32 %x, 9\n  %r = add i32 %r0, %y",
    # x - ~y is rewritten only when the not has one use
    "subnot2": "xor i32 %y, -1\n  %r1 = sub i32 %x, %r0\n  %r = xor i32 %r1, %r0",
    # (sra (shl x, c1), c2) -> v_bfe_i32 ; (srl (shl x, c1), c2) -> and / bfe_u32 / shl+and
    "bfe_i32": "shl i32 %x, 1\n  %r = ashr i32 %r0, 5", "sext8": "shl i32 %x, 24\n  %r = ashr i32 %r0, 24",
    "srl_shl_eq": "shl i32 %x, 8\n  %r = lshr i32 %r0, 8", "srl_shl_lt": "shl i32 %x, 5\n  %r = lshr i32 %r0, 3",
    "srl_shl_bfe": "shl i32 %x, 2\n  %r = lshr i32 %r0, 10", "sra_m1": "ashr i32 -1, %x\n  %r = xor i32 %r0, %y",
    "shl_srl": "lshr i32 %x, 2\n  %r1 = shl i32 %r0, 7\n  %r = and i32 %r1, %y",
    "shl_srl_gt": "lshr i32 %x, 9\n  %r = shl i32 %r0, 4",
    "sra_mask": "ashr i32 %x, 2\n  %r = and i32 %r0, 12", "sra_lz": "lshr i32 %x, 5\n  %r1 = add i32 %r0, 255\n  %r = ashr i32 %r1, %y",
    "not_neg": "mul i32 %x, -8\n  %r1 = xor i32 %r0, -1\n  %r = add i32 %y, %r1",
    "not_dec": "add i32 %x, -1\n  %r1 = xor i32 %r0, -1\n  %r = xor i32 %r1, %y",
    "andnot_xor": "xor i32 %y, -1\n  %r1 = and i32 %x, %r0\n  %r = xor i32 %r1, %y",
    "andnot_xor2": "xor i32 %x, -1\n  %r1 = and i32 %r0, %y\n  %r = xor i32 %x, %r1",
    "sub_and": "and i32 %x, %y\n  %r = sub i32 %x, %r0", "sub_and_c": "and i32 %y, %x\n  %r = sub i32 %y, %r0",
    # bit-field extracts, AMDGPU's SelectS_BFE (a CustomSelect step before the table):
    # s_bfe_* with a packed immediate for a uniform source, v_bfe_* for a divergent one;
    # no one-use condition (the srl/shl with another user is selected again on its own)
    "bfe_mu": "lshr i32 %x, 4\n  %r1 = and i32 %r0, 255\n  %r = xor i32 %r1, %r0",
    "srl_and": "and i32 %x, 4080\n  %r = lshr i32 %r0, 4",
    "sext_srl": "lshr i32 %x, 16\n  %r1 = trunc i32 %r0 to i8\n  %r = sext i8 %r1 to i32",
    "bfe_i32_mu": "shl i32 %x, 8\n  %r1 = ashr i32 %r0, 24\n  %r = add i32 %r1, %r0",
    "sext_odd": "shl i32 %x, 4\n  %r = ashr i32 %r0, 4",
    "bfe_shifted_mask": "lshr i32 %x, 4\n  %r = and i32 %r0, 65280",
    "bfe_or": "lshr i32 %x, 4\n  %r1 = and i32 %r0, 255\n  %r = or i32 %r1, %y",
    "bfe_srl_mu": "shl i32 %x, 2\n  %r1 = lshr i32 %r0, 10\n  %r = or i32 %r1, %r0",
    # BFEPattern (the table, for a register offset or width): v_bfe_u32 when divergent,
    # s_lshr_b32 + s_and_b32 / s_bfm_b32 + s_and_b32 when uniform
    "bfe_var": "lshr i32 %x, %y\n  %r = and i32 %r0, 255", "bfe_var_amt": "lshr i32 %y, %x\n  %r = and i32 %r0, 63",
    "bfe_var_mu": "lshr i32 %x, %y\n  %r1 = and i32 %r0, 255\n  %r = xor i32 %r1, %r0",
    "bfe_width": "shl i32 1, %y\n  %m = add i32 %r0, -1\n  %r = and i32 %x, %m",
    # equal complexity: every pattern as written before any commuted variant (TableGen's
    # pattern IDs), so or (or x, y), (and z, t) is v_or3 (or_or as written) and
    # or (and z, t), (or x, y) is v_and_or (and_or as written)
    "or3_first": "or i32 %x, %y\n  %m = and i32 %z, %tid\n  %r = or i32 %r0, %m",
    "and_or_first": "or i32 %x, %y\n  %m = and i32 %z, %tid\n  %r = or i32 %m, %r0",
    # BFMPatterns: s_bfm_b32 / v_bfm_b32 for (1 << a) - 1, shifted or not
    "bfm": "shl i32 1, %x\n  %r = add i32 %r0, -1", "bfm_shl": "shl i32 1, %x\n  %m = add i32 %r0, -1\n  %r = shl i32 %m, %y",
    # v_bfi_b32: the select, SHA-256 Ch and Ma shapes (no one-use / constant-bus condition)
    "bfi_sel": "and i32 %y, %x\n  %n = xor i32 %x, -1\n  %t = and i32 %z, %n\n  %r = or i32 %r0, %t",
    "bfi_ch": "xor i32 %y, %x\n  %t = and i32 %z, %r0\n  %r = xor i32 %x, %t",
    "bfi_ma": "and i32 %x, %z\n  %t = or i32 %x, %z\n  %t2 = and i32 %y, %t\n  %r = or i32 %r0, %t2",
    "bfi_ch_mu": "xor i32 %y, %x\n  %t = and i32 %z, %r0\n  %r1 = xor i32 %x, %t\n  %r = add i32 %r1, %r0",
    # the integer intrinsics: InstSimplify's simplifyIntrinsic (IR), then the DAG's
    # visitABS, visitCTLZ/CTTZ (a value never zero needs no min with 32), visitIMINMAX
    # (umin (smax ..) -> smin with both sign bits zero; known bits deciding the order)
    # and computeKnownBits of the intrinsic nodes
    "umin_or": "or i32 %x, %y\n  %r = call i32 @llvm.umin.i32(i32 %r0, i32 %x)",
    "umax_and": "and i32 %x, %y\n  %r = call i32 @llvm.umax.i32(i32 %r0, i32 %x)",
    "minmax_shared": "call i32 @llvm.smin.i32(i32 %x, i32 %y)\n  %r = call i32 @llvm.smax.i32(i32 %r0, i32 %x)",
    "minmax_nested": "call i32 @llvm.smin.i32(i32 %x, i32 %y)\n  %r = call i32 @llvm.smin.i32(i32 %y, i32 %r0)",
    "umin_ctpop32": "call i32 @llvm.ctpop.i32(i32 %x)\n  %r = call i32 @llvm.umin.i32(i32 %r0, i32 32)",
    "umin_lshr": "lshr i32 %x, 3\n  %r = call i32 @llvm.umin.i32(i32 %r0, i32 %x)",
    "brev_brev": "call i32 @llvm.bitreverse.i32(i32 %x)\n  %r1 = call i32 @llvm.bitreverse.i32(i32 %r0)\n"
                 "  %r = xor i32 %r1, %y",
    "ctpop_bit": "and i32 %x, 1\n  %r1 = call i32 @llvm.ctpop.i32(i32 %r0)\n  %r = add i32 %r1, %y",
    "ctpop_pow2": "shl i32 1, %x\n  %r1 = call i32 @llvm.ctpop.i32(i32 %r0)\n  %r = add i32 %r1, %y",
    "cttz_shl1": "shl i32 1, %x\n  %r1 = call i32 @llvm.cttz.i32(i32 %r0, i1 false)\n  %r = add i32 %r1, %y",
    "abs_abs": "call i32 @llvm.abs.i32(i32 %x, i1 false)\n  %r = call i32 @llvm.abs.i32(i32 %r0, i1 false)",
    "ctpop_cse": "call i32 @llvm.ctpop.i32(i32 %x)\n  %r1 = call i32 @llvm.ctpop.i32(i32 %x)\n  %r = mul i32 %r0, %r1",
    "abs_nonneg": "lshr i32 %x, 1\n  %r = call i32 @llvm.abs.i32(i32 %r0, i1 false)",
    "abs_ctpop": "call i32 @llvm.ctpop.i32(i32 %x)\n  %r = call i32 @llvm.abs.i32(i32 %r0, i1 false)",
    "cttz_nonzero": "or i32 %x, 16\n  %r = call i32 @llvm.cttz.i32(i32 %r0, i1 false)",
    "ctlz_nonzero": "xor i32 %x, -1\n  %r1 = call i32 @llvm.ctpop.i32(i32 %x)\n  %r2 = xor i32 %r1, -1\n"
                    "  %r = call i32 @llvm.ctlz.i32(i32 %r2, i1 false)",
    "umin_known": "call i32 @llvm.ctpop.i32(i32 %x)\n  %y2 = or i32 %y, 64\n"
                  "  %r = call i32 @llvm.umin.i32(i32 %r0, i32 %y2)",
    "smax_known": "and i32 %x, 255\n  %y2 = or i32 %y, -2147483648\n"
                  "  %r = call i32 @llvm.smax.i32(i32 %r0, i32 %y2)",
    "umin_smax": "lshr i32 %x, 1\n  %z2 = lshr i32 %z, 1\n  %m = call i32 @llvm.smax.i32(i32 %r0, i32 %z2)\n"
                 "  %r = call i32 @llvm.umin.i32(i32 %m, i32 %z2)",
    "known_ctpop": "and i32 %x, 7\n  %p = call i32 @llvm.ctpop.i32(i32 %r0)\n  %r1 = and i32 %p, 4\n  %r = add i32 %r1, %y",
    "known_umin": "and i32 %x, 255\n  %p = call i32 @llvm.umin.i32(i32 %r0, i32 %y)\n  %r1 = and i32 %p, 256\n"
                  "  %r = add i32 %r1, %x",
    # SITargetLowering::performMinMaxCombine: a min/max of a one-use min/max of the same
    # kind is v_min3/v_max3, a VALU op for either divergence; a divergent abs is
    # smax(x, 0 - x) after legalization, so it can be the inner max
    "max3": "call i32 @llvm.smax.i32(i32 %x, i32 %y)\n  %r = call i32 @llvm.smax.i32(i32 %z, i32 %r0)",
    "min3_u": "call i32 @llvm.umin.i32(i32 %x, i32 %y)\n  %r = call i32 @llvm.umin.i32(i32 %r0, i32 %z)",
    "max3_two_uses": "call i32 @llvm.umax.i32(i32 %x, i32 %y)\n  %r1 = call i32 @llvm.umax.i32(i32 %r0, i32 %z)\n"
                     "  %r = xor i32 %r1, %r0",
    "max3_abs": "call i32 @llvm.abs.i32(i32 %x, i1 false)\n  %r = call i32 @llvm.smax.i32(i32 %y, i32 %r0)",
    # smax of a non-negative value is non-negative whatever the other operand
    # (KnownBits::smax), so the ashr of it is a lshr
    "smax_nonneg_sra": "lshr i32 %x, 16\n  %m = call i32 @llvm.smax.i32(i32 %r0, i32 %y)\n  %r = ashr i32 %m, %z",
    # visitSIGN_EXTEND_INREG: an input with the sign bits already is the result; nested
    # extensions keep the narrower; a known-zero sign bit is an and; (sext_in_reg
    # (srl X, c), i8) -> sra X, c when X has the sign bits
    "sx_signed_already": "ashr i32 %x, 20\n  %s = shl i32 %r0, 16\n  %r = ashr i32 %s, 16",
    "sx_sign_zero": "and i32 %x, 32767\n  %s = shl i32 %r0, 16\n  %r1 = ashr i32 %s, 16\n  %r = xor i32 %r1, %y",
    "sx_srl_sra": "ashr i32 %x, 8\n  %q = lshr i32 %r0, 16\n  %s = shl i32 %q, 24\n  %r1 = ashr i32 %s, 24\n"
                  "  %r = xor i32 %r1, %y",
    "sx_nested": "shl i32 %x, 16\n  %t = ashr i32 %r0, 16\n  %s = shl i32 %t, 24\n  %r1 = ashr i32 %s, 24\n"
                 "  %r = xor i32 %r1, %y",
    # a count or bitreverse whose operand the DAG folds to a constant folds too
    # (visitCTLZ/visitCTPOP/visitBITREVERSE: FoldConstantArithmetic)
    "ctlz_dag_const": "and i32 %x, 240\n  %s = lshr i32 %r0, 8\n  %k = call i32 @llvm.ctlz.i32(i32 %s, i1 false)\n"
                      "  %r = xor i32 %k, %y",
    "ctpop_dag_const": "and i32 %x, 240\n  %s = lshr i32 %r0, 8\n  %k = call i32 @llvm.ctpop.i32(i32 %s)\n"
                       "  %r = xor i32 %k, %y",
    # InstSimplify's associative regrouping: ((x | y) | z) | x -> (x | y) | z
    "assoc_or": "or i32 %x, %y\n  %r1 = or i32 %r0, %z\n  %r = or i32 %r1, %x",
    "assoc_xor": "xor i32 %x, %y\n  %r1 = xor i32 %r0, %z\n  %r2 = xor i32 %r1, %x\n  %r = add i32 %r2, %x",
}
_DECLS = """declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.bitreverse.i32(i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.cttz.i32(i32, i1)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.abs.i32(i32, i1)
"""


# Single-op kernels known to differ from llc, with the reason (the test also checks they
# still differ, so the list shrinks when the model grows). The uniform bit-field
# extracts (s_bfe_u32/s_bfe_i32) agree since the SelectS_BFE CustomSelect models them;
# bfe_i32_mu_d agrees since the select-time BFE left patterns/dag/combine/.
KNOWN_DIFFERENT: dict[str, str] = {}


def single_op_module() -> str:
    """One kernel per (operation, divergence): ``%x`` divergent or uniform, ``%y %z`` uniform."""
    out = [_DECLS]
    for name, body in _OPS.items():
        for div in (False, True):
            src = "%tid" if div else "%c"
            text = body if "\n" in body else body
            first = "%r0" if "\n" in body else "%r"
            out.append(
                f"define amdgpu_kernel void @{name}_{'d' if div else 'u'}(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %c) {{\n"
                f"  %tid0 = call i32 @llvm.amdgcn.workitem.id.x()\n"
                f"  %tid = xor i32 %tid0, %a\n"
                f"  %x = add i32 %a, {src}\n  %y = add i32 %b, %c\n  %z = xor i32 %a, %b\n"
                f"  {first} = {text}\n"
                f"  store i32 %r, ptr addrspace(1) %out\n  ret void\n}}\n")
    return "\n".join(out)


@pytest.fixture(scope="module")
def amdgpu():
    from tdgen.spec import load_target

    return load_target("amdgpu")


def test_each_operation_agrees(amdgpu):
    from testkit.llc import compare_with_llc

    llc = require("llc-19")
    results = compare_with_llc(single_op_module(), amdgpu, llc, path="single_ops.ll")
    assert len(results) == 2 * len(_OPS)
    bad = [a.diff() for a in results if not a.equal and a.function not in KNOWN_DIFFERENT]
    assert not bad, "\n".join(bad)
    still = {a.function for a in results if not a.equal and a.function in KNOWN_DIFFERENT}
    assert still == set(KNOWN_DIFFERENT), f"now agreeing, drop from KNOWN_DIFFERENT: {set(KNOWN_DIFFERENT) - still}"
    # the comparison is not vacuous: every function has modeled opcodes on both sides
    assert all(a.llc and a.ours for a in results)


_SINK_KERNEL = """declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @sink(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = xor i32 %tid, %a
  %s = add i32 %d, %b
  %w = xor i32 %a, %b
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %in, %loop ]
  %acc = phi i32 [ %b, %entry ], [ %accn, %loop ]
  %t = xor i32 %acc, %i
  %accn = add i32 %t, %w
  %in = add i32 %i, 1
  %c = icmp ult i32 %in, %n
  br i1 %c, label %loop, label %exit
exit:
  %r = add i32 %s, %accn
  store i32 %r, ptr addrspace(1) %out
  ret void
}
"""


def test_sinking_matches_llc(amdgpu):
    """llc's IR Sink pass moves ``%s`` (used only after the loop) and then ``%d`` into
    ``exit`` (llc-19 -stop-before=amdgpu-isel shows them there); there ``(%d + %b) + %accn``
    is reassociated so the uniform ``%b + %accn`` is one s_add_i32 and a single v_add_u32
    remains; selected in ``entry``, ``%s`` would be a v_add_u32 of its own (two in all)."""
    from patterns.ir import parse_module
    from testkit.llc import compare_with_llc
    from patterns.dag.deadcode import live_instructions
    from patterns.dag.sink import sink_placement

    llc = require("llc-19")
    fn = parse_module(_SINK_KERNEL, "sink.ll").functions[-1]
    placed = sink_placement(fn, live_instructions(fn, "aggressive"))
    where = {i.name: b.name for b, insts in placed.items() for i in insts if i.name}
    assert where["s"] == "exit" and where["d"] == "exit" and where["w"] == "entry"
    (res,) = compare_with_llc(_SINK_KERNEL, amdgpu, llc, path="sink.ll")
    assert res.equal, res.diff()
    assert dict(res.ours).get("V_ADD_U32_e64") == 1


# llc's Sink moves calls of the integer intrinsics (no memory effects, not convergent)
# like any pure instruction: the ctlz follows its only user past the loop, where the
# lshr by 8 of a count <= 32 is known zero and the count is never computed.
_SINK_CALL = """declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.umin.i32(i32, i32)
define amdgpu_kernel void @sink_call(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %n) {
entry:
  %x = xor i32 %a, %b
  %c = icmp slt i32 %a, 7
  br i1 %c, label %then, label %exit
then:
  %z = call i32 @llvm.ctlz.i32(i32 %x, i1 false)
  %s = lshr i32 %z, 8
  %m = call i32 @llvm.umin.i32(i32 %x, i32 %n)
  br label %loop
loop:
  %i = phi i32 [ 0, %then ], [ %in, %loop ]
  %acc = phi i32 [ %b, %then ], [ %accn, %loop ]
  %t = xor i32 %acc, %i
  %accn = mul i32 %t, %a
  %in = add i32 %i, 1
  %lc = icmp ult i32 %in, %n
  br i1 %lc, label %loop, label %after
after:
  %r0 = add i32 %s, %accn
  %r = xor i32 %r0, %m
  br label %exit
exit:
  %p = phi i32 [ %r, %after ], [ %x, %entry ]
  store i32 %p, ptr addrspace(1) %out
  ret void
}
"""


def _agreeing_opcodes(amdgpu, text: str, path: str) -> dict:
    """The modeled opcodes we select for the one function of ``text``, after checking
    they are llc-19's."""
    from testkit.llc import compare_with_llc

    (res,) = compare_with_llc(text, amdgpu, require("llc-19"), path=path)
    assert res.equal, res.diff()
    return dict(res.ours)


def test_sink_moves_intrinsic_calls_as_llc(amdgpu):
    ours = _agreeing_opcodes(amdgpu, _SINK_CALL, "sink_call.ll")
    assert "S_FLBIT_I32_B32" not in ours and ours.get("S_MIN_U32") == 1  # (the umin moved too)


# A count read in another block: after legalization a zero-undef ctlz is the target's
# find-first-bit node (-1 for a zero input), so the block reading it knows none of its
# bits (FunctionLoweringInfo's live-out info): the ashr stays an ashr there, while the
# same ashr next to the count is a lshr (its sign bit known zero before legalization).
_COUNT_ACROSS_BLOCKS = """declare i32 @llvm.ctlz.i32(i32, i1)
define amdgpu_kernel void @count_across(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %n) {
entry:
  %z = call i32 @llvm.ctlz.i32(i32 %a, i1 true)
  %near = ashr i32 %z, %b
  %c = icmp slt i32 %n, 7
  br i1 %c, label %then, label %exit
then:
  %far = ashr i32 %z, %n
  %t = add i32 %far, %near
  br label %exit
exit:
  %p = phi i32 [ %t, %then ], [ %near, %entry ]
  store i32 %p, ptr addrspace(1) %out
  ret void
}
"""


def test_count_known_bits_across_blocks_as_llc(amdgpu):
    ours = _agreeing_opcodes(amdgpu, _COUNT_ACROSS_BLOCKS, "count_across.ll")
    assert ours.get("S_ASHR_I32") == 1 and ours.get("S_LSHR_B32") == 1


# Sign bits (SelectionDAG::ComputeNumSignBits as in LLVM 19): the absolute value of a
# value with s sign bits has s - 1 leading zeros (computeKnownBits of ISD::ABS), and a
# value read in another block carries the sign bits its own block computed for it
# (LiveOutRegInfo -> an AssertSext on the copy; a phi takes the minimum over its
# incoming values). In each function the shift of the absolute value by 5 is known
# zero, and in the second an ashr of an ashr by a variable amount is dropped.
_SIGN_BITS = """declare i32 @llvm.abs.i32(i32, i1)
define amdgpu_kernel void @abs_in_block(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %m = and i32 %a, 1
  %n = ashr i32 %m, %b
  %d = sub i32 %m, %n
  %s = shl i32 %d, 2
  %v = call i32 @llvm.abs.i32(i32 %s, i1 false)
  %r = lshr i32 %v, 5
  store i32 %r, ptr addrspace(1) %out
  ret void
}
define amdgpu_kernel void @sign_bits_across(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %c) {
entry:
  %x = ashr i32 %a, 28
  store i32 %x, ptr addrspace(1) %out
  %cc = icmp eq i32 %c, 0
  br i1 %cc, label %next, label %done
next:
  %v = call i32 @llvm.abs.i32(i32 %x, i1 false)
  %r = lshr i32 %v, 5
  %s = ashr i32 %x, %c
  %t = ashr i32 %s, 4
  %u = add i32 %r, %t
  %g = getelementptr i32, ptr addrspace(1) %out, i64 1
  store i32 %u, ptr addrspace(1) %g
  br label %done
done:
  ret void
}
define amdgpu_kernel void @sign_bits_of_phi(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %c) {
entry:
  %x = ashr i32 %a, 28
  store i32 %x, ptr addrspace(1) %out
  %cc = icmp eq i32 %c, 0
  br i1 %cc, label %other, label %join
other:
  %y = ashr i32 %b, 29
  %g = getelementptr i32, ptr addrspace(1) %out, i64 2
  store i32 %y, ptr addrspace(1) %g
  br label %join
join:
  %p = phi i32 [ %x, %entry ], [ %y, %other ]
  %v = call i32 @llvm.abs.i32(i32 %p, i1 false)
  %r = lshr i32 %v, 5
  %h = getelementptr i32, ptr addrspace(1) %out, i64 1
  store i32 %r, ptr addrspace(1) %h
  ret void
}
"""


def test_sign_bits_in_and_across_blocks_as_llc(amdgpu):
    from testkit.llc import compare_with_llc

    results = compare_with_llc(_SIGN_BITS, amdgpu, require("llc-19"), path="sign_bits.ll")
    assert [r.function for r in results] == ["abs_in_block", "sign_bits_across", "sign_bits_of_phi"]
    for r in results:
        assert r.equal, r.diff()
        ours = dict(r.ours)
        assert "S_ABS_I32" not in ours and "S_LSHR_B32" not in ours, (r.function, ours)
    assert dict(results[0].ours) == {}
    assert dict(results[1].ours).get("S_ASHR_I32") == 2  # (%x, and %t of %x directly)


# visitSIGN_EXTEND_INREG's SimplifyDemandedBits: only the low 16 bits of the and are
# demanded, so the ashr under it shifts no demanded sign copy in and becomes a lshr.
_SEXT_DEMANDED = """define amdgpu_kernel void @sext_demands_low_bits(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %s = ashr i32 %a, 3
  %m = and i32 %s, %b
  %h = shl i32 %m, 16
  %r = ashr i32 %h, 16
  store i32 %r, ptr addrspace(1) %out
  ret void
}
"""


def test_sign_extend_in_reg_demands_low_bits_as_llc(amdgpu):
    ours = _agreeing_opcodes(amdgpu, _SEXT_DEMANDED, "sext_demanded.ll")
    assert ours == {"S_LSHR_B32": 1, "S_AND_B32": 1, "S_SEXT_I32_I16": 1}


# InstSimplify of min/max asks isICmpTrue with the call as the context, so the branch
# condition of the single predecessor decides the order (isImpliedByDomCondition):
# both umins go, on either edge; the smax, not decided by it, stays.
_MINMAX_BY_BRANCH = """declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.smax.i32(i32, i32)
define amdgpu_kernel void @minmax_by_branch(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %c) {
entry:
  %cc = icmp uge i32 %a, %b
  br i1 %cc, label %big, label %small
big:
  %m = call i32 @llvm.umin.i32(i32 %a, i32 %b)
  %g = getelementptr i32, ptr addrspace(1) %out, i64 1
  store i32 %m, ptr addrspace(1) %g
  br label %exit
small:
  %n = call i32 @llvm.umin.i32(i32 %a, i32 %b)
  %s = call i32 @llvm.smax.i32(i32 %a, i32 %c)
  %t = add i32 %n, %s
  store i32 %t, ptr addrspace(1) %out
  br label %exit
exit:
  ret void
}
"""


def test_min_max_decided_by_dominating_branch_as_llc(amdgpu):
    ours = _agreeing_opcodes(amdgpu, _MINMAX_BY_BRANCH, "minmax_branch.ll")
    assert "S_MIN_U32" not in ours and ours.get("S_MAX_I32") == 1


# AMDGPU's simplifyMul24: a 24-bit multiply reads the low 24 bits of its operands, so
# the mask (srl (shl z, 2), 5) leaves behind, which clears only bits above them, is
# bypassed (SimplifyMultipleUseDemandedBits): a plain shift right, not a bit-field
# extract, feeds the multiply.
_MUL24_DEMANDED = """declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.ctlz.i32(i32, i1)
define amdgpu_kernel void @mul24_reads_low_bits(ptr addrspace(1) %out, i32 %a) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %x = xor i32 %tid, %a
  %z = call i32 @llvm.ctlz.i32(i32 %x, i1 true)
  %s = shl i32 %z, 2
  %r = ashr i32 %s, 5
  %m = mul i32 %r, %s
  store i32 %m, ptr addrspace(1) %out
  ret void
}
"""


def test_mul24_operands_low_bits_as_llc(amdgpu):
    ours = _agreeing_opcodes(amdgpu, _MUL24_DEMANDED, "mul24_demanded.ll")
    assert ours.get("V_MUL_U32_U24_e64") == 1 and ours.get("V_LSHRREV_B32_e64") == 1
    assert "V_BFE_U32_e64" not in ours


# Legalizing abs (expandABS) freezes its operand, which it reads twice: smax(fx, 0 - fx).
# When the operand may be poison (here a shift by a variable amount feeds it) and has
# another reader, the freeze stays (visitFREEZE cannot move it onto the shift), the
# combines cannot see through it, and the smax of the negation is selected as s_abs_i32.
# When the operand cannot be poison (values copied from another block, constants, ops
# that make no poison), there is no freeze: 0 - (a - 3) folds to 3 - a and selection
# finds a plain max.
_ABS_OF = """declare i32 @llvm.abs.i32(i32, i1)
define amdgpu_kernel void @abs_of_{name}(ptr addrspace(1) %out, i32 %a, i32 %c) {{
entry:
  %cc = icmp eq i32 %c, 0
  br i1 %cc, label %then, label %done
then:
{operand}
  %m = call i32 @llvm.abs.i32(i32 %x, i1 false)
  %y = xor i32 %m, %x
  store i32 %y, ptr addrspace(1) %out
  br label %done
done:
  ret void
}}
"""
_ABS_FREEZE = _ABS_OF.format(name="maybe_poison", operand="  %s = shl i32 %a, %c\n  %x = add i32 %s, -3")
_ABS_NO_FREEZE = _ABS_OF.format(name="defined_value", operand="  %x = add i32 %a, -3")


def test_abs_operand_freeze_as_llc(amdgpu):
    kept = _agreeing_opcodes(amdgpu, _ABS_FREEZE, "abs_freeze.ll")
    assert kept.get("S_ABS_I32") == 1 and "S_MAX_I32" not in kept
    none = _agreeing_opcodes(amdgpu, _ABS_NO_FREEZE, "abs_no_freeze.ll")
    assert none.get("S_MAX_I32") == 1 and "S_ABS_I32" not in none


# SimplifyDemandedBits makes (sra (shl x, 24), 24) a sign_extend_inreg from i8 at any
# depth it reaches with one use, not only at the root: the add below asks its operand
# (sra v, 3) for its bits, which asks v. So v is s_sext_i32_i8 before the two sras could
# fold into one (sra (shl x, 24), 27), which selection would make an s_bfe_i32.
_SEXT_BELOW_SRA = """define amdgpu_kernel void @sext_below_sra(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %s = shl i32 %a, 24
  %v = ashr i32 %s, 24
  %w = ashr i32 %v, 3
  %x = add i32 %w, %b
  store i32 %x, ptr addrspace(1) %out
  ret void
}
"""


def test_sign_extend_in_reg_formed_below_the_root_as_llc(amdgpu):
    ours = _agreeing_opcodes(amdgpu, _SEXT_BELOW_SRA, "sext_below_sra.ll")
    assert ours.get("S_SEXT_I32_I8") == 1 and "S_BFE_I32" not in ours


# A divergent mul by 2^k + 1 is v_lshl_add_u32 by a pattern on the mul itself: the shl
# reading the product sees a mul, not an add, so it is no v_add_lshl_u32 ((a + b) << c).
_MUL_POW2_PLUS1_UNDER_SHL = """declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @mul_pow2_plus1_under_shl(ptr addrspace(1) %out, i32 %a, i32 %s) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %x = xor i32 %tid, %a
  %m = mul i32 %x, 5
  %r = shl i32 %m, %s
  store i32 %r, ptr addrspace(1) %out
  ret void
}
"""


def test_mul_pow2_plus1_is_a_pattern_on_the_mul_as_llc(amdgpu):
    ours = _agreeing_opcodes(amdgpu, _MUL_POW2_PLUS1_UNDER_SHL, "mul_pow2_plus1_shl.ll")
    assert ours.get("V_LSHL_ADD_U32_e64") == 1 and ours.get("V_LSHLREV_B32_e64") == 1
    assert "V_ADD_LSHL_U32_e64" not in ours


# visitCTPOP: a shift by a constant that moves out only bits known zero (the leading
# zeros for shl, the trailing zeros for srl) leaves the population count unchanged, so
# the count reads the shift's source and the shift goes (the third shift moves out
# unknown bits and stays).
_CTPOP_OF_SHIFT = """declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @ctpop_of_shift(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %lo = and i32 %a, 65535
  %s = shl i32 %lo, 16
  %p = call i32 @llvm.ctpop.i32(i32 %s)
  %hi = and i32 %tid, -256
  %r = lshr i32 %hi, 8
  %q = call i32 @llvm.ctpop.i32(i32 %r)
  %kept = shl i32 %b, 3
  %k = call i32 @llvm.ctpop.i32(i32 %kept)
  %x = add i32 %p, %q
  %y = add i32 %x, %k
  store i32 %y, ptr addrspace(1) %out
  ret void
}
"""


def test_ctpop_reads_through_a_shift_of_zeros_as_llc(amdgpu):
    ours = _agreeing_opcodes(amdgpu, _CTPOP_OF_SHIFT, "ctpop_of_shift.ll")
    assert ours.get("S_LSHL_B32") == 1 and "V_LSHRREV_B32_e64" not in ours
    assert ours.get("S_AND_B32") == 1 and ours.get("V_AND_B32_e64") == 1


# visitSRL's (srl (ctlz x), 5): 1 exactly when x is zero. With one bit of x unknown
# (bit 0 here) it is x ^ 1; with a bit of x known one it is 0: no count is made.
_SRL_OF_CTLZ = """declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @srl_of_ctlz(ptr addrspace(1) %out, i32 %a, i32 %b) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = xor i32 %tid, %b
  %dm = and i32 %d, 1
  %dz = call i32 @llvm.ctlz.i32(i32 %dm, i1 false)
  %dr = lshr i32 %dz, 5
  %o = or i32 %a, 1
  %oz = call i32 @llvm.ctlz.i32(i32 %o, i1 false)
  %or = lshr i32 %oz, 5
  %t = add i32 %dr, %or
  store i32 %t, ptr addrspace(1) %out
  ret void
}
"""


def test_srl_of_ctlz_by_log2_width_as_llc(amdgpu):
    ours = _agreeing_opcodes(amdgpu, _SRL_OF_CTLZ, "srl_of_ctlz.ll")
    assert not {"V_FFBH_U32_e64", "S_FLBIT_I32_B32", "V_MIN_U32_e64", "V_LSHRREV_B32_e64"} & set(ours)
    assert ours.get("V_AND_B32_e64") == 1


# Values crossing blocks: the register a value lives in between blocks follows the
# uniformity analysis of the IR llc selects (rerun after its IR passes), not what the DAG
# combines make of the value in its own block.
_CROSS_BLOCK = """declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @dag_folds_to_uniform(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = xor i32 %tid, %a
  %c = icmp slt i32 %n, 7
  br i1 %c, label %then, label %else
then:
  %t1 = add i32 %d, %n
  %t2 = xor i32 %t1, %a
  %t3 = xor i32 %t2, -1
  %t4 = xor i32 %t3, %b
  %t5 = xor i32 %t4, %t1
  br label %join
else:
  %e = xor i32 %a, %n
  br label %join
join:
  %p = phi i32 [ %t5, %then ], [ %e, %else ]
  %q = sub i32 %p, %b
  %r = mul i32 %q, %a
  store i32 %r, ptr addrspace(1) %out
  ret void
}
define amdgpu_kernel void @instsimplify_drops_divergent_input(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = xor i32 %tid, %a
  %c = icmp slt i32 %n, 7
  br i1 %c, label %then, label %else
then:
  %u = add i32 %a, %n
  %x = xor i32 %u, %d
  %y = xor i32 %x, %d
  br label %join
else:
  %e = xor i32 %a, %n
  br label %join
join:
  %p = phi i32 [ %y, %then ], [ %e, %else ]
  %q = sub i32 %p, %b
  %r = mul i32 %q, %a
  %s = add i32 %r, %d
  store i32 %s, ptr addrspace(1) %out
  ret void
}
define amdgpu_kernel void @mul24_reads_rerun(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = xor i32 %tid, %a
  %c = icmp slt i32 %n, 7
  br i1 %c, label %then, label %else
then:
  %u = and i32 %a, 255
  %x = xor i32 %u, %d
  %y = xor i32 %x, %d
  br label %join
else:
  %e = and i32 %n, 255
  br label %join
join:
  %p = phi i32 [ %y, %then ], [ %e, %else ]
  %m = and i32 %b, 4095
  %r = mul i32 %p, %m
  %s = add i32 %r, %d
  store i32 %s, ptr addrspace(1) %out
  ret void
}
"""


def test_cross_block_divergence_matches_llc(amdgpu):
    """In ``dag_folds_to_uniform`` the DAG combines turn ``%t5`` into a uniform
    s_xnor_b32 of ``%a`` and ``%b`` (the ``%t1`` terms cancel), but the IR value stays
    divergent, so llc copies it to a vector register and ``%p``, ``%q``, ``%r`` are V_
    instructions. In ``instsimplify_drops_divergent_input`` InstSimplify (EarlyCSE) folds
    ``(%u ^ %d) ^ %d`` to ``%u`` before selection, so the phi and what reads it are
    uniform: S_ instructions. ``mul24_reads_rerun`` is the same for AMDGPUCodeGenPrepare:
    it asks an analysis rerun after EarlyCSE, where the 24-bit multiply of the phi is
    uniform and stays a mul (s_mul_i32), not a v_mul_u32_u24."""
    from testkit.llc import compare_with_llc

    llc = require("llc-19")
    res = {a.function: a for a in compare_with_llc(_CROSS_BLOCK, amdgpu, llc, path="cross_block.ll")}
    assert set(res) == {"dag_folds_to_uniform", "instsimplify_drops_divergent_input", "mul24_reads_rerun"}
    for a in res.values():
        assert a.equal, a.diff()
    folded, simplified = dict(res["dag_folds_to_uniform"].ours), dict(res["instsimplify_drops_divergent_input"].ours)
    assert folded.get("V_MUL_LO_U32_e64") == 1 and "S_MUL_I32" not in folded
    assert simplified.get("S_MUL_I32") == 1 and "V_MUL_LO_U32_e64" not in simplified
    mul24 = dict(res["mul24_reads_rerun"].ours)
    assert mul24.get("S_MUL_I32") == 1 and "V_MUL_U32_U24_e64" not in mul24


def _one(seed: int, amdgpu, llc, n_ops: int, constants: bool, intrinsics: bool = False):
    from testkit.iselgen import generate_isel_kernel
    from testkit.llc import compare_with_llc

    text = generate_isel_kernel(seed, n_ops, name=f"k{seed}", constants=constants, intrinsics=intrinsics)
    return seed, compare_with_llc(text, amdgpu, llc, path=f"k{seed}.ll")


def agreement(amdgpu, llc, count: int, n_ops: int = 30, jobs: int = 2, constants: bool = False,
              intrinsics: bool = False):
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda s: _one(s, amdgpu, llc, n_ops, constants, intrinsics), range(count)))
    agree = [s for s, res in results if all(a.equal for a in res)]
    diffs = [f"seed {s}: " + "; ".join(a.diff() for a in res if not a.equal)
             for s, res in results if not all(a.equal for a in res)]
    return len(agree) / max(1, count), diffs


@pytest.mark.parametrize("constants", [False, True], ids=["values", "with-constants"])
def test_generated_kernels_agree(amdgpu, constants):
    llc = require("llc-19")
    count = int(os.environ.get("TDGEN_ISEL_KERNELS", "60"))
    rate, diffs = agreement(amdgpu, llc, count, constants=constants)
    floor = (AGREEMENT_FLOORS if count == 60 else AGREEMENT_FLOORS_FULL)[constants]
    print(f"\nisel agreement with llc-19 (constants={constants}): {rate:.1%} of {count} generated kernels")
    for d in diffs[:20]:
        print("  " + d)
    assert rate >= floor, f"agreement {rate:.1%} below {floor:.0%}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("constants", [False, True], ids=["values", "with-constants"])
def test_generated_kernels_with_intrinsics_agree(amdgpu, constants):
    """The same differential with the target's other modeled operations mixed in
    (testkit.iselgen ``intrinsics=True``: bit counts, bitreverse, abs, min/max, bit-field
    and sign-extension shapes), so llc's folds of those values meet the ALU code."""
    llc = require("llc-19")
    count = int(os.environ.get("TDGEN_ISEL_KERNELS", "60"))
    rate, diffs = agreement(amdgpu, llc, count, constants=constants, intrinsics=True)
    floor = (INTRINSIC_FLOORS if count == 60 else INTRINSIC_FLOORS_FULL)[constants]
    print(f"\nisel agreement with llc-19 (intrinsics mixed in, constants={constants}): "
          f"{rate:.1%} of {count} generated kernels")
    for d in diffs[:20]:
        print("  " + d)
    assert rate >= floor, f"agreement {rate:.1%} below {floor:.0%}:\n" + "\n".join(diffs[:20])

"""Differential tests of the selector against llc-19 (the oracle) on the amdgpu target.

For every function, the multiset of *modeled* opcodes (S_/V_ instructions the amdgpu
reference target's patterns produce, see patterns.mir.modeled_opcodes) that we select
must equal the one in ``llc-19 -mtriple=amdgcn -mcpu=gfx900 -stop-after=amdgpu-isel``.

- ``test_each_operation_agrees``: every modeled operation, uniform and divergent, in a
  small kernel of its own (plus the reassociation and bit-field cases); all must agree.
- ``test_generated_kernels_agree``: seeded kernels from patterns.iselgen (diamonds,
  loops, uniform/divergent branches, kernel args, uniform loads, workitem id).
  ``TDGEN_ISEL_KERNELS`` sets how many (default 60, the CI bound; the >= 500 run is
  ``TDGEN_ISEL_KERNELS=500``), once with kernels whose operands are values only and once
  with small constants mixed in (more of llc's constant folds and known-bits rewrites come
  into play); each agreement rate is printed and must not fall below its entry in
  ``AGREEMENT_FLOORS`` (set just under the measured rate), so a regression in the DAG
  builder, combines or matcher fails the test. Full agreement is the goal, not yet met:
  the remaining differences are llc IR/DAG simplifications we do not model (see
  patterns/combine.py).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from llvm_tools import require

# (constants in the generated kernels, floor): measured over 500 kernels when the floors
# were set: 56.6% without and 40.0% with constants; see the module docstring.
AGREEMENT_FLOORS = {False: 0.45, True: 0.3}

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
}
_DECLS = """declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.bitreverse.i32(i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.cttz.i32(i32, i1)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare i32 @llvm.abs.i32(i32, i1)
"""


# Single-op kernels known to differ from llc, with the reason (the test also checks they
# still differ, so the list shrinks when the model grows).
KNOWN_DIFFERENT = {
    "bfe_u": "uniform bit-field extract: llc selects s_bfe_u32, whose packed offset/width "
             "operand the spec model cannot express; we select s_lshr_b32 + s_and_b32",
}


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
    from patterns.mir import compare_with_llc

    llc = require("llc-19")
    results = compare_with_llc(single_op_module(), amdgpu, llc, path="single_ops.ll")
    assert len(results) == 2 * len(_OPS)
    bad = [a.diff() for a in results if not a.equal and a.function not in KNOWN_DIFFERENT]
    assert not bad, "\n".join(bad)
    still = {a.function for a in results if not a.equal and a.function in KNOWN_DIFFERENT}
    assert still == set(KNOWN_DIFFERENT), f"now agreeing, drop from KNOWN_DIFFERENT: {set(KNOWN_DIFFERENT) - still}"
    # the comparison is not vacuous: every function has modeled opcodes on both sides
    assert all(a.llc and a.ours for a in results)


def _one(seed: int, amdgpu, llc, n_ops: int, constants: bool):
    from patterns.iselgen import generate_isel_kernel
    from patterns.mir import compare_with_llc

    text = generate_isel_kernel(seed, n_ops, name=f"k{seed}", constants=constants)
    return seed, compare_with_llc(text, amdgpu, llc, path=f"k{seed}.ll")


def agreement(amdgpu, llc, count: int, n_ops: int = 30, jobs: int = 2, constants: bool = False):
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda s: _one(s, amdgpu, llc, n_ops, constants), range(count)))
    agree = [s for s, res in results if all(a.equal for a in res)]
    diffs = [f"seed {s}: " + "; ".join(a.diff() for a in res if not a.equal)
             for s, res in results if not all(a.equal for a in res)]
    return len(agree) / max(1, count), diffs


@pytest.mark.parametrize("constants", [False, True], ids=["values", "with-constants"])
def test_generated_kernels_agree(amdgpu, constants):
    llc = require("llc-19")
    count = int(os.environ.get("TDGEN_ISEL_KERNELS", "60"))
    rate, diffs = agreement(amdgpu, llc, count, constants=constants)
    floor = AGREEMENT_FLOORS[constants]
    print(f"\nisel agreement with llc-19 (constants={constants}): {rate:.1%} of {count} generated kernels")
    for d in diffs[:20]:
        print("  " + d)
    assert rate >= floor, f"agreement {rate:.1%} below {floor:.0%}:\n" + "\n".join(diffs[:20])

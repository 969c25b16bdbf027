"""The DAG combines ported from llc-19, each checked on its minimal kernels against llc.

Every rule below has a small module of kernels that need it (and kernels next to them
where it must not fire: a second use, a negative incoming constant, a back edge). Each
module is selected by our pipeline (``testkit.llc.compare_with_llc``, the code behind
``tdgen isel``) and by ``llc-19 -mtriple=amdgcn -mcpu=gfx900``, and the multisets of
modeled opcodes must agree; llc's side must also contain the opcodes that show the shape
(so a kernel that stopped exercising the rule fails instead of passing vacuously).

- De Morgan with a constant (DAGCombiner visitXOR): ``not (and x, C)`` -> ``or (not x), ~C``.
- Known bits across blocks (FunctionLoweringInfo LiveOutRegInfo / ComputePHILiveOutRegInfo):
  an ``ashr`` of a value whose sign bit another block proved zero selects ``lshr``; a value
  known zero is read as the constant 0 (RegsForValue::getCopyFromRegs), folded by getNode.
- Bit-field extracts are formed at selection time only (the SelectS_BFE CustomSelect):
  an ``and (srl x, c), mask`` under an ``or`` stays for ``v_and_or_b32``.
- ``(mul (shl x, C), y)`` with the shl used once -> ``(shl (mul x, y), C)`` (visitMUL).
- ``C2 - (x + C1)`` -> ``(C2 - C1) - x``; ``x - (y + C)`` -> ``(x - y) + -C`` (visitSUB).
- IR passes before the DAG (patterns/llc/): EarlyCSE's InstSimplify across blocks (a
  not of a not, absorption, simplifyByDomEq under a dominating ``icmp eq``, a phi of one
  value), LICM (an invariant ``not`` hoisted next to its xor becomes s_xnor_b32),
  AMDGPUCodeGenPrepare's 24-bit multiplies (v_mul_u32_u24 / v_mul_i32_i24 / v_mad_u32_u24).
- SimplifyDemandedBits / SimplifyMultipleUseDemandedBits: an xor constant a shift does not
  read, a workitem id's known-zero high bits (AssertZext), a constant flipping every
  demanded bit (a not), sra -> srl, a multi-use xor bypassed for the bits a shift reads.
- visitADD / visitSUB folds (``(~a + b) + 1``, ``~a - ~b``, ``(a - b) + (c - a)``,
  ``((a + (b + c)) - b)`` with either add's operands swapped, ``a - (0 - b)``, disjoint add -> or (known
  bits, or haveNoCommonBitsSet's masked merge ``(x & ~m) + (y & m)``), ``C - x`` without borrow ->
  xor, ``(x * C) + x``, hoisted constants, ``mul (add x, C1), C2`` + C3 for v_mad_u64_u32)
  and AMDGPU performMulCombine's ``mul x, (y + 1)`` -> ``x * y + x``.
- Logic folds: hoistLogicOpWithSameOpcodeHands, visitORCommutative, reassociation onto an
  existing node (getNodeIfExists), xor of two nots; no absorption in visitAND.
- SimplifySetCC: ``(x ^ y) != y`` -> ``x != 0`` and ``(x - y) == y`` -> ``x == y << 1``;
  ``~x > C`` -> ``x < ~C`` and ``~x < ~y`` -> ``y < x`` (no s_xnor_b32 for a not whose xor
  the compare reads then).
- The worklist order (patterns/dag/combine/driver.py, DAGCombiner::Run): xor/not chains whose
  final form depends on which node is combined first, and a fold only the second
  DAGCombiner run (after legalization) reaches.
- SITargetLowering::performAndCombine (after legalization): ``and (srl x, c), mask`` with an
  8/16-bit field at a byte/word boundary -> ``shl (bfe x, ..), nb``.
- A divergent ``mul x, 2^k + 1`` -> v_lshl_add_u32 at selection (the DAG keeps the mul).
- visitShiftByConstant: a shift of a logic op with a constant pulled through it (and
  combineShiftOfShiftedLogic); a ``not`` is left alone.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from llvm_tools import require

ROOT = Path(__file__).resolve().parent.parent
_TID = "declare i32 @llvm.amdgcn.workitem.id.x()\n"


def _k(name: str, body: str, args: str = "i32 %a, i32 %b") -> str:
    return f"define amdgpu_kernel void @{name}(ptr addrspace(1) %out, {args}) {{\n{body}}}\n"


_DEMORGAN = _TID + "".join([
    _k("nand_c_u", "  %t = and i32 %a, 31\n  %r = xor i32 %t, -1\n  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
    _k("nand_c_d", "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid, %a\n"
                   "  %t = and i32 %x, 31\n  %r = xor i32 %t, -1\n  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
    _k("nor_c_u", "  %t = or i32 %a, 31\n  %r = xor i32 %t, -1\n  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
    _k("nor_c_d", "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid, %a\n"
                  "  %t = or i32 %x, 31\n  %r = xor i32 %t, -1\n  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
    # the and has a second user: no rewrite (llc keeps s_and_b32 + s_not_b32)
    _k("nand_c_mu", "  %t = and i32 %a, 31\n  %n = xor i32 %t, -1\n  %r = mul i32 %n, %t\n"
                    "  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
])

_LIVEOUT = _TID + "".join([
    _k("liveout_lz", "entry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid, %a\n"
                     "  %s = lshr i32 %x, 3\n  store i32 %s, ptr addrspace(1) %out\n  %c = icmp eq i32 %a, %b\n"
                     "  br i1 %c, label %t, label %e\nt:\n  %r = ashr i32 %s, %b\n"
                     "  store i32 %r, ptr addrspace(1) %out\n  ret void\ne:\n  ret void\n"),
    # a phi of that value and a small constant: still known non-negative
    _k("phi_lz", "entry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid, %a\n"
                 "  %c = icmp eq i32 %a, %b\n  br i1 %c, label %t, label %j\nt:\n  %s = lshr i32 %x, 3\n"
                 "  store i32 %s, ptr addrspace(1) %out\n  br label %j\nj:\n"
                 "  %p = phi i32 [ %s, %t ], [ 1000, %entry ]\n  %r = ashr i32 %p, %b\n"
                 "  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
    # a negative incoming constant: the sign is unknown, the ashr stays
    _k("phi_neg", "entry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid, %a\n"
                  "  %c = icmp eq i32 %a, %b\n  br i1 %c, label %t, label %j\nt:\n  %s = lshr i32 %x, 3\n"
                  "  store i32 %s, ptr addrspace(1) %out\n  br label %j\nj:\n"
                  "  %p = phi i32 [ %s, %t ], [ -5, %entry ]\n  %r = ashr i32 %p, %b\n"
                  "  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
    # a back edge not yet seen when the loop header is built: unknown, the ashr stays
    _k("phi_loop", "entry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid, %a\n"
                   "  %s0 = lshr i32 %x, 3\n  br label %loop\nloop:\n"
                   "  %i = phi i32 [ 0, %entry ], [ %in, %loop ]\n  %p = phi i32 [ %s0, %entry ], [ %q, %loop ]\n"
                   "  %r = ashr i32 %p, %b\n  store i32 %r, ptr addrspace(1) %out\n  %q = lshr i32 %r, 1\n"
                   "  %in = add i32 %i, 1\n  %c = icmp ult i32 %in, %n\n  br i1 %c, label %loop, label %exit\n"
                   "exit:\n  ret void\n", args="i32 %a, i32 %b, i32 %n"),
    # every bit known zero (RegsForValue::getCopyFromRegs): the reading block gets the
    # constant 0, which getNode folds as the DAG is built (b ^ 0 -> b, so the adds
    # around it cancel into x + a) and visitMUL folds (mul v, a -> 0)
    _k("liveout_zero", "entry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid, %a\n"
                       "  %z = and i32 %b, 12\n  %v = ashr i32 %z, 5\n  %c = icmp eq i32 %a, %b\n"
                       "  br i1 %c, label %t, label %e\nt:\n  %m = xor i32 %b, %v\n  %s = sub i32 %x, %m\n"
                       "  %u = add i32 %a, %s\n  %r = add i32 %b, %u\n  store i32 %r, ptr addrspace(1) %out\n"
                       "  ret void\ne:\n  %r2 = mul i32 %v, %a\n  store i32 %r2, ptr addrspace(1) %out\n  ret void\n"),
    # a phi of such a value and 0 (ComputePHILiveOutRegInfo): the constant 0 too
    _k("phi_zero", "entry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid, %a\n"
                   "  %c = icmp eq i32 %a, %b\n  br i1 %c, label %t, label %j\nt:\n  %z = and i32 %x, 12\n"
                   "  %v = lshr i32 %z, 5\n  store i32 %v, ptr addrspace(1) %out\n  br label %j\nj:\n"
                   "  %p = phi i32 [ %v, %t ], [ 0, %entry ]\n  %r = mul i32 %p, %x\n  %r1 = sub i32 %b, %r\n"
                   "  store i32 %r1, ptr addrspace(1) %out\n  ret void\n"),
])

_BFE_OR = _TID + "".join([
    _k(name, "  %tid0 = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid0, %a\n"
             f"  %r0 = lshr i32 %x, 4\n  %r1 = and i32 %r0, {mask}\n  %r = {op} i32 %r1, {other}\n"
             "  store i32 %r, ptr addrspace(1) %out\n  ret void\n")
    for name, mask, op, other in (("bfe_or_inline", 15, "or", "%b"), ("bfe_or_div", 255, "or", "%tid0"),
                                  ("bfe_add_div", 63, "add", "%tid0"))
])

_MULSHL = _TID + "".join([
    _k("mulshl_u", "  %s = shl i32 %a, 1\n  %m = mul i32 %b, %s\n  store i32 %m, ptr addrspace(1) %out\n  ret void\n"),
    _k("mulshl_add", "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %s = shl i32 %a, 3\n  %m = mul i32 %b, %s\n"
                     "  %r = add i32 %tid, %m\n  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
    # the shl has a second user: no rewrite
    _k("mulshl_mu", "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid, %a\n  %s = shl i32 %x, 2\n"
                    "  %m = mul i32 %s, %b\n  %r = xor i32 %m, %s\n  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
])

_SUBADD = _TID + "".join([
    _k("subaddc_u", "  %t = add i32 %b, 5\n  %r = sub i32 %a, %t\n  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
    _k("subaddc_d", "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid, %b\n  %t = add i32 %x, 5\n"
                    "  %r = sub i32 %a, %t\n  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
    # the add has a second user: x - (y + C) is not hoisted
    _k("subaddc_mu", "  %t = add i32 %b, 5\n  %r0 = sub i32 %a, %t\n  %r = xor i32 %r0, %t\n"
                     "  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
    _k("subcadd", "  %t = add i32 %b, 5\n  %r = sub i32 100, %t\n  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
    # C2 - (x + C1) folds even when the add has another user (95 - b beside b + 5)
    _k("subcadd_mu", "  %t = add i32 %b, 5\n  %r0 = sub i32 100, %t\n  %r = xor i32 %r0, %t\n"
                     "  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
])

def _ops(name: str, stmts: str) -> str:
    """A kernel with ``%x``, ``%w`` divergent and ``%y``, ``%z`` uniform; ``stmts``
    (separated by ``;``) end by defining ``%r``, which is stored."""
    body = ("  %tid0 = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid0, %a\n  %w = xor i32 %tid0, %c\n"
            "  %y = add i32 %b, %c\n  %z = xor i32 %a, %b\n")
    body += "".join(f"  {st.strip()}\n" for st in stmts.split(";"))
    return _k(name, body + "  store i32 %r, ptr addrspace(1) %out\n  ret void\n", "i32 %a, i32 %b, i32 %c")


_ST = "  store i32 %r, ptr addrspace(1) %out\n  ret void\n"
_ENTRY = "entry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %x = xor i32 %tid, %a\n"

_IRSIMPLIFY = _TID + "".join([
    _k("cross_not", _ENTRY + "  %n = xor i32 %x, -1\n  %c = icmp eq i32 %a, %b\n  br i1 %c, label %t, label %e\n"
       "t:\n  %r = xor i32 %n, -1\n" + _ST + "e:\n  ret void\n"),
    _k("cross_absorb", _ENTRY + "  %o = or i32 %x, %b\n  %c = icmp eq i32 %a, %b\n  br i1 %c, label %t, label %e\n"
       "t:\n  %q = and i32 %o, %x\n  %r = mul i32 %q, %b\n" + _ST + "e:\n  ret void\n"),
    # x - b is 0 where x == b, not on the other edge
    _k("dom_eq", _ENTRY + "  %c = icmp eq i32 %x, %b\n  br i1 %c, label %t, label %e\nt:\n  %s = sub i32 %x, %b\n"
       "  %r = add i32 %s, %a\n" + _ST + "e:\n  %s2 = sub i32 %x, %b\n  store i32 %s2, ptr addrspace(1) %out\n  ret void\n"),
    _k("phi_same", _ENTRY + "  %c = icmp eq i32 %a, %b\n  br i1 %c, label %t, label %j\nt:\n  br label %j\n"
       "j:\n  %p = phi i32 [ %x, %t ], [ %x, %entry ]\n  %q = lshr i32 %p, 3\n  %r = ashr i32 %q, %b\n" + _ST),
])

_LICM = _TID + "".join([
    _k(name, "entry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %p = xor i32 %a, %b\n  br label %loop\nloop:\n"
       "  %i = phi i32 [ 0, %entry ], [ %in, %loop ]\n  %acc = phi i32 [ %tid, %entry ], [ %acc2, %loop ]\n" + inner +
       "  %acc2 = xor i32 %acc, %q\n  %in = add i32 %i, 1\n  %lc = icmp ult i32 %in, %n\n"
       "  br i1 %lc, label %loop, label %x\nx:\n  store i32 %acc2, ptr addrspace(1) %out\n  ret void\n",
       "i32 %a, i32 %b, i32 %n")
    for name, inner in (("hoist_not", "  %q = xor i32 %p, -1\n"),
                        # not invariant (reads the induction variable): stays in the loop
                        ("variant_not", "  %p2 = xor i32 %p, %i\n  %q = xor i32 %p2, -1\n"))
])

_MUL24 = _TID + "".join([
    _ops("m24", "%p = and i32 %x, 255 ; %q = and i32 %w, 4095 ; %r = mul i32 %p, %q"),
    _ops("m24c", "%p = lshr i32 %x, 9 ; %r = mul i32 %p, 7"),
    _ops("m24add", "%p = and i32 %x, 255 ; %q = and i32 %w, 4095 ; %m = mul i32 %p, %q ; %r = add i32 %m, %w"),
    _ops("m24addmu", "%p = and i32 %x, 255 ; %q = and i32 %w, 4095 ; %m = mul i32 %p, %q ; %t = add i32 %m, %w ; "
                     "%r = xor i32 %t, %m"),
    _ops("i24", "%p = ashr i32 %x, 9 ; %r = mul i32 %p, 7"),
    _ops("m24_uniform", "%p = and i32 %z, 255 ; %q = and i32 %y, 4095 ; %r = mul i32 %p, %q"),
    _ops("m24_wide", "%p = lshr i32 %x, 7 ; %r = mul i32 %p, 7"),
    # uniform once EarlyCSE folds (tid ^ a) ^ tid: s_mul_i32 (the analysis reruns first)
    _ops("m24_folded_uniform", "%e = xor i32 %x, %tid0 ; %p = and i32 %e, 255 ; %r = mul i32 %p, 7"),
])

_DEMANDED = _TID + "".join([
    _ops("xor_under_ashr", "%t = xor i32 %x, %w ; %t2 = xor i32 %t, 7 ; %r = ashr i32 %t2, 7"),
    _ops("xor_under_ashr_keep", "%t = xor i32 %x, %w ; %t2 = xor i32 %t, 255 ; %r = ashr i32 %t2, 7"),
    _ops("workitem_high_zero", "%k = and i32 %z, 2 ; %t = xor i32 %x, %k ; %t2 = and i32 %t, %y ; %r = lshr i32 %t2, 24"),
    _ops("xor_to_not", "%t = lshr i32 %x, 4 ; %r = xor i32 %t, 268435455"),
    _ops("sra_to_srl", "%t = ashr i32 %x, 3 ; %r = and i32 %t, 65535"),
    _ops("multi_use_bypass", "%t = lshr i32 %x, 24 ; %r = xor i32 %t, %x"),
    _ops("multi_use_keep", "%t = lshr i32 %x, 8 ; %r = xor i32 %t, %x"),
    # xor (X << 1), -1 under ashr 5: the constant flips the demanded bits the shl can set,
    # so the not goes before the shift and the shifts become v_bfe_i32 of ~X
    _ops("not_under_shifts", "%t = shl i32 %x, 1 ; %n = xor i32 %t, -1 ; %r = ashr i32 %n, 5"),
    _ops("not_under_shifts_u", "%t = shl i32 %z, 3 ; %n = xor i32 %t, -1 ; %r = lshr i32 %n, 4"),
    # a not's SimplifyDemandedBits demands every bit of its operand yet still looks into
    # it: the one-use xor (v & 3) ^ 100 becomes an or (no common bits) before the outer
    # xor's visit reassociates the constant out (v_and_or_b32 / s_or_b32 + s_xnor_b32)
    _ops("not_xor_or", "%s = shl i32 %x, %y ; %m = and i32 %s, 3 ; %t = xor i32 %m, 100 ; %u = xor i32 %t, %x ; "
                       "%r = xor i32 %u, -1"),
    _ops("not_xor_or_u", "%s = shl i32 %z, %y ; %m = and i32 %s, 3 ; %t = xor i32 %m, 100 ; %u = xor i32 %t, %z ; "
                         "%r = xor i32 %u, -1"),
])

_ADDSUB = _TID + "".join([
    _ops("add_not_plus1", "%n = xor i32 %x, -1 ; %t = add i32 %n, %y ; %r = add i32 %t, 1"),
    _ops("sub_nots", "%na = xor i32 %x, -1 ; %nb = xor i32 %w, -1 ; %r = sub i32 %na, %nb"),
    _ops("sub_nots_mu", "%na = xor i32 %x, -1 ; %nb = xor i32 %w, -1 ; %s = sub i32 %na, %nb ; %t = mul i32 %s, %nb ; "
                        "%r = mul i32 %t, %na"),
    _ops("add_subsub", "%s1 = sub i32 %x, %y ; %s2 = sub i32 %w, %x ; %r = add i32 %s1, %s2"),
    _ops("sub_add_add", "%t = add i32 %y, %w ; %t2 = add i32 %x, %t ; %r = sub i32 %t2, %y"),
    _ops("sub_neg", "%ng = sub i32 0, %w ; %r = sub i32 %x, %ng"),
    _ops("add_disjoint", "%s = shl i32 %x, 4 ; %o = and i32 %w, 15 ; %r = add i32 %s, %o"),
    _ops("sub_c_no_borrow", "%s = and i32 %x, 12 ; %r = sub i32 15, %s"),
    _ops("add_mulc_x", "%m = mul i32 %x, 7 ; %r = add i32 %m, %x"),
    _ops("csub_add", "%s = sub i32 5, %x ; %r = add i32 %s, %w"),
    _ops("sub_addc", "%t = add i32 %x, 7 ; %r = sub i32 %t, %w"),
    _ops("sub_negmul", "%ng = sub i32 0, %w ; %m = mul i32 %ng, %y ; %r = sub i32 %x, %m"),
    _ops("add_mul_addc", "%t = add i32 %x, 3 ; %m = mul i32 %t, 5 ; %r = add i32 %m, 100"),
    _ops("mul_add_one", "%t = add i32 %x, 1 ; %r = mul i32 %y, %t"),
    _ops("mul_add_one_mu", "%t = add i32 %x, 1 ; %m = mul i32 %y, %t ; %r = xor i32 %m, %t"),
    # sd_match's m_Add is commutative: ((A + B) + C) - B -> A + C, ((B - C) + A) - B -> A - C,
    # A + (C + (B - A)) -> B + C, whichever operand of each add holds the inner node
    _ops("sub_add_add_comm", "%s = shl i32 %y, %z ; %t = add i32 %a, %s ; %t2 = add i32 %t, %y ; %r = sub i32 %t2, %s"),
    _ops("sub_addsub_comm", "%s = sub i32 %y, %z ; %t = add i32 %s, %a ; %r = sub i32 %t, %y"),
    _ops("add_subadd_comm", "%s = sub i32 %y, %a ; %t = add i32 %z, %s ; %r = add i32 %a, %t"),
])

_LOGIC = _TID + "".join([
    _ops("hoist_shl", "%s1 = shl i32 %x, %y ; %s2 = shl i32 %w, %y ; %r = or i32 %s1, %s2"),
    _ops("hoist_shl_mu", "%s1 = shl i32 %x, %y ; %s2 = shl i32 %w, %y ; %o = or i32 %s1, %s2 ; %r = xor i32 %o, %s1"),
    _ops("or_andnot", "%n = xor i32 %w, -1 ; %t = and i32 %x, %n ; %r = or i32 %t, %w"),
    _ops("or_xor_and", "%t = xor i32 %x, %w ; %t2 = and i32 %x, %w ; %r = or i32 %t, %t2"),
    _ops("xor_of_nots", "%n1 = xor i32 %x, -1 ; %n2 = xor i32 %w, -1 ; %r = xor i32 %n1, %n2"),
    _ops("reassoc_existing", "%n = xor i32 %x, -1 ; %t = xor i32 %w, %x ; %t2 = xor i32 %t, -1 ; %r = mul i32 %t2, %n"),
    # visitORCommutative makes (or (xor x, w), w) an (or x, w); the and of x with it stays
    # (visitAND has no absorption; InstSimplify saw the IR's (and x, (or w, (xor x, w))))
    _ops("and_or_no_absorb", "%t = xor i32 %x, %w ; %o = or i32 %w, %t ; %q = and i32 %x, %o ; %r = mul i32 %q, %o"),
])

# haveNoCommonBitsSet's masked-merge shape: (x & ~m) + m and (x & ~m) + (y & m) are ors
# (visitADD), whatever known bits say; a third value or an and without m stays an add
_MERGE = _TID + "".join([
    _ops("merge_m_u", "%n = xor i32 %y, -1 ; %t = and i32 %z, %n ; %r = add i32 %t, %y"),
    _ops("merge_m_d", "%n = xor i32 %y, -1 ; %t = and i32 %n, %x ; %r = add i32 %y, %t"),
    _ops("merge_and_u", "%n = xor i32 %y, -1 ; %t = and i32 %z, %n ; %u = and i32 %y, %a ; %r = add i32 %u, %t"),
    _ops("merge_and_d", "%n = xor i32 %w, -1 ; %t = and i32 %n, %y ; %u = and i32 %x, %w ; %q = add i32 %t, %u ; "
                        "%r = mul i32 %q, %t"),
    _ops("merge_other", "%n = xor i32 %y, -1 ; %t = and i32 %z, %n ; %r = add i32 %t, %a"),
    _ops("merge_and_other", "%n = xor i32 %y, -1 ; %t = and i32 %z, %n ; %u = and i32 %a, %b ; %r = add i32 %t, %u"),
])

# visitADD: (add (umax x, C), -C) -> (usubsat x, C), selected as v_sub_u32 with the clamp
# bit for a uniform x too (VOPBinOpClampPat); not when the constants do not cancel; a
# constant first operand of umax is moved right by getNode
_USUBSAT = _TID + "declare i32 @llvm.umax.i32(i32, i32)\ndeclare i32 @llvm.umin.i32(i32, i32)\n" + "".join([
    _ops("usubsat_d", "%m = call i32 @llvm.umax.i32(i32 %x, i32 1) ; %r = add i32 %m, -1"),
    _ops("usubsat_u", "%m = call i32 @llvm.umax.i32(i32 %y, i32 100) ; %r = add i32 %m, -100"),
    _ops("usubsat_cfirst", "%m = call i32 @llvm.umax.i32(i32 7, i32 %x) ; %r = add i32 %m, -7"),
    _ops("usubsat_off", "%m = call i32 @llvm.umax.i32(i32 %x, i32 5) ; %r = add i32 %m, -4"),
    # foldSubToUSubSat (visitSUB): umax(x, y) - y and x - umin(x, y), the min/max used once
    _ops("usubsat_reg", "%m = call i32 @llvm.umax.i32(i32 %x, i32 %y) ; %r = sub i32 %m, %y"),
    _ops("usubsat_umin", "%m = call i32 @llvm.umin.i32(i32 %z, i32 %w) ; %r = sub i32 %w, %m"),
    _ops("usubsat_mu", "%m = call i32 @llvm.umax.i32(i32 %y, i32 %x) ; %s = sub i32 %m, %y ; %r = xor i32 %s, %m"),
])

# SelectionDAG::getNode moves a constant left operand of a commutative op to the right as
# the DAG is built, so the outer mul (combined first) reassociates y * (y * -1) into
# (y * y) * -1, which becomes a negation and then a sub from z
_CONST_RIGHT = _TID + "".join([
    _ops("cright_mul_u", "%n = mul i32 -1, %y ; %m = mul i32 %y, %n ; %r = add i32 %m, %z"),
    _ops("cright_mul_d", "%n = mul i32 -1, %x ; %m = mul i32 %x, %n ; %r = add i32 %m, %w"),
])

# visitOR's last step: an or without common bits (isADDLike) gets visitADDLike's combines,
# so (0 - (y << 3)) | 7, from an add of mul y, -8 and 7 (made an or first), is 7 - (y << 3)
_OR_ADDLIKE = _TID + "".join([
    _ops("orlike_mulc_u", "%m = mul i32 %y, -8 ; %r = add i32 %m, 7"),
    _ops("orlike_mulc_d", "%m = mul i32 %x, -8 ; %r = add i32 %m, 7"),
    _ops("orlike_ir", "%s = shl i32 %z, 3 ; %n = sub i32 0, %s ; %r = or i32 %n, 7"),
    _ops("orlike_reassoc", "%s = shl i32 %x, 4 ; %t = add i32 %s, %y ; %u = shl i32 %t, 4 ; %r = or i32 %u, 5"),
    # common bits possible: the or stays
    _ops("orlike_common", "%s = shl i32 %z, 2 ; %n = sub i32 0, %s ; %r = or i32 %n, 7"),
])

# a divergent mul by 2^k + 1 is selected as v_lshl_add_u32 by a pattern: the DAG keeps the
# mul, so no combine sees its shl (no shl (srl x, 2), 2 -> and mask) and performMulCombine
# turns a mul of 24-bit operands into mul_u24 first
_MUL_POW2_PLUS1 = _TID + "".join([
    _ops("mul5_of_srl", "%s = lshr i32 %x, 2 ; %r = mul i32 %s, 5"),
    _ops("mul9_of_srl_mu", "%s = lshr i32 %x, 3 ; %m = mul i32 %s, 9 ; %r = and i32 %m, %y"),
    _ops("mul5_24bit", "%s = and i32 %x, 65535 ; %m = mul i32 %s, 5 ; %r = xor i32 %m, %w"),
    _ops("mul5_plain", "%m = mul i32 %x, 5 ; %r = xor i32 %m, %w"),
])

_SHIFT_BY_CONST = _TID + "".join([
    # shift (op (shift x, c0), C), c1 -> op (shift x, c0 + c1), C shifted (visitShiftByConstant)
    _ops("srl_xor_srl", "%v8 = lshr i32 %x, 1 ; %v9 = xor i32 %v8, 1000 ; %r = lshr i32 %v9, 2"),
    _ops("sra_xor_sra", "%v8 = ashr i32 %x, 1 ; %v9 = xor i32 %v8, 5 ; %r = ashr i32 %v9, 1"),
    # visitSHL: (shl (mul x, c1), c2) -> (mul x, c1 << c2), the mul used once
    _ops("shl_mul", "%m = mul i32 %z, -8 ; %r = shl i32 %m, 1"),
    _ops("shl_mul_d", "%m = mul i32 %x, 7 ; %r = shl i32 %m, 2"),
    _ops("shl_mul_mu", "%m = mul i32 %z, 5 ; %s = shl i32 %m, 1 ; %r = xor i32 %s, %m"),
    # a not is left alone
    _ops("sra_not_sra", "%v8 = ashr i32 %x, 1 ; %v9 = xor i32 %v8, -1 ; %r = ashr i32 %v9, 1"),
    _ops("shl_not_shl", "%v8 = shl i32 %x, 1 ; %v9 = xor i32 %v8, -1 ; %r = shl i32 %v9, 1"),
])

_SDWA_BFE = _TID + "".join([
    # SITargetLowering::performAndCombine after legalization: visitSHL's
    # (shl (srl x, 16), 4) -> (and (srl x, 12), 0xffff0) becomes shl (bfe x, 16, 16), 4
    _ops("shl_srl16", "%m = mul i32 %x, %y ; %s = lshr i32 %m, 16 ; %r = shl i32 %s, 4"),
    _ops("shl_srl16_u", "%s = lshr i32 %z, 16 ; %r = shl i32 %s, 2"),
    # an 8-bit field reaching bit 31: the bfe becomes srl x, 24, kept apart from the shl
    # by the AssertZext
    _ops("shl_srl24", "%m = mul i32 %x, %y ; %s = lshr i32 %m, 24 ; %r = shl i32 %s, 4"),
    # not a byte/word field: the mask stays
    _ops("shl_srl8", "%s = lshr i32 %x, 8 ; %r = shl i32 %s, 4"),
    # an and written in the IR (combine1 leaves it for combine2)
    _ops("and_srl_mask", "%s = lshr i32 %z, 4 ; %r = and i32 %s, 4080"),
])

_SETCC = _TID + "".join([
    _k("ne_xor", _ENTRY.replace("%x", "%d") + "  %c = icmp ne i32 %d, %a\n  br i1 %c, label %t, label %e\n"
       "t:\n  %r = mul i32 %a, %b\n" + _ST + "e:\n  ret void\n"),
    # the xor has another user: it stays (the compare still folds)
    _k("ne_xor_mu", _ENTRY.replace("%x", "%d") + "  %c = icmp ne i32 %d, %a\n  br i1 %c, label %t, label %e\n"
       "t:\n  %r = mul i32 %d, %b\n" + _ST + "e:\n  ret void\n"),
    _k("eq_sub", _ENTRY.replace("%x", "%d") + "  %s = sub i32 %d, %b\n  %c = icmp eq i32 %s, %b\n"
       "  br i1 %c, label %t, label %e\nt:\n  %r = mul i32 %a, %b\n" + _ST + "e:\n  ret void\n"),
    # an ordered compare of a not with a constant reads the xor under it (~x > C -> x < ~C):
    # the xor has two users, so no s_xnor_b32 for the not the store keeps
    _k("not_sgt", "entry:\n  %x = xor i32 %a, %b\n  %r = xor i32 %x, -1\n  %c = icmp sgt i32 %r, 7\n"
       "  br i1 %c, label %t, label %e\nt:\n" + _ST + "e:\n  ret void\n"),
    # the constant on the left moves right first (7 < ~x -> ~x > 7); ~x < ~y -> y < x
    _k("not_const_lhs", "entry:\n  %x = xor i32 %a, %b\n  %r = xor i32 %x, -1\n  %c = icmp ult i32 7, %r\n"
       "  br i1 %c, label %t, label %e\nt:\n" + _ST + "e:\n  ret void\n"),
    _k("not_not", "entry:\n  %x = xor i32 %a, %b\n  %r = xor i32 %x, -1\n  %y = xor i32 %a, -1\n"
       "  %c = icmp slt i32 %r, %y\n  br i1 %c, label %t, label %e\nt:\n" + _ST + "e:\n  ret void\n"),
    # an equality compare leaves the not alone (its xor has one user: s_xnor_b32)
    _k("not_eq", "entry:\n  %x = xor i32 %a, %b\n  %r = xor i32 %x, -1\n  %c = icmp eq i32 %r, 7\n"
       "  br i1 %c, label %t, label %e\nt:\n" + _ST + "e:\n  ret void\n"),
])

_ORDER = _TID + "".join([
    # users are combined before their operands: the outer not meets (~y ^ x) before that
    # xor is reassociated, so ~y (used again by the or) stays and s_xnor_b32 takes ~y ^ a
    _ops("not_xor_not", "%n = xor i32 %y, -1 ; %t = xor i32 %n, %x ; %r0 = xor i32 %t, -1 ; %r = or i32 %r0, %n"),
    # w - (~(x ^ y) - z): the sub of the not is rewritten first, then the uniform parts
    # regroup, giving v_add3_u32 (of w, x ^ a ... and 1) rather than v_xad_u32
    _ops("sub_not_xor", "%t1 = xor i32 %x, %y ; %n1 = xor i32 %t1, -1 ; %s = sub i32 %n1, %z ; %r = sub i32 %w, %s"),
    # x - ~(~(~(x << y) << z) ^ x): combine1 turns the sub of a not into (x + t) + 1
    # before t becomes a not; only combine2 (after legalization) sees
    # (add (add x, ~u), 1) and makes it x - u: v_sub_u32, not v_add3_u32
    _ops("sub_not_combine2", "%s1 = shl i32 %x, %y ; %n1 = xor i32 %s1, -1 ; %s2 = shl i32 %n1, %z ; "
                             "%n2 = xor i32 %s2, -1 ; %t = xor i32 %n2, %x ; %n3 = xor i32 %t, -1 ; %r = sub i32 %x, %n3"),
])

# rule -> (module, {function: opcodes llc's selection must contain for the kernel to show the shape})
_RULES = {
    "demorgan_const": (_DEMORGAN, {"nand_c_u": {"S_ORN2_B32"}, "nor_c_u": {"S_ANDN2_B32"},
                                   "nand_c_d": {"V_OR_B32_e64"}, "nor_c_d": {"V_AND_B32_e64"},
                                   "nand_c_mu": {"S_AND_B32", "S_NOT_B32"}}),
    "liveout_known_bits": (_LIVEOUT, {"liveout_lz": {"V_LSHRREV_B32_e64"}, "phi_lz": {"V_LSHRREV_B32_e64"},
                                      "phi_neg": {"V_ASHRREV_I32_e64"}, "phi_loop": {"V_ASHRREV_I32_e64"},
                                      "liveout_zero": {"V_XOR_B32_e64", "V_ADD_U32_e64"},
                                      "phi_zero": {"V_XOR_B32_e64"}}),
    "bfe_at_selection": (_BFE_OR, {"bfe_or_inline": {"V_AND_OR_B32_e64"}, "bfe_or_div": {"V_AND_OR_B32_e64"},
                                   "bfe_add_div": {"V_BFE_U32_e64"}}),
    "mul_of_shl": (_MULSHL, {"mulshl_add": {"V_LSHL_ADD_U32_e64"}, "mulshl_u": {"S_MUL_I32", "S_LSHL_B32"},
                             "mulshl_mu": {"V_MUL_LO_U32_e64", "V_LSHLREV_B32_e64"}}),
    "sub_of_add_const": (_SUBADD, {"subaddc_u": {"S_SUB_I32"}, "subaddc_d": {"V_XOR_B32_e64"},
                                   "subaddc_mu": {"S_SUB_I32", "S_ADD_I32"},
                                   "subcadd": {"S_SUB_I32"}, "subcadd_mu": {"S_SUB_I32", "S_ADD_I32"}}),
    "ir_instsimplify": (_IRSIMPLIFY, {"cross_not": {"V_XOR_B32_e64"}, "cross_absorb": {"V_MUL_LO_U32_e64"},
                                      "dom_eq": {"V_SUB_U32_e64"}, "phi_same": {"V_LSHRREV_B32_e64"}}),
    "ir_licm": (_LICM, {"hoist_not": {"S_XNOR_B32"}, "variant_not": {"S_XNOR_B32", "S_XOR_B32"}}),
    "mul24": (_MUL24, {"m24": {"V_MUL_U32_U24_e64"}, "m24c": {"V_MUL_U32_U24_e64"}, "m24add": {"V_MAD_U32_U24_e64"},
                       "m24addmu": {"V_MAD_U32_U24_e64", "V_MUL_U32_U24_e64"}, "i24": {"V_MUL_I32_I24_e64"},
                       "m24_uniform": {"S_MUL_I32"}, "m24_wide": {"V_MUL_LO_U32_e64"},
                       "m24_folded_uniform": {"S_MUL_I32"}}),
    "demanded_bits": (_DEMANDED, {"xor_under_ashr": {"V_ASHRREV_I32_e64"}, "xor_under_ashr_keep": {"V_ASHRREV_I32_e64"},
                                  "workitem_high_zero": {"S_LSHR_B32"}, "xor_to_not": {"S_NOT_B32"},
                                  "sra_to_srl": {"V_BFE_U32_e64"}, "multi_use_bypass": {"S_LSHR_B32"},
                                  "multi_use_keep": {"V_LSHRREV_B32_e64"},
                                  "not_under_shifts": {"V_BFE_I32_e64", "S_NOT_B32"},
                                  "not_under_shifts_u": {"S_BFE_U32", "S_XNOR_B32"},
                                  "not_xor_or": {"V_AND_OR_B32_e64", "V_NOT_B32_e32"},
                                  "not_xor_or_u": {"S_OR_B32", "S_XNOR_B32"}}),
    "add_sub_folds": (_ADDSUB, {"add_not_plus1": {"V_SUB_U32_e64"}, "sub_nots": {"V_SUB_U32_e64"},
                                "sub_nots_mu": {"S_NOT_B32"}, "add_subsub": {"V_SUB_U32_e64"},
                                "sub_add_add": {"V_XAD_U32_e64"}, "sub_neg": {"V_XAD_U32_e64"},
                                "add_disjoint": {"V_LSHL_OR_B32_e64"}, "sub_c_no_borrow": {"V_AND_B32_e64"},
                                "add_mulc_x": {"V_LSHLREV_B32_e64"}, "csub_add": {"V_SUB_U32_e64", "V_ADD_U32_e64"},
                                "sub_addc": {"V_SUB_U32_e64", "V_ADD_U32_e64"}, "sub_negmul": {"V_MUL_LO_U32_e64"},
                                "add_mul_addc": {"V_MAD_U64_U32_e64"},
                                "mul_add_one": {"V_MUL_LO_U32_e64", "V_ADD_U32_e64"},
                                "mul_add_one_mu": {"V_XAD_U32_e64"}, "sub_add_add_comm": {"S_ADD_I32"},
                                "sub_addsub_comm": {"S_SUB_I32"}, "add_subadd_comm": {"S_ADD_I32"}}),
    "logic_folds": (_LOGIC, {"hoist_shl": {"V_LSHLREV_B32_e64", "V_OR_B32_e64"}, "hoist_shl_mu": {"V_LSHL_OR_B32_e64"},
                             "or_andnot": {"V_OR_B32_e64"}, "or_xor_and": {"V_OR_B32_e64"},
                             "xor_of_nots": {"V_XOR_B32_e64"}, "reassoc_existing": {"S_NOT_B32"},
                             "and_or_no_absorb": {"V_AND_B32_e64", "V_OR_B32_e64"}}),
    "masked_merge_add": (_MERGE, {"merge_m_u": {"S_OR_B32"}, "merge_m_d": {"V_OR_B32_e64"},
                                  "merge_and_u": {"S_OR_B32", "S_ANDN2_B32"}, "merge_and_d": {"V_BFI_B32_e64"},
                                  "merge_other": {"S_ADD_I32"}, "merge_and_other": {"S_ADD_I32"}}),
    "usubsat": (_USUBSAT, {"usubsat_d": {"V_SUB_U32_e64"}, "usubsat_u": {"V_SUB_U32_e64"},
                           "usubsat_cfirst": {"V_SUB_U32_e64"}, "usubsat_off": {"V_MAX_U32_e64"},
                           "usubsat_reg": {"V_SUB_U32_e64"}, "usubsat_umin": {"V_SUB_U32_e64"},
                           "usubsat_mu": {"V_MAX_U32_e64", "V_SUB_U32_e64"}}),
    "getnode_const_right": (_CONST_RIGHT, {"cright_mul_u": {"S_MUL_I32", "S_SUB_I32"},
                                           "cright_mul_d": {"V_MUL_LO_U32_e64", "V_SUB_U32_e64"}}),
    "or_add_like": (_OR_ADDLIKE, {"orlike_mulc_u": {"S_SUB_I32", "S_LSHL_B32"},
                                  "orlike_mulc_d": {"V_SUB_U32_e64"}, "orlike_ir": {"S_SUB_I32"},
                                  "orlike_reassoc": {"V_LSHL_OR_B32_e64"}, "orlike_common": {"S_OR_B32"}}),
    "mul_pow2_plus1": (_MUL_POW2_PLUS1, {"mul5_of_srl": {"V_LSHL_ADD_U32_e64", "V_LSHRREV_B32_e64"},
                                         "mul9_of_srl_mu": {"V_LSHL_ADD_U32_e64", "V_LSHRREV_B32_e64"},
                                         "mul5_24bit": {"V_MUL_U32_U24_e64"},
                                         "mul5_plain": {"V_LSHL_ADD_U32_e64"}}),
    "shift_by_constant": (_SHIFT_BY_CONST, {"srl_xor_srl": {"V_LSHRREV_B32_e64"}, "sra_xor_sra": {"V_ASHRREV_I32_e64"},
                                            "shl_mul": {"S_LSHL_B32", "S_SUB_I32"}, "shl_mul_d": {"V_MUL_LO_U32_e64"},
                                            "shl_mul_mu": {"S_MUL_I32", "S_LSHL_B32"},
                                            "sra_not_sra": {"V_ASHRREV_I32_e64", "V_NOT_B32_e32"},
                                            "shl_not_shl": {"V_LSHLREV_B32_e64", "V_NOT_B32_e32"}}),
    "sdwa_bfe": (_SDWA_BFE, {"shl_srl16": {"V_BFE_U32_e64", "V_LSHLREV_B32_e64"},
                             "shl_srl16_u": {"S_BFE_U32", "S_LSHL_B32"},
                             "shl_srl24": {"V_LSHRREV_B32_e64", "V_LSHLREV_B32_e64"},
                             "shl_srl8": {"V_AND_B32_e64"}, "and_srl_mask": {"S_BFE_U32", "S_LSHL_B32"}}),
    "setcc_fold": (_SETCC, {"ne_xor": {"S_MUL_I32"}, "ne_xor_mu": {"V_XOR_B32_e64"}, "eq_sub": {"S_LSHL_B32"},
                            "not_sgt": {"S_XOR_B32", "S_NOT_B32"}, "not_const_lhs": {"S_XOR_B32", "S_NOT_B32"},
                            "not_not": {"S_XOR_B32", "S_NOT_B32"}, "not_eq": {"S_XNOR_B32"}}),
    "worklist_order": (_ORDER, {"not_xor_not": {"S_XNOR_B32", "S_NOT_B32"}, "sub_not_xor": {"V_ADD3_U32_e64"},
                                "sub_not_combine2": {"V_SUB_U32_e64"}}),
}


@pytest.fixture(scope="module")
def amdgpu():
    from tdgen.spec import load_target

    return load_target("amdgpu")


@pytest.mark.parametrize("rule", sorted(_RULES))
def test_rule_agrees_with_llc(amdgpu, rule):
    from testkit.llc import compare_with_llc

    llc = require("llc-19")
    module, shapes = _RULES[rule]
    results = compare_with_llc(module, amdgpu, llc, path=f"{rule}.ll", stop_after="finalize-isel")
    assert sorted(a.function for a in results) == sorted(shapes)
    bad = [a.diff() for a in results if not a.equal]
    assert not bad, "\n".join(bad)
    for a in results:
        missing = shapes[a.function] - {op for op, _n in a.llc}
        assert not missing, f"@{a.function}: llc no longer selects {sorted(missing)}; the kernel lost its shape"


def _mov_immediates(mir: str, function: str, mov: str) -> set[int]:
    """Immediates of ``mov`` instructions in ``function``'s MIR body."""
    out, inside = set(), False
    for line in mir.splitlines():
        if line.startswith("name:"):
            inside = line.split()[1] == function
        elif inside and f"= {mov} " in line:
            tok = line.split(f"= {mov} ", 1)[1].split()[0].rstrip(",")
            if tok.lstrip("-").isdigit():
                out.add(int(tok))
    return out


def test_sub_of_add_constant_folds_like_llc(tmp_path):
    """``100 - (b + 5)`` with the add used twice: llc materializes 95 (C2 - C1); so does
    ``tdgen isel`` (the multisets above cannot tell 95 - b from 100 - t)."""
    llc = require("llc-19")
    src = tmp_path / "subadd.ll"
    src.write_text(_SUBADD)
    theirs = subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-stop-after=finalize-isel", str(src), "-o", "-"],
                            capture_output=True, text=True, check=True).stdout
    ours = subprocess.run([sys.executable, "-m", "tdgen", "isel", "-t", "amdgpu", str(src)], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout
    want = _mov_immediates(theirs, "subcadd_mu", "S_MOV_B32")
    assert 95 in want and 100 not in want
    assert _mov_immediates(ours, "subcadd_mu", "S_MOV_B32") == want


def _phi_copies(amdgpu, text: str):
    """(function, block, IR name) -> known leading zeros of each CopyFromReg."""
    from patterns.dag.combine.driver import dag_target
    from patterns.dag.combine.known import known_lz
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from patterns.pipeline import build_function_dags

    out = {}
    for fn in parse_module(text, "k.ll").functions:
        if fn.is_declaration:
            continue
        fd = build_function_dags(fn, amdgpu, analyze(fn, amdgpu))
        for dag in fd.dags:
            for n in dag.nodes:
                if n.opcode == "ISD::CopyFromReg" and getattr(n.ir, "name", None):
                    out[(fn.name, dag.block.name, n.ir.name)] = known_lz(n, dag_target(amdgpu))
    return out


def test_live_out_known_zeros(amdgpu):
    """The recorded counts follow computeKnownBits and ComputePHILiveOutRegInfo: ``lshr x, 3``
    has 3 known leading zeros; a phi takes the minimum over its incoming values (1000 has
    22); a negative constant, or a back edge not built yet, gives 0."""
    k = _phi_copies(amdgpu, _LIVEOUT)
    assert k[("liveout_lz", "t", "s")] == 3
    assert k[("phi_lz", "j", "p")] == 3
    assert k[("phi_neg", "j", "p")] == 0
    assert k[("phi_loop", "loop", "p")] == 0
    # without combining nothing is recorded (llc records after its combines)
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from patterns.pipeline import build_function_dags

    fn = next(f for f in parse_module(_LIVEOUT, "k.ll").functions if f.name == "phi_lz")
    fd = build_function_dags(fn, amdgpu, analyze(fn, amdgpu), combine=False)
    assert all(n.klz == 0 for d in fd.dags for n in d.nodes)


def test_live_out_state_is_per_function(amdgpu):
    """The recorded known bits live in each function's builder, not in a module global:
    building many functions at once in threads (as bench/isel_triage.py does) gives the
    same counts as building them one by one."""
    alone = _phi_copies(amdgpu, _LIVEOUT)
    with ThreadPoolExecutor(4) as pool:
        runs = list(pool.map(lambda _i: _phi_copies(amdgpu, _LIVEOUT), range(8)))
    assert all(r == alone for r in runs)
    assert any(alone.values())


def test_demanded_bits_shortcuts_change_nothing(amdgpu):
    """The shortcuts of patterns.dag.combine.demanded.demanded_root / sdb (roots and operands passed
    over where SimplifyDemandedBits cannot change anything) give the same selections as
    running it everywhere, on generated kernels with and without constants."""
    from patterns.dag.combine.demanded import SDB_SHORTCUTS
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from testkit.iselgen import generate_isel_kernel
    from patterns.pipeline import select_function

    from tdgen.errors import Diagnostics

    def mir(text: str) -> list[str]:
        fn = parse_module(text, "k.ll").functions[0]
        diags = Diagnostics()  # (divergent branches cannot be selected: the errors are compared too)
        sf, _ = select_function(fn, amdgpu, analyze(fn, amdgpu, llvm19_compat=True), None, diags)
        return [mi.mir_text() for mi in sf.instrs()] + [e.format() for e in diags.errors]

    # (n_ops 60 with constants: 2036, 2131, 2160 and 2199 are kernels where a not's
    # SimplifyDemandedBits turns a one-use ``xor v, C`` below it into an ``or`` before
    # that xor's user reassociates it)
    texts = [generate_isel_kernel(s, 30, constants=c) for s in range(12) for c in (False, True)]
    texts += [generate_isel_kernel(s, 60, constants=True) for s in (2036, 2131, 2160, 2199)]
    texts += [generate_isel_kernel(s, 60, constants=c) for s in range(12) for c in (False, True)]
    with_shortcuts = [mir(t) for t in texts]
    SDB_SHORTCUTS[0] = False
    try:
        without = [mir(t) for t in texts]
    finally:
        SDB_SHORTCUTS[0] = True
    assert with_shortcuts == without


def test_ir_passes_are_idempotent_and_keep_the_ir_valid(amdgpu):
    """patterns.llc rewrites the IR in place (uses read the replacements, hoisted
    instructions sit at the end of the preheader); running it again changes nothing,
    and every operand is still defined before its use (the IR verifier of patterns.ir.core
    accepts the printed function)."""
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from patterns.ir.printer import function_text
    from testkit.iselgen import generate_isel_kernel
    from patterns.llc.earlycse import early_cse
    from patterns.llc.pipeline import run_ir_passes

    decls = "".join(f"declare i32 @{n}(i32, i32)\n" for n in ("llvm.amdgcn.mul.u24.i32", "llvm.amdgcn.mul.i24.i32"))
    for seed in range(8):
        text = generate_isel_kernel(seed, 40, constants=bool(seed % 2))
        header = text.splitlines()[0]
        # (idempotent up to the target's pre-selection passes: StructurizeCFG's Flow phis
        # and LCSSA's exit phis of one value are what EarlyCSE would fold, as in llc,
        # whose last EarlyCSE runs before them)
        fn = parse_module(text, "k.ll").functions[0]
        run_ir_passes(fn, analyze(fn, amdgpu, llvm19_compat=True), amdgpu, pre_isel=False)
        assert not early_cse(fn)
        for pre_isel in (False, True):
            fn = parse_module(text, "k.ll").functions[0]
            run_ir_passes(fn, analyze(fn, amdgpu, llvm19_compat=True), amdgpu, pre_isel=pre_isel)
            parse_module(f"{header}\n{function_text(fn)}\n}}\ndeclare i32 @llvm.amdgcn.workitem.id.x()\n{decls}",
                         "again.ll")


def test_known_bits_memo_is_exact(amdgpu, request):
    """patterns.dag.combine memoizes computeKnownBits per node (the answer without a depth
    limit and the depth it needs, or the answer at one depth) and drops the memo when
    the DAG below changes: every answer equals a fresh depth-limited computation. And no
    run reaches the visit limit. (It replaces ``known_bits`` in every module of the
    package that reads it: run as plain Python.)"""
    from conftest import run_pure_python

    if run_pure_python(request):
        return
    import importlib
    import pkgutil

    import patterns.dag.combine
    from patterns.dag.combine import driver, known, known_ops
    from patterns.support.intops import int_width as width
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from testkit.iselgen import generate_isel_kernel
    from patterns.support.knownbits import Known, const_known
    from patterns.pipeline import build_function_dags

    def fresh(n, depth):
        bits = width(n.vt)
        if n.opcode == "ISD::Constant" and isinstance(n.value, int) and bits:
            return const_known(n.value & ((1 << bits) - 1), bits)
        if depth >= 6 or not bits:
            return Known(0, 0, bits or 1)
        if n.opcode in known_ops.KB_BINOPS and len(n.ops) == 2:
            return known_ops.kb_binop(n.opcode, bits, fresh(n.ops[0], depth + 1), fresh(n.ops[1], depth + 1))
        if n.opcode == "ISD::SELECT" and len(n.ops) == 3:
            return fresh(n.ops[1], depth + 1).intersect(fresh(n.ops[2], depth + 1))
        return known.kb_leaf(n, n.opcode, bits, driver.dag_target(amdgpu))

    memo = known.known_bits
    readers = [m for m in (importlib.import_module(f"patterns.dag.combine.{i.name}")
                           for i in pkgutil.iter_modules(patterns.dag.combine.__path__))
               if getattr(m, "known_bits", None) is memo]
    checked = []

    def checking(n, ctx, depth=0):
        k = memo(n, ctx, depth)
        f = fresh(n, depth)
        assert (k.zero, k.one, k.bits) == (f.zero, f.one, f.bits), (n.label(), depth)
        checked.append(1)
        return k

    hits = driver.STATS["visit_limit_hit"]
    for m in readers:
        m.known_bits = checking
    try:
        for seed in range(16):
            text = generate_isel_kernel(seed, 60, constants=bool(seed % 2))
            fn = parse_module(text, "k.ll").functions[0]
            build_function_dags(fn, amdgpu, analyze(fn, amdgpu))
    finally:
        for m in readers:
            m.known_bits = memo
    assert len(checked) > 1000
    assert driver.STATS["visit_limit_hit"] == hits

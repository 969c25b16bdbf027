"""Memory operands of the DAG's loads, stores and atomics (patterns.dag.memops): address
space, size, alignment, volatile / invariant / non-temporal, the target's flags (AMDGPU's
amdgpu-noclobber), an atomic's scope and ordering -- printed as MIR prints them and
compared with the memory operands of llc-19 -stop-after=amdgpu-isel (gfx900) for the same
function (as multisets: the selected order differs)."""

from __future__ import annotations

import re
import subprocess
from collections import Counter

from llvm_tools import require
from patterns.ir import parse_module
from patterns.pipeline import build_function_dags
from tdgen.spec import load_target

IR = """
define void @f(ptr addrspace(1) %p, ptr addrspace(3) %l, ptr addrspace(1) %q) {
  %v = load volatile i32, ptr addrspace(1) %p, !invariant.load !0, !amdgpu.noclobber !0
  %w = load i16, ptr addrspace(3) %l, align 2
  %x = load i32, ptr addrspace(1) %q, align 8, !nontemporal !1
  %z = zext i16 %w to i32
  %s = add i32 %v, %z
  %t = add i32 %s, %x
  store i32 %t, ptr addrspace(1) %q, align 16
  store volatile i32 %s, ptr addrspace(3) %l
  %r = atomicrmw add ptr addrspace(3) %l, i32 1 syncscope("wavefront") monotonic, align 4
  store i32 %r, ptr addrspace(1) %p
  ret void
}
!0 = !{}
!1 = !{i32 1}
"""


def _ours() -> Counter:
    target = load_target("amdgpu")
    fn = parse_module(IR, "f.ll").functions[0]
    dags = build_function_dags(fn, target, None).dags
    return Counter(n.mem.text() for d in dags for n in d.nodes if n.mem is not None)


def test_memory_operands_are_llc_19s(tmp_path):
    llc = require("llc-19")
    (tmp_path / "f.ll").write_text(IR)
    r = subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-stop-after=amdgpu-isel", str(tmp_path / "f.ll"),
                        "-o", "-"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    theirs = Counter(re.findall(r" :: (\(.*\))$", r.stdout, re.M))
    assert len(theirs) >= 6 and sum(theirs.values()) == 7
    assert _ours() == theirs


def test_memory_operand_fields():
    target = load_target("amdgpu")
    fn = parse_module(IR, "f.ll").functions[0]
    mems = [n.mem for d in build_function_dags(fn, target, None).dags for n in d.nodes if n.mem is not None]
    v = next(m for m in mems if m.pointer == "p" and m.is_volatile)
    assert v.is_invariant and v.target_flags == ("amdgpu-noclobber",) and v.addrspace == 1 and v.size == 4
    w = next(m for m in mems if m.memvt == "i16")
    assert (w.addrspace, w.size, w.align, w.flags) == (3, 2, 2, frozenset({"MOLoad"}))
    a = next(m for m in mems if m.ordering is not None)
    assert a.flags == frozenset({"MOLoad", "MOStore"}) and a.syncscope == "wavefront" and a.ordering == "monotonic"

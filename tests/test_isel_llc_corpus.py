"""Real kernels against llc-19: how many functions select, and how many agree with llc's opcodes.

The corpora: the functions of ``../shared/corpus/llvm-codegen/`` (LLVM's AMDGPU CodeGen
test inputs) in the files ORACLE.tsv says ``llc-19 -mtriple=amdgcn -mcpu=gfx900`` accepts,
and the clang-19 OpenCL kernels of ``tests/kernels/opencl`` when that folder exists. Per
function, three verdicts (issue 21's acceptance counts):

- *selected*: every node of the function selected (no "cannot select" error);
- *equal ALU*: on a selected function, the multiset of the modelled ALU family
  (``testkit.llc.modeled_opcodes``: the S_/V_ instructions of the target's patterns)
  equals llc's at ``-stop-after=finalize-isel``;
- *equal all*: on a selected function, the multiset of every real machine opcode is
  equal (S_*, V_*, GLOBAL_*, DS_*, FLAT_*, BUFFER_*, SCRATCH_*, SI_* pseudos; COPY, PHI,
  REG_SEQUENCE, IMPLICIT_DEF not counted; ``_e32``/``_e64`` dropped).

The rates reached are asserted as floors (``FLOORS``: a ratchet, raise them as coverage
grows, never lower them) and printed with the most frequent causes of failure, each with
a function that shows it. ``TDGEN_ISEL_CORPUS_ALL=1`` measures every accepted file (the
default, CI's share, is every fourth file of the list).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from llvm_tools import CORPUS, require

CODEGEN = CORPUS.parent / "llvm-codegen"
_COUNTED = ("S_", "V_", "GLOBAL_", "DS_", "FLAT_", "BUFFER_", "SCRATCH_", "SI_")

# (corpus, verdict) -> the lowest rate the test accepts (measured rates, rounded down).
# Measured: CI's quarter of llvm-codegen 15/206 selected (7.3%), equal ALU 15/15, equal
# all 10/15; every accepted file (TDGEN_ISEL_CORPUS_ALL=1) 77/753 selected (10.2%), equal
# ALU 71/77, equal all 61/77; generated kernels (testkit.iselgen, 20 seeds x constants
# on/off) 3/40 selected (most have if-then-else regions), equal ALU 3/3, equal all 3/3.
FLOORS = {
    # (2026-12-02, second session: LowerSwitch, LCSSA, the 64-bit address arithmetic, f32
    # add/sub/mul: CI's quarter 22/206 selected, 22/22 equal ALU, 17/22 equal all; every
    # file 106/753 selected, 98/106 equal ALU, 86/106 equal all)
    ("codegen", "selected"): 0.106,
    ("codegen", "equal_alu"): 1.0,
    ("codegen", "equal_all"): 0.77,
    # (2026-12-02, StructurizeCFG: 83 -> 93 functions selected, 67 -> 74 equal in all
    # opcodes; the rate of the larger base is 0.796)
    ("codegen-all", "selected"): 0.14,
    ("codegen-all", "equal_alu"): 0.92,
    ("codegen-all", "equal_all"): 0.81,
    # (StructurizeCFG in the pipeline took the generated kernels from 3 selected of 40 to
    # 40: the rates below are of 40 functions, no longer of 3; the one that differs in
    # its branches has a then arm llc's EarlyCSE empties (or x, ~x) and ours does not)
    ("generated", "selected"): 1.0,
    ("generated", "equal_alu"): 1.0,
    ("generated", "equal_all"): 0.975,
    # (2026-12-02: the clang-19 -O2 OpenCL kernels, 31 functions: 2 selected (vector_add,
    # ds_bpermute's rotate_and_sum: the i64 index extended from i32, f32 loads, stores and
    # adds), 1 equal in ALU and all opcodes; the most frequent causes are printed)
    ("clang", "selected"): 0.06,
    ("clang", "equal_alu"): 0.5,
    ("clang", "equal_all"): 0.5,
}


def _real(opcodes) -> Counter:
    out: Counter = Counter()
    for o in opcodes:
        if o.startswith(_COUNTED):
            out[re.sub(r"_e(32|64)$", "", o)] += 1
    return out


def _cause(msg: str) -> str:
    """The kind of a "cannot select" error: the node's opcode and the reason's head."""
    m = re.search(r"(?:selecting|form of) t\d+: (?:\w+ = )?([\w:]+)", msg)
    node = m.group(1) if m else "?"
    if "(not modelled)" in msg:
        why = msg.rsplit("found ", 1)[-1].split(" (not modelled)")[0]
        why = re.sub(r"\d+", "N", why)
        return f"{node}: {why}"
    if "no pattern rooted" in msg:
        return f"{node}: no pattern"
    if "none matches" in msg:
        m = re.search(r"selecting t\d+: (\w+) = ", msg)
        return f"{node} ({m.group(1) if m else '?'}): no pattern matches"
    return msg.split(": expected", 1)[-1][:80]


def measure(paths: list[Path], target, llc: str) -> dict:
    """Per function of ``paths``: (file, function, selected, equal ALU, equal all,
    causes) -- our selection in this process, llc-19's from its MIR."""
    from patterns.ir import parse_module
    from patterns.pipeline import select_function
    from patterns.select.matcher import build_table
    from testkit.llc import modeled_opcodes, read_mir
    from tdgen.errors import Diagnostics, TdgenError

    modeled = modeled_opcodes(target)
    table = build_table(target)

    def run_llc(p: Path):
        r = subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-O2", "-stop-after=finalize-isel", str(p),
                            "-o", "-"], capture_output=True, text=True, timeout=300)
        return {f.name: f for f in read_mir(r.stdout)} if r.returncode == 0 else None

    with ThreadPoolExecutor(2) as ex:
        theirs_all = list(ex.map(run_llc, paths))
    rows = []
    for p, theirs in zip(paths, theirs_all):
        if theirs is None:
            continue
        try:
            module = parse_module(p.read_text(), str(p))
        except TdgenError as e:
            for name in theirs:
                rows.append((p.name, name, False, False, False, ["IR: " + e.format().split(": ", 1)[-1][:90]]))
            continue
        for fn in module.functions:
            if fn.is_declaration or fn.name not in theirs:
                continue
            diags = Diagnostics()
            try:
                sf, _ = select_function(fn, target, None, table, diags)
            except TdgenError as e:
                rows.append((p.name, fn.name, False, False, False, [_cause(e.format())]))
                continue
            if diags:
                rows.append((p.name, fn.name, False, False, False, sorted({_cause(e.format()) for e in diags.errors})))
                continue
            ours = [mi.opcode for mi in sf.instrs()]
            llc_ops = theirs[fn.name].opcodes()
            alu = Counter(o for o in ours if o in modeled) == Counter(o for o in llc_ops if o in modeled)
            allq = _real(ours) == _real(llc_ops)
            rows.append((p.name, fn.name, True, alu, allq, []))
    return rows


def _report(name: str, rows) -> dict[str, float]:
    n = len(rows)
    sel = [r for r in rows if r[2]]
    rates = {"selected": len(sel) / n if n else 0.0,
             "equal_alu": sum(r[3] for r in sel) / len(sel) if sel else 0.0,
             "equal_all": sum(r[4] for r in sel) / len(sel) if sel else 0.0}
    causes: Counter = Counter()
    example: dict[str, str] = {}
    for f, fn, *_v, cs in rows:
        for c in cs:
            causes[c] += 1
            example.setdefault(c, f"{f} @{fn}")
    print(f"\n{name}: {n} functions, selected {len(sel)} ({rates['selected']:.1%}), "
          f"equal ALU {sum(r[3] for r in sel)}/{len(sel)}, equal all {sum(r[4] for r in sel)}/{len(sel)}")
    for c, k in causes.most_common(12):
        print(f"  {k:4d}  {c}   e.g. {example[c]}")
    return rates


def _codegen_files() -> list[Path]:
    rows = [ln.split("\t") for ln in (CODEGEN / "ORACLE.tsv").read_text().splitlines()[1:] if ln.strip()]
    files = [CODEGEN / r[0] for r in rows if len(r) > 2 and r[2] == "yes"]
    return files if os.environ.get("TDGEN_ISEL_CORPUS_ALL") else files[::4]


def test_codegen_corpus_selection_rates():
    from tdgen.spec import load_target

    llc = require("llc-19")
    if not (CODEGEN / "ORACLE.tsv").exists():
        pytest.skip(f"no corpus at {CODEGEN}")
    rows = measure(_codegen_files(), load_target("amdgpu"), llc)
    assert rows
    rates = _report("llvm-codegen", rows)
    corpus = "codegen-all" if os.environ.get("TDGEN_ISEL_CORPUS_ALL") else "codegen"
    for verdict, rate in rates.items():
        assert rate >= FLOORS[(corpus, verdict)], (verdict, rate)


def test_generated_kernels_selection_rates(tmp_path):
    """The generated kernels of the ALU differential (test_isel_llc.py), counted as the
    corpus is: whole functions selected, and their opcode multisets."""
    from testkit.iselgen import generate_isel_kernel
    from tdgen.spec import load_target

    llc = require("llc-19")
    paths = []
    for seed in range(20):
        for c in (False, True):
            p = tmp_path / f"k{seed}_{int(c)}.ll"
            p.write_text(generate_isel_kernel(seed, 40, constants=c))
            paths.append(p)
    rows = measure(paths, load_target("amdgpu"), llc)
    assert len(rows) == 40
    rates = _report("generated kernels", rows)
    for verdict, rate in rates.items():
        assert rate >= FLOORS[("generated", verdict)], (verdict, rate)


def test_clang_corpus_selection_rates(tmp_path):
    """Our OpenCL C kernels (tests/kernels/opencl) compiled by clang-19 at -O2, counted as
    the corpus is."""
    from testkit.clang import clang_path, compile_cl, corpus_kernels
    from tdgen.spec import load_target

    llc = require("llc-19")
    if clang_path() is None:
        if os.environ.get("CI"):
            pytest.fail("clang-19 is not installed (.ci/setup installs it)")
        pytest.skip("clang-19 is not installed")
    paths = []
    for k in corpus_kernels():
        p = tmp_path / f"{k.stem}.ll"
        p.write_text(compile_cl(k, "O2"))
        paths.append(p)
    rows = measure(paths, load_target("amdgpu"), llc)
    assert len(rows) >= 30
    rates = _report("clang-19 -O2 OpenCL", rows)
    for verdict, rate in rates.items():
        assert rate >= FLOORS[("clang", verdict)], (verdict, rate)

"""Second check of the selector: LLVM's divergence-driven isel tests (shared corpus).

For every ``isel/`` and ``older/isel/`` file of ../shared/corpus/llvm that is usable on
LLVM 19 (MANIFEST status PASS, or FAIL whose note says the S_/V_ choice matches), the
CHECK lines are read *at test time*: per function (by its LABEL/FUNC line), the S_/V_
opcodes the checks expect under the RUN line closest to our model (gfx900 prefixes when
the file has them, else the first RUN line's). Our selection of that function on the
amdgpu reference target must contain every expected ALU opcode (asm-style checks such as
``s_bfe_u32`` are compared case-insensitively as opcode prefixes).

Functions using operations the reference target does not model (64-bit values, vectors)
cannot be selected; ``SUPPORTED`` lists the functions we claim, and the test fails if one
of them stops being selectable, so coverage cannot silently shrink.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from tdgen.errors import Diagnostics

from llvm_tools import manifest, require_corpus

# (file, function) pairs the reference target must select and agree on.
SUPPORTED = {
    ("isel/divergence-driven-bfe-isel.ll", "bfe_uniform"),
    ("isel/divergence-driven-bfe-isel.ll", "bfe_divergent"),
    ("isel/divergence-driven-bitreverse.ll", "uniform_bitreverse_i32"),
    ("isel/divergence-driven-bitreverse.ll", "divergent_bitreverse_i32"),
    ("isel/divergence-driven-ctlz-cttz.ll", "s_ctlz_i32"),
    ("isel/divergence-driven-ctlz-cttz.ll", "v_ctlz_i32"),
    ("isel/divergence-driven-ctlz-cttz.ll", "s_cttz_i32"),
    ("isel/divergence-driven-ctlz-cttz.ll", "v_cttz_i32"),
    ("isel/divergence-driven-ctlz-cttz.ll", "s_flbit"),
    ("isel/divergence-driven-ctlz-cttz.ll", "v_flbit"),
    ("isel/divergence-driven-ctpop.ll", "s_ctpop_i32"),
    ("isel/divergence-driven-ctpop.ll", "v_ctpop_i32"),
    ("isel/divergence-driven-negsubinlineconst.ll", "uniform_add_SIC"),
    ("isel/divergence-driven-negsubinlineconst.ll", "divergent_add_SIC"),
    ("isel/divergence-driven-not-isel.ll", "scalar_not_i32"),
    ("isel/divergence-driven-not-isel.ll", "vector_not_i32"),
    ("older/isel/divergence-driven-abs.ll", "s_abs_i32"),
    ("older/isel/divergence-driven-abs.ll", "v_abs_i32"),
    # <2 x i32>: unrolled into i32 lanes (patterns.dag.legalize_vectors, AMDGPU's table
    # marks the v2i32 integer operations Expand)
    # i64 logic: legal on AMDGPU (SReg_64), the SALU's 64-bit forms or the VALU halves
    # (targets/amdgpu/i64.py)
    ("isel/divergence-driven-not-isel.ll", "scalar_not_i64"),
    ("isel/divergence-driven-not-isel.ll", "vector_not_i64"),
    ("older/isel/divergence-driven-xnor.ll", "uniform_xnor_i64"),
    ("older/isel/divergence-driven-xnor.ll", "divergent_xnor_i64"),
    ("isel/divergence-driven-bitreverse.ll", "uniform_bitreverse_i64"),
    ("older/isel/divergence-driven-abs.ll", "s_abs_v2i32"),
    ("older/isel/divergence-driven-abs.ll", "v_abs_v2i32"),
    ("older/isel/divergence-driven-min-max.ll", "uniform_imin"),
    ("older/isel/divergence-driven-min-max.ll", "divergent_imin"),
    ("older/isel/divergence-driven-min-max.ll", "uniform_umin"),
    ("older/isel/divergence-driven-min-max.ll", "divergent_umin"),
    ("older/isel/divergence-driven-min-max.ll", "uniform_imax"),
    ("older/isel/divergence-driven-min-max.ll", "divergent_imax"),
    ("older/isel/divergence-driven-min-max.ll", "uniform_umax"),
    ("older/isel/divergence-driven-min-max.ll", "divergent_umax"),
    ("older/isel/divergence-driven-xnor.ll", "uniform_xnor_i32"),
    ("older/isel/divergence-driven-xnor.ll", "divergent_xnor_i32"),
    *((f, f"{k}_sext_in_reg_i{w}_to_i32")
      for f in ("isel/divergence-driven-sext-inreg.ll", "older/isel/divergence-driven-sext-inreg.ll")
      for k in ("uniform", "divergent") for w in (8, 16)),
}

_OPC = re.compile(r"\b([SV]_[A-Z0-9_]+?(?:_e32|_e64)?)\b")
_ASM = re.compile(r"\b([sv]_[a-z0-9_]+)\b")
_LABEL = re.compile(r"(?:name:\s*|@|\{\{\^\}\})?([A-Za-z_][\w.]*):?\s*$")
ALU_PREFIXES = ("S_", "V_")
# GFX6 (SI) spellings in checks written for the default CPU -> the GFX9 opcode of the same
# operation (GFX9 renamed the carry-out adds/subs; the carry-less forms are what gfx900 selects).
SI_TO_GFX9 = {"v_add_i32_e32": "V_ADD_U32", "v_sub_i32_e32": "V_SUB_U32", "V_SUB_CO_U32_e64": "V_SUB_U32_e64"}
NOT_ALU = ("S_LOAD", "S_ENDPGM", "S_BUFFER", "V_MOV_B32", "S_MOV_B32", "S_MOV_B64", "S_WAITCNT",
           "S_CMP", "V_CMP", "S_CBRANCH", "S_BRANCH", "S_CSELECT", "V_CNDMASK", "S_OR_B64", "S_AND_B64",
           "S_SETPC", "S_LSHR_B64", "S_LSHL_B64", "V_READFIRSTLANE")


# Operations the reference target cannot declare yet, with the reason; their functions are
# reported, not compared (and may not appear in SUPPORTED).
# (Empty since s_bfe_u32's packed immediate is modeled by the SelectS_BFE CustomSelect.)
KNOWN_GAPS: dict[str, str] = {}

# The nodes of memory and control flow: a function of this corpus whose only "cannot
# select" errors are at such nodes (divergent addresses, returns of values, ...: see
# targets/amdgpu/select.py) still has its ALU choice compared with the CHECK lines; an
# error at any other node puts the function outside the model.
MEMORY_AND_CONTROL = ("ISD::LOAD", "ISD::STORE", "ISD::PTRADD", "ISD::BRCOND", "ISD::RET", "ISD::BR")


def _usable_rows():
    rows = []
    for r in manifest():
        rel = r["relative_path"]
        if not (rel.startswith("isel/") or rel.startswith("older/isel/")):
            continue
        status = r["status_llvm19"]
        if status == "PASS" or (status == "FAIL" and "matches" in r["note"]):
            rows.append(r)
    return rows


def _prefixes(run_command: str) -> tuple[list[str], bool]:
    runs = run_command.split(" ; ")
    pick = next((x for x in runs if "gfx900" in x), runs[0])
    m = re.search(r"-check-prefix(?:es)?[= ]([\w,-]+)", pick)
    prefixes = m.group(1).split(",") if m else ["CHECK"]
    return prefixes, "-stop-after" in pick


def expected_opcodes(path: Path, run_command: str) -> dict[str, list[str]]:
    """Function name -> S_/V_ opcodes (or lowercase asm mnemonics) its CHECK lines expect."""
    prefixes, _mir = _prefixes(run_command)
    out: dict[str, list[str]] = defaultdict(list)
    current = None
    for line in path.read_text().splitlines():
        s = line.strip()
        if not s.startswith(";"):
            continue
        body = s.lstrip("; ").strip()
        m = re.match(r"([\w-]+?)(-LABEL|-FUNC|-NEXT|-DAG|-NOT|-SAME)?:\s*(.*)$", body)
        if not m or m.group(1) not in prefixes:
            continue
        kind, rest = m.group(2), m.group(3)
        rest = re.sub(r"\[\[\w+:", "[[", rest)
        rest = re.sub(r"\[\[\w+\]\]", "", rest)
        if kind in ("-LABEL", "-FUNC"):
            lm = _LABEL.search(rest.strip())
            current = lm.group(1) if lm else None
            continue
        if kind == "-NOT" or current is None:
            continue
        for op in _OPC.findall(rest):
            out[current].append(op)
        if not _OPC.findall(rest):
            for op in _ASM.findall(rest):
                if not op.startswith(("s_load", "s_waitcnt", "s_endpgm", "s_mov", "v_mov", "s_setpc", "s_cmp")):
                    out[current].append(op)
    return {k: [SI_TO_GFX9.get(o, o) for o in v if not o.upper().startswith(NOT_ALU)] for k, v in out.items()}


@pytest.fixture(scope="module")
def amdgpu():
    from tdgen.spec import load_target

    return load_target("amdgpu")


def _select_one(module, fn, target):
    from patterns.uniformity.analysis import analyze
    from patterns.pipeline import select_function

    ua = analyze(fn, target)
    diags = Diagnostics()
    sf, _ = select_function(fn, target, ua, None, diags)
    other = Diagnostics()
    for e in diags.errors:
        if not any(f"= {op} " in e.message or f": {op} " in e.message for op in MEMORY_AND_CONTROL):
            other.add(e)
    other.check()
    return [mi.opcode for mi in sf.instrs()]


def _agrees(expected: list[str], ours: list[str]) -> bool:
    return all(any(o.upper().startswith(e.upper()) for o in ours) for e in expected)


def test_corpus_choices_match_check_lines(amdgpu):
    from patterns.ir import parse_module
    from tdgen.errors import TdgenError

    corpus = require_corpus()
    checked, mismatches, unsupported = [], [], {}
    for row in _usable_rows():
        rel = row["relative_path"]
        path = corpus / rel
        exp = expected_opcodes(path, row["run_command_used"])
        module = parse_module(path.read_text(), str(path))
        for fn in module.functions:
            if fn.is_declaration or fn.name not in exp or not exp[fn.name]:
                continue
            try:
                ours = _select_one(module, fn, amdgpu)
            except TdgenError as e:
                unsupported[(rel, fn.name)] = e.format().splitlines()[0]
                continue
            gap = next((why for key, why in KNOWN_GAPS.items() if key in fn.name), None)
            if gap is not None:
                unsupported[(rel, fn.name)] = f"known gap: {gap}"
                continue
            checked.append((rel, fn.name))
            if not _agrees(exp[fn.name], ours):
                mismatches.append(f"{rel} @{fn.name}: CHECK expects {exp[fn.name]}, we select {ours}")
    assert not mismatches, "\n".join(mismatches)
    assert not [f for _r, f in SUPPORTED if any(k in f for k in KNOWN_GAPS)]
    lost = sorted(SUPPORTED - set(checked))
    assert not lost, "claimed functions no longer selectable: " + "; ".join(
        f"{f} @{n}: {unsupported.get((f, n), 'no CHECK lines found')}" for f, n in lost)
    print(f"\ncorpus: {len(checked)} functions agree with their CHECK lines: {sorted(checked)}")
    print(f"not modeled ({len(unsupported)}): " + "; ".join(f"{f} @{n}: {why}" for (f, n), why in sorted(unsupported.items())))


def test_check_line_reader_finds_both_kinds():
    corpus = require_corpus()
    rows = {r["relative_path"]: r for r in manifest()}
    r = rows["isel/divergence-driven-not-isel.ll"]
    exp = expected_opcodes(corpus / r["relative_path"], r["run_command_used"])
    assert any(o.startswith("S_NOT") for o in exp["scalar_not_i32"])
    assert any(o.startswith("V_NOT") for o in exp["vector_not_i32"])
    r = rows["isel/divergence-driven-bfe-isel.ll"]
    exp = expected_opcodes(corpus / r["relative_path"], r["run_command_used"])
    assert exp["bfe_uniform"] == ["s_bfe_u32"] and exp["bfe_divergent"] == ["v_bfe_u32"]


def test_bfe_immediates_match_check_lines(amdgpu):
    """Not only the opcode: the s_bfe_u32 packed immediate (offset | width << 16) and the
    v_bfe_u32 offset/width operands are the ones the corpus CHECK lines spell out."""
    from patterns.ir import parse_module

    corpus = require_corpus()
    path = corpus / "isel/divergence-driven-bfe-isel.ll"
    text = path.read_text()
    want = {}
    for m in re.finditer(r"GCN-LABEL: @(\w+)\s*\n; GCN: ([sv]_bfe_u32) [sv]\{\{.*?\}\}, [sv]\{\{.*?\}\}, (.+)", text):
        want[m.group(1)] = (m.group(2).upper(), [str(int(x, 0)) for x in m.group(3).strip().split(", ")])
    assert set(want) == {"bfe_uniform", "bfe_divergent"}
    module = parse_module(text, str(path))
    for fn in module.functions:
        if fn.name not in want:
            continue
        from patterns.uniformity.analysis import analyze
        from patterns.pipeline import select_function

        sf, _ = select_function(fn, amdgpu, analyze(fn, amdgpu))
        (mi,) = [mi for mi in sf.instrs() if "BFE" in mi.opcode]
        opcode, imms = want[fn.name]
        assert mi.opcode.startswith(opcode) and mi.operands[1:] == imms, (fn.name, mi.mir_text(), imms)

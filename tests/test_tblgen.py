"""llvm-tblgen-19 accepts every generated .td, and what it builds matches the model.

The intrinsics file goes through -gen-intrinsic-enums / -gen-intrinsic-impl; the
self-contained target file through -gen-dag-isel (TableGen's own type inference over
every pattern), -gen-instr-info, -gen-register-info and -gen-asm-writer. TableGen is the
oracle: the intrinsics, instructions, register classes and selected instructions it
reports must be exactly the ones the spec declares.
"""

from __future__ import annotations

import re
from collections import Counter
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

from llvm_tools import LLVM_INCLUDE, require, require_llvm_headers
from tdgen import emit, emit_td
from tdgen.spec import list_targets, load_target

TARGETS = sorted(list_targets())


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gen")
    emit.write(out, TARGETS, emit.generate(TARGETS))
    return out


@lru_cache(maxsize=None)
def _run_tblgen(td: Path, args: tuple[str, ...]) -> subprocess.CompletedProcess:
    """One llvm-tblgen-19 run per file and backend (several tests read the same output)."""
    exe = require("llvm-tblgen-19")
    require_llvm_headers()
    return subprocess.run(
        [exe, "-I", str(LLVM_INCLUDE), "-I", str(td.parent), *args, str(td)],
        capture_output=True, text=True, timeout=120,
    )


def tblgen(td: Path, *args: str) -> str:
    r = _run_tblgen(td, args)
    assert r.returncode == 0, f"llvm-tblgen-19 {' '.join(args)} {td.name} failed:\n{r.stderr}"
    # Unused template arguments are a matter of the spec's style (reported separately by
    # test_unused_template_arguments); any other diagnostic fails here.
    warnings = [ln for ln in r.stderr.splitlines() if re.search(r"\b(warning|error):", ln)]
    other = [ln for ln in warnings if "unused template argument" not in ln]
    assert not other, f"llvm-tblgen-19 {' '.join(args)} {td.name} warned:\n{r.stderr}"
    return r.stdout


def main_td(gen_dir: Path, name: str, *args: str):
    """(target, tblgen output) for the target's self-contained <NS>.td."""
    target = load_target(name)
    return target, tblgen(gen_dir / name / emit_td.layout(target).main_td, *args)


@pytest.mark.parametrize("name", TARGETS)
def test_intrinsic_enums_list_exactly_the_spec_intrinsics(name, gen_dir):
    target = load_target(name)
    lay = emit_td.layout(target)
    text = tblgen(gen_dir / name / lay.intrinsics_td, "-gen-intrinsic-enums",
                  f"-intrinsic-prefix={lay.intrinsic_prefix}")
    got = sorted(re.findall(r"^\s+(\w+)(?: = \d+)?,\s+// (\S+)$", text, re.M))
    want = sorted(
        (i.ir_name[len("llvm."):].replace(".", "_"), i.ir_name) for i in target.intrinsics
    )
    assert got == want


@pytest.mark.parametrize("name", TARGETS)
def test_intrinsic_impl_accepted(name, gen_dir):
    lay = emit_td.layout(load_target(name))
    text = tblgen(gen_dir / name / lay.intrinsics_td, "-gen-intrinsic-impl")
    assert "GET_INTRINSIC_NAME_TABLE" in text


@pytest.mark.parametrize("name", TARGETS)
def test_dag_isel_selects_every_pattern_instruction(name, gen_dir):
    target, text = main_td(gen_dir, name, "-gen-dag-isel")
    selected = Counter(re.findall(r"// Dst: \(([A-Za-z_][A-Za-z0-9_]*)", text))
    want = Counter(p.dst.op for p in target.selection_patterns())
    assert want, "the target has no selection patterns"
    assert set(selected) == set(want)
    # TableGen may add commuted variants, never drop a pattern.
    short = {k: (selected[k], n) for k, n in want.items() if selected[k] < n}
    assert not short, f"patterns missing from the matcher table (found, expected): {short}"


def _instr_enum(text: str) -> set[str]:
    enum = text.split("#ifdef GET_INSTRINFO_ENUM", 1)[1].split("INSTRUCTION_LIST_END", 1)[0]
    return set(re.findall(r"^\s+(\w+)\s+= \d+,$", enum, re.M))


@pytest.fixture(scope="module")
def generic_opcodes(tmp_path_factory) -> set[str]:
    """The opcodes every target gets from Target.td (PHI, COPY, G_ADD, ...): what
    -gen-instr-info lists for a target whose only instruction is PROBE."""
    td = tmp_path_factory.mktemp("empty") / "Empty.td"
    td.write_text(
        'include "llvm/Target/Target.td"\n'
        'def R0 : Register<"r0"> { let Namespace = "Empty"; }\n'
        'def GPR : RegisterClass<"Empty", [i32], 32, (add R0)>;\n'
        "def PROBE : Instruction { let Namespace = \"Empty\"; let OutOperandList = (outs);"
        " let InOperandList = (ins); let AsmString = \"probe\"; }\n"
        "def EmptyInstrInfo : InstrInfo;\n"
        "def Empty : Target { let InstructionSet = EmptyInstrInfo; }\n"
    )
    return _instr_enum(tblgen(td, "-gen-instr-info")) - {"PROBE"}


@pytest.mark.parametrize("name", TARGETS)
def test_instr_info_defines_exactly_the_spec_instructions(name, gen_dir, generic_opcodes):
    target, text = main_td(gen_dir, name, "-gen-instr-info")
    assert "PHI" in generic_opcodes and "G_ADD" in generic_opcodes
    assert _instr_enum(text) - generic_opcodes == set(target.instructions)


@pytest.mark.parametrize("name", TARGETS)
def test_register_info_defines_the_spec_register_classes(name, gen_dir):
    target, text = main_td(gen_dir, name, "-gen-register-info")
    ns = emit_td.layout(target).namespace
    classes = set(re.findall(rf"\b{ns}::(\w+)RegClassID\b", text))
    assert classes == {rc.name for rc in target.register_classes}


@pytest.mark.parametrize("name", TARGETS)
def test_asm_writer_accepted(name, gen_dir):
    _, text = main_td(gen_dir, name, "-gen-asm-writer")
    assert "printInstruction" in text


def _records(text: str) -> dict[str, dict[str, str]]:
    """-print-records output -> {def name: {field: value text}}."""
    out: dict[str, dict[str, str]] = {}
    for block in re.finditer(r"^def (\w+) \{[^\n]*\n(.*?)^\}", text, re.M | re.S):
        out[block.group(1)] = dict(
            (f.group(1), f.group(2))
            for f in re.finditer(r"^  \S+ (\w+) = (.*);$", block.group(2), re.M)
        )
    return out


def _td_value(v) -> str:
    if v is None:
        return "?"
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return getattr(v, "name", str(v))


def _frag_instances(text: str, target) -> str:
    """``UniformBinFrag<add>`` -> ``<frag-instance>``: TableGen prints an instantiated
    PatFrag class by its anonymous record name."""
    for c in target.frag_classes:
        text = re.sub(rf"\b{c.name}<\w+>", "<frag-instance>", text)
    return text


@pytest.mark.parametrize("name", TARGETS)
def test_tablegen_records_equal_the_resolved_instructions(name, gen_dir):
    """TableGen's own evaluation of classes, multiclasses, defm and lets gives every
    instruction exactly the operands, asm string, pattern and field values the model's
    resolver computed: the emitted structure means what the spec means."""
    target, printed = main_td(gen_dir, name, "-print-records")
    records = _records(printed)
    mismatches = []
    for iname, inst in target.instructions.items():
        rec = records[iname]
        want = {
            "OutOperandList": " ".join(["(outs", ", ".join(o.tablegen for o in inst.outs)]).strip() + ")",
            "InOperandList": " ".join(["(ins", ", ".join(o.tablegen for o in inst.ins)]).strip() + ")",
            "AsmString": _td_value(inst.asm),
            "Pattern": "[" + ", ".join(_frag_instances(p.render(), target) for p in inst.patterns) + "]",
        }
        want.update({k: _td_value(v) for k, v in inst.fields})
        want["Defs"] = "[" + ", ".join(inst.implicit_defs) + "]"
        want["Uses"] = "[" + ", ".join(inst.implicit_uses) + "]"
        got = dict(rec)
        got["Pattern"] = re.sub(r"\banonymous_\d+\b", "<frag-instance>", got.get("Pattern", "?"))
        if got["Pattern"] == "?":
            got["Pattern"] = "[]"  # Instruction leaves Pattern unset; the model says none
        for field, value in sorted(want.items()):
            if got.get(field) != value:
                mismatches.append(f"{iname}.{field}: tablegen {rec.get(field)!r}, model {value!r}")
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("name", TARGETS)
def test_unused_template_arguments(name, gen_dir):
    """Every class/multiclass argument the spec declares is used (llvm-tblgen warns)."""
    lay = emit_td.layout(load_target(name))
    r = _run_tblgen(gen_dir / name / lay.main_td, ("-gen-instr-info",))
    assert r.returncode == 0, r.stderr
    unused = sorted(set(re.findall(r"unused template argument: (\S+)", r.stderr)))
    assert unused == []


@pytest.fixture(scope="module")
def llvm_intrinsic_records() -> dict[str, dict[str, str]]:
    """LLVM 19's own intrinsic records (llvm/IR/Intrinsics.td), as TableGen evaluates them."""
    require_llvm_headers()
    return _records(tblgen(LLVM_INCLUDE / "llvm" / "IR" / "Intrinsics.td", "-print-records"))


def _signature(rec: dict[str, str]) -> dict[str, object]:
    props = re.findall(r"\w+", rec.get("IntrProperties", "[]"))
    return {
        "TypeSig": rec.get("TypeSig"),
        "isOverloaded": rec.get("isOverloaded"),
        "ClangBuiltinName": rec.get("ClangBuiltinName", '""'),
        "DisableDefaultAttributes": rec.get("DisableDefaultAttributes"),
        # ImmArg<ArgIndex<N>> and friends are anonymous records: compare how many.
        "named properties": sorted(p for p in props if not p.startswith("anonymous_")),
        "parameterised properties": sum(p.startswith("anonymous_") for p in props),
    }


@pytest.mark.parametrize("name", TARGETS)
def test_intrinsics_under_an_llvm_prefix_match_llvm(name, gen_dir, llvm_intrinsic_records):
    """A target that redeclares intrinsics of an LLVM prefix (amdgcn) declares them
    exactly as LLVM 19 does: types, overloads, properties, clang builtin. A target with
    its own prefix must not reuse any LLVM intrinsic name."""
    target = load_target(name)
    lay = emit_td.layout(target)
    ours = _records(tblgen(gen_dir / name / lay.intrinsics_td, "-print-records"))
    llvm_prefixes = {r.get("TargetPrefix") for r in llvm_intrinsic_records.values()}
    names = [i.name for i in target.intrinsics]
    if f'"{lay.intrinsic_prefix}"' not in llvm_prefixes:
        assert [n for n in names if n in llvm_intrinsic_records] == []
        return
    missing = [n for n in names if n not in llvm_intrinsic_records]
    assert missing == [], "not LLVM 19 intrinsics"
    diffs = {
        n: (_signature(ours[n]), _signature(llvm_intrinsic_records[n]))
        for n in names
        if _signature(ours[n]) != _signature(llvm_intrinsic_records[n])
    }
    assert diffs == {}, "\n".join(f"{n}:\n  ours {a}\n  llvm {b}" for n, (a, b) in diffs.items())


@pytest.mark.parametrize("name", TARGETS)
def test_tablegen_patfrag_records_equal_the_spec(name, gen_dir):
    """Every PatFrag, ImmLeaf and PatLeaf the spec defines has, as TableGen evaluates it,
    the spec's operand list, fragment, predicate / immediate code, operand transform and
    one-use flag; every SDNodeXForm its node and code."""
    target, printed = main_td(gen_dir, name, "-print-records")
    records = _records(printed)
    frags = [f for f in target.frags if not f.builtin and f.instance_of is None]
    mismatches = []
    for f in frags:
        rec = records[f.name]
        want = {
            "Operands": f.ops_tablegen,
            "Fragments": f"[{f.dag.render()}]",
            "HasOneUse": "1" if f.has_one_use else "?",
        }
        for field, value in want.items():
            if rec.get(field) != value:
                mismatches.append(f"{f.name}.{field}: tablegen {rec.get(field)!r}, model {value!r}")
        # -print-records shows code as [{...}] on one or more lines; compare the tokens.
        got_code = _code_tokens(_code_field(printed, f.name, "PredicateCode"))
        if got_code != _code_tokens(f.predicate_code or ""):
            mismatches.append(f"{f.name}.PredicateCode differs: {got_code} vs {f.predicate_code!r}")
        # an ImmLeaf's code is ImmediateCode; ImmLeaf / PatLeaf name their OperandTransform
        got_imm = _code_tokens(_code_field(printed, f.name, "ImmediateCode"))
        if got_imm != _code_tokens(f.immediate_code or ""):
            mismatches.append(f"{f.name}.ImmediateCode differs: {got_imm} vs {f.immediate_code!r}")
        xform = f.xform.name if f.xform is not None else "NOOP_SDNodeXForm"
        if rec.get("OperandTransform") != xform:
            mismatches.append(f"{f.name}.OperandTransform: tablegen {rec.get('OperandTransform')!r}, model {xform!r}")
    for x in target.xforms:
        if records[x.name].get("Opcode") != x.node:
            mismatches.append(f"{x.name}.Opcode: tablegen {records[x.name].get('Opcode')!r}, model {x.node!r}")
        if _code_tokens(_code_field(printed, x.name, "XFormFunction")) != _code_tokens(x.code):
            mismatches.append(f"{x.name}.XFormFunction differs")
    assert not mismatches, "\n".join(mismatches)


def _code_tokens(code: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", code)


def _code_field(printed: str, rec_name: str, field: str) -> str:
    """A code field of a record in -print-records output (it may span lines, which
    _records' one-line parser does not capture); empty when unset."""
    m = re.search(rf"^def {rec_name} \{{.*?^  code {field} = \[\{{(.*?)\}}\];$",
                  printed, re.M | re.S)
    return m.group(1) if m else ""


@pytest.mark.parametrize("name", TARGETS)
def test_predicates_reading_operands_get_them(name, gen_dir):
    """Predicate code that reads the matched operands (``Operands[i]``) must land in
    CheckNodePredicateWithOperands, the only generated predicate hook that declares
    them; in CheckNodePredicate the isel C++ would not compile."""
    _, text = main_td(gen_dir, name, "-gen-dag-isel")
    plain = re.search(
        r"^bool DAGISEL_CLASS_COLONCOLON CheckNodePredicate\(SDNode \*Node, unsigned PredNo\)"
        r" const\n(.*?)^\}$", text, re.M | re.S)
    body = plain.group(1) if plain else ""
    assert not re.search(r"\bOperands\b", body), body


# Result DAGs using Target.td's instructions (REG_SEQUENCE, EXTRACT_SUBREG,
# COPY_TO_REGCLASS, IMPLICIT_DEF), added to the amdgpu target as one more Pat: the checker
# accepts exactly those llvm-tblgen-19 -gen-dag-isel accepts.
_MAD = "V_MAD_U64_U32_e64"
GENERIC_RESULTS = {
    "seq_vreg": (f"(EXTRACT_SUBREG ({_MAD} $a, $b, (REG_SEQUENCE VReg_64, $a, sub0, $b, sub1), 0), sub1)", True),
    "copy_to_class": ("(COPY_TO_REGCLASS (V_XOR_B32_e64 $a, $b), SReg_32)", True),
    "implicit_def_cast": (f"(EXTRACT_SUBREG ({_MAD} $a, $b, (REG_SEQUENCE SReg_64, (i32 (IMPLICIT_DEF)), sub0, $b, sub1), 0), sub0)", True),
    "implicit_def_untyped": (f"(EXTRACT_SUBREG ({_MAD} $a, $b, (REG_SEQUENCE SReg_64, $a, sub0, (IMPLICIT_DEF), sub1), 0), sub0)", True),
    "i32_addend": (f"(EXTRACT_SUBREG ({_MAD} $a, $b, $a, 0), sub0)", False),
    "seq_odd": (f"(EXTRACT_SUBREG ({_MAD} $a, $b, (REG_SEQUENCE SReg_64, $a, sub0, $b), 0), sub0)", False),
    # (sub9: no register class of the target has it; SGPR_256 has sub0..sub7)
    "seq_bad_index": (f"(EXTRACT_SUBREG ({_MAD} $a, $b, (REG_SEQUENCE SReg_64, $a, sub0, $b, sub9), 0), sub0)", False),
    "seq_not_a_class": (f"(EXTRACT_SUBREG ({_MAD} $a, $b, (REG_SEQUENCE $a, $a, sub0, $b, sub1), 0), sub0)", False),
    "extract_one_operand": (f"(EXTRACT_SUBREG ({_MAD} $a, $b, (REG_SEQUENCE SReg_64, $a, sub0, $b, sub1), 0))", False),
    "copy_bad_class": ("(COPY_TO_REGCLASS (V_XOR_B32_e64 $a, $b), sub0)", False),
    "insert_subreg": (f"(EXTRACT_SUBREG ({_MAD} $a, $b, (INSERT_SUBREG (REG_SEQUENCE SReg_64, $a, sub0, $b, sub1), $b, sub1), 0), sub0)", False),
}
# llvm-tblgen-19 does not look at COPY_TO_REGCLASS's class operand (the generated C++
# would use a sub-register index as a class id); the checker rejects it. INSERT_SUBREG
# is valid TableGen the selector does not execute yet: the checker rejects it.
TBLGEN_ACCEPTS_ANYWAY = {"copy_bad_class", "insert_subreg"}


@pytest.mark.parametrize("case", sorted(GENERIC_RESULTS))
def test_generic_result_instructions_agree_with_tblgen(case, tmp_path):
    from dataclasses import replace

    from tdgen.check import check_target
    from tdgen.errors import TdgenError
    from tdgen.model import Pat

    exe = require("llvm-tblgen-19")
    inc = require_llvm_headers()
    dst, ok = GENERIC_RESULTS[case]
    base = load_target("amdgpu")
    t = replace(base, patterns=base.patterns + (Pat("(i32 (sub i32:$a, i32:$b))", dst),))
    try:
        check_target(t)
        ours = None
    except TdgenError as e:
        ours = e.format()
    files = emit.emit_target("amdgpu", t)
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    main = tmp_path / "amdgpu" / emit_td.layout(t).main_td
    r = subprocess.run([exe, "-I", str(inc), "-I", str(main.parent), "-gen-dag-isel", str(main), "-o", "/dev/null"],
                       capture_output=True, text=True, timeout=120)
    assert (r.returncode == 0) == (ok or case in TBLGEN_ACCEPTS_ANYWAY), f"tblgen: {r.stderr[-1500:]}"
    assert (ours is None) == ok, ours
    if not ok:
        assert "field 'dst'" in ours and ours.count("\n") == 0, ours

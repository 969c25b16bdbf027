"""llvm-tblgen-19 accepts every generated .td, and what it builds matches the model.

The intrinsics file goes through -gen-intrinsic-enums / -gen-intrinsic-impl; the
self-contained target file through -gen-dag-isel (TableGen's own type inference over
every pattern), -gen-instr-info, -gen-register-info and -gen-asm-writer. TableGen is the
oracle: the intrinsics, instructions, register classes and selected instructions it
reports must be exactly the ones the spec declares.
"""

from __future__ import annotations

import re
import subprocess
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


def tblgen(td: Path, *args: str) -> str:
    exe = require("llvm-tblgen-19")
    require_llvm_headers()
    r = subprocess.run(
        [exe, "-I", str(LLVM_INCLUDE), "-I", str(td.parent), *args, str(td)],
        capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, f"llvm-tblgen-19 {' '.join(args)} {td.name} failed:\n{r.stderr}"
    # Unused template arguments are a matter of the spec's style (reported separately by
    # test_unused_template_arguments); any other diagnostic fails here.
    warnings = [ln for ln in r.stderr.splitlines() if re.search(r"\b(warning|error):", ln)]
    other = [ln for ln in warnings if "unused template argument" not in ln]
    assert not other, f"llvm-tblgen-19 {' '.join(args)} {td.name} warned:\n{r.stderr}"
    return r.stdout


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
    target = load_target(name)
    lay = emit_td.layout(target)
    text = tblgen(gen_dir / name / lay.main_td, "-gen-dag-isel")
    selected = set(re.findall(r"// Dst: \(([A-Za-z_][A-Za-z0-9_]*)", text))
    want = {p.dst.op for p in target.selection_patterns()}
    assert want, "the target has no selection patterns"
    assert selected == want
    assert len(re.findall(r"// Src: ", text)) >= len(target.selection_patterns())


def _instr_enum(text: str) -> set[str]:
    enum = text.split("#ifdef GET_INSTRINFO_ENUM", 1)[1].split("INSTRUCTION_LIST_END", 1)[0]
    return set(re.findall(r"^\s+(\w+)\s+= \d+,$", enum, re.M))


@pytest.fixture(scope="module")
def generic_opcodes(tmp_path_factory) -> set[str]:
    """The opcodes every target gets from Target.td (PHI, COPY, G_ADD, ...): what
    -gen-instr-info lists for a target that defines no instruction of its own."""
    td = tmp_path_factory.mktemp("empty") / "Empty.td"
    td.write_text(
        'include "llvm/Target/Target.td"\n'
        "def EmptyInstrInfo : InstrInfo;\n"
        "def Empty : Target { let InstructionSet = EmptyInstrInfo; }\n"
    )
    return _instr_enum(tblgen(td, "-gen-instr-info"))


@pytest.mark.parametrize("name", TARGETS)
def test_instr_info_defines_exactly_the_spec_instructions(name, gen_dir, generic_opcodes):
    target = load_target(name)
    lay = emit_td.layout(target)
    text = tblgen(gen_dir / name / lay.main_td, "-gen-instr-info")
    assert "PHI" in generic_opcodes and "G_ADD" in generic_opcodes
    assert _instr_enum(text) - generic_opcodes == set(target.instructions)


@pytest.mark.parametrize("name", TARGETS)
def test_register_info_defines_the_spec_register_classes(name, gen_dir):
    target = load_target(name)
    lay = emit_td.layout(target)
    text = tblgen(gen_dir / name / lay.main_td, "-gen-register-info")
    classes = set(re.findall(rf"\b{lay.namespace}::(\w+)RegClassID\b", text))
    assert classes == set(target.register_classes)


@pytest.mark.parametrize("name", TARGETS)
def test_asm_writer_accepted(name, gen_dir):
    lay = emit_td.layout(load_target(name))
    text = tblgen(gen_dir / name / lay.main_td, "-gen-asm-writer")
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


@pytest.mark.parametrize("name", TARGETS)
def test_tablegen_records_equal_the_resolved_instructions(name, gen_dir):
    """TableGen's own evaluation of classes, multiclasses, defm and lets gives every
    instruction exactly the operands, asm string, pattern and field values the model's
    resolver computed: the emitted structure means what the spec means."""
    target = load_target(name)
    lay = emit_td.layout(target)
    records = _records(tblgen(gen_dir / name / lay.main_td, "-print-records"))
    mismatches = []
    for iname, inst in target.instructions.items():
        rec = records[iname]
        want = {
            "OutOperandList": "(outs " + ", ".join(o.tablegen for o in inst.outs) + ")",
            "InOperandList": "(ins " + ", ".join(o.tablegen for o in inst.ins) + ")",
            "AsmString": _td_value(inst.asm),
            "Pattern": "[" + ", ".join(p.render() for p in inst.patterns) + "]",
        }
        want.update({k: _td_value(v) for k, v in inst.fields})
        for field, value in sorted(want.items()):
            if rec.get(field) != value:
                mismatches.append(f"{iname}.{field}: tablegen {rec.get(field)!r}, model {value!r}")
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("name", TARGETS)
def test_unused_template_arguments(name, gen_dir):
    """Every class/multiclass argument the spec declares is used (llvm-tblgen warns)."""
    exe = require("llvm-tblgen-19")
    lay = emit_td.layout(load_target(name))
    td = gen_dir / name / lay.main_td
    r = subprocess.run([exe, "-I", str(LLVM_INCLUDE), "-I", str(td.parent), "-gen-instr-info", str(td)],
                       capture_output=True, text=True, timeout=120)
    unused = sorted(set(re.findall(r"unused template argument: (\S+)", r.stderr)))
    assert unused == []

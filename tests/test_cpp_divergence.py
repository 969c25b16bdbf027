"""Run the generated <NS>Divergence.cpp: build it with a small driver against LLVM 19
(libLLVM for llvm::GlobPattern) and compare its answers with the spec's.

- by intrinsic ID: is<NS>SourceOfDivergence / is<NS>AlwaysUniform for every declared
  intrinsic equal the intrinsic's divergence class;
- by IR name: get<NS>DivergenceRule (LLVM's GlobPattern over the spec's rules) agrees
  with the Python model's first-match fnmatch rules on names made from every rule and
  on near misses.
"""

from __future__ import annotations

import subprocess

import pytest

from cpp_tools import build_driver, generated
from tdgen import emit_td
from tdgen.hw import DivergenceKind
from tdgen.spec import list_targets, load_target

TARGETS = sorted(list_targets())


def _probe_names(target) -> list[str]:
    """IR names around every glob rule: matches, near misses, declared intrinsics."""
    names = {i.ir_name for i in target.intrinsics}
    for r in target.uniformity.rules:
        p = r.pattern
        names.add(p.replace("*", ""))
        names.add(p.replace("*", "x.y.i32"))
        names.add(p.replace("?", "q").replace("*", "v"))
        names.add(p.replace("*", "") + "_")
        names.add("llvm.other." + p.split(".", 1)[-1].replace("*", "x"))
    names.add("llvm.not.an.intrinsic")
    return sorted(n for n in names if n)


@pytest.mark.parametrize("name", TARGETS)
def test_generated_divergence_tables_answer_like_the_spec(name, tmp_path):
    gen = generated()[name]  # generated files + the tblgen-made intrinsic enum header
    target = load_target(name)
    lay = emit_td.layout(target)

    ns = lay.namespace
    ids = "".join(
        f'  {{"{i.ir_name}", llvm::{i.enum_name}}},\n' for i in target.intrinsics
    )
    driver = tmp_path / "driver.cpp"
    driver.write_text(
        f'#include "{lay.divergence_source}"\n'
        "#include <cstdio>\n#include <iostream>\n#include <string>\n"
        "struct Id { const char *Name; unsigned ID; };\n"
        f"static const Id Ids[] = {{\n{ids}  {{nullptr, 0}}}};\n"
        "int main() {\n"
        "  for (const Id *I = Ids; I->Name; ++I)\n"
        f"    std::printf(\"id %s %d %d\\n\", I->Name, llvm::is{ns}SourceOfDivergence(I->ID),"
        f" llvm::is{ns}AlwaysUniform(I->ID));\n"
        "  std::string Line;\n"
        "  while (std::getline(std::cin, Line))\n"
        f"    std::printf(\"name %s %d\\n\", Line.c_str(), (int)llvm::get{ns}DivergenceRule(Line));\n"
        "}\n"
    )
    exe = build_driver(driver, gen)
    probes = _probe_names(target)
    r = subprocess.run([str(exe)], input="\n".join(probes) + "\n",
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr

    got_ids = {}
    got_names = {}
    for line in r.stdout.splitlines():
        kind, ir_name, *vals = line.split()
        if kind == "id":
            got_ids[ir_name] = (vals[0] == "1", vals[1] == "1")
        else:
            got_names[ir_name] = int(vals[0])
    want_ids = {
        i.ir_name: (i.divergence is DivergenceKind.SOURCE,
                    i.divergence is DivergenceKind.ALWAYS_UNIFORM)
        for i in target.intrinsics
    }
    assert got_ids == want_ids

    order = [DivergenceKind.SOURCE, DivergenceKind.ALWAYS_UNIFORM, DivergenceKind.FOLLOWS_OPERANDS]
    want_names = {}
    for n in probes:
        rule = target.uniformity.intrinsic_rule(n)
        want_names[n] = order.index(rule.kind if rule else DivergenceKind.FOLLOWS_OPERANDS)
    assert got_names == want_names

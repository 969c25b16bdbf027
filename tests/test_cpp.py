"""Every generated C++ file passes `g++ -std=c++17 -fsyntax-only` against the LLVM 19
headers, with the intrinsic enum header that llvm-tblgen-19 builds from our generated
Intrinsics<Name>.td (made here in a temporary folder, never committed). Our own code is
held to -Wall -Wextra -Werror; LLVM's headers are included as system headers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cpp_tools import SHIPPED, batch, generated
from tdgen import emit_cpp, emit_td
from tdgen.model import Const
from tdgen.spec import load_target

TARGETS = list(SHIPPED)


@pytest.fixture(scope="module")
def built() -> Path:
    """Target name -> folder of its generated files and tblgen enum header."""
    return generated()


@pytest.mark.parametrize("name", TARGETS)
def test_every_cpp_file_compiles(name, built):
    """Each .cpp is its own translation unit. Each generated header is the first
    include of one of them, so it is checked on its own (self-contained) as well."""
    lay = emit_td.layout(load_target(name))
    d = built[name]
    files = sorted(p for p in d.iterdir() if p.suffix in (".cpp", ".h"))
    sources = [p.name for p in files if p.suffix == ".cpp"]
    headers = [p.name for p in files if p.suffix == ".h" and p.name != lay.enum_header]
    assert sources and headers
    first_includes = {
        re.search(r'^#include "([^"]+)"', (d / s).read_text(), re.M).group(1) for s in sources
    }
    assert set(headers) <= first_includes, "a generated header is never compiled first"
    results = batch().results
    assert sorted(f for (t, f) in results if t == name) == sources, "a .cpp was not compiled"
    failures = [f"{f}:\n{r.stderr}" for (t, f), r in sorted(results.items())
                if t == name and r.returncode != 0]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", TARGETS)
def test_isd_enum_lists_the_target_sdnodes(name, built):
    target = load_target(name)
    lay = emit_td.layout(target)
    header = (built[name] / lay.isel_header).read_text()
    enum = header.split("FIRST_NUMBER = ISD::BUILTIN_OP_END,", 1)[1].split("};", 1)[0]
    got = re.findall(r"^\s+(\w+),", enum, re.M)
    want = sorted(n.isd_name for n in target.nodes if not n.builtin)
    assert all(n.opcode == f"{lay.isd_namespace}::{n.isd_name}" for n in emit_cpp.target_nodes(target))
    assert got == want


@pytest.mark.parametrize("name", TARGETS)
def test_lowering_and_rewrite_cases_follow_the_spec(name, built):
    target = load_target(name)
    lay = emit_td.layout(target)
    lowering = (built[name] / lay.isel_source).read_text()
    wo_chain = re.findall(
        r"case (Intrinsic::\w+): // \S+\n\s+return DAG\.getNode\((\w+::\w+), DL, VT"
        r"((?:, Op\.getOperand\(\d+\))*)\);",
        lowering,
    )
    w_chain = re.findall(
        r"case (Intrinsic::\w+): // \S+\n\s+return DAG\.getNode\((\w+::\w+), DL, "
        r"Op->getVTList\(\), \{Op\.getOperand\(0\)((?:, Op\.getOperand\(\d+\))*)\}\);",
        lowering,
    )
    # INTRINSIC_WO_CHAIN operands: ID, params...; W_CHAIN/VOID: chain, ID, params...
    want = sorted(
        (
            low.intrinsic.enum_name,
            low.node.opcode,
            "".join(
                f", Op.getOperand({i + (2 if low.intrinsic.has_chain else 1)})"
                for i in low.operand_map
            ),
        )
        for low in target.lowerings
    )
    assert sorted(wo_chain + w_chain) == want
    # Where the intrinsic ID is: operand 0 of INTRINSIC_WO_CHAIN, 1 (after the chain)
    # of INTRINSIC_W_CHAIN / INTRINSIC_VOID.
    for fn, index in (("INTRINSIC_WO_CHAIN", 0), ("INTRINSIC_W_CHAIN", 1)):
        body = lowering.split(f"Lower{lay.namespace}{fn}(SDValue Op, SelectionDAG &DAG) {{", 1)[1]
        body = body.split("\n}\n", 1)[0]
        assert re.findall(r"getConstantOperandVal\((\d+)\)", body) == [str(index)], fn
    rewrite = (built[name] / lay.rewrite_source).read_text()
    foreign = re.findall(r"case (Intrinsic::\w+): \{ // (\S+) -> (\S+)", rewrite)
    assert sorted(foreign) == sorted((r.foreign_enum, r.foreign, r.target.ir_name) for r in target.rewrites)
    # Operand mapping: argument i of the new call is the foreign call's argument
    # operands[i] (shfl.sync: membermask, value, lane/delta, c -> value, lane, c).
    cases = dict(re.findall(
        r"case (Intrinsic::\w+): \{ // .*\n(?:\s+Value \*Args\[\] = \{(.*)\};\n)?", rewrite))
    for r in target.rewrites:
        got = [a.strip() for a in cases[r.foreign_enum].split(",")] if cases[r.foreign_enum] else []
        assert len(got) == len(r.operands) == len(r.target.params), r.foreign
        for arg, op in zip(got, r.operands):
            if not isinstance(op, Const):
                assert arg == f"II.getArgOperand({op})", (r.foreign, got)

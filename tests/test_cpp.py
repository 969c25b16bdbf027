"""Every generated C++ file passes `g++ -std=c++17 -fsyntax-only` against the LLVM 19
headers, with the intrinsic enum header that llvm-tblgen-19 builds from our generated
Intrinsics<Name>.td (made here in a temporary folder, never committed). Our own code is
held to -Wall -Wextra -Werror; LLVM's headers are included as system headers."""

from __future__ import annotations

import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from llvm_tools import LLVM_INCLUDE, require, require_llvm_headers
from tdgen import emit, emit_cpp, emit_td
from tdgen.spec import list_targets, load_target

TARGETS = sorted(list_targets())


def _gxx() -> str:
    gxx = shutil.which("g++")
    if gxx is None:
        import os

        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but g++ not found")
        pytest.skip("g++ not found (apt-get install -y g++)")
    return gxx


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """Generated files plus, per target, the tblgen-made intrinsic enum header."""
    tblgen = require("llvm-tblgen-19")
    require_llvm_headers()
    out = tmp_path_factory.mktemp("gen")
    emit.write(out, TARGETS, emit.generate(TARGETS))
    for name in TARGETS:
        lay = emit_td.layout(load_target(name))
        r = subprocess.run(
            [tblgen, "-I", str(LLVM_INCLUDE), "-gen-intrinsic-enums",
             f"-intrinsic-prefix={lay.intrinsic_prefix}",
             str(out / name / lay.intrinsics_td), "-o", str(out / name / lay.enum_header)],
            capture_output=True, text=True, timeout=120,
        )
        assert r.returncode == 0, r.stderr
    return out


def _compile(gxx: str, src: Path) -> tuple[Path, int, str]:
    r = subprocess.run(
        [gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
         "-isystem", str(LLVM_INCLUDE), "-I", str(src.parent), "-x", "c++", str(src)],
        capture_output=True, text=True, timeout=300,
    )
    return src, r.returncode, r.stderr


@pytest.mark.parametrize("name", TARGETS)
def test_every_cpp_file_compiles(name, built):
    """Each .cpp is its own translation unit. Each generated header is the first
    include of one of them, so it is checked on its own (self-contained) as well."""
    gxx = _gxx()
    lay = emit_td.layout(load_target(name))
    files = sorted(p for p in (built / name).iterdir() if p.suffix in (".cpp", ".h"))
    sources = [p for p in files if p.suffix == ".cpp"]
    headers = [p.name for p in files if p.suffix == ".h" and p.name != lay.enum_header]
    assert sources and headers
    first_includes = {
        re.search(r'^#include "([^"]+)"', p.read_text(), re.M).group(1) for p in sources
    }
    assert set(headers) <= first_includes, "a generated header is never compiled first"
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda s: _compile(gxx, s), sources))
    failures = [f"{src.name}:\n{err}" for src, rc, err in results if rc != 0]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", TARGETS)
def test_isd_enum_lists_the_target_sdnodes(name, built):
    target = load_target(name)
    lay = emit_td.layout(target)
    header = (built / name / lay.isel_header).read_text()
    enum = header.split("FIRST_NUMBER = ISD::BUILTIN_OP_END,", 1)[1].split("};", 1)[0]
    got = re.findall(r"^\s+(\w+),", enum, re.M)
    want = sorted(n.isd_name for n in target.nodes if not n.builtin)
    assert all(n.opcode == f"{lay.isd_namespace}::{n.isd_name}" for n in emit_cpp.target_nodes(target))
    assert got == want


@pytest.mark.parametrize("name", TARGETS)
def test_lowering_and_rewrite_cases_follow_the_spec(name, built):
    target = load_target(name)
    lay = emit_td.layout(target)
    lowering = (built / name / lay.isel_source).read_text()
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
    rewrite = (built / name / lay.rewrite_source).read_text()
    foreign = re.findall(r"case (Intrinsic::\w+): \{ // (\S+) -> (\S+)", rewrite)
    assert sorted(foreign) == sorted((r.foreign_enum, r.foreign, r.target.ir_name) for r in target.rewrites)

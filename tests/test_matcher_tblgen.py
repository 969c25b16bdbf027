"""Our pattern complexity and matcher order against llvm-tblgen-19 -gen-dag-isel (the oracle).

The amdgpu target is emitted (A2's emitter) into a temporary directory and run through
``llvm-tblgen-19 -gen-dag-isel``; every ``// Src: ... - Complexity = N`` comment in the
generated matcher table is one pattern (variant) in the order the selector tries them per
root opcode. Our table must hold the same patterns per root opcode with the same
complexities in the same order.
"""

from __future__ import annotations

import re
import subprocess
from collections import defaultdict

import pytest

from llvm_tools import require, require_llvm_headers

_SRC = re.compile(r"// Src: \((\w+):.*- Complexity = (-?\d+)")


@pytest.fixture(scope="module")
def amdgpu():
    from tdgen.spec import load_target

    return load_target("amdgpu")


def tblgen_order(target, tmp_path) -> dict[str, list[int]]:
    from tdgen.emit import emit_target

    tblgen = require("llvm-tblgen-19")
    inc = require_llvm_headers()
    files = emit_target(target.name, target)
    main = None
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        if rel.endswith(f"/{target.namespace}.td") or rel == f"{target.name}/{target.namespace}.td":
            main = p
    assert main is not None, sorted(files)
    proc = subprocess.run([tblgen, "-gen-dag-isel", "-I", str(inc), "-I", str(main.parent), str(main)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    by_op: dict[str, list[int]] = defaultdict(list)
    for m in _SRC.finditer(proc.stdout):
        node = m.group(1)
        opcode = target.sdnodes[node].opcode if node in target.sdnodes else node
        by_op[opcode].append(int(m.group(2)))
    return dict(by_op)


def test_complexity_and_order_equal_tblgen(amdgpu, tmp_path):
    from patterns.matcher import build_table

    theirs = tblgen_order(amdgpu, tmp_path)
    table = build_table(amdgpu)
    ours = {op: [p.complexity for p in pats] for op, pats in table.by_opcode.items()}
    assert sum(map(len, theirs.values())) > 10
    assert ours == theirs

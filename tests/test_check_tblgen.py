"""Each SDTypeProfile constraint the checker enforces, judged against llvm-tblgen-19.

For every constraint a one-instruction target uses a node with just that constraint in
a pattern whose types fit it and in one whose types break it. tdgen's checker must
accept the first and reject the second with a message naming the constraint, and
llvm-tblgen-19 -gen-dag-isel, run on what tdgen emits for each, must agree on both.
"""

from __future__ import annotations

import subprocess

import pytest
from llvm_tools import require, require_llvm_headers

from tdgen import emit, emit_td
from tdgen.check import check_target
from tdgen.errors import TdgenError
from tdgen.model import (
    Instruction,
    InstrClass,
    RegisterClass,
    SDNode,
    SDTCisEltOfVec,
    SDTCisFP,
    SDTCisInt,
    SDTCisPtrTy,
    SDTCisSameAs,
    SDTCisSameNumEltsAs,
    SDTCisSameSizeAs,
    SDTCisVec,
    SDTCisVT,
    SDTCVecEltisVT,
    SDTypeProfile,
    Target,
    reg_names,
)
from tdgen.types import VALUE_TYPES, i32

TYPES = ("i32", "f32", "i64", "v2i32", "v2f32", "v4i32", "iPTR")

# constraint, [(result type, operand type) that fit], [(result type, operand type) that break it]
CASES = {
    "SDTCisVT": (SDTCisVT(0, i32), [("i32", "i32")], [("f32", "i32")]),
    "SDTCisInt": (SDTCisInt(1), [("i32", "i64"), ("i32", "v2i32")], [("i32", "f32"), ("i32", "v2f32")]),
    "SDTCisFP": (SDTCisFP(1), [("i32", "f32"), ("i32", "v2f32")], [("i32", "i32")]),
    # tblgen lets any scalar integer type stand for iPTR
    "SDTCisPtrTy": (SDTCisPtrTy(1), [("i32", "iPTR"), ("i32", "i64"), ("i32", "i32")], [("i32", "f32"), ("i32", "v2i32")]),
    "SDTCisVec": (SDTCisVec(1), [("i32", "v2i32")], [("i32", "i64")]),
    "SDTCisSameAs": (SDTCisSameAs(0, 1), [("f32", "f32")], [("f32", "i32")]),
    "SDTCisSameSizeAs": (SDTCisSameSizeAs(0, 1), [("i32", "f32"), ("i64", "v2f32")], [("i32", "i64")]),
    "SDTCVecEltisVT": (SDTCVecEltisVT(1, i32), [("i32", "v4i32")], [("i32", "v2f32"), ("i32", "i32")]),
    "SDTCisSameNumEltsAs": (SDTCisSameNumEltsAs(0, 1), [("v2f32", "v2i32")], [("v2f32", "v4i32")]),
    "SDTCisEltOfVec": (SDTCisEltOfVec(0, 1), [("i32", "v4i32")], [("f32", "v4i32"), ("i32", "i64")]),
}
PARAMS = [
    pytest.param(name, fits, types, id=f"{name}-{'ok' if fits else 'bad'}-{types[0]}-{types[1]}")
    for name, (_, goods, bads) in sorted(CASES.items())
    for fits, group in ((True, goods), (False, bads))
    for types in group
]


def _target(constraint, res: str, op: str) -> Target:
    rc = RegisterClass("R", "vector", [VALUE_TYPES[t] for t in TYPES], reg_names("R", 4), size=32)
    node = SDNode("probe", "KISD::PROBE", SDTypeProfile(1, 1, [constraint], name="SDT_Probe"))
    base = InstrClass("KInst", lets={"Namespace": "K", "Size": 4})
    inst = Instruction(
        "PROBE", base, outs="(outs R:$d)", ins="(ins R:$a)", asm="probe $d, $a",
        pattern=f"(set {res}:$d, (probe {op}:$a))",
    )
    return Target(
        "k", "K", "k", isd_namespace="KISD", profiles=(node.profile,), nodes=(node,),
        register_classes=(rc,), classes=(base,), defs=(inst,),
    )


def _ours(t: Target) -> str | None:
    try:
        check_target(t)
    except TdgenError as e:
        return e.format()
    return None


def _tblgen(t: Target, tmp_path) -> subprocess.CompletedProcess:
    exe = require("llvm-tblgen-19")
    inc = require_llvm_headers()
    for rel, text in emit.emit_target("k", t).items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    main = tmp_path / "k" / emit_td.layout(t).main_td
    return subprocess.run(
        [exe, "-I", str(inc), "-I", str(main.parent), "-gen-dag-isel", str(main), "-o", "/dev/null"],
        capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize("name, fits, types", PARAMS)
def test_constraint_agrees_with_tblgen(name, fits, types, tmp_path):
    constraint = CASES[name][0]
    t = _target(constraint, *types)
    msg = _ours(t)
    r = _tblgen(t, tmp_path)
    if fits:
        assert msg is None, msg
        assert r.returncode == 0, r.stderr
    else:
        assert msg is not None and "field 'pattern': expected" in msg, msg
        assert r.returncode != 0, f"llvm-tblgen-19 accepted {types} under {constraint.tablegen}"

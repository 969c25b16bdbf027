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
    from patterns.select.matcher import build_table

    theirs = tblgen_order(amdgpu, tmp_path)
    table = build_table(amdgpu)
    ours = {op: [p.complexity for p in pats] for op, pats in table.by_opcode.items()}
    assert sum(map(len, theirs.values())) > 10
    # Where tblgen's FactorNodes moved a pattern ahead of others whose first check
    # contradicts it (an order-preserving rewrite of the table), only the complexities
    # are compared: the rest of the order must be equal.
    for op, why in _FACTORED.items():
        assert sorted(ours.pop(op)) == sorted(theirs.pop(op)), why
    assert ours == theirs


# ISD::ADD: the complexity-8 v_lshl_add_u32 pattern (op0 is a shl) joins the complexity-17
# BFM patterns (op0 is a shl too) ahead of the complexity-11 v_mad_u64_u32 pattern with an
# immediate addend (op0 is a mul), legal since the two checks contradict.
_FACTORED = {"ISD::ADD": "FactorNodes hoists ThreeOp_shl_add next to the BFM patterns"}


def _interpreted(table):
    """A reference matcher: the check chains run one by one by ``MatcherTable.run``
    (the interpreter ``explain`` uses), not the compiled per-opcode functions."""

    def matcher_for(opcode):
        pats = table.by_opcode.get(opcode)
        if not pats:
            return None

        def fn(node):
            for p in pats:
                ok, _i, slots = table.run(p, node)
                if ok:
                    return p, {name: slots[s] for name, s in table.bindings(p).items()}
            return None

        return fn

    return matcher_for


@pytest.mark.parametrize("seed,same_root", [(3, False), (11, False), (5, True)])
def test_compiled_matcher_agrees_with_interpreter(amdgpu, seed, same_root, monkeypatch):
    """Selecting a generated kernel with the compiled selectors (each opcode's matcher with
    its patterns' result DAGs written in, ``selgen.compile_selector``) and with the
    interpreted check chains and result plans (``_emit_dst``) gives the same machine code;
    ``same_root``: with the table of bench/isel.py holding 3x the patterns per root opcode
    (copies checking other root types), so the compiled type switch is used."""
    import patterns.select.selgen as selgen
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from patterns.pipeline import select_function
    from testkit.iselgen import generate_isel_kernel
    from patterns.select.matcher import MatcherTable, build_table
    from patterns.select.mir import print_function
    from tdgen.errors import Diagnostics

    text = generate_isel_kernel(seed, 3000)

    def fresh():  # each run parses anew: selection's IR passes rewrite the function in place
        return next(f for f in parse_module(text, "k.ll").functions if not f.is_declaration)

    fn = fresh()
    table = build_table(amdgpu, multiply=3 if same_root else 1, same_root=same_root)
    if same_root:
        assert len(table.patterns) == 3 * len(build_table(amdgpu).patterns)
    fast_diags, slow_diags = Diagnostics(), Diagnostics()  # (divergent branches: "cannot select", in both)
    fast, _ = select_function(fn, amdgpu, analyze(fn, amdgpu), table, fast_diags)
    ref_table = MatcherTable(table.patterns)
    tried = []
    ref = _interpreted(ref_table)
    monkeypatch.setattr(ref_table, "matcher_for", lambda opc: tried.append(opc) or ref(opc))
    monkeypatch.setattr(selgen, "compile_selector", selgen.interpreted_selector)
    fn = fresh()
    slow, _ = select_function(fn, amdgpu, analyze(fn, amdgpu), ref_table, slow_diags)
    assert [e.format() for e in fast_diags.errors] == [e.format() for e in slow_diags.errors]
    assert len(set(tried)) >= 5
    assert sum(1 for _ in fast.instrs()) > 1000
    assert print_function(fast) == print_function(slow)
    assert [mi.as_json() for mi in fast.instrs()] == [mi.as_json() for mi in slow.instrs()]
    mnemonics = {mi.opcode for mi in fast.instrs()}
    assert any(m.startswith("V_") for m in mnemonics) and any(m.startswith("S_") for m in mnemonics)


@pytest.mark.parametrize("multiply,same_root", [(1, False), (3, True)])
def test_factored_matcher_agrees_with_interpreter_on_every_node(amdgpu, multiply, same_root):
    """The compiled per-opcode matchers (checks shared by consecutive patterns factored
    into nested tests) pick the same pattern and bindings as running every check chain in
    table order, on every node of the combined DAGs of generated kernels -- nodes no
    pattern matches included."""
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from testkit.iselgen import generate_isel_kernel
    from patterns.select.matcher import build_table
    from patterns.pipeline import build_function_dags

    table = build_table(amdgpu, multiply=multiply, same_root=same_root)
    ref = _interpreted(table)
    checked = matched = 0
    for seed in range(6):
        text = generate_isel_kernel(seed, 400, constants=bool(seed % 2), divergent_branches=seed % 3 != 0)
        fn = next(f for f in parse_module(text, "k.ll").functions if not f.is_declaration)
        for dag in build_function_dags(fn, amdgpu, analyze(fn, amdgpu)).dags:
            for n in dag.nodes:
                fast, slow = table.matcher_for(n.opcode), ref(n.opcode)
                assert (fast is None) == (slow is None)
                if fast is None:
                    continue
                got, want = fast(n), slow(n)
                checked += 1
                matched += want is not None
                assert (got and (got[0].index, got[1])) == (want and (want[0].index, want[1])), n.label()
    assert checked > 1000 and 0 < matched < checked


def test_table_pickles_and_recompiles(amdgpu):
    """The table survives pickling (the compiled functions are rebuilt, not stored)."""
    import pickle

    from patterns.select.matcher import build_table

    table = build_table(amdgpu)
    opc = next(iter(sorted(table.by_opcode)))
    assert table.matcher_for(opc) is not None
    copy = pickle.loads(pickle.dumps(table))
    assert [p.record for p in copy.patterns] == [p.record for p in table.patterns]
    assert copy.matcher_for(opc) is not None and copy.matcher_for(opc) is not table.matcher_for(opc)
    assert copy.matcher_for("ISD::NO_SUCH_OPCODE") is None

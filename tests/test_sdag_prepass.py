"""The DAG builder's speed shortcuts give the answers of the plain algorithms.

- Sink placement: the incremental sweeps (only instructions whose own or a user's block
  changed are re-evaluated) against the literal pass that re-evaluates everything every
  sweep, on generated kernels with loops and divergent branches.
- The fused prepass the DAG builder runs (``prepare``: CSE, dead-code removal and Sink
  in one go, Sink evaluating candidates only) against the separate passes
  (``prepare_plain``): same representatives, live set, placement, moved instructions
  and values used outside their block, on isel kernels and on kernels with dead code.
- Combining: after ``patterns.dag.combine.driver.run`` a block's DAG that was re-sorted is a fixed point of
  the re-sort (order, ids, use counts, divergence bits), which checks the shortcut that
  skips the last re-sort when the last pass changed nothing; and running the combines
  once more with the pass bookkeeping reset finds nothing left to fold.
- ``wrap`` (cached integer widths) against the arithmetic definition.
- One dominator tree per function: inside ``shared_dominators`` the IR passes and the
  prepasses get the tree built on entry, and a new one once the CFG changes.
- The constants map the builder offers the combines (``SelectionDAG.take_constants``)
  is the one scanning the nodes gives; the builder's fast node constructor sets every
  field as the class does.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from patterns.dag.combine.context import Ctx
from patterns.dag.combine.driver import dag_target, resort, visit
from patterns.uniformity.analysis import analyze
from patterns.ir import parse_module
from testkit.iselgen import generate_isel_kernel
from patterns.dag.cse import common_subexpressions
from patterns.dag.deadcode import live_instructions
from patterns.dag.nodes import NODE_FIELDS
from patterns.support.intops import wrap_vt as wrap
from patterns.dag.prepare import prepare, prepare_plain
from patterns.dag.sink import sink
from patterns.ir.dominators import immediate_dominators, shared_dominators
from patterns.pipeline import build_function_dags


@pytest.fixture(scope="module")
def amdgpu():
    from tdgen.spec import load_target

    return load_target("amdgpu")


def _fn(text: str):
    m = parse_module(text, "k.ll")
    return next(f for f in m.functions if not f.is_declaration)


def _kernels(count: int):
    for seed in range(count):
        yield seed, generate_isel_kernel(seed, 40 + seed % 80, constants=bool(seed % 2),
                                         loops=seed % 3 != 0, divergent_branches=seed % 5 != 0)


def test_incremental_sink_matches_the_literal_pass():
    moved_somewhere = 0
    for seed, text in _kernels(120):
        fn = _fn(text)
        rep = common_subexpressions(fn)
        live = live_instructions(fn, "aggressive", rep)
        fast, fast_home = sink(fn, live, rep)
        slow, slow_home = sink(fn, live, rep, incremental=False)
        assert {b.name: [i.name for i in v] for b, v in fast.items()} == \
               {b.name: [i.name for i in v] for b, v in slow.items()}, seed
        assert fast_home == slow_home, seed
        moved_somewhere += sum(1 for i, b in fast_home.items() if b is not i.block)
    assert moved_somewhere > 50  # the kernels do exercise sinking


def test_fused_prepass_matches_the_separate_passes():
    from testkit.irgen import generate_kernel

    texts = [text for _seed, text in _kernels(150)]
    texts += [generate_kernel(seed, 30 + seed % 90) for seed in range(80)]  # dead code, calls, selects
    texts += [_SECOND_SWEEP, generate_isel_kernel(3, 4000)]
    moved = dead = 0
    for text in texts:
        for fn in parse_module(text, "k.ll").functions:
            if fn.is_declaration:
                continue
            fast, slow = prepare(fn), prepare_plain(fn)
            assert fast.rep == slow.rep
            assert fast.live == slow.live
            assert {b.name: list(v) for b, v in fast.placed.items()} == {b.name: list(v) for b, v in slow.placed.items()}
            assert fast.moved == slow.moved
            assert fast.used_outside == slow.used_outside
            moved += len(fast.moved)
            dead += sum(len(b.instructions) for b in fn.blocks) - len(fast.live)
    assert moved > 100 and dead > 100  # sinking and dead-code removal both exercised


def _state(dag):
    return [(n.id, n.opcode, n.vt, n.divergent, n.uses, n.value, tuple(o.id for o in n.ops)) for n in dag.nodes]


def test_combined_dags_are_resort_fixed_points(amdgpu):
    blocks = touched = 0
    for seed, text in _kernels(60):
        fn = _fn(text)
        ua = analyze(fn, amdgpu)
        plain = build_function_dags(fn, amdgpu, ua, combine=False)
        fd = build_function_dags(fn, amdgpu, ua)
        for before, dag in zip(plain.dags, fd.dags):
            blocks += 1
            # a block the combines left alone keeps the builder's order (never re-sorted)
            if not any(n.mark for n in dag.nodes):
                continue
            touched += _state(before) != _state(dag)
            got = _state(dag)
            resort(dag)
            assert _state(dag) == got, (seed, dag.block.name)
    assert touched > blocks // 4  # combines did fire in many blocks


def test_combining_again_finds_nothing(amdgpu):
    for seed, text in _kernels(40):
        fn = _fn(text)
        fd = build_function_dags(fn, amdgpu, analyze(fn, amdgpu))
        for dag in fd.dags:
            got = _state(dag)
            ctx = Ctx(dag, dag_target(amdgpu))
            fired = [n.label() for n in reversed(list(dag.nodes)) if visit(n, ctx)]
            assert not fired, (seed, fired)
            assert _state(dag)[: len(got)] == got


@settings(max_examples=300, deadline=None)
@given(st.integers(-(2**70), 2**70), st.sampled_from(["i1", "i8", "i16", "i32", "i64", "i33"]))
def test_wrap_is_sign_normalisation(value, vt):
    bits = int(vt[1:])
    expect = value % (1 << bits)
    if expect >= 1 << (bits - 1):
        expect -= 1 << bits
    assert wrap(value, vt) == expect
    assert wrap(value, vt) == wrap(value, vt)  # cached width path


# %v is stuck in the entry block on the first sweep (its user %u sits in the loop), and
# can only follow %u to the exit block once %u has left the loop: the placement needs a
# second sweep, in which %v is re-evaluated because its user moved. (%w rides along.)
_SECOND_SWEEP = """define i32 @f(i32 %a, i32 %b, i32 %n) {
entry:
  %w = mul i32 %a, %b
  %v = add i32 %w, %b
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %Y ]
  br label %Y
Y:
  %u = add i32 %v, 1
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %H, label %Z
Z:
  ret i32 %u
}
"""


def _opt_placement(opt: str, text: str, tmp_path) -> dict:
    import subprocess

    src = tmp_path / "in.ll"
    src.write_text(text)
    out = subprocess.run([opt, "-S", "-passes=sink", str(src)], check=True, capture_output=True, text=True).stdout
    fn = next(f for f in parse_module(out, "opt.ll").functions if not f.is_declaration)
    return {b.name: [i.name for i in b.instructions if i.name] for b in fn.blocks}


def test_sink_second_sweep_agrees_with_opt(tmp_path):
    from llvm_tools import require

    expect = _opt_placement(require("opt-19"), _SECOND_SWEEP, tmp_path)
    assert expect["Z"][:3] == ["w", "v", "u"]  # what the IR is built to show
    fn = _fn(_SECOND_SWEEP)
    rep = common_subexpressions(fn)
    live = live_instructions(fn, "aggressive", rep)
    for incremental in (True, False):
        place, _home = sink(fn, live, rep, incremental=incremental)
        got = {b.name: [i.name for i in v if i.name] for b, v in place.items()}
        assert got == expect, incremental


def test_dominator_tree_is_shared_until_the_cfg_changes():
    fn = _fn(generate_isel_kernel(3, 200))
    fresh = immediate_dominators(fn)
    assert immediate_dominators(fn) is not fresh
    with shared_dominators(fn):
        shared = immediate_dominators(fn)
        assert shared == fresh and immediate_dominators(fn) is shared
        other = _fn(generate_isel_kernel(4, 100))
        assert immediate_dominators(other) == immediate_dominators(other)  # another function: its own
        # a changed CFG (an edge added) gets a new tree
        a, b = fn.blocks[1], fn.blocks[-1]
        a.successors.append(b)
        b.predecessors.append(a)
        changed = immediate_dominators(fn)
        assert changed is not shared
        a.successors.pop()
        b.predecessors.pop()
        assert immediate_dominators(fn) is shared
    assert immediate_dominators(fn) is not shared


def test_builder_hands_over_its_constants_map(amdgpu):
    """The builder's map of a block's integer constant nodes (``take_constants``, for the
    combines) is what scanning the block's nodes gives; it is handed over once, and not
    at all once nodes were added."""
    from patterns.ir.cfg import reverse_post_order
    from patterns.dag.builder import DAGBuilder

    handed = 0
    for seed, text in _kernels(20):
        fn = _fn(text)
        build = DAGBuilder(fn, amdgpu, analyze(fn, amdgpu)).block_builder()
        for blk in reverse_post_order(fn):
            dag = build(blk)
            scan: dict = {}
            for c in dag.nodes:
                if c.opcode == "ISD::Constant" and isinstance(c.value, int):
                    scan.setdefault((c.value, c.vt), c)
            consts = dag.take_constants()
            assert consts == scan and all(consts[k] is scan[k] for k in scan)
            assert dag.take_constants() is None
            handed += bool(consts)
    assert handed > 30
    fn = _fn(generate_isel_kernel(1, 60))
    dag = DAGBuilder(fn, amdgpu, analyze(fn, amdgpu)).build_block(fn.blocks[0])
    dag.node("ISD::Constant", "i32", value=12345)
    assert dag.take_constants() is None


def test_built_nodes_have_every_field(amdgpu):
    """The block builder makes its nodes inline (``make_node`` written out): every node of the
    built, combined blocks has every field set, the builder's live phis per block are
    the block's, and ``SelectionDAG.node`` sets the fields ``SDNode(...)`` does."""
    from patterns.dag.builder import DAGBuilder
    from patterns.dag.nodes import SDNode, SelectionDAG

    seen: set = set()
    for seed, text in _kernels(12):
        fn = _fn(text)
        fd = build_function_dags(fn, amdgpu, analyze(fn, amdgpu))
        for dag in fd.dags:
            for n in dag.nodes:
                for slot in NODE_FIELDS:
                    getattr(n, slot)  # (raises for a field never set)
                seen.add(n.opcode)
        fn = _fn(text)
        b = DAGBuilder(fn, amdgpu, analyze(fn, amdgpu))
        build = b.block_builder()
        for blk in fn.blocks:
            build(blk)
            assert b.block_phis.get(blk, []) == [i for i in blk.instructions if i.opcode == "phi" and i in b.live]
    assert {"ISD::CopyFromReg", "ISD::CopyToReg", "ISD::Constant", "ISD::BRCOND", "ISD::BR", "ISD::XOR"} <= seen
    dag = SelectionDAG("b")
    a = dag.node("ISD::Constant", "i32", value=3)
    got = dag.node("ISD::SETCC", "i1", [a, a], cc="SETLT", ir="v", intrinsic="i", reg="r", target_op="t")
    ref = SDNode(1, "ISD::SETCC", "i1", [a, a], value=None, cc="SETLT", ir="v", intrinsic="i", reg="r", block="b",
                 target_op="t")
    for slot in NODE_FIELDS:
        if slot != "ops":
            assert getattr(got, slot) == getattr(ref, slot), slot
    assert got.ops == [a, a] and a.uses == 2


def test_fast_node_constructor_matches_the_class():
    """The builder's ``make_node`` sets every field as ``SDNode(...)`` does."""
    from patterns.dag.nodes import SDNode, make_node

    a = SDNode(0, "ISD::EntryToken", "ch")
    ref = SDNode(7, "ISD::ADD", "i32", [a, a], ir="v", block="b")
    got = make_node(7, "ISD::ADD", "i32", [a, a], "v", "b")
    for slot in NODE_FIELDS:
        assert getattr(got, slot) == getattr(ref, slot), slot

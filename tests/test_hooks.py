"""Target hooks (tdgen.hooks): a spec names a module of its folder that defines
``HOOKS = TargetHooks(...)``; the loader checks it, the engine reads it through
``target_hooks``; a target without hooks gets the empty record. The DAG stage
(patterns.dag.combine) calls AMDGPU's DAG hooks and a target's own, and a target without
hooks gets none of AMDGPU's rules."""

from __future__ import annotations

import textwrap

import pytest

from tdgen.errors import SpecError
from tdgen.hooks import NO_HOOKS, TargetHooks, target_hooks
from tdgen.spec import load_target

SPEC = """
    from tdgen.model import Target
    TARGET = Target("t", "T", "t", hooks={hooks!r})
"""


def _target(folder, hooks: str, files: dict[str, str]):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "spec.py").write_text(textwrap.dedent(SPEC.format(hooks=hooks)))
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text))
    return folder / "spec.py"


def test_a_target_without_hooks_gets_the_empty_record(tmp_path):
    t = load_target(_target(tmp_path / "t", "", {}))
    assert t.hooks == ""
    assert target_hooks(t) is NO_HOOKS
    assert NO_HOOKS == TargetHooks() and NO_HOOKS.ir_passes == () and dict(NO_HOOKS.dag_combine) == {}
    assert not NO_HOOKS.legalize and not NO_HOOKS.known_lz and not NO_HOOKS.cse_nodes and not NO_HOOKS.argument_load_ccs


def test_hooks_module_is_loaded_with_its_siblings(tmp_path):
    spec = _target(tmp_path / "t", "lowering", {
        "rules.py": "def combine_mul(ctx, node):\n    return None\n",
        "lowering.py": """
            from tdgen.hooks import TargetHooks
            from .rules import combine_mul
            HOOKS = TargetHooks(dag_combine={"ISD::MUL": combine_mul})
        """,
    })
    t = load_target(spec)
    hooks = target_hooks(t)
    assert list(hooks.dag_combine) == ["ISD::MUL"]
    assert hooks.dag_combine["ISD::MUL"].__name__ == "combine_mul"
    assert target_hooks(t) is hooks  # loaded once


@pytest.mark.parametrize("files, found", [
    ({}, "expected a module 'lowering.py' beside the spec, found no such file"),
    ({"lowering.py": "HOOKS = 3\n"}, "expected 'HOOKS = TargetHooks(...)' in lowering.py, found int"),
    ({"lowering.py": "x = 1\n"}, "expected 'HOOKS = TargetHooks(...)' in lowering.py, found none"),
    ({"lowering.py": "raise ValueError('bad')\n"}, "expected a hook module 'lowering.py' that runs, found ValueError: bad"),
])
def test_a_broken_hooks_module_is_a_spec_error_at_the_field(tmp_path, files, found):
    spec = _target(tmp_path / "t", "lowering", files)
    with pytest.raises(SpecError) as info:
        load_target(spec)
    text = info.value.format()
    assert "record 't' field 'hooks'" in text, text
    assert found in text, text


# smin(smin(a, b), c) -- AMDGPU's performMinMaxCombine makes v_min3 of it -- and
# and (srl a, 8), 0xff00 -- its performAndCombine a BFE_U32 (after legalization)
_MIN3_BFE = """
declare i32 @llvm.smin.i32(i32, i32)

define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %a, i32 %b, i32 %c) {
  %m = call i32 @llvm.smin.i32(i32 %a, i32 %b)
  %n = call i32 @llvm.smin.i32(i32 %m, i32 %c)
  %s = lshr i32 %a, 8
  %f = and i32 %s, 65280
  %r = add i32 %n, %f
  %q = mul i32 %r, %a
  store i32 %q, ptr addrspace(1) %p
  ret void
}
"""


def _opcodes(target) -> set[str]:
    from patterns.ir import parse_module
    from patterns.pipeline import build_function_dags

    fn = next(f for f in parse_module(_MIN3_BFE, "k.ll").functions if not f.is_declaration)
    fd = build_function_dags(fn, target, None)
    return {n.opcode for dag in fd.dags for n in dag.nodes}


def test_a_target_without_hooks_gets_none_of_amdgpus_dag_rules():
    """dslike declares no DAG hooks (only Select steps, targets/dslike/lowering.py): its DAG stage has the engine's visits only, no target
    combine, legalization, known bits, CSE'd target node or argument loads (it used to
    inherit AMDGPU's), and the DAGs of a kernel AMDGPU combines hold no AMDGPU node."""
    from patterns.dag.combine.context import CSE_OTHER
    from patterns.dag.combine.driver import dag_target, VISITORS

    dslike = load_target("dslike")
    t = dag_target(dslike)
    assert t.visitors == VISITORS and not t.combines and not t.lower and not t.known_lz
    assert t.cse_other == CSE_OTHER and not t.argument_load_ccs
    assert not {o for o in _opcodes(dslike) if o.startswith("AMDGPUISD::")}


def test_amdgpus_dag_hooks_fire():
    """amdgpu declares its rules in targets/amdgpu (dag_combine.py): the three-operand min
    (performMinMaxCombine) and the bit-field extract (performAndCombine, combine2) are
    formed, and selected (V_MIN3_I32, S_BFE_U32)."""
    from patterns.dag.combine.driver import dag_target

    amdgpu = load_target("amdgpu")
    t = dag_target(amdgpu)
    assert {"ISD::MUL", "ISD::AND", "ISD::SMIN", "AMDGPUISD::MUL_U24"} <= set(t.combines)
    assert set(t.lower) == {"ISD::CTLZ_ZERO_UNDEF", "ISD::CTTZ_ZERO_UNDEF"}
    assert "AMDGPUISD::BFE_U32" in t.cse_other and t.argument_load_ccs == {"amdgpu_kernel"}
    assert {"AMDGPUISD::SMIN3", "AMDGPUISD::BFE_U32"} <= _opcodes(amdgpu)


def test_a_targets_own_dag_combine_is_called(tmp_path):
    """A target of one's own declares a combine of ISD::MUL: the driver calls it with the
    node and the combine run once the generic visitMUL changed nothing, and keeps its
    rewrite (here ``mul x, y`` -> ``add x, x``); one of ISD::ADD, whose visit does not call
    the target's, is called after that visit."""
    spec = _target(tmp_path / "t", "lowering", {
        "lowering.py": """
            from tdgen.hooks import TargetHooks
            from patterns.dag.combine.context import set_result
            SEEN = []
            def combine_mul(node, ctx):
                SEEN.append(node.opcode)
                a, b = node.ops
                set_result(ctx, node, "ISD::ADD", [a, a])
                return True
            def note(node, ctx):
                SEEN.append(node.opcode)
                return False
            HOOKS = TargetHooks(dag_combine={"ISD::MUL": combine_mul, "ISD::ADD": note})
        """,
    })
    t = load_target(spec)
    hooks = target_hooks(t)
    ops = _opcodes(t)
    assert "ISD::MUL" not in ops and "ISD::ADD" in ops
    seen = hooks.dag_combine["ISD::MUL"].__globals__["SEEN"]
    assert set(seen) == {"ISD::MUL", "ISD::ADD"}

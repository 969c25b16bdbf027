"""Target hooks (tdgen.hooks): a spec names a module of its folder that defines
``HOOKS = TargetHooks(...)``; the loader checks it, the engine reads it through
``target_hooks``; a target without hooks gets the empty record."""

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


def test_a_target_without_hooks_gets_the_empty_record():
    t = load_target("dslike")
    assert t.hooks == ""
    assert target_hooks(t) is NO_HOOKS
    assert NO_HOOKS == TargetHooks() and NO_HOOKS.ir_passes == () and dict(NO_HOOKS.dag_combine) == {}


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

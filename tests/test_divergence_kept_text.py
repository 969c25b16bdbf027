"""``tdgen divergence`` output with the direct builder's kept source text equals the
output with every instruction printed by ir_print (the plain path): LLVM text, JSON,
``-S`` IR and reason chains, on generated kernels and the LLVM corpus."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from llvm_tools import require_corpus  # noqa: E402
from patterns.uniformity.analysis import analyze  # noqa: E402
from patterns.uniformity.printer import format_json, format_llvm  # noqa: E402
from patterns.ir import parse_module  # noqa: E402
from testkit.irgen import generate_kernel  # noqa: E402
from tdgen.errors import TdgenError  # noqa: E402
from tdgen.commands.divergence import module_ir  # noqa: E402


def _outputs(module, path: str) -> tuple:
    info = analyze(module)
    whys = [[s.format() for s in info.why(i)] for fu in info.functions for i in fu.function.instructions()]
    return format_llvm(info), format_json(info, path), module_ir(module), whys


def _both(text: str, path: str) -> tuple[int, tuple, tuple]:
    kept_mod = parse_module(text, path)
    kept = sum(1 for f in kept_mod.functions for i in f.instructions() if i._text is not None)
    plain_mod = parse_module(text, path)
    for f in plain_mod.functions:
        for i in f.instructions():
            i._text = None  # every text printed by ir_print
    return kept, _outputs(kept_mod, path), _outputs(plain_mod, path)


@pytest.mark.parametrize("seed,kw", [(0, {}), (1, {"divergent": False}), (2, {"loops": False}),
                                     (3, {"max_depth": 5})])
def test_kept_text_output_equals_printed_on_generated(seed, kw):
    text = generate_kernel(seed, 2000, **kw)
    kept, a, b = _both(text, "g.ll")
    assert kept > 1500  # the optimized path is the one taken
    assert a == b


def test_kept_text_output_equals_printed_on_corpus():
    files = sorted(require_corpus().rglob("*.ll"))
    kept_total = 0
    for path in files:
        text = path.read_text()
        try:
            kept, a, b = _both(text, str(path))
        except TdgenError:  # files outside the supported subset: tests/test_ir.py
            continue
        kept_total += kept
        assert a == b, path
    assert kept_total > 100, kept_total

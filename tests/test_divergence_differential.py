"""Differential test: ``tdgen divergence`` against ``opt-19 print<uniformity>`` on
generated kernels (random CFGs with irreducible cycles and switches from
testkit/divergence_gen.py; structured kernels with diamonds, nested loops and
divergent/uniform exits from testkit/irgen.py).

- ``--llvm19-compat`` must print what opt-19 prints (up to opt's hash ordering, see
  tests/divergence_oracle.py) for every function;
- the default mode must mark at least everything opt-19 marks, and may mark more only
  where LLVM 19's early stop misses a join (issue 137277), i.e. the default-mode lines
  differ from compat-mode lines only by added DIVERGENT marks.

Bounded for CI: 40 random-CFG functions + 20 structured kernels. Set
TDGEN_DIFF_COUNT=N to run N of each (bench/divergence.py --diff does the same).
"""

from __future__ import annotations

import os

import pytest

from divergence_oracle import comparable, divergent_lines, parse_report, run_opt
from llvm_tools import require

COUNT = int(os.environ.get("TDGEN_DIFF_COUNT", "0"))
N_CFG = COUNT or 40
N_KERNELS = COUNT or 20


def _ours(text: str, path: str, compat: bool) -> str:
    from patterns.uniformity.analysis import analyze
    from patterns.uniformity.printer import format_llvm
    from patterns.ir import parse_module
    from tdgen.commands.divergence import load_target_facts

    return format_llvm(analyze(parse_module(text, path), load_target_facts("amdgpu"), llvm19_compat=compat))


def _check(text: str, path: str, opt_text: str) -> int:
    theirs = parse_report(opt_text)
    compat = parse_report(_ours(text, path, True))
    default = parse_report(_ours(text, path, False))
    assert compat.keys() == theirs.keys()
    extra = 0
    for fn in theirs:
        assert comparable(compat[fn]) == comparable(theirs[fn]), f"{path} @{fn}: compat output differs from opt-19"
        d, c = default[fn]["lines"], compat[fn]["lines"]
        assert len(d) == len(c), fn
        for a, b in zip(d, c):
            if a != b:
                # only an added DIVERGENT mark on the same line is allowed
                assert a.startswith("  DIVERGENT: ") and not b.startswith("  DIVERGENT: ") and a[13:] == b[13:], (fn, a, b)
        assert divergent_lines(default[fn]) >= divergent_lines(theirs[fn])
        extra += len(divergent_lines(default[fn]) - divergent_lines(theirs[fn]))
    return extra


def test_random_cfgs_match_opt(tmp_path):
    opt = require("opt-19")
    from testkit.divergence_gen import generate_cfg_module

    text = generate_cfg_module(list(range(N_CFG)), 16)
    path = tmp_path / "cfgs.ll"
    path.write_text(text)
    _check(text, str(path), run_opt(opt, str(path)))


@pytest.mark.parametrize("chunk", range(2))
def test_structured_kernels_match_opt(tmp_path, chunk):
    opt = require("opt-19")
    from testkit.irgen import generate_kernel

    per = (N_KERNELS + 1) // 2
    for seed in range(chunk * per, min(N_KERNELS, (chunk + 1) * per)):
        text = generate_kernel(seed, 40 + 23 * (seed % 9), max_depth=2 + seed % 3, divergent=seed % 5 != 4)
        path = tmp_path / f"k{seed}.ll"
        path.write_text(text)
        _check(text, str(path), run_opt(opt, str(path)))


def test_default_mode_finds_the_joins_llvm19_misses(tmp_path):
    """The 137277 shape (if/else arms that are chains of blocks) built by hand: opt-19
    and compat mode call the join phi uniform; the default mode calls it divergent."""
    opt = require("opt-19")
    arms = []
    for side, n in (("l", 3), ("r", 2)):
        for i in range(n):
            nxt = f"{side}{i + 1}" if i + 1 < n else "join"
            arms.append(f"{side}{i}:\n  %{side}v{i} = add i32 %a, {i}\n  br label %{nxt}")
    text = (
        "define amdgpu_kernel void @k(i32 %a) {\nentry:\n"
        "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %c = icmp eq i32 %tid, 0\n"
        "  br i1 %c, label %r0, label %l0\n" + "\n".join(arms) + "\njoin:\n"
        "  %x = phi i32 [ %lv2, %l2 ], [ %rv1, %r1 ]\n  ret void\n}\n"
        "declare i32 @llvm.amdgcn.workitem.id.x()\n"
    )
    path = tmp_path / "chains.ll"
    path.write_text(text)
    opt_text = run_opt(opt, str(path))
    assert "DIVERGENT:   %x = phi" not in opt_text  # LLVM 19's miss, still present
    assert "DIVERGENT:   %x = phi" not in _ours(text, str(path), True)
    assert "DIVERGENT:   %x = phi" in _ours(text, str(path), False)
    assert _check(text, str(path), opt_text) == 1

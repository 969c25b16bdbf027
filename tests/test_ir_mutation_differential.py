"""Mutation differential of the IR front end (issue 20, "bad input"): seeded mutations of
corpus files (testkit/irmutate.py) must never be accepted by ``tdgen divergence`` when
``opt-19 -passes=verify`` rejects them, and tdgen must never fail with a traceback: a
rejection is exit 2 with ``path:line:col:`` on every message line.

Sources: LLVM's uniformity/isel/permute tests (MANIFEST PASS), LLVM's AMDGPU CodeGen tests
that opt-19 parses (up to 40 kB each), the golden pass files, and our OpenCL C corpus at
-O2 when clang-19 is installed; in that order, mutants spread over them round-robin.

Bounded in CI (300 mutants, opt-19 runs only on the ones tdgen accepts). The long run:
``TDGEN_IR_MUTATIONS=10000``; ``TDGEN_IR_MUTATIONS_REPORT=FILE`` writes the grouped
findings to FILE (Markdown) in either run.
"""

from __future__ import annotations

import os
from pathlib import Path

from llvm_tools import CODEGEN_CORPUS, CORPUS, codegen_oracle, manifest, require

ROOT = Path(__file__).resolve().parent.parent
COUNT = int(os.environ.get("TDGEN_IR_MUTATIONS", "0")) or 300
MAX_CHARS = 40_000


def _sources() -> list[tuple[str, str]]:
    out = []
    if (CORPUS / "MANIFEST.tsv").exists():
        for row in manifest():
            rel = row["relative_path"]
            if row["status_llvm19"] == "PASS" and rel.endswith(".ll"):
                out.append((f"llvm/{rel}", (CORPUS / rel).read_text()))
    if (CODEGEN_CORPUS / "ORACLE.tsv").exists():
        for row in codegen_oracle():
            text = (CODEGEN_CORPUS / row["relative_path"]).read_text()
            if row["opt_parses"] == "yes" and len(text) <= MAX_CHARS:
                out.append((f"llvm-codegen/{row['relative_path']}", text))
    for p in sorted((ROOT / "tests" / "golden" / "ir" / "pass").glob("*.ll")):
        out.append((f"golden/{p.name}", p.read_text()))
    from testkit.clang import clang_path, compile_cl, corpus_kernels

    if clang_path():
        for k in corpus_kernels():
            out.append((f"opencl/{k.stem}.O2", compile_cl(k, "O2")))
    return [s for s in out if len(s[1]) <= MAX_CHARS]


def _report(outcome, path: str) -> None:
    from testkit.irmutate import group

    lines = [f"# IR mutation differential: {COUNT} mutants", "",
             f"tdgen accepted {outcome.accepted}, rejected {outcome.rejected}; {len(outcome.findings)} findings", ""]
    for key, fs in group(outcome.findings).items():
        lines += [f"## {key} ({len(fs)})", ""]
        for f in fs[:5]:
            lines.append(f"- `{f.mutant.source}` mutant {f.mutant.index} ({f.mutant.kind}): {f.detail[:300]}")
        lines.append("")
    Path(path).write_text("\n".join(lines))


def test_tdgen_accepts_only_what_opt_accepts_and_never_tracebacks(tmp_path):
    opt = require("opt-19")
    from testkit.irmutate import differential, mutants

    sources = _sources()
    assert len(sources) >= 50, len(sources)
    outcome = differential(mutants(sources, COUNT, seed=20), opt, tmp_path)
    if os.environ.get("TDGEN_IR_MUTATIONS_REPORT"):
        _report(outcome, os.environ["TDGEN_IR_MUTATIONS_REPORT"])
    # the mutants exercise both verdicts
    assert outcome.accepted >= COUNT // 20 and outcome.rejected >= COUNT // 3, (outcome.accepted, outcome.rejected)
    shown = "\n".join(f"{f.kind}: {f.mutant.source} mutant {f.mutant.index} ({f.mutant.kind}) -> {f.path}: "
                      f"{f.detail[:200]}" for f in outcome.findings[:20])
    assert not outcome.findings, f"{len(outcome.findings)} findings, the first:\n{shown}"


def test_mutations_are_seeded_and_varied():
    """The same seed gives the same mutants; every mutation kind applies to a real kernel."""
    import random

    from testkit.irmutate import KINDS, mutants
    from testkit.irmutate import mutate
    from testkit.irgen import generate_kernel

    src = [("k", generate_kernel(1, 60))]
    a = [m.text for m in mutants(src, 40, seed=3)]
    assert a == [m.text for m in mutants(src, 40, seed=3)]
    assert a != [m.text for m in mutants(src, 40, seed=4)]
    assert all(t != src[0][1] for t in a)
    seen = set()
    for i in range(400):
        kind, new = mutate(src[0][1], random.Random(i))
        assert new != src[0][1]
        seen.add(kind)
    assert seen >= set(KINDS) - {"metadata"} or seen == set(KINDS), set(KINDS) - seen

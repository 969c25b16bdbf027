"""The source lines the reader keeps as instruction texts (``Instruction._text``, made by
patterns/ir/parser_body.py when a line is already what opt prints) are exactly what the
printer (patterns/ir/printer.py, compared with opt-19 in tests/test_ir.py) prints for
those instructions: over the golden pass files, LLVM's tests in the shared corpus, our
OpenCL kernels compiled by clang-19, and the bench kernel in every textual form, and
over seeded mutations of them (a mutant the reader accepts keeps only such lines).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from llvm_tools import CODEGEN_CORPUS, CORPUS, codegen_oracle, manifest

ROOT = Path(__file__).resolve().parent.parent


def _sources() -> list[tuple[str, str]]:
    out = [(f"golden/{p.name}", p.read_text()) for p in sorted((ROOT / "tests/golden/ir/pass").glob("*.ll"))]
    if (CORPUS / "MANIFEST.tsv").exists():
        out += [(r["relative_path"], (CORPUS / r["relative_path"]).read_text()) for r in manifest()
                if r["status_llvm19"] == "PASS" and r["relative_path"].endswith(".ll")]
    if (CODEGEN_CORPUS / "ORACLE.tsv").exists():
        out += [(r["relative_path"], (CODEGEN_CORPUS / r["relative_path"]).read_text()) for r in codegen_oracle()
                if r["opt_parses"] == "yes"]
    from testkit.clang import clang_path, compile_cl, corpus_kernels

    if clang_path():
        out += [(f"{k.stem}.{o}", compile_cl(k, o)) for k in corpus_kernels() for o in ("O0", "O2")]
    from testkit.irgen import generate_kernel

    k = generate_kernel(7, 3000)
    out += [("kernel", k), ("kernel-volatile", re.sub(r"(?m)^(  )store ", r"\1store volatile ", k)),
            ("kernel-metadata", "\n".join(ln + ", !tdgen.tag !0" if ln.startswith("  ") else ln
                                          for ln in k.split("\n")) + '\n!0 = !{!"x"}\n')]
    return out


def _check(name: str, text: str) -> int:
    """Parse ``text``; every kept line equals the printed text. Returns the lines kept
    (-1: the reader rejects the text)."""
    from patterns.ir import parse_module
    from patterns.ir.printer import instruction_text
    from tdgen.errors import TdgenError

    try:
        mod = parse_module(text, name)
    except TdgenError:
        return -1
    kept = 0
    for f in mod.functions:
        for b in f.blocks:
            for inst in b.instructions:
                t = inst._text
                if t is not None:
                    kept += 1
                    assert t == "  " + instruction_text(inst), (name, t)
    return kept


@pytest.fixture(scope="module")
def sources():
    return _sources()


def test_kept_lines_are_the_printed_text(sources):
    kept = {name: _check(name, text) for name, text in sources}
    assert all(n >= 0 for n in kept.values()), [k for k, n in kept.items() if n < 0]
    # the plain kernel's lines are kept (where the speed is), mostly
    insts = sum(1 for ln in dict(sources)["kernel"].split("\n") if ln.startswith("  "))
    assert kept["kernel"] >= insts * 3 // 4, (kept["kernel"], insts)
    assert kept["kernel-volatile"] == kept["kernel"] and kept["kernel-metadata"] == kept["kernel"]


def test_kept_lines_of_mutants_are_the_printed_text(sources):
    from testkit.irmutate import mutate

    small = [s for s in sources if len(s[1]) < 40_000]
    accepted = 0
    for i in range(600):
        name, text = small[i % len(small)]
        rng = random.Random(f"kept:{i}")
        _, new = mutate(text, rng)
        accepted += _check(f"{name}#{i}", new) >= 0
    assert accepted >= 30

"""StructurizeCFG (patterns/llc/structurize.py) against ``opt-19 -passes=structurizecfg``.

On reducible random CFGs with a return (testkit.divergence_gen: loops, nested diamonds,
unreachable blocks, inline asm and atomics in the blocks) and on the isel generator's
kernels (testkit.iselgen: diamonds and counted loops, nested), the function our pass
leaves prints exactly as opt-19's (names, block order, phi operand order, the inverted
compares). The region trees equal opt-19's ``print<regions>``. CI runs the bounded
counts below; ``TDGEN_STRUCTURIZE_COUNT=N`` runs N inputs of each generator.
What is not modelled is refused with one error at the terminator.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.llvm_tools import require

COUNT = int(os.environ.get("TDGEN_STRUCTURIZE_COUNT", "0") or 0)
CFG_SEEDS = range(COUNT or 160)
ISEL_SEEDS = range(COUNT or 60)


def _opt(text: str, passes: str) -> subprocess.CompletedProcess:
    return subprocess.run([require("opt-19"), "-S", f"-passes={passes}", "-o", "-"], input=text,
                          capture_output=True, text=True)


def _texts(text: str, structurize: bool) -> dict:
    from patterns.ir import parse_module
    from patterns.ir.printer import function_text
    from patterns.llc.structurize import structurize_cfg

    m = parse_module(text, "k.ll")
    out = {}
    for f in m.functions:
        if f.is_declaration:
            continue
        if structurize:
            structurize_cfg(f)
        out[f.name] = function_text(f)
    return out


def _modelled(text: str) -> bool:
    """Whether the pass takes the function (reducible, every block returning)."""
    from patterns.ir import parse_module
    from patterns.llc.structurize import structurize_cfg
    from tdgen.errors import VerifyError

    try:
        for f in parse_module(text, "k.ll").functions:
            if not f.is_declaration:
                structurize_cfg(f)
    except VerifyError:
        return False
    return True


def _compare(texts) -> tuple[int, list]:
    ran, bad = 0, []
    for seed, text in texts:
        if not _modelled(text):
            continue
        r = _opt(text, "structurizecfg")
        assert r.returncode == 0, r.stderr
        want = _texts(r.stdout, False)
        got = _texts(text, True)
        ran += 1
        if got != want:
            bad.append(seed)
    return ran, bad


def test_random_cfgs_structurize_as_opt_does():
    from testkit.divergence_gen import generate_cfg_module

    ran, bad = _compare((s, generate_cfg_module([s], 4 + s % 8)) for s in CFG_SEEDS)
    assert ran >= len(CFG_SEEDS) // 3, ran  # (the rest is irreducible or never returns)
    assert not bad, f"{len(bad)} of {ran} functions differ from opt-19's, seeds {bad[:10]}"


def test_isel_kernels_structurize_as_opt_does():
    from testkit.iselgen import generate_isel_kernel

    ran, bad = _compare((s, generate_isel_kernel(s, 30 + s % 50, constants=bool(s % 2))) for s in ISEL_SEEDS)
    assert ran == len(ISEL_SEEDS)
    assert not bad, f"{len(bad)} of {ran} kernels differ from opt-19's, seeds {bad[:10]}"


def test_flow_blocks_are_made_and_named_as_opt_names_them():
    """An if-then-else: the else arm first (reverse post-order), a Flow block with the
    phis of the rewired edges (undef where nothing flows) and the branch condition, the
    compare inverted in place of an ``xor %c, true``."""
    text = ("define void @f(ptr addrspace(1) %out, i32 %a, i32 %b) {\nentry:\n  %c = icmp eq i32 %a, %b\n"
            "  br i1 %c, label %then, label %else\nthen:\n  %x = add i32 %a, 5\n  br label %join\nelse:\n"
            "  %y = mul i32 %b, 7\n  br label %join\njoin:\n  %p = phi i32 [ %x, %then ], [ %y, %else ]\n"
            "  store i32 %p, ptr addrspace(1) %out\n  ret void\n}\n")
    got = _texts(text, True)["f"]
    assert got == _texts(_opt(text, "structurizecfg").stdout, False)["f"]
    assert "%c = icmp ne i32 %a, %b" in got and "Flow:" in got and "phi i32 [ %y, %else ], [ undef, %entry ]" in got


def test_region_trees_equal_opts():
    import re

    from patterns.ir import parse_module
    from patterns.ir.dominators import immediate_dominators
    from patterns.llc.cfgedit import EditableCFG
    from patterns.llc.regions import RegionInfo
    from testkit.divergence_gen import generate_cfg_module

    checked = 0
    for s in CFG_SEEDS:
        text = generate_cfg_module([s], 4 + s % 8)
        if not _modelled(text):
            continue
        f = next(f for f in parse_module(text, "k.ll").functions if not f.is_declaration)
        cfg = EditableCFG(f, immediate_dominators(f))
        ri = RegionInfo(f, cfg.idom, cfg.dominates, cfg.succs)
        got: list = []

        def walk(r, d):
            got.append(f"[{d}] {r.entry.name} => {r.exit.name if r.exit is not None else '<Function Return>'}")
            for c in r.children:
                walk(c, d + 1)

        walk(ri.top, 0)
        r = subprocess.run([require("opt-19"), "-disable-output", "-passes=print<regions>"], input=text,
                           capture_output=True, text=True)
        want = [re.sub(r"^\s+", "", ln) for ln in r.stderr.splitlines() if ln.strip().startswith("[")]
        assert got == want, f"seed {s}"
        checked += 1
    assert checked >= len(CFG_SEEDS) // 3


@pytest.mark.parametrize("body, message", [
    ("entry:\n  br i1 %c, label %a, label %b\na:\n  br label %b\nb:\n  br i1 %c, label %a, label %r\nr:\n"
     "  ret void\n", "k.ll:7:3: expected reducible control flow in @f, found a cycle entered at %a from %b without "
     "passing a block that dominates it (FixIrreducible: not modelled)"),
    ("entry:\n  br label %a\na:\n  br label %a\n", "k.ll:3:3: expected a function StructurizeCFG can work on in @f "
     "(every block leading to a return), found %entry, from which no path returns (the extra post-dominator tree "
     "roots of an endless loop: not modelled)"),
    ("entry:\n  switch i32 %n, label %x [ i32 1, label %y ]\ny:\n  br label %x\nx:\n  ret void\n",
     "k.ll:3:3: expected a terminator StructurizeCFG handles in @f (br, callbr, ret, unreachable), found 'switch' "
     "(not modelled)"),
])
def test_what_is_not_modelled_is_one_error_at_the_terminator(body, message):
    from patterns.ir import parse_module
    from patterns.llc.structurize import structurize_cfg
    from tdgen.errors import VerifyError

    f = parse_module(f"define void @f(i1 %c, i32 %n) {{\n{body}}}\n", "k.ll").functions[0]
    with pytest.raises(VerifyError) as e:
        structurize_cfg(f)
    assert str(e.value) == message


def _llc_stage(text: str, flag: str) -> str | None:
    """The module as llc-19 has it just before / after its StructurizeCFG pass (the IR
    block of ``-stop-before``/``-stop-after``'s MIR file)."""
    r = subprocess.run([require("llc-19"), "-mtriple=amdgcn", "-mcpu=gfx900", "-O2", f"-{flag}=structurizecfg",
                        "-o", "-", "-"], input=text, capture_output=True, text=True)
    if r.returncode != 0:  # (a test input llc itself rejects, e.g. one made for an error)
        return None
    lines = r.stdout.splitlines()
    assert lines and lines[0] == "--- |", lines[:1]
    keep = []
    for ln in lines[1:]:
        if ln.startswith(("...", "---")):
            break
        keep.append(ln[2:])
    return "\n".join(keep) + "\n"


def _flow_names(text: str) -> str:
    """Flow blocks renamed in order of appearance: llc's symbol table has counted name
    clashes of its earlier passes (``Flow13``), a counter the printed IR does not carry."""
    import re

    names: dict = {}
    return re.sub(r"\bFlow\d*\b", lambda m: names.setdefault(m.group(0), f"Flow#{len(names)}"), text)


def _real_inputs():
    from testkit.clang import compile_cl, corpus_kernels
    from tests.llvm_tools import CODEGEN_CORPUS

    for k in corpus_kernels():
        yield k.name, lambda k=k: compile_cl(k, "O2", clang=require("clang-19"))
    for p in sorted(CODEGEN_CORPUS.glob("*.ll")):
        yield p.name, p.read_text


def test_llcs_own_input_structurizes_as_llc_does():
    """What llc-19 itself feeds its StructurizeCFG (after its IR passes) on real kernels
    (the OpenCL C corpus compiled by clang-19) and LLVM's AMDGPU CodeGen tests: our pass
    leaves each function as llc's pass does (Flow block numbering aside, see
    ``_flow_names``). Functions the pass refuses (callbr, endless loops) are counted."""
    from patterns.ir import parse_module
    from patterns.ir.printer import function_text
    from patterns.llc.structurize import structurize_cfg
    from tdgen.errors import VerifyError

    equal, refused, bad = 0, 0, []
    for name, read in _real_inputs():
        text = read()
        pre, post = _llc_stage(text, "stop-before"), _llc_stage(text, "stop-after")
        if pre is None or post is None:
            continue
        before = parse_module(pre, f"{name}.before.ll")
        after = {f.name: f for f in parse_module(post, f"{name}.after.ll").functions}
        for f in before.functions:
            if f.is_declaration:
                continue
            try:
                structurize_cfg(f)
            except VerifyError:
                refused += 1
                continue
            if _flow_names(function_text(f)) == _flow_names(function_text(after[f.name])):
                equal += 1
            else:
                bad.append(f"{name}:@{f.name}")
    assert equal > 500, equal
    assert refused < 10, refused
    # (infinite-loop.ll's @infinite_loops: llc has already given its endless loop an exit
    # block, which our pass, not modelling the post-dominator roots, takes differently)
    assert bad == ["infinite-loop.ll:@infinite_loops"], bad

"""LowerSwitch (patterns/llc/lowerswitch.py) against ``opt-19 -passes=lower-switch``.

On the CFG generator's kernels with switches (testkit.cfggen: switches on ``and %v, 3``
with one to three cases, phis in the join) and on hand-written functions (dense and
sparse cases, merged case ranges, unreachable defaults, phis with several edges from
the switch in the destinations and the default, i8/i64/negative cases, conditions with
known bits or a ``range`` attribute, several switches in one function, a switch in an
unreachable block) the function our pass leaves prints exactly as opt-19's (block names
and order, the tests and their names, phi entries). CI runs a bounded count of
generated kernels; ``TDGEN_LOWERSWITCH_COUNT=N`` runs N seeds.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.llvm_tools import require

COUNT = int(os.environ.get("TDGEN_LOWERSWITCH_COUNT", "0") or 0)
SEEDS = range(COUNT or 60)


def _opt(text: str) -> str:
    r = subprocess.run([require("opt-19"), "-S", "-passes=lower-switch", "-o", "-"], input=text,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _texts(text: str, lower: bool) -> dict:
    from patterns.ir import parse_module
    from patterns.ir.printer import function_text
    from patterns.llc.lowerswitch import lower_switches

    m = parse_module(text, "k.ll")
    out = {}
    for f in m.functions:
        if f.is_declaration:
            continue
        if lower:
            lower_switches(f)
        out[f.name] = function_text(f)
    return out


def _same(text: str) -> bool:
    return _texts(text, True) == _texts(_opt(text), False)


def test_generated_kernels_lower_as_opt_does():
    from testkit.cfggen import generate_cfg_kernel

    total, bad = 0, []
    for s in SEEDS:
        text = generate_cfg_kernel(s, 40)
        if "switch" not in text:
            continue
        total += 1
        if not _same(text):
            bad.append(s)
    print(f"lowerswitch: {total - len(bad)}/{total} generated kernels equal opt-19's")
    assert total >= len(SEEDS) // 5, total
    assert not bad, f"{len(bad)} of {total} kernels differ from opt-19's, seeds {bad[:10]}"


def _fn(args: str, body: str) -> str:
    return f"define void @f({args}) {{\n{body}}}\n"


_OUT = "ptr addrspace(1) %out"
# (each: the arguments, the body; every function stores what the successors compute)
HAND = {
    "dense": ("i32 %x, " + _OUT,
              "entry:\n  switch i32 %x, label %d [\n    i32 0, label %a\n    i32 1, label %b\n    i32 2, label %c\n"
              "    i32 3, label %a\n    i32 4, label %b\n    i32 5, label %c\n  ]\n"
              "a:\n  store i32 1, ptr addrspace(1) %out\n  br label %j\nb:\n  store i32 2, ptr addrspace(1) %out\n"
              "  br label %j\nc:\n  br label %j\nd:\n  br label %j\nj:\n  ret void\n"),
    "sparse": ("i32 %x, " + _OUT,
               "entry:\n  switch i32 %x, label %d [\n    i32 -5, label %a\n    i32 100, label %b\n"
               "    i32 1000, label %a\n    i32 77777, label %c\n    i32 1, label %b\n  ]\n"
               "a:\n  br label %j\nb:\n  br label %j\nc:\n  br label %j\nd:\n  br label %j\n"
               "j:\n  %p = phi i32 [ 1, %a ], [ 2, %b ], [ 3, %c ], [ 4, %d ]\n"
               "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "ranges_and_phis": ("i32 %x, i32 %y, " + _OUT,
                        "entry:\n  switch i32 %x, label %d [\n    i32 1, label %a\n    i32 2, label %a\n"
                        "    i32 3, label %a\n    i32 4, label %b\n    i32 5, label %b\n    i32 10, label %a\n"
                        "    i32 11, label %a\n    i32 12, label %a\n    i32 20, label %d\n    i32 30, label %b\n"
                        "  ]\na:\n  %pa = phi i32 [ %y, %entry ], [ %y, %entry ], [ %y, %entry ], [ %y, %entry ],"
                        " [ %y, %entry ], [ %y, %entry ]\n  br label %j\n"
                        "b:\n  %pb = phi i32 [ 7, %entry ], [ 7, %entry ], [ 7, %entry ]\n  br label %j\n"
                        "d:\n  %pd = phi i32 [ %x, %entry ], [ %x, %entry ]\n  br label %j\n"
                        "j:\n  %p = phi i32 [ %pa, %a ], [ %pb, %b ], [ %pd, %d ]\n"
                        "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "unreachable_default": ("i32 %x, " + _OUT,
                            "entry:\n  switch i32 %x, label %d [\n    i32 0, label %a\n    i32 1, label %b\n"
                            "    i32 2, label %b\n    i32 3, label %b\n    i32 7, label %a\n    i32 9, label %c\n"
                            "  ]\na:\n  br label %j\nb:\n  %pb = phi i32 [ 1, %entry ], [ 1, %entry ], [ 1, %entry ]\n"
                            "  br label %j\nc:\n  br label %j\nd:\n  unreachable\n"
                            "j:\n  %p = phi i32 [ 1, %a ], [ %pb, %b ], [ 3, %c ]\n"
                            "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "unreachable_default_one_destination": ("i32 %x, " + _OUT,
                                            "entry:\n  switch i32 %x, label %d [\n    i32 0, label %a\n"
                                            "    i32 5, label %a\n  ]\na:\n  %q = phi i32 [ %x, %entry ], "
                                            "[ %x, %entry ]\n  store i32 %q, ptr addrspace(1) %out\n  ret void\n"
                                            "d:\n  unreachable\n"),
    "i8_negative": ("i8 %x, " + _OUT,
                    "entry:\n  switch i8 %x, label %d [\n    i8 -128, label %a\n    i8 -127, label %a\n"
                    "    i8 -3, label %b\n    i8 0, label %c\n    i8 126, label %b\n    i8 127, label %b\n  ]\n"
                    "a:\n  br label %j\nb:\n  br label %j\nc:\n  br label %j\nd:\n  br label %j\n"
                    "j:\n  %p = phi i8 [ 1, %a ], [ 2, %b ], [ 3, %c ], [ 4, %d ]\n"
                    "  store i8 %p, ptr addrspace(1) %out\n  ret void\n"),
    "i64_wide": ("i64 %x, " + _OUT,
                 "entry:\n  switch i64 %x, label %d [\n    i64 4294967296, label %a\n    i64 4294967297, label %a\n"
                 "    i64 -1, label %b\n    i64 12, label %c\n    i64 13, label %c\n    i64 14, label %c\n  ]\n"
                 "a:\n  br label %j\nb:\n  br label %j\nc:\n  br label %j\nd:\n  br label %j\n"
                 "j:\n  %p = phi i64 [ 1, %a ], [ 2, %b ], [ 3, %c ], [ 4, %d ]\n"
                 "  store i64 %p, ptr addrspace(1) %out\n  ret void\n"),
    "known_bits_full": ("i32 %v, " + _OUT,
                        "entry:\n  %x = and i32 %v, 7\n  switch i32 %x, label %d [\n    i32 0, label %a\n"
                        "    i32 1, label %a\n    i32 2, label %b\n    i32 3, label %b\n    i32 4, label %c\n"
                        "    i32 5, label %c\n    i32 6, label %c\n    i32 7, label %b\n  ]\n"
                        "a:\n  br label %j\nb:\n  br label %j\nc:\n  br label %j\n"
                        "d:\n  %dv = mul i32 %v, 3\n  br label %j\n"
                        "j:\n  %p = phi i32 [ 1, %a ], [ 2, %b ], [ 3, %c ], [ %dv, %d ]\n"
                        "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "known_bits_partial": ("i32 %v, " + _OUT,
                           "entry:\n  %x = and i32 %v, 7\n  switch i32 %x, label %d [\n    i32 2, label %a\n"
                           "    i32 3, label %a\n    i32 4, label %b\n    i32 6, label %c\n    i32 7, label %c\n  ]\n"
                           "a:\n  br label %j\nb:\n  br label %j\nc:\n  br label %j\nd:\n  br label %j\n"
                           "j:\n  %p = phi i32 [ 1, %a ], [ 2, %b ], [ 3, %c ], [ 4, %d ]\n"
                           "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "urem_zext_sext_lshr": ("i32 %v, i8 %w, " + _OUT,
                            "entry:\n  %r = urem i32 %v, 5\n  switch i32 %r, label %d [\n    i32 1, label %a\n"
                            "    i32 2, label %a\n    i32 3, label %b\n  ]\n"
                            "a:\n  %z = zext i8 %w to i32\n  switch i32 %z, label %d [\n    i32 0, label %b\n"
                            "    i32 200, label %c\n    i32 201, label %c\n    i32 255, label %c\n  ]\n"
                            "b:\n  %s = sext i8 %w to i32\n  switch i32 %s, label %d [\n    i32 -128, label %c\n"
                            "    i32 -1, label %j\n    i32 100, label %c\n    i32 127, label %j\n  ]\n"
                            "c:\n  %h = lshr i32 %v, 29\n  switch i32 %h, label %d [\n    i32 0, label %j\n"
                            "    i32 3, label %j\n    i32 6, label %d\n    i32 7, label %j\n  ]\n"
                            "d:\n  br label %j\nj:\n  ret void\n"),
    "range_attribute": ("i32 range(i32 0, 5) %x, " + _OUT,
                        "entry:\n  switch i32 %x, label %d [\n    i32 0, label %a\n    i32 1, label %b\n"
                        "    i32 3, label %a\n    i32 4, label %b\n  ]\n"
                        "a:\n  br label %j\nb:\n  br label %j\nd:\n  br label %j\n"
                        "j:\n  %p = phi i32 [ 1, %a ], [ 2, %b ], [ 4, %d ]\n"
                        "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "only_default_and_cases_to_default": ("i32 %x, " + _OUT,
                                          "entry:\n  switch i32 %x, label %d []\nd:\n"
                                          "  switch i32 %x, label %e [\n    i32 1, label %e\n    i32 2, label %e\n"
                                          "  ]\ne:\n  %p = phi i32 [ 5, %d ], [ 5, %d ], [ 5, %d ]\n"
                                          "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "unnamed_condition_and_offsets": ("i32 %v, " + _OUT,
                                      "entry:\n  %0 = add i32 %v, 1\n  switch i32 %0, label %d [\n"
                                      "    i32 10, label %a\n    i32 11, label %a\n    i32 12, label %a\n"
                                      "    i32 20, label %b\n    i32 21, label %b\n    i32 40, label %a\n  ]\n"
                                      "a:\n  br label %j\nb:\n  br label %j\nd:\n  br label %j\n"
                                      "j:\n  %p = phi i32 [ 1, %a ], [ 2, %b ], [ 4, %d ]\n"
                                      "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "dead_default_deleted": ("i32 %v, " + _OUT,
                             "entry:\n  %x = and i32 %v, 3\n  switch i32 %x, label %d [\n    i32 0, label %a\n"
                             "    i32 1, label %b\n    i32 2, label %a\n    i32 3, label %b\n  ]\n"
                             "a:\n  br label %j\nb:\n  br label %j\n"
                             "d:\n  %dv = mul i32 %v, 3\n  br label %j\n"
                             "j:\n  %p = phi i32 [ 1, %a ], [ 2, %b ], [ %dv, %d ]\n"
                             "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "switch_in_unreachable_block": ("i32 %x, " + _OUT,
                                    "entry:\n  br label %j\nu:\n  switch i32 %x, label %u [\n    i32 1, label %j\n"
                                    "  ]\nj:\n  %p = phi i32 [ 0, %entry ], [ 1, %u ]\n"
                                    "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "edge_constraint": ("i32 %x, i32 %y, " + _OUT,
                        "entry:\n  %c = icmp ult i32 %x, 3\n  %c2 = icmp sgt i32 %y, -4\n  %c3 = icmp slt i32 %y, 9\n"
                        "  %cc = and i1 %c2, %c3\n  br i1 %c, label %s, label %t\n"
                        "s:\n  switch i32 %x, label %d [\n    i32 0, label %a\n    i32 1, label %b\n"
                        "    i32 2, label %a\n  ]\nt:\n  br i1 %cc, label %u, label %j\n"
                        "u:\n  %o = add i32 %y, 10\n  switch i32 %y, label %d [\n    i32 -3, label %a\n"
                        "    i32 -2, label %a\n    i32 4, label %b\n    i32 8, label %b\n  ]\n"
                        "a:\n  br label %j\nb:\n  br label %j\nd:\n  br label %j\n"
                        "j:\n  %p = phi i32 [ 1, %a ], [ 2, %b ], [ 4, %d ], [ 5, %t ]\n"
                        "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "edge_constraint_offset_not_or": ("i32 %x, i32 %y, " + _OUT,
                                      "entry:\n  %o = add i32 %x, -5\n  %c = icmp ult i32 %o, 4\n"
                                      "  %n = xor i1 %c, true\n  br i1 %n, label %j, label %s\n"
                                      "s:\n  switch i32 %x, label %d [\n    i32 5, label %a\n    i32 7, label %b\n"
                                      "    i32 8, label %a\n  ]\n"
                                      "a:\n  br label %j\nb:\n  br label %j\nd:\n  br label %j\n"
                                      "j:\n  %p = phi i32 [ 1, %a ], [ 2, %b ], [ 4, %d ], [ 5, %entry ]\n"
                                      "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "switch_edges_and_phi_condition": ("i32 %x, i1 %q, " + _OUT,
                                       "entry:\n  switch i32 %x, label %j [\n    i32 1, label %s\n"
                                       "    i32 2, label %s\n    i32 3, label %m\n  ]\n"
                                       "m:\n  br i1 %q, label %m2, label %s\nm2:\n  br label %s\n"
                                       "s:\n  %k = phi i32 [ %x, %entry ], [ %x, %entry ], [ 7, %m ], [ 9, %m2 ]\n"
                                       "  switch i32 %k, label %d [\n    i32 1, label %a\n    i32 2, label %b\n"
                                       "    i32 7, label %a\n    i32 9, label %b\n  ]\n"
                                       "a:\n  br label %j\nb:\n  br label %j\nd:\n  br label %j\n"
                                       "j:\n  %p = phi i32 [ 1, %a ], [ 2, %b ], [ 4, %d ], [ 5, %entry ]\n"
                                       "  store i32 %p, ptr addrspace(1) %out\n  ret void\n"),
    "in_a_loop": ("i32 %n, " + _OUT,
                  "entry:\n  br label %h\nh:\n  %i = phi i32 [ 0, %entry ], [ %i1, %l ]\n  %k = and i32 %i, 3\n"
                  "  switch i32 %k, label %l [\n    i32 0, label %a\n    i32 2, label %a\n  ]\n"
                  "a:\n  store i32 %i, ptr addrspace(1) %out\n  br label %l\n"
                  "l:\n  %i1 = add i32 %i, 1\n  %c = icmp slt i32 %i1, %n\n  br i1 %c, label %h, label %x\n"
                  "x:\n  ret void\n"),
}


@pytest.mark.parametrize("name", sorted(HAND))
def test_hand_written_switches_lower_as_opt_does(name):
    args, body = HAND[name]
    text = _fn(args, body)
    got, want = _texts(text, True), _texts(_opt(text), False)
    assert got == want, f"{name}:\n--- ours\n{got['f']}\n--- opt-19\n{want['f']}"


def test_the_tree_is_made_and_named_as_opt_makes_it():
    """A sparse switch: the entry branches to the root NodeBlock (made last: its name
    numbered after its subtrees'), which tests the middle case with ``slt`` and comes
    right after the entry; leaves test ``eq``; no switch is left."""
    import re

    args, body = HAND["sparse"]
    got = _texts(_fn(args, body), True)["f"]
    assert "switch" not in got
    lines = got.splitlines()
    root = re.fullmatch(r"  br label %(NodeBlock\d+)", lines[1]).group(1)
    assert lines[2] == f"{root}:" and re.fullmatch(r"  %Pivot\d+ = icmp slt i32 %x, 100", lines[3])
    assert "%SwitchLeaf = icmp eq i32 %x" in got and "LeafBlock:" in got


def test_the_pass_leaves_a_function_without_switch_as_it_is():
    from patterns.ir import parse_module
    from patterns.llc.lowerswitch import lower_switches

    f = parse_module(_fn("i32 %x", "entry:\n  ret void\n"), "k.ll").functions[0]
    assert lower_switches(f) is False


def _llc_stage(text: str, flag: str) -> str | None:
    """The module as llc-19 (AMDGPU) has it just before / after its LowerSwitch (the IR
    block of ``-stop-before``/``-stop-after``'s MIR file)."""
    r = subprocess.run([require("llc-19"), "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx900", "-O2",
                        f"-{flag}=lowerswitch", "-o", "-", "-"], input=text, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    lines = r.stdout.splitlines()
    keep = []
    for ln in lines[1:]:
        if ln.startswith(("...", "---")):
            break
        keep.append(ln[2:])
    return "\n".join(keep) + "\n"


def _renumbered(text: str) -> str:
    """The pass's names renumbered in order of appearance: llc's symbol table has counted
    the name clashes of its earlier passes (``NodeBlock6``), a counter the printed IR
    does not carry."""
    import re

    names: dict = {}
    return re.sub(r"\b(NodeBlock|LeafBlock|Pivot|SwitchLeaf)\d*\b",
                  lambda m: names.setdefault(m.group(0), f"{m.group(1)}#{len(names)}"), text)


def test_llcs_own_input_lowers_as_llc_does():
    """What llc-19 itself gives its LowerSwitch (after CodeGenPrepare: kernel arguments
    loaded, conditions widened, LazyValueInfo in llc's pipeline) on LLVM's AMDGPU CodeGen
    tests with switches, the OpenCL corpus's switch kernel and generated kernels whose
    switch survives CodeGenPrepare: our pass leaves each function as llc's does."""
    from testkit.cfggen import generate_cfg_kernel
    from testkit.clang import compile_cl, corpus_kernels
    from tests.llvm_tools import CODEGEN_CORPUS

    inputs = [(p.name, p.read_text()) for p in sorted(CODEGEN_CORPUS.glob("*.ll"))
              if "switch i" in p.read_text()]
    inputs += [(k.name, compile_cl(k, "O2", clang=require("clang-19"))) for k in corpus_kernels()
               if "switch" in k.read_text()]
    inputs += [(f"cfg{s}", t) for s in range(COUNT or 40) if "switch" in (t := generate_cfg_kernel(s, 40))]
    total, bad = 0, []
    for name, text in inputs:
        pre = _llc_stage(text, "stop-before")
        if pre is None or "switch i" not in pre:
            continue
        total += 1
        got = {k: _renumbered(v) for k, v in _texts(pre, True).items()}
        want = {k: _renumbered(v) for k, v in _texts(_llc_stage(text, "stop-after"), False).items()}
        if got != want:
            bad.append(name)
    print(f"lowerswitch: {total - len(bad)}/{total} of llc's own inputs equal llc-19's")
    assert total >= 8, total
    assert not bad, f"{len(bad)} of {total} differ from llc-19's: {bad[:10]}"

"""CodeGenPrepare's switch steps (patterns/llc/cgp_switch.py, with the empty-block merge of
patterns/llc/emptyblocks.py) against ``opt-19 -codegenprepare`` for AMDGPU (gfx900).

Hand-written functions (no dead code, which the engine's IR keeps and LLVM's EarlyCSE has
deleted by then): an i8 switch widened to i16 (``zext``; ``sext`` for a ``signext``
argument), cases to the default removed, a switch left with one case made a compare
``%cond``, a switch with one destination made a ``br`` with its condition deleted, a
switch on a constant, an unreachable default set aside, and empty case blocks merged or
kept by the frequency test. The function our steps leave prints as opt-19's.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.llvm_tools import require

_OUT = "ptr addrspace(1) %out"
_J = "j:\n  %p = phi i32 {}\n  store i32 %p, ptr addrspace(1) %out\n  ret void\n"
CASES = {
    "i8_widened": ("i8 %x, " + _OUT,
                   "  switch i8 %x, label %d [ i8 1, label %a  i8 -5, label %b  i8 7, label %a ]\n"
                   "a:\n  store i32 1, ptr addrspace(1) %out\n  br label %j\nb:\n  store i32 2, ptr addrspace(1) %out\n"
                   "  br label %j\nd:\n  store i32 3, ptr addrspace(1) %out\n  br label %j\n"
                   + _J.format("[ 1, %a ], [ 2, %b ], [ 3, %d ]")),
    "i8_signext": ("i8 signext %x, " + _OUT,
                   "  switch i8 %x, label %d [ i8 1, label %a  i8 -5, label %b ]\n"
                   "a:\n  store i32 1, ptr addrspace(1) %out\n  br label %j\nb:\n  store i32 2, ptr addrspace(1) %out\n"
                   "  br label %j\nd:\n  store i32 3, ptr addrspace(1) %out\n  br label %j\n"
                   + _J.format("[ 1, %a ], [ 2, %b ], [ 3, %d ]")),
    "cases_to_default_one_left": ("i32 %x, " + _OUT,
                                  "  switch i32 %x, label %d [ i32 1, label %a  i32 2, label %d  i32 3, label %d ]\n"
                                  "a:\n  store i32 1, ptr addrspace(1) %out\n  br label %j\n"
                                  "d:\n  %q = phi i32 [ 5, %entry ], [ 5, %entry ], [ 5, %entry ]\n"
                                  "  store i32 %q, ptr addrspace(1) %out\n  br label %j\n"
                                  + _J.format("[ 1, %a ], [ 3, %d ]")),
    "one_destination": ("i32 %v, " + _OUT,
                        "  %x = and i32 %v, 3\n  switch i32 %x, label %a [ i32 1, label %a  i32 2, label %a ]\n"
                        "a:\n  %q = phi i32 [ 5, %entry ], [ 5, %entry ], [ 5, %entry ]\n  br label %j\n"
                        + _J.format("[ %q, %a ]")),
    "constant_condition": (_OUT,
                           "  switch i32 2, label %d [ i32 1, label %a  i32 2, label %b ]\n"
                           "a:\n  store i32 1, ptr addrspace(1) %out\n  br label %j\nb:\n  store i32 2, ptr addrspace(1) %out\n"
                           "  br label %j\nd:\n  store i32 3, ptr addrspace(1) %out\n  br label %j\n"
                           + _J.format("[ 1, %a ], [ 2, %b ], [ 3, %d ]")),
    "unreachable_default": ("i32 %x, " + _OUT,
                            "  switch i32 %x, label %d [ i32 1, label %a  i32 2, label %a ]\n"
                            "a:\n  store i32 1, ptr addrspace(1) %out\n  br label %j\nd:\n  unreachable\n"
                            + _J.format("[ 1, %a ]")),
    "empty_cases_kept": ("i32 %x, " + _OUT,
                         "  switch i32 %x, label %d [ i32 0, label %a  i32 1, label %b  i32 2, label %c ]\n"
                         "a:\n  br label %j\nb:\n  br label %j\nc:\n  br label %j\n"
                         "d:\n  store i32 9, ptr addrspace(1) %out\n  br label %j\n"
                         + _J.format("[ 1, %a ], [ 2, %b ], [ 3, %c ], [ 4, %d ]")),
    "empty_case_merged": ("i32 %x, " + _OUT,
                          "  switch i32 %x, label %d [ i32 0, label %a ]\na:\n  br label %j\n"
                          "d:\n  store i32 9, ptr addrspace(1) %out\n  br label %j\n"
                          + _J.format("[ 1, %a ], [ 4, %d ]")),
    "empty_cases_same_values_merged": ("i32 %x, " + _OUT,
                                       "  switch i32 %x, label %d [ i32 0, label %a  i32 5, label %b ]\n"
                                       "a:\n  br label %j\nb:\n  br label %j\n"
                                       "d:\n  store i32 9, ptr addrspace(1) %out\n  br label %j\n"
                                       + _J.format("[ 1, %a ], [ 1, %b ], [ 4, %d ]")),
    "empty_case_no_phis": ("i32 %x, " + _OUT,
                           "  switch i32 %x, label %d [ i32 0, label %a  i32 5, label %b  i32 6, label %c ]\n"
                           "a:\n  br label %j2\nb:\n  store i32 2, ptr addrspace(1) %out\n  br label %j2\n"
                           "c:\n  store i32 3, ptr addrspace(1) %out\n  br label %j2\n"
                           "d:\n  store i32 9, ptr addrspace(1) %out\n  br label %j2\nj2:\n  ret void\n"),
}


def _text(args: str, body: str) -> str:
    return f"define void @f({args}) {{\nentry:\n{body}}}\n"


def _ours(text: str) -> str:
    from patterns.ir import parse_module
    from patterns.ir.printer import function_text
    from patterns.llc.cgp_switch import widen_switch_conditions
    from patterns.llc.codegenprepare import fold_constant_branches_into
    from patterns.llc.emptyblocks import eliminate_mostly_empty_blocks
    from patterns.llc.unreachable import remove_unreachable_blocks_into, replace_phis
    from tdgen.commands.common import load_target

    f = parse_module(text, "k.ll").functions[0]
    eliminate_mostly_empty_blocks(f)
    widen_switch_conditions(f, load_target("amdgpu"))
    gone: dict = {}
    fold_constant_branches_into(f, gone)
    remove_unreachable_blocks_into(f, gone)
    replace_phis(f, gone)
    from patterns.llc.cfgedit import EditableCFG

    EditableCFG(f, {}).finish()
    return function_text(f)


def _opts(text: str) -> str:
    from patterns.ir import parse_module
    from patterns.ir.printer import function_text

    r = subprocess.run([require("opt-19"), "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx900", "-codegenprepare", "-S",
                        "-o", "-"], input=text, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return function_text(parse_module(r.stdout, "k.ll").functions[0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_switch_steps_leave_the_function_as_opt_does(name):
    text = _text(*CASES[name])
    got, want = _ours(text), _opts(text)
    assert got == want, f"{name}:\n--- ours\n{got}\n--- opt-19\n{want}"

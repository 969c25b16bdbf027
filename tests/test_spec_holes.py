"""The spec holes of issue 24 that need more than a golden file: LLVM's GlobPattern
itself, a target folder, Python's warnings, ``generate``'s atomicity and file modes,
``tdgen list`` with a broken target.

- ``tdgen.globpattern`` against the real ``llvm::GlobPattern::create`` / ``match``
  (a probe compiled with g++ against LLVM 19's headers and libLLVM-19, as
  tests/test_cpp_divergence.py builds the generated C++), on seeded random globs and
  names over the characters that matter;
- ``Target(name)`` in ``targets/<folder>/`` with another name is an error;
- no SyntaxWarning is printed before a spec's error;
- ``generate`` with an output file replaced by a folder: exit 2, nothing replaced, no
  ``.tdgen-tmp-*``; written files have the umask's mode; a path from a spec never
  leaves ``--out``;
- ``tdgen list`` lists the good targets and reports each broken one (exit 2);
- ``tdgen.check.llvm_names`` (the names Target.td already defines) is llvm-tblgen-19's list.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from cpp_tools import build_driver
from tdgen import cli, emit
from tdgen.fsutil import check_inside, write_tree
from tdgen.globpattern import compile_glob, glob_problem

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "spec" / "fail"

PROBE = r"""
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"
#include <deque>
#include <iostream>
#include <optional>
#include <string>
// stdin: "P\t<glob>" then "N\t<name>" lines; prints "create 0|1" and "match 0|1"
int main() {
  std::string Line;
  std::deque<std::string> Keep; // GlobPattern keeps a StringRef to its prefix
  std::optional<llvm::GlobPattern> G;
  while (std::getline(std::cin, Line)) {
    Keep.push_back(Line.substr(2));
    if (Line[0] == 'P') {
      auto R = llvm::GlobPattern::create(Keep.back());
      if (!R) { llvm::consumeError(R.takeError()); G.reset(); std::cout << "create 0\n"; }
      else { G = std::move(*R); std::cout << "create 1\n"; }
    } else {
      std::cout << "match " << (G && G->match(Keep.back())) << "\n";
    }
  }
}
"""


def test_globs_are_read_and_matched_as_llvm_globpattern(tmp_path):
    driver = tmp_path / "glob_probe.cpp"
    driver.write_text(PROBE)
    exe = build_driver(driver, tmp_path)
    rng = random.Random(24)
    cases = [("llvm.x.lane.[id", []), ("llvm.amdgcn.*", ["llvm.amdgcn.x", "llvm.other"]), ("a[]]b", ["a]b"]),
             ("x\\", []), ("[z-a]", ["q"]), ("[!a]", ["b", "a"]), ("[^a]", ["b", "a"]), ("a\\*", ["a*", "ab"]),
             ("{a,b}", ["a", "{a,b}"])]
    for _ in range(3000):
        pat = "".join(rng.choice("ab-^!]*?[\\{},.") for _ in range(rng.randint(0, 8)))
        cases.append((pat, ["".join(rng.choice("ab-^!].*?[\\{},") for _ in range(rng.randint(0, 6)))
                            for _ in range(4)]))
    lines = []
    for pat, names in cases:
        lines.append("P\t" + pat)
        lines += ["N\t" + n for n in names]
    r = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = iter(r.stdout.splitlines())
    created = matched = 0
    for pat, names in cases:
        llvm_ok = next(out) == "create 1"
        assert (glob_problem(pat) is None) == llvm_ok, pat
        created += llvm_ok
        for n in names:
            llvm_match = next(out) == "match 1"
            if llvm_ok:
                assert compile_glob(pat)(n) == llvm_match, (pat, n)
                matched += llvm_match
    assert 0 < created < len(cases) and matched > 0  # both verdicts reached


def test_target_named_other_than_its_folder(tmp_path, monkeypatch):
    import tdgen.paths
    import tdgen.spec

    targets = tmp_path / "targets"
    (targets / "foo").mkdir(parents=True)
    src = (GOLDEN / "_base.py").read_text()
    (targets / "foo" / "_base.py").write_text(src)
    (targets / "foo" / "spec.py").write_text(
        "from tdgen.model import Instruction, Target\n"
        "from ._base import ALU, SReg, VReg\n"
        "TARGET = Target('othername', namespace='Tiny', target_prefix='tiny', register_classes=(SReg, VReg),\n"
        "                classes=(ALU,), defs=[Instruction('V_ADD', ALU, ['v_add'], lets={'Unit': 'valu'},\n"
        "                pattern='(set i32:$dst, (add i32:$src0, i32:$src1))')])\n")
    monkeypatch.setattr(tdgen.paths, "TARGETS", targets)
    monkeypatch.setattr(tdgen.spec, "TARGETS", targets)
    from tdgen.errors import TdgenError

    with pytest.raises(TdgenError) as e:
        tdgen.spec.load_target("foo")
    msg = e.value.format()
    assert "record 'othername' field 'name': expected the name of the target's folder, 'foo'" in msg
    assert msg.endswith("found 'othername'")


def test_no_python_warning_before_the_spec_error():
    case = GOLDEN / "syntax_warning.py"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", TDGEN_NO_CACHE="1")
    r = subprocess.run([sys.executable, "-W", "default", "-m", "tdgen", "list", str(case.relative_to(ROOT))],
                       cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2
    assert r.stderr == case.with_suffix(".expected").read_text()


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_generate_is_atomic_when_a_file_cannot_be_replaced(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["generate", "dslike", "--out", str(out)]) == 0
    first = sorted((out / "dslike").glob("*.td"))
    for p in first[1:]:
        p.write_text("// edited\n")  # stale: a good run would replace these
    blocker = first[0]
    blocker.unlink()
    blocker.mkdir()
    before = _tree(out)
    capsys.readouterr()
    assert cli.main(["generate", "dslike", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tdgen generate: argument --out: expected a folder that can be written, found '")
    assert _tree(out) == before
    assert not list(out.rglob(".tdgen-tmp-*"))


def test_generated_files_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        write_tree({tmp_path / "a.td": "x", tmp_path / "sub" / "b.td": "y"})
    finally:
        os.umask(old)
    assert (tmp_path / "a.td").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "sub" / "b.td").stat().st_mode & 0o777 == 0o644


def test_nothing_is_written_outside_the_output_folder(tmp_path):
    with pytest.raises(OSError):
        check_inside([tmp_path / "out" / ".." / "esc.td"], tmp_path / "out")
    with pytest.raises(OSError):
        emit.write(tmp_path / "out", ["x"], {"../esc/x.td": "x"})
    assert not (tmp_path / "esc").exists()


def test_list_reports_each_broken_target_and_lists_the_good(capsys):
    rc = cli.main(["list", "--plain", "dslike", str(GOLDEN / "nested_list.py"), str(GOLDEN / "bad_glob.py")])
    out, err = capsys.readouterr()
    assert rc == 2
    assert out.splitlines()[1].startswith("dslike\t")
    assert len(out.splitlines()) == 2
    want = (GOLDEN / "nested_list.expected").read_text() + (GOLDEN / "bad_glob.expected").read_text()
    assert err == want


def test_the_llvm_names_are_llvm_tblgen_19s(tmp_path):
    """``tdgen.check.llvm_names`` lists exactly the defs (intrinsics and anonymous records
    left out) and classes llvm-tblgen-19 reads from llvm/Target/Target.td, so a spec record
    named like one of them is refused and no other name is."""
    import re

    from llvm_tools import LLVM_INCLUDE, require, require_llvm_headers
    from tdgen.check.llvm_names import TARGET_TD_CLASSES, TARGET_TD_DEFS

    require_llvm_headers()
    td = tmp_path / "names.td"
    td.write_text('include "llvm/Target/Target.td"\n')
    r = subprocess.run([require("llvm-tblgen-19"), "-I", str(LLVM_INCLUDE), str(td)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    defs = {n for n in re.findall(r"^def (\S+) \{", r.stdout, re.M) if not n.startswith(("int_", "anonymous_"))}
    classes = set(re.findall(r"^class (\S+?)(?:<| \{)", r.stdout, re.M))
    assert defs == TARGET_TD_DEFS
    assert classes == TARGET_TD_CLASSES


ARG_TYPES = ["bit", "int", "bits<1>", "bits<4>", "bits<8>", "string", "code", "dag", "list<int>", "list<bit>",
             "list<string>", "RegisterClass", "DAGOperand", "Operand", "SDNode", "SDPatternOperator", "PatFrag",
             "PatFrags", "ValueType", "Intrinsic", "list<DAGOperand>", "list<RegisterClass>"]


def test_field_and_argument_types_convert_as_in_llvm_tblgen_19(tmp_path):
    """``assignable`` (a class field initialised with a template argument, or a let
    binding one) answers what llvm-tblgen-19 does for every pair of types a spec may use."""
    import itertools
    import re

    from llvm_tools import LLVM_INCLUDE, require, require_llvm_headers
    from tdgen.check.emitted import assignable

    require_llvm_headers()
    pairs = list(itertools.product(ARG_TYPES, ARG_TYPES))
    td = tmp_path / "conv.td"
    td.write_text('include "llvm/Target/Target.td"\n'
                  + "".join(f"class C{i}<{v} a> {{ {f} f = a; }}\n" for i, (f, v) in enumerate(pairs)))
    r = subprocess.run([require("llvm-tblgen-19"), "-I", str(LLVM_INCLUDE), str(td)], capture_output=True,
                       text=True, timeout=300)
    rejected = {int(n) - 2 for n in re.findall(r"conv\.td:(\d+):\d+: error", r.stderr)}
    wrong = [(f, v) for i, (f, v) in enumerate(pairs) if assignable(f, v) != (i not in rejected)]
    assert not wrong, wrong
    assert rejected and len(rejected) < len(pairs)

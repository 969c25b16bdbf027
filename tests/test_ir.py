"""IR front end: corpus parsing, opt-19 as printing oracle, malformed-IR golden corpus,
acceptance equal to opt-19's on mutated kernels, generator validity, CFG orders, determinism."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from llvm_tools import amdgcn_layout, manifest, require, require_corpus

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from patterns.ir import cfg
from patterns.ir.core import I32  # noqa: E402
from patterns.ir.function import INSTRUCTION_FIELDS, Instruction  # noqa: E402
from patterns.ir.reader import parse_file, parse_module  # noqa: E402
from testkit.irgen import generate_kernel  # noqa: E402
from tdgen.errors import Span, TdgenError  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden" / "ir"
AREAS = ("uniformity/", "older/uniformity/", "isel/", "older/isel/", "permute/")


def _rows():
    try:
        return [r for r in manifest() if r["relative_path"].startswith(AREAS)]
    except BaseException:  # corpus absent: the tests below skip via require_corpus
        return []


ROWS = _rows()


# ----------------------------------------------------------------- corpus parses


@pytest.mark.parametrize("row", ROWS, ids=[r["relative_path"] for r in ROWS])
def test_corpus_file_parses(row):
    """Every PASS file must parse; a FAIL/SKIP file parses exactly when opt-19 parses it
    (one LLVM 19 does not read, such as the 'alwaysuniform' attribute, is rejected)."""
    corpus = require_corpus()
    path = corpus / row["relative_path"]
    if row["status_llvm19"] != "PASS":
        opt = require("opt-19")
        r = subprocess.run([opt, "-passes=verify", "-disable-output", str(path)], capture_output=True, text=True)
        # opt's parser (not its verifier: those rules are verify.py's) rejects it; an
        # intrinsic name LLVM 19 does not know is not checked (no table of the names)
        if r.returncode != 0 and re.search(r":[0-9]+:[0-9]+: error: (?!use of undefined value '@llvm\.)", r.stderr):
            with pytest.raises(TdgenError):
                parse_file(path)
            return
        if r.returncode != 0 and not re.search(r":[0-9]+:[0-9]+: error:", r.stderr):
            # rejected by LLVM 19's verifier (not its parser): patterns/ir/verify.py's rules
            # reject it too (uniformity/callbr.ll, join-at-loop-heart.ll)
            with pytest.raises(TdgenError):
                parse_file(path)
            return
    m = parse_file(path)
    defs = m.definitions()
    assert defs, f"{path}: no function definitions parsed"
    for f in defs:
        assert f.blocks and all(b.terminator is not None for b in f.blocks)


def test_every_pass_file_is_listed():
    require_corpus()
    passing = [r for r in ROWS if r["status_llvm19"] == "PASS"]
    assert len(passing) >= 20  # the manifest lists the PASS files we must parse


# ------------------------------------------------------ opt-19 is the print oracle


def _opt_bodies(text: str) -> dict[str, list[str]]:
    """Instruction lines of each function in ``opt -S`` output (multi-line joined)."""
    funcs: dict[str, list[str]] = {}
    cur = None
    for line in text.splitlines():
        if line.startswith("define "):
            m = re.search(r'@("[^"]*"|[-a-zA-Z$._0-9]+)\(', line)
            cur = funcs.setdefault(m.group(1).strip('"'), [])
            continue
        if cur is None:
            continue
        if line == "}":
            cur = None
        elif line.startswith("    ") or line.startswith("  ]"):
            cur[-1] += "\n" + line
        elif line.startswith("  ") and not line.lstrip().startswith(";"):
            cur.append(line[2:])
    return funcs


_ATTR_REF = re.compile(r" #[0-9]+$")
_INTRINSIC = re.compile(r"@llvm\.[-a-zA-Z$._0-9]+")


def _normalize(ours: str, theirs: str) -> tuple[str, str]:
    """The two normalizations we do not reproduce (documented in ir_print.py):
    call-site attribute group numbers (opt gives intrinsic declarations the intrinsic's
    own attributes, which shifts the numbering) and intrinsic name auto-upgrades."""
    if ours.startswith(("call ", "tail call ")) or " = call " in ours or " = tail call " in ours:
        ours, theirs = _ATTR_REF.sub("", ours), _ATTR_REF.sub("", theirs)
        ours, theirs = _INTRINSIC.sub("@llvm.X", ours), _INTRINSIC.sub("@llvm.X", theirs)
    return ours, theirs


def _compare_with_opt(path: Path) -> tuple[int, list[str]]:
    opt = require("opt-19")
    r = subprocess.run([opt, "-S", "-mtriple=amdgcn", str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        return 0, []
    bodies = _opt_bodies(r.stdout)
    m = amdgcn_layout(parse_file(path))
    diffs, n = [], 0
    for f in m.definitions():
        ours = [i.text for i in f.instructions()]
        theirs = bodies[f.name]
        assert len(ours) == len(theirs), f"{path}:{f.name}: {len(ours)} vs {len(theirs)} instructions"
        for a, b in zip(ours, theirs):
            n += 1
            a2, b2 = _normalize(a, b)
            if a2 != b2:
                diffs.append(f"{f.name}:\n  ours: {a}\n  opt:  {b}")
    return n, diffs


@pytest.mark.parametrize("row", ROWS, ids=[r["relative_path"] for r in ROWS])
def test_text_matches_opt(row):
    path = require_corpus() / row["relative_path"]
    n, diffs = _compare_with_opt(path)
    assert not diffs, "\n".join(diffs[:10])


def test_golden_pass_matches_opt():
    files = sorted((GOLDEN / "pass").glob("*.ll"))
    assert files
    for path in files:
        n, diffs = _compare_with_opt(path)
        assert n > 40, f"{path}: opt rejected the file or it has too few instructions"
        assert not diffs, "\n".join(diffs)


def test_align_attributes_print_like_opt():
    """``align N`` / ``align(N)`` as parameter and call-site attributes (opt is the oracle)."""
    text = """declare i32 @g(ptr)
define void @k(ptr align 4 %p, ptr align(8) %q) {
  %r = call i32 @g(ptr align 16 %p)
  ret void
}
"""
    opt = require("opt-19")
    r = subprocess.run([opt, "-S", "-"], input=text, capture_output=True, text=True, check=True)
    theirs = _opt_bodies(r.stdout)["k"]
    m = parse_module(text)
    assert [i.text for i in m.function("k").instructions()] == theirs
    header = next(ln for ln in r.stdout.splitlines() if ln.startswith("define"))
    assert [" ".join(a.attr_text) for a in m.function("k").args] == ["align 4", "align 8"]
    assert "ptr align 4 %p, ptr align 8 %q" in header


def test_text_exact_attr_numbering_without_intrinsic_attrs():
    """When no intrinsic declaration carries attributes, call-site groups match opt exactly."""
    text = """
define void @k(i32 %x) #0 {
  %a = call i32 @ext(i32 %x) #1
  %b = call i32 @ext(i32 %a) #2
  ret void
}
declare i32 @ext(i32)
attributes #0 = { nounwind }
attributes #1 = { readnone nounwind }
attributes #2 = { nounwind }
"""
    opt = require("opt-19")
    r = subprocess.run([opt, "-S", "-"], input=text, capture_output=True, text=True, check=True)
    theirs = _opt_bodies(r.stdout)["k"]
    ours = [i.text for i in parse_module(text).function("k").instructions()]
    assert ours == theirs


# ------------------------------------------------------------ malformed-IR corpus

FAIL_FILES = sorted((GOLDEN / "fail").glob("*.ll"))


@pytest.mark.parametrize("path", FAIL_FILES, ids=[p.stem for p in FAIL_FILES])
def test_malformed_ir_error_text(path):
    rel = path.relative_to(ROOT)
    expected = (path.with_suffix(".err")).read_text()
    with pytest.raises(TdgenError) as ei:
        parse_module(path.read_text(), str(rel))
    assert ei.value.format() + "\n" == expected


@pytest.mark.parametrize("path", FAIL_FILES, ids=[p.stem for p in FAIL_FILES])
def test_malformed_ir_rejected_by_opt_too(path):
    """Each malformed input is also rejected by LLVM (so the corpus tests real errors)."""
    opt = require("opt-19")
    r = subprocess.run([opt, "-disable-output", str(path)], capture_output=True, text=True)
    assert r.returncode != 0, f"opt-19 accepts {path.name}"


def test_golden_corpus_covers_required_cases():
    names = {p.stem for p in FAIL_FILES}
    for need in ("unknown_instruction", "bad_type", "undefined_value", "missing_terminator",
                 "unknown_label", "redefined_value", "type_mismatch", "unterminated_string"):
        assert need in names


def test_error_has_no_traceback_via_cli(tmp_path):
    bad = GOLDEN / "fail" / "unknown_instruction.ll"
    r = subprocess.run([sys.executable, "-m", "tdgen", "divergence", str(bad)], cwd=ROOT,
                       capture_output=True, text=True)
    if "invalid choice" in r.stderr:
        pytest.skip("the divergence command is not available")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "expected an instruction, found unknown instruction 'frobnicate'" in r.stderr


def test_reader_forms():
    """Numbered values, unnamed results and blocks, forward uses, casts, calls of
    defined functions and implicit intrinsics, declarations and attribute groups after
    their use."""
    text = """
define i32 @g(i32 %0, i32 noundef %x) #0 {
  %2 = add nuw nsw i32 %0, %x
  br label %3

3:
  %4 = phi i32 [ %2, %1 ], [ %6, %3 ]
  %5 = zext i32 %4 to i64
  %p = inttoptr i64 %5 to ptr addrspace(1)
  %6 = load i32, ptr addrspace(1) %p
  %c = icmp eq ptr addrspace(1) %p, null
  %7 = select i1 %c, i32 %6, i32 -1
  %q = getelementptr inbounds i8, ptr addrspace(1) %p, i64 4
  store i32 %7, ptr addrspace(1) %q, align 4
  %8 = tail call i32 @llvm.amdgcn.readfirstlane(i32 %7)
  call void @h(i32 %8) #1
  %t = trunc nuw i32 %8 to i1
  br i1 %t, label %3, label %out

out:                                   ; preds = %3
  ret i32 %4
}

define void @h(i32 %a) {
  ret void
}
declare i32 @unused(ptr, i32) #7
attributes #0 = { nounwind "amdgpu-flat-work-group-size"="1,256" }
attributes #1 = { "only-key" convergent }
"""
    m = parse_module(text, "f.ll")
    # the numbered entry block, forward phi operand, implicit intrinsic after the rest
    g = m.function("g")
    assert [b.name for b in g.blocks] == ["1", "3", "out"]
    assert g.blocks[1].instructions[0].operands[1] is g.blocks[1].instructions[3]
    assert [f.name for f in m.functions] == ["g", "h", "unused", "llvm.amdgcn.readfirstlane"]
    # attribute groups defined after their use; an undefined group counts as empty
    assert g.attrs == {"nounwind", '"amdgpu-flat-work-group-size"="1,256"'}
    assert m.function("unused").attrs == frozenset() and m.function("unused").attr_items == ("#7",)
    assert g.blocks[1].instructions[-3].attrs == {'"only-key"', "convergent"}


def test_instruction_fields_defaults_and_lazy_lists():
    """Instruction has class-level defaults: every field reads on every instance, list
    fields are per instance (created on first read), keyword fields are checked, and a
    direct-built instruction's span is made on first read (the compiled build makes it a
    native class: no instance ``__dict__``)."""
    a = Instruction("add")
    b = Instruction("sub", "x", I32, [], None, None, flags=frozenset({"nuw"}), align=4)
    for k in INSTRUCTION_FIELDS:
        getattr(a, k)
    assert a.operands == [] and a.targets == [] and a.metadata == [] and a.flags == frozenset()
    a.targets.append("t")
    a.incoming.append("i")
    assert b.targets == [] and b.incoming == [] and Instruction("x").targets == []
    assert b.flags == {"nuw"} and b.align == 4 and b.type == I32 and b.name == "x"
    assert a != b and a == a and len({a, b}) == 2  # identity semantics
    with pytest.raises(TypeError):
        Instruction("add", bogus=1)
    m = parse_module("define void @f() {\n  ret void\n}\n", "s.ll")
    r = m.function("f").blocks[0].instructions[0]
    assert r._span is None and r._loc == 2
    assert r.span == Span("s.ll", 2, 3) and r.span is r.span and r._span is r.span


_MUTATIONS = [
    ("%v", "%w"),  # undefined (or redefined) values
    ("i32", "i64"),  # type mismatches
    ("i32", "i1"),
    ("label %", "label %x"),  # undefined labels
    ("  br ", "  ; br "),  # missing terminators
    ("ret void", "ret i32 0"),
    (", align 4", ", align 4 4"),
    (" = ", " == "),
    ("phi i32", "phi i64"),
    ("add i32", "add nuw exact i32"),
    ("@llvm.amdgcn.workitem.id.x", "@not.declared"),
    ("select i1", "select i32"),
    ("icmp ult", "icmp oeq"),
    ("%tid", "%0"),
    ("ptr addrspace(1)", "ptr"),
]


@pytest.mark.parametrize("old,new", _MUTATIONS)
def test_reader_accepts_exactly_what_opt_accepts(old, new):
    """Lines of a small kernel mutated in turn (a few per mutation): the reader accepts
    a variant exactly when ``opt-19 -passes=verify`` does."""
    opt = require("opt-19")
    base = generate_kernel(11, 120).split("\n")
    hits = [k for k, line in enumerate(base) if old in line]
    tried = 0
    for k in hits[::max(1, len(hits) // 4)][:4]:
        lines = list(base)
        lines[k] = lines[k].replace(old, new, 1)
        text = "\n".join(lines)
        try:
            parse_module(text, "m.ll")
            ours = True
        except TdgenError:
            ours = False
        r = subprocess.run([opt, "-passes=verify", "-disable-output", "-"], input=text, capture_output=True,
                           text=True)
        assert ours == (r.returncode == 0), (k, lines[k], r.stderr[:300])
        tried += 1
    assert tried > 0


# ---------------------------------------------------------------- AST contract


def test_ast_contract_basic():
    text = """
define amdgpu_kernel void @k(i32 inreg %u, ptr addrspace(1) %p) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %id, %u
  br i1 %c, label %t, label %e
t:
  %v = load volatile i32, ptr addrspace(1) %p, align 4
  br label %e
e:
  %r = phi i32 [ %id, %entry ], [ %v, %t ]
  store i32 %r, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x() #0
attributes #0 = { nounwind readnone }
"""
    m = parse_module(text, "k.ll")
    f = m.function("k")
    assert f.cc == "amdgpu_kernel" and not f.is_declaration
    assert [a.name for a in f.args] == ["u", "p"] and "inreg" in f.args[0].attrs
    entry, t, e = f.blocks
    assert [s.name for s in entry.successors] == ["t", "e"]
    assert [p.name for p in e.predecessors] == ["entry", "t"]
    call, cmp, br = entry.instructions
    assert call.callee == "llvm.amdgcn.workitem.id.x" and call.operands == []
    assert cmp.predicate == "eq" and cmp.operands[0] is call and cmp.operands[1] is f.args[0]
    assert br.operands == [cmp] and br.targets == [t, e]
    load = t.instructions[0]
    assert load.volatile and load.addrspace == 1 and load.align == 4
    phi = e.instructions[0]
    assert phi.incoming == [(call, entry), (load, t)]
    store = e.instructions[1]
    assert store.name is None and store.operands == [phi, f.args[1]]
    assert store.text == "store i32 %r, ptr addrspace(1) %p, align 4"
    decl = m.function("llvm.amdgcn.workitem.id.x")
    assert decl.is_declaration and {"nounwind", "readnone"} <= decl.attrs


def test_unnamed_values_numbered_like_llvm():
    m = parse_module("define i32 @f(i32, i32 %b) {\n  %3 = add i32 %0, %b\n  br label %x\n"
                     "x:\n  %4 = mul i32 %3, 2\n  ret i32 %4\n}\n")
    f = m.function("f")
    assert f.args[0].name == "0" and f.blocks[0].name == "1"
    assert [i.text for i in f.instructions()] == [
        "%2 = add i32 %0, %b", "br label %x", "%3 = mul i32 %2, 2", "ret i32 %3"]


def test_bundles_inline_asm_and_metadata():
    m = parse_module("""
define void @f(i32 %x) convergent {
  %t = call token @llvm.experimental.convergence.entry()
  %a = call i32 asm sideeffect "v_mov_b32 $0, $1", "=v,v"(i32 %x) convergent [ "convergencectrl"(token %t) ]
  %b = add i32 %a, 1, !annotation !0
  ret void
}
declare token @llvm.experimental.convergence.entry()
!0 = !{!"x"}
""")
    a = m.function("f").blocks[0].instructions[1]
    assert a.inline_asm.sideeffect and a.inline_asm.output_constraints == ["=v"]
    assert a.bundles[0][0] == "convergencectrl" and a.bundles[0][1][0].opcode == "call"
    assert m.function("f").blocks[0].instructions[2].metadata == [("!annotation", "!0")]


# ---------------------------------------------------------------------- the CFG


def test_cfg_orders():
    m = parse_module("""
define void @f(i1 %c) {
entry:
  br label %h
h:
  br i1 %c, label %body, label %exit
body:
  br label %h
exit:
  ret void
dead:
  br label %exit
}
""")
    f = m.function("f")
    rpo = [b.name for b in cfg.reverse_post_order(f)]
    assert rpo == ["entry", "h", "exit", "body"]
    assert [b.name for b in cfg.post_order(f)] == ["body", "exit", "h", "entry"]
    assert [b.name for b in cfg.exits(f)] == ["exit"]
    back = [b.name for b in cfg.reverse_post_order_backward(f)]
    assert back[0] == "exit" and set(back) == {"exit", "h", "dead", "entry", "body"}
    assert id(f.block("dead")) not in cfg.reachable(f)


# ---------------------------------------------------------------- the generator


def test_generator_deterministic_and_sized():
    a = generate_kernel(42, 3000)
    assert a == generate_kernel(42, 3000)
    assert a != generate_kernel(43, 3000)
    n = sum(len(b.instructions) for b in parse_module(a).function("kernel").blocks)
    assert 2900 <= n <= 3100


@pytest.mark.parametrize("seed,n,kw", [(1, 40, {}), (2, 600, {}), (3, 600, {"loops": False}),
                                       (4, 600, {"divergent": False}), (5, 3000, {"max_depth": 5})])
def test_generator_output_valid_for_opt_and_llc(seed, n, kw):
    opt, llc = require("opt-19"), require("llc-19")
    text = generate_kernel(seed, n, **kw)
    subprocess.run([opt, "-passes=verify", "-disable-output", "-"], input=text, text=True,
                   check=True, capture_output=True)
    if n <= 600:
        subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-o", os.devnull, "-"], input=text,
                       text=True, check=True, capture_output=True)
    m = parse_module(text)
    f = m.function("kernel")
    ops = {i.opcode for i in f.instructions()}
    assert {"add", "icmp", "br", "phi", "load", "store", "call"} <= ops
    if kw.get("loops", True) and n >= 600:
        assert any(s.index <= b.index for b in f.blocks for s in b.successors)  # a back edge


# ------------------------------------------------------------------ determinism


def test_texts_identical_across_hash_seeds():
    script = ("import sys; sys.path.insert(0, %r)\n"
              "from patterns.ir import parse_module\nfrom testkit.irgen import generate_kernel\n"
              "for m in (parse_module(generate_kernel(9, 800)), parse_module(open(%r).read())):\n"
              "    print('\\n'.join(i.text for f in m.functions for i in f.instructions()))\n"
              "    print(sorted(m.functions[0].attrs))\n") % (
        str(ROOT), str(GOLDEN / "pass" / "all_instructions.ll"))
    outs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                           check=True)
        outs.add(r.stdout)
    assert len(outs) == 1

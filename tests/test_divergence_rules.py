"""Unit tests of each divergence rule, each checked twice: against the verdict the rule
states, and against opt-19's ``print<uniformity>`` on the same IR (the oracle).

Rules: data dependence, sync dependence (diamond phi, constant/undef phi), temporal
divergence (loop with a divergent exit), divergent terminators, irreducible cycles,
always-uniform intrinsics, kernel / shader / other-function arguments and ``inreg``,
loads by address space, atomics, calls, inline asm with 'v' vs 's' outputs,
single-lane functions; plus every intrinsic rule of targets/amdgpu/uniformity.py
probed on a real call, and agreement with the DivergenceKind of the intrinsics the
amdgpu spec declares.
"""

from __future__ import annotations

import pytest

from divergence_oracle import parse_report, run_opt
from llvm_tools import require

DECLS = """
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare i32 @ext(i32)
"""


def _analyze(text: str, compat: bool = False):
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from tdgen.commands.divergence import load_target_facts

    m = parse_module(text, "<rule>")
    return m, analyze(m, load_target_facts("amdgpu"), llvm19_compat=compat)


def _values(m, fn: str):
    f = m.function(fn)
    vals = {a.name: a for a in f.args}
    for b in f.blocks:
        for i in b.instructions:
            if i.name is not None:
                vals[i.name] = i
    return f, vals


def check(tmp_path, text: str, fn: str, divergent=(), uniform=(), div_blocks=(), uni_blocks=()):
    """Our verdicts must be as stated and our report must equal opt-19's."""
    text = text + DECLS
    m, info = _analyze(text)
    f, vals = _values(m, fn)
    for v in divergent:
        assert info.is_divergent(vals[v]), f"%{v} should be divergent"
        assert info.why(vals[v])[0].kind == "source"
    for v in uniform:
        assert not info.is_divergent(vals[v]), f"%{v} should be uniform"
        assert info.why(vals[v]) == []
    for b in div_blocks:
        assert info.has_divergent_terminator(f.block(b))
        assert info.is_divergent(f.block(b).terminator)
    for b in uni_blocks:
        assert not info.has_divergent_terminator(f.block(b))
    # the oracle
    opt = require("opt-19")
    from patterns.uniformity.printer import format_llvm

    path = tmp_path / "rule.ll"
    path.write_text(text)
    theirs = parse_report(run_opt(opt, str(path)))[fn]
    ours = parse_report(format_llvm(info))[fn]
    assert ours["lines"] == theirs["lines"]
    assert ours["args"] == theirs["args"]
    assert sorted(ours["assumed"]) == sorted(theirs["assumed"])
    assert sorted(ours["exit"]) == sorted(theirs["exit"])
    return m, info


def test_data_dependence(tmp_path):
    check(tmp_path, """
define amdgpu_kernel void @k(i32 %a, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %x = add i32 %tid, %a
  %y = mul i32 %x, 3
  %u = add i32 %a, 1
  store i32 %y, ptr addrspace(1) %out
  ret void
}
""", "k", divergent=["tid", "x", "y"], uniform=["a", "u"])


def test_sync_dependence_diamond_phi(tmp_path):
    m, info = check(tmp_path, """
define amdgpu_kernel void @k(i32 %a) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp slt i32 %tid, 8
  br i1 %c, label %then, label %else
then:
  %t = add i32 %a, 1
  br label %join
else:
  %e = add i32 %a, 2
  br label %join
join:
  %p = phi i32 [ %t, %then ], [ %e, %else ]
  %same = phi i32 [ %a, %then ], [ %a, %else ]
  %und = phi i32 [ %a, %then ], [ undef, %else ]
  %q = add i32 %p, 1
  %uc = icmp slt i32 %a, 3
  br i1 %uc, label %u1, label %u2
u1:
  br label %uj
u2:
  br label %uj
uj:
  %up = phi i32 [ 1, %u1 ], [ 2, %u2 ]
  ret void
}
""", "k", divergent=["tid", "c", "p", "q"], uniform=["t", "e", "same", "und", "up", "uc"],
        div_blocks=["entry"], uni_blocks=["join"])
    _f, vals = _values(m, "k")
    kinds = [s.kind for s in info.why(vals["q"])]
    assert kinds == ["source", "data", "terminator", "sync", "data"]


def test_join_before_the_post_dominator(tmp_path):
    """The current analysis: a join reached by disjoint paths ahead of the branch's
    immediate post-dominator (the legacy analysis only looked at the latter)."""
    check(tmp_path, """
define amdgpu_kernel void @k(i32 %a) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp slt i32 %tid, 8
  br i1 %c, label %A, label %B
A:
  %u = icmp slt i32 %a, 3
  br i1 %u, label %C, label %D
B:
  br label %C
C:
  %hidden = phi i32 [ 1, %A ], [ 2, %B ]
  br label %D
D:
  %ipdom = phi i32 [ 3, %A ], [ 4, %C ]
  ret void
}
""", "k", divergent=["tid", "c", "hidden", "ipdom"], uniform=["u"], div_blocks=["entry"], uni_blocks=["A"])


def test_temporal_divergence(tmp_path):
    check(tmp_path, """
define amdgpu_kernel void @k(i32 %a) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %inc, %loop ]
  %inc = add i32 %i, 1
  %inside = mul i32 %inc, 2
  %c = icmp slt i32 %inc, %tid
  br i1 %c, label %loop, label %exit
exit:
  %lcssa = phi i32 [ %i, %loop ]
  %out = add i32 %inc, %a
  ret void
}
""", "k", divergent=["tid", "c", "out", "lcssa"], uniform=["i", "inc", "inside"], div_blocks=["loop"])


def test_uniform_exit_is_not_temporal(tmp_path):
    check(tmp_path, """
define amdgpu_kernel void @k(i32 %a) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %inc, %loop ]
  %inc = add i32 %i, 1
  %c = icmp slt i32 %inc, %a
  br i1 %c, label %loop, label %exit
exit:
  %out = add i32 %inc, %a
  ret void
}
""", "k", uniform=["i", "inc", "c", "out"], uni_blocks=["loop"])


def test_divergent_switch_terminator(tmp_path):
    check(tmp_path, """
define amdgpu_kernel void @k(i32 %a) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  switch i32 %tid, label %d [ i32 0, label %x
                              i32 1, label %y ]
x:
  br label %d
y:
  br label %d
d:
  %p = phi i32 [ 0, %entry ], [ 1, %x ], [ 2, %y ]
  ret void
}
""", "k", divergent=["tid", "p"], div_blocks=["entry"], uni_blocks=["x", "y"])


def test_irreducible_cycle_entered_divergently(tmp_path):
    m, info = check(tmp_path, """
define amdgpu_kernel void @k(i32 %a, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp slt i32 %tid, 4
  br i1 %c, label %A, label %B
A:
  %ia = phi i32 [ 0, %entry ], [ %ib2, %B ]
  %ia2 = add i32 %ia, 1
  %ca = icmp slt i32 %ia2, %n
  br i1 %ca, label %B, label %exit
B:
  %ib = phi i32 [ 0, %entry ], [ %ia2, %A ]
  %ib2 = add i32 %ib, 2
  %cb = icmp slt i32 %ib2, %n
  br i1 %cb, label %A, label %exit
exit:
  ret void
}
""", "k", divergent=["tid", "c", "ia", "ia2", "ib", "ib2"], uniform=["a", "n"], div_blocks=["entry", "A", "B"])
    assert len(info.cycles_assumed_divergent) == 1
    assert not info.cycles_assumed_divergent[0].reducible


def test_always_uniform_intrinsics(tmp_path):
    check(tmp_path, """
define amdgpu_kernel void @k(i32 %a) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %first = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid)
  %c = icmp slt i32 %tid, 4
  %mask = call i64 @llvm.amdgcn.ballot.i64(i1 %c)
  %use = add i32 %first, 1
  ret void
}
""", "k", divergent=["tid", "c"], uniform=["first", "mask", "use"])


@pytest.mark.parametrize(
    "header,divergent,uniform",
    [
        ("amdgpu_kernel void @f(i32 %x, i32 inreg %y)", [], ["x", "y"]),
        ("spir_kernel void @f(i32 %x, i32 inreg %y)", [], ["x", "y"]),
        ("void @f(i32 %x, i32 inreg %y)", ["x"], ["y"]),
        ("amdgpu_ps void @f(i32 %x, i32 inreg %y)", ["x"], ["y"]),
        ("amdgpu_cs void @f(float %x, <2 x i32> inreg %y)", ["x"], ["y"]),
        ("amdgpu_gfx void @f(i32 %x, i32 inreg %y)", ["x"], ["y"]),
    ],
)
def test_argument_uniformity(tmp_path, header, divergent, uniform):
    check(tmp_path, f"define {header} {{\nentry:\n  ret void\n}}\n", "f", divergent=divergent, uniform=uniform)


def test_loads_by_address_space(tmp_path):
    check(tmp_path, """
define amdgpu_kernel void @k(ptr %p0, ptr addrspace(1) %p1, ptr addrspace(3) %p3, ptr addrspace(4) %p4, ptr addrspace(5) %p5) {
entry:
  %l0 = load i32, ptr %p0
  %l1 = load i32, ptr addrspace(1) %p1
  %l3 = load i32, ptr addrspace(3) %p3
  %l4 = load i32, ptr addrspace(4) %p4
  %l5 = load i32, ptr addrspace(5) %p5
  ret void
}
""", "k", divergent=["l0", "l5"], uniform=["l1", "l3", "l4"])


def test_atomics_and_calls(tmp_path):
    check(tmp_path, """
define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %a) {
entry:
  %rmw = atomicrmw add ptr addrspace(1) %p, i32 %a seq_cst
  %cx = cmpxchg ptr addrspace(1) %p, i32 %a, i32 1 seq_cst seq_cst
  %v = extractvalue { i32, i1 } %cx, 0
  %call = call i32 @ext(i32 %a)
  %plain = add i32 %a, 1
  ret void
}
""", "k", divergent=["rmw", "cx", "v", "call"], uniform=["plain"])


def test_inline_asm_outputs(tmp_path):
    check(tmp_path, """
define amdgpu_kernel void @k(i32 %a) {
entry:
  %v = call i32 asm "v_mov_b32 $0, 0", "=v"()
  %s = call i32 asm "s_mov_b32 $0, 0", "=s"()
  %m = call { i32, i32 } asm "; def $0 $1", "=s,=v"()
  %m0 = extractvalue { i32, i32 } %m, 0
  %m1 = extractvalue { i32, i32 } %m, 1
  %sreg = call i32 asm "; def $0", "={s1}"()
  ret void
}
""", "k", divergent=["v", "m", "m1"], uniform=["s", "m0", "sreg"])


def test_single_lane_function(tmp_path):
    check(tmp_path, """
define void @f(i32 %x) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  ret void
}
attributes #0 = { "amdgpu-flat-work-group-size"="1,1" }
""", "f", uniform=["x", "tid"])


# Each call with uniform operands: divergent iff the intrinsic is a source in LLVM 19.
PROBE_CALLS = """\
i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %b)
i32 @llvm.amdgcn.ds.permute(i32 %a, i32 %b)
i32 @llvm.amdgcn.ds.swizzle(i32 %a, i32 1)
i32 @llvm.amdgcn.mbcnt.lo(i32 %a, i32 %b)
i32 @llvm.amdgcn.mbcnt.hi(i32 %a, i32 %b)
i32 @llvm.amdgcn.readlane.i32(i32 %a, i32 %b)
i32 @llvm.amdgcn.readfirstlane.i32(i32 %a)
i32 @llvm.amdgcn.permlane64.i32(i32 %a)
i32 @llvm.amdgcn.set.inactive.i32(i32 %a, i32 %b)
i32 @llvm.amdgcn.wwm.i32(i32 %a)
i32 @llvm.amdgcn.strict.wwm.i32(i32 %a)
i32 @llvm.amdgcn.wqm.i32(i32 %a)
i64 @llvm.amdgcn.s.memtime()
i1 @llvm.amdgcn.ps.live()
i1 @llvm.amdgcn.live.mask()
i32 @llvm.amdgcn.wave.reduce.umin.i32(i32 %a, i32 1)
i64 @llvm.amdgcn.s.getpc()
i32 @llvm.amdgcn.global.atomic.csub.p1(ptr addrspace(1) %p, i32 %a)
i32 @llvm.amdgcn.ds.append.p3(ptr addrspace(3) null, i1 false)
i1 @llvm.amdgcn.inverse.ballot.i64(i64 %l)
i32 @llvm.amdgcn.writelane.i32(i32 %a, i32 %b, i32 %a)
i32 @llvm.amdgcn.mov.dpp.i32(i32 %a, i32 1, i32 1, i32 1, i1 false)
i32 @llvm.amdgcn.mov.dpp8.i32(i32 %a, i32 1)
i32 @llvm.amdgcn.update.dpp.i32(i32 %a, i32 %b, i32 1, i32 1, i32 1, i1 false)
float @llvm.amdgcn.interp.mov(i32 0, i32 0, i32 0, i32 %a)
float @llvm.amdgcn.interp.p1(float %f, i32 0, i32 0, i32 %a)
float @llvm.amdgcn.interp.p2(float %f, float %f, i32 0, i32 0, i32 %a)
float @llvm.amdgcn.interp.inreg.p10(float %f, float %f, float %f)
float @llvm.amdgcn.interp.p10.rtz.f16(float %f, float %f, float %f, i1 false)
i32 @llvm.amdgcn.workgroup.id.x()
i32 @llvm.amdgcn.workitem.id.x()
i32 @llvm.amdgcn.workitem.id.y()
i32 @llvm.amdgcn.workitem.id.z()
ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
i32 @llvm.amdgcn.s.getreg(i32 1)
i32 @llvm.amdgcn.ubfe.i32(i32 %a, i32 1, i32 2)
i32 @llvm.amdgcn.raw.buffer.load.i32(<4 x i32> zeroinitializer, i32 %a, i32 0, i32 0)
i32 @llvm.amdgcn.raw.buffer.atomic.add.i32(i32 %a, <4 x i32> zeroinitializer, i32 0, i32 0, i32 0)
i32 @llvm.amdgcn.struct.buffer.atomic.add.i32(i32 %a, <4 x i32> zeroinitializer, i32 0, i32 0, i32 0, i32 0)
i32 @llvm.amdgcn.raw.ptr.buffer.atomic.add.i32(i32 %a, ptr addrspace(8) null, i32 0, i32 0, i32 0)
i32 @llvm.amdgcn.lds.direct.load.i32(i32 %a)
float @llvm.amdgcn.lds.param.load(i32 0, i32 0, i32 %a)
i32 @llvm.amdgcn.s.get.waveid.in.workgroup()
i64 @llvm.amdgcn.ballot.i64(i1 true)
i32 @llvm.amdgcn.ballot.i32(i1 true)
i64 @llvm.amdgcn.icmp.i64.i32(i32 %a, i32 %b, i32 32)
i64 @llvm.amdgcn.fcmp.i64.f32(float %f, float %f, i32 1)
i32 @llvm.amdgcn.wave.reduce.umax.i32(i32 %a, i32 1)
i32 @llvm.amdgcn.sffbh.i32(i32 %a)
i32 @llvm.amdgcn.permlane16.i32(i32 %a, i32 %b, i32 0, i32 0, i1 false, i1 false)
i32 @llvm.amdgcn.permlanex16.i32(i32 %a, i32 %b, i32 0, i32 0, i1 false, i1 false)
i32 @llvm.amdgcn.permlane16.var(i32 %a, i32 %b, i32 %a, i1 false, i1 false)
i32 @llvm.amdgcn.ds.ordered.add(ptr addrspace(2) null, i32 %a, i32 0, i32 0, i1 false, i32 1, i1 true, i1 true)
i32 @llvm.amdgcn.ds.ordered.swap(ptr addrspace(2) null, i32 %a, i32 0, i32 0, i1 false, i32 1, i1 true, i1 true)
<4 x float> @llvm.amdgcn.mfma.f32.4x4x1f32(float %f, float %f, <4 x float> zeroinitializer, i32 0, i32 0, i32 0)
i32 @llvm.amdgcn.image.atomic.add.1d.i32.i32(i32 %a, i32 %b, <8 x i32> zeroinitializer, i32 0, i32 0)
i32 @llvm.amdgcn.atomic.cond.sub.u32.p1(ptr addrspace(1) %p, i32 %a)
float @llvm.amdgcn.global.atomic.fmin.num.f32.p1.f32(ptr addrspace(1) %p, float %f)
float @llvm.amdgcn.flat.atomic.fmax.num.f32.p0.f32(ptr null, float %f)
{ i1, i64 } @llvm.amdgcn.if.i64(i1 true)
{ i1, i64 } @llvm.amdgcn.else.i64.i64(i64 %l)
i1 @llvm.amdgcn.loop.i64(i64 %l)
i64 @llvm.amdgcn.if.break.i64(i1 true, i64 %l)
i32 @llvm.amdgcn.s.buffer.load.i32(<4 x i32> zeroinitializer, i32 0, i32 0)
float @llvm.amdgcn.rcp.f32(float %f)
i32 @llvm.amdgcn.lerp(i32 %a, i32 %b, i32 %a)
<2 x i32> @llvm.amdgcn.global.load.tr.b64.v2i32(ptr addrspace(1) %p)
"""


def test_intrinsic_rules_match_opt(tmp_path):
    opt = require("opt-19")
    from patterns.uniformity.printer import format_llvm

    calls = [c for c in PROBE_CALLS.splitlines() if c.strip()]
    body = "\n".join(f"  %r{i} = call {c}" for i, c in enumerate(calls))
    text = f"define amdgpu_kernel void @k(i32 %a, i32 %b, float %f, ptr addrspace(1) %p, i64 %l) {{\nentry:\n{body}\n  ret void\n}}\n"
    path = tmp_path / "probe.ll"
    path.write_text(text)
    theirs = parse_report(run_opt(opt, str(path)))["k"]["lines"]
    m, info = _analyze(text)
    ours = parse_report(format_llvm(info))["k"]["lines"]
    assert ours == theirs
    marked = sum(1 for line in theirs if line.startswith("  DIVERGENT:"))
    assert 25 <= marked < len(calls)  # the probe exercises both kinds


def test_spec_intrinsics_agree_with_rules():
    """Intrinsics the amdgpu spec declares carry a DivergenceKind; it must be what the
    uniformity rules say for that name."""
    from tdgen.hw import DivergenceKind
    from tdgen.spec import load_target

    from patterns.uniformity.rules import default_model

    target = load_target("amdgpu")
    rules = default_model()  # targets/amdgpu/uniformity.py loaded on its own
    assert target.uniformity == rules
    assert target.intrinsics
    for intr in target.intrinsics:
        rule = rules.intrinsic_rule(intr.ir_name)
        expected = rule.kind if rule is not None else DivergenceKind.FOLLOWS_OPERANDS
        assert intr.divergence == expected, (intr.ir_name, intr.divergence, expected)


def test_fast_rule_lookup_equals_fnmatch_lookup():
    """``first_rule`` (string tests instead of regular expressions) picks the same rule
    as ``UniformityModel.intrinsic_rule`` (fnmatch), for every rule's own pattern
    spelled out in several ways, near misses and glob patterns of every shape."""
    from tdgen.hw import DivergenceKind, DivergenceRule, UniformityModel

    from patterns.uniformity.rules import first_rule

    model = default_model_rules()
    extra = (
        DivergenceRule("llvm.x.[ab]c", DivergenceKind.SOURCE, ""),
        DivergenceRule("llvm.y.?", DivergenceKind.SOURCE, ""),
        DivergenceRule("llvm.z.*.end", DivergenceKind.ALWAYS_UNIFORM, ""),
        DivergenceRule("llvm.exact", DivergenceKind.ALWAYS_UNIFORM, ""),
    )
    models = [model, UniformityModel(rules=extra + model.rules)]
    names = ["", "llvm.", "llvm.exact", "llvm.exactly", "llvm.x.ac", "llvm.x.cc", "llvm.y.1", "llvm.y.12",
             "llvm.z.a.end", "llvm.z.end", "llvm.z.a.b.end.x"]
    for r in model.rules:
        stem = r.pattern.rstrip("*")
        names += [stem, stem + ".i32", stem[:-1], stem + "x", r.pattern]
    assert len(names) > 150
    for m in models:
        for n in names:
            assert first_rule(m, n) is m.intrinsic_rule(n), n


def default_model_rules():
    from patterns.uniformity.rules import default_model

    return default_model()


def test_dominator_trees_match_networkx():
    """dominators.DomTree (used by the verifier, the analysis and the DAG builder) and its
    integer-indexed form ``for_blocks`` against networkx's dominators (an independent
    implementation), forward and reverse (post-dominators through a virtual exit), on
    generated CFGs with irreducible cycles and unreachable blocks."""
    import networkx as nx

    from patterns.ir.dominators import DomTree
    from testkit.divergence_gen import generate_cfg_module
    from patterns.ir import parse_module

    exit_node = "<exit>"
    checked = 0
    for seed in range(40):
        mod = parse_module(generate_cfg_module([seed], 3 + seed % 16), "g.ll")
        for fn in mod.definitions():
            blocks = fn.blocks
            g = nx.DiGraph()
            g.add_nodes_from(blocks)
            g.add_edges_from((b, s) for b in blocks for s in b.successors)
            idom = dict(nx.immediate_dominators(g, blocks[0]))
            idom[blocks[0]] = blocks[0]  # networkx versions differ on whether the root is listed
            tree = DomTree.for_blocks(blocks)
            plain = DomTree(blocks[0], lambda b: b.successors)
            assert (tree._order, tree._idom, tree._pre, tree._post) == \
                (plain._order, plain._idom, plain._pre, plain._post)
            pre, post = tree.by_index
            for b in blocks:
                assert tree.parent(b) == (None if b is blocks[0] or b not in idom else idom[b])
                for a in blocks:
                    if b not in idom:  # unreachable: everything dominates it (LLVM's rule)
                        want = True
                    else:
                        want = a in idom and (a is b or _dominates(idom, a, b))
                    assert tree.dominates(a, b) == want
                    by_index = pre[b.index] < 0 or (pre[a.index] >= 0 and pre[a.index] <= pre[b.index]
                                                    and post[b.index] <= post[a.index])
                    assert by_index == want
            # post-dominators: predecessors from a virtual exit joined to every exit block
            r = g.reverse()
            r.add_edges_from((exit_node, b) for b in blocks if not b.successors)
            ipdom = dict(nx.immediate_dominators(r, exit_node)) if r.has_node(exit_node) else {}
            ipdom.pop(exit_node, None)
            preds = {b: list(r.successors(b)) for b in blocks}
            preds[exit_node] = [b for b in blocks if not b.successors]
            pdt = DomTree(exit_node, preds.__getitem__)
            for b in blocks:
                assert pdt.parent(b) == ipdom.get(b)
            checked += 1
    assert checked >= 40


def _dominates(idom: dict, a, b) -> bool:
    while True:
        if b is a:
            return True
        p = idom[b]
        if p is b:
            return False
        b = p


def test_branch_naming_one_block_twice():
    """A divergent branch whose two targets are one block: LLVM's use list holds the
    branch twice, so the analysis builds the predecessor lists itself instead of
    reversing the parser's (each predecessor once)."""
    from patterns.uniformity.analysis import FunctionAnalysis
    from patterns.uniformity.seeds import SeedModel
    from patterns.ir import parse_module

    text = """define amdgpu_kernel void @k(i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %tid, 0
  br i1 %c, label %x, label %x
x:
  %p = phi i32 [ 1, %entry ], [ 1, %entry ], [ 2, %y ]
  %d = icmp eq i32 %p, %n
  br i1 %d, label %y, label %z
y:
  br i1 %c, label %x, label %z
z:
  %q = phi i32 [ %p, %x ], [ 3, %y ]
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
"""
    direct = parse_module(text, "k.ll")
    fn = direct.function("k")
    hinted = FunctionAnalysis(fn, SeedModel(None), False)
    hinted.build()
    x = fn.block("x")
    assert [b.name for b in hinted.preds[x]] == ["y", "entry", "entry"]


def test_dominator_tree_on_random_digraphs_matches_networkx():
    """DomTree's one-pass shortcut (taken when every retreating edge is a back edge)
    and its iterative fallback (irreducible graphs) against networkx on random dense
    and sparse digraphs; both paths must be taken."""
    import random

    import networkx as nx

    from patterns.ir.dominators import DomTree

    kinds = {"one pass": 0, "iterated": 0}
    for seed in range(300):
        rnd = random.Random(seed)
        n = rnd.randint(1, 40)
        p = rnd.choice((0.03, 0.08, 0.2))
        succ = {v: sorted({rnd.randrange(n) for _ in range(rnd.randint(0, 4)) if rnd.random() < p * 8})
                for v in range(n)}
        for v in range(n - 1):  # mostly connected: a spine with random extra edges
            if rnd.random() < 0.8 and v + 1 not in succ[v]:
                succ[v].append(v + 1)
        g = nx.DiGraph()
        g.add_nodes_from(range(n))
        g.add_edges_from((v, w) for v in succ for w in succ[v])
        want = dict(nx.immediate_dominators(g, 0))
        want[0] = 0
        tree = DomTree(0, succ.__getitem__)
        for v in range(n):
            assert tree.parent(v) == (None if v == 0 or v not in want else want[v]), (seed, v)
        kinds["one pass" if tree.passes == 1 else "iterated"] += 1
    assert all(kinds.values()), kinds


"""The checker's verdicts judged against llvm-tblgen-19 -gen-dag-isel on what tdgen
emits for the same one-instruction target:

- each SDTypeProfile constraint, in patterns whose types fit it and break it;
- an instruction's explicit mayLoad/mayStore/hasSideEffects against the effects of
  the node or intrinsic its pattern matches ("Pattern doesn't match mayLoad = 0").

Where tblgen rejects, tdgen's checker must report the pattern; where tblgen accepts,
the checker must accept.
"""

from __future__ import annotations

import subprocess

import pytest
from llvm_tools import require, require_llvm_headers

from tdgen import emit, emit_td
from tdgen.check import check_target
from tdgen.errors import TdgenError
from tdgen.model import (
    Instruction,
    Intrinsic,
    Pat,
    IntrArgMemOnly,
    IntrConvergent,
    IntrHasSideEffects,
    IntrInaccessibleMemOnly,
    IntrNoMem,
    IntrReadMem,
    IntrWriteMem,
    InstrClass,
    RegisterClass,
    SDNode,
    SDTCisEltOfVec,
    SDTCisFP,
    SDTCisInt,
    SDTCisPtrTy,
    SDTCisSameAs,
    SDTCisSameNumEltsAs,
    SDTCisSameSizeAs,
    SDTCisVec,
    SDTCisVT,
    SDTCVecEltisVT,
    SDTypeProfile,
    Target,
    reg_names,
)
from tdgen.types import VALUE_TYPES, i32, llvm_i32_ty

TYPES = ("i32", "f32", "i64", "v2i32", "v2f32", "v4i32", "iPTR")

# constraint, [(result type, operand type) that fit], [(result type, operand type) that break it]
CASES = {
    "SDTCisVT": (SDTCisVT(0, i32), [("i32", "i32")], [("f32", "i32")]),
    "SDTCisInt": (SDTCisInt(1), [("i32", "i64"), ("i32", "v2i32")], [("i32", "f32"), ("i32", "v2f32")]),
    "SDTCisFP": (SDTCisFP(1), [("i32", "f32"), ("i32", "v2f32")], [("i32", "i32")]),
    # tblgen lets any scalar integer type stand for iPTR
    "SDTCisPtrTy": (SDTCisPtrTy(1), [("i32", "iPTR"), ("i32", "i64"), ("i32", "i32")], [("i32", "f32"), ("i32", "v2i32")]),
    "SDTCisVec": (SDTCisVec(1), [("i32", "v2i32")], [("i32", "i64")]),
    "SDTCisSameAs": (SDTCisSameAs(0, 1), [("f32", "f32")], [("f32", "i32")]),
    "SDTCisSameSizeAs": (SDTCisSameSizeAs(0, 1), [("i32", "f32"), ("i64", "v2f32")], [("i32", "i64")]),
    "SDTCVecEltisVT": (SDTCVecEltisVT(1, i32), [("i32", "v4i32")], [("i32", "v2f32"), ("i32", "i32")]),
    "SDTCisSameNumEltsAs": (SDTCisSameNumEltsAs(0, 1), [("v2f32", "v2i32")], [("v2f32", "v4i32")]),
    "SDTCisEltOfVec": (SDTCisEltOfVec(0, 1), [("i32", "v4i32")], [("f32", "v4i32"), ("i32", "i64")]),
}
PARAMS = [
    pytest.param(name, fits, types, id=f"{name}-{'ok' if fits else 'bad'}-{types[0]}-{types[1]}")
    for name, (_, goods, bads) in sorted(CASES.items())
    for fits, group in ((True, goods), (False, bads))
    for types in group
]


def _probe_target(
    pattern: str | None,
    *,
    outs: str = "(outs R:$d)",
    types=("i32",),
    flags: dict | None = None,
    node: SDNode | None = None,
    intrinsic: Intrinsic | None = None,
    pat: Pat | None = None,
) -> Target:
    """Target 'k': instruction PROBE (ins R:$a) selected by ``pattern`` and/or ``pat``,
    with ``flags`` set, using ``node`` / ``intrinsic``."""
    rc = RegisterClass("R", "vector", [VALUE_TYPES[t] for t in types], reg_names("R", 4), size=32)
    base = InstrClass("KInst", lets={"Namespace": "K", "Size": 4, **(flags or {})})
    inst = Instruction("PROBE", base, outs=outs, ins="(ins R:$a)", asm="probe $a", pattern=pattern)
    return Target(
        "k", "K", "k", isd_namespace="KISD",
        profiles=(node.profile,) if node else (), nodes=(node,) if node else (),
        intrinsics=(intrinsic,) if intrinsic else (), patterns=(pat,) if pat else (),
        register_classes=(rc,), classes=(base,), defs=(inst,),
    )


def _target(constraint, res: str, op: str) -> Target:
    node = SDNode("probe", "KISD::PROBE", SDTypeProfile(1, 1, [constraint], name="SDT_Probe"))
    return _probe_target(f"(set {res}:$d, (probe {op}:$a))", types=TYPES, node=node)


def _ours(t: Target) -> str | None:
    try:
        check_target(t)
    except TdgenError as e:
        return e.format()
    return None


def _tblgen(t: Target, tmp_path) -> subprocess.CompletedProcess:
    exe = require("llvm-tblgen-19")
    inc = require_llvm_headers()
    for rel, text in emit.emit_target("k", t).items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    main = tmp_path / "k" / emit_td.layout(t).main_td
    return subprocess.run(
        [exe, "-I", str(inc), "-I", str(main.parent), "-gen-dag-isel", str(main), "-o", "/dev/null"],
        capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize("name, fits, types", PARAMS)
def test_constraint_agrees_with_tblgen(name, fits, types, tmp_path):
    constraint = CASES[name][0]
    _judged_alike(_target(constraint, *types), fits, tmp_path, "field 'pattern': expected", "")


def _judged_alike(t: Target, fits: bool, tmp_path, ours_says: str, tblgen_says: str) -> None:
    """The checker and llvm-tblgen-19 both accept ``t`` (``fits``), or both reject it: the
    checker's message holding ``ours_says``, tblgen's output ``tblgen_says``."""
    msg = _ours(t)
    r = _tblgen(t, tmp_path)
    if fits:
        assert msg is None, msg
        assert r.returncode == 0, r.stderr
    else:
        assert msg is not None and ours_says in msg, msg
        assert r.returncode != 0 and tblgen_says in r.stderr, f"llvm-tblgen-19 accepted it: {r.stderr}"


# ------------------------------------------------------------------ effects

NO_EFFECTS = {"mayLoad": 0, "mayStore": 0, "hasSideEffects": 0}
EFFECT_CASES = [
    # (node properties or intrinsic properties, instruction flags)
    ("node", (), NO_EFFECTS),
    ("node", ("SDNPHasChain", "SDNPMayLoad"), NO_EFFECTS),
    ("node", ("SDNPHasChain", "SDNPMayLoad"), {"mayLoad": 1}),
    ("node", ("SDNPHasChain", "SDNPMayStore"), {"mayStore": 0}),
    ("node", ("SDNPHasChain", "SDNPMayStore"), {"mayStore": 1}),
    ("node", (), {"mayStore": 1}),
    ("node", (), {"mayLoad": 1, "hasSideEffects": 1}),
    ("node", ("SDNPHasChain", "SDNPSideEffect"), {"hasSideEffects": 0}),
    ("node", ("SDNPHasChain",), NO_EFFECTS),
    ("intr", (IntrNoMem, IntrConvergent), NO_EFFECTS),
    ("intr", (IntrReadMem,), NO_EFFECTS),
    ("intr", (IntrReadMem,), {"mayLoad": 1, "mayStore": 0}),
    ("intr", (IntrWriteMem,), {"mayLoad": 0}),
    ("intr", (IntrWriteMem,), {"mayStore": 0}),
    ("intr", (IntrConvergent,), {"mayLoad": 1, "mayStore": 1}),
    ("intr", (IntrConvergent,), {"mayLoad": 1, "mayStore": 1, "hasSideEffects": 1}),
    ("intr", (IntrInaccessibleMemOnly,), {"hasSideEffects": 0, "mayLoad": 1}),
    ("intr", (IntrInaccessibleMemOnly,), {"mayStore": 0}),
    ("intr", (IntrReadMem, IntrInaccessibleMemOnly), {"mayStore": 0, "hasSideEffects": 0}),
    ("intr", (IntrArgMemOnly,), {"mayLoad": 0}),
    ("intr", (IntrNoMem, IntrHasSideEffects), NO_EFFECTS),
    ("intr", (IntrNoMem, IntrHasSideEffects), {"hasSideEffects": 1, "mayLoad": 0, "mayStore": 0}),
    # through a Pat<> selecting the instruction (no pattern of its own)
    ("node", ("SDNPHasChain", "SDNPMayLoad"), NO_EFFECTS, True),
    ("node", ("SDNPHasChain", "SDNPMayLoad"), {"mayLoad": 0}, True),
    ("node", (), {"mayStore": 1}, True),
    ("intr", (IntrReadMem,), {"mayLoad": 1, "mayStore": 0, "hasSideEffects": 0}, True),
]


def _effects_target(kind: str, props, flags, via_pat: bool = False) -> Target:
    if kind == "node":
        prof = SDTypeProfile(1, 1, [SDTCisVT(0, i32), SDTCisVT(1, i32)], name="SDT_Probe")
        kw = {"node": SDNode("probe", "KISD::PROBE", prof, props)}
        op = "probe"
    else:
        kw = {"intrinsic": Intrinsic("int_k_probe", [llvm_i32_ty], [llvm_i32_ty], props)}
        op = "int_k_probe"
    if via_pat:
        return _probe_target(None, flags=flags, pat=Pat(f"({op} i32:$a)", "(PROBE $a)", name="ProbePat"), **kw)
    return _probe_target(f"(set i32:$d, ({op} i32:$a))", flags=flags, **kw)


def _case_id(c) -> str:
    kind, props, flags = c[:3]
    names = "+".join(getattr(p, "name", p) for p in props) or "none"
    return f"{kind}-{names}-" + ",".join(f"{k}={v}" for k, v in flags.items())


@pytest.mark.parametrize("case", EFFECT_CASES, ids=_case_id)
def test_effect_flags_agree_with_tblgen(case, tmp_path):
    t = _effects_target(*case)
    msg = _ours(t)
    r = _tblgen(t, tmp_path)
    tblgen_rejects = "Pattern doesn't match" in r.stderr
    assert r.returncode == 0 or tblgen_rejects, r.stderr
    if tblgen_rejects:
        where = "record 'ProbePat' field 'src'" if len(case) > 3 else "record 'PROBE' field 'pattern'"
        assert msg is not None and f"{where}: expected a pattern" in msg, (msg, r.stderr)
    else:
        assert msg is None, msg


# ------------------------------------------------------------ top-level forms

FORM_CASES = [
    # (pattern, outs, tblgen accepts)
    ("(set i32:$d, (add i32:$a, i32:$a))", "(outs R:$d)", True),
    ("(add i32:$a, i32:$a)", "(outs R:$d)", False),
    ("(add i32:$a, i32:$a)", "(outs)", False),
]


@pytest.mark.parametrize("pattern, outs, accepted", FORM_CASES)
def test_top_level_forms_agree_with_tblgen(pattern, outs, accepted, tmp_path):
    t = _probe_target(pattern, outs=outs)
    msg = _ours(t)
    r = _tblgen(t, tmp_path)
    assert (r.returncode == 0) == accepted, r.stderr
    if accepted:
        assert msg is None, msg
    else:
        assert msg is not None and "expected a top-level form without results" in msg, msg


# ------------------------------------------------------------------ inference

INFER_CASES = [
    # (pattern, register class types, tblgen infers every type)
    ("(set R:$d, (bitconvert R:$a))", ("i32", "f32"), False),
    ("(set R:$d, (bitconvert R:$a))", ("i32",), True),
    ("(set R:$d, (add R:$a, R:$a))", ("i32", "f32"), True),
    ("(set R:$d, (add R:$a, R:$a))", ("i32", "i64"), False),
    ("(set i32:$d, (add R:$a, R:$a))", ("i32", "i64"), True),
    ("(set R:$d, (fneg R:$a))", ("i32", "f32", "f64"), False),
    ("(set R:$d, (fneg f64:$a))", ("i32", "f32", "f64"), True),
]


@pytest.mark.parametrize("pattern, types, inferred", INFER_CASES)
def test_type_inference_completeness_agrees_with_tblgen(pattern, types, inferred, tmp_path):
    t = _probe_target(pattern, types=types)
    msg = _ours(t)
    r = _tblgen(t, tmp_path)
    assert (r.returncode == 0) == inferred, r.stderr
    if inferred:
        assert msg is None, msg
    else:
        assert "Could not infer all types" in r.stderr
        assert msg is not None and "(llvm-tblgen cannot infer it)" in msg, msg


# --- PatFrag.uses_operands: where llvm-tblgen puts predicate code that reads Operands ------

_READS = "return !Operands[0]->isDivergent();"


@pytest.mark.parametrize("uses_operands", [True, False])
def test_uses_operands_verdict_agrees_with_where_tblgen_puts_the_code(uses_operands, tmp_path):
    """llvm-tblgen-19 declares ``Operands`` only in CheckNodePredicateWithOperands, and
    puts a frag's code there only with PredicateCodeUsesOperands: the checker must
    reject a frag whose code reads Operands exactly when tblgen would put it elsewhere."""
    from tdgen.model import PatFrag

    frag = PatFrag("kfrag", ["x"], "(ctpop node:$x)", predicate_code=_READS, uses_operands=uses_operands)
    t = _probe_target("(set i32:$d, (kfrag i32:$a))")
    t = Target("k", "K", "k", isd_namespace="KISD", register_classes=t.register_classes, classes=t.classes,
               defs=t.defs, frags=(frag,))
    ours = _ours(t)
    exe = require("llvm-tblgen-19")
    inc = require_llvm_headers()
    for rel, text in emit.emit_target("k", t).items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    main = tmp_path / "k" / emit_td.layout(t).main_td
    out = tmp_path / "isel.inc"
    r = subprocess.run([exe, "-I", str(inc), "-I", str(main.parent), "-gen-dag-isel", str(main), "-o", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    gen = out.read_text()
    hook = gen.find("CheckNodePredicateWithOperands(")
    at = gen.find(_READS)
    assert at >= 0, "tblgen output lacks the predicate code"
    # the code sits in the hook declaring Operands iff it comes after that hook's start
    # and no other predicate function starts in between
    in_hook = hook >= 0 and hook < at and "CheckNodePredicate(" not in gen[hook:at]
    assert in_hook == uses_operands
    if in_hook:
        assert ours is None, ours
    else:
        assert ours is not None and "field 'uses_operands'" in ours, ours


# ------------------------------------------------------------------ SDNodeXForm values

# An SDNodeXForm's value has no type of its own (llvm-tblgen takes it from where it is
# used): in an operand whose register class holds several types it must be cast, else
# "Could not infer all types in pattern result!". (result operand, register types, fits)
XFORM_CASES = [
    ("(XF $c)", ("i32",), True),
    ("(XF $c)", ("i32", "f32"), False),
    ("(i32 (XF $c))", ("i32", "f32"), True),
]


@pytest.mark.parametrize("operand, types, fits", XFORM_CASES,
                         ids=[f"{o}-{'+'.join(t)}" for o, t, _f in XFORM_CASES])
def test_xform_value_type_agrees_with_tblgen(operand, types, fits, tmp_path):
    import dataclasses

    from tdgen.model import SDNodeXForm

    xf = SDNodeXForm("XF", "imm", "return CurDAG->getTargetConstant(N->getZExtValue() + 1, SDLoc(N), MVT::i32);")
    base = _probe_target(None, types=types, pat=Pat("(i32 imm:$c)", f"(PROBE {operand})", name="XfPat"))
    _judged_alike(dataclasses.replace(base, xforms=(xf,)), fits, tmp_path,
                  "field 'dst': expected one type for the value of SDNodeXForm 'XF'",
                  "Could not infer all types in pattern result")

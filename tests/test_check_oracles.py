"""The model's facts checked against LLVM 19 itself (the oracle), not hard-coded:

- builtin SDNodes, profiles and fragments equal their definitions in
  llvm/Target/TargetSelectionDAG.td;
- amdgpu intrinsics have exactly the types, properties and ClangBuiltin names of
  llvm/IR/IntrinsicsAMDGPU.td;
- each amdgpu intrinsic's divergence class is what opt-19's uniformity analysis says;
- each amdgpu instruction exists in llc-19's AMDGPU backend with our explicit operands
  (register classes and operand count), via the MIR parser + machine verifier.
"""

from __future__ import annotations

import re
import subprocess

import pytest
from llvm_tools import require, require_llvm_headers

from tdgen.builtins import BUILTIN_FRAGS, BUILTIN_NODES, BUILTIN_PROFILES
from tdgen.hw import DivergenceKind
from tdgen.model import ImmArg
from tdgen.spec import load_target


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", text)


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s)


# ------------------------------------------------------------------ builtins


@pytest.fixture(scope="module")
def sdag_td() -> str:
    inc = require_llvm_headers()
    return _strip_comments((inc / "llvm" / "Target" / "TargetSelectionDAG.td").read_text())


def _llvm_profiles(td: str) -> dict[str, str]:
    out = {}
    for m in re.finditer(r"def\s+(\w+)\s*:\s*(SDTypeProfile<.*?\]>)\s*;", td, re.S):
        out[m.group(1)] = _norm(m.group(2))
    return out


def _llvm_nodes(td: str) -> dict[str, tuple[str, str, str, str]]:
    out = {}
    pat = re.compile(
        r"def\s+(\w+)\s*:\s*SDNode<\s*\"([\w:]+)\"\s*,\s*(SDTypeProfile<.*?\]>|\w+)\s*(?:,\s*\[([^\]]*)\])?\s*(?:,\s*\"(\w+)\")?\s*>\s*;",
        re.S,
    )
    for m in pat.finditer(td):
        out[m.group(1)] = (m.group(2), _norm(m.group(3)), _norm(m.group(4) or ""), m.group(5) or "SDNode")
    return out


def test_builtin_profiles_match_llvm(sdag_td):
    llvm = _llvm_profiles(sdag_td)
    checked = 0
    for name, prof in BUILTIN_PROFILES.items():
        if name in llvm:  # our SDTIntrinsic* names stand for LLVM's inline profiles
            assert _norm(prof.tablegen) == llvm[name], name
            checked += 1
    assert checked >= 20


def test_builtin_nodes_match_llvm(sdag_td):
    llvm = _llvm_nodes(sdag_td)
    profiles = _llvm_profiles(sdag_td)
    for name, node in BUILTIN_NODES.items():
        assert name in llvm, f"{name} is not an SDNode in TargetSelectionDAG.td"
        opcode, prof, props, sdclass = llvm[name]
        assert node.opcode == opcode, name
        want = profiles.get(prof, prof)
        assert _norm(node.profile.tablegen) == want, name
        assert ",".join(node.properties) == props, name
        assert node.sdclass == sdclass, name


def test_builtin_frags_match_llvm(sdag_td):
    for name, frag in BUILTIN_FRAGS.items():
        m = re.search(rf"def\s+{name}\s*:\s*PatFrag<\s*(\(ops[^)]*\))\s*,\s*(\(.*?\))\s*>", sdag_td, re.S)
        assert m, name
        assert _norm(m.group(1)) == _norm(frag.ops_tablegen), name
        assert _norm(m.group(2)) == _norm(frag.fragment), name


# ---------------------------------------------------------------- intrinsics


@pytest.fixture(scope="module")
def intrinsic_records() -> dict[str, tuple[list[str], dict[str, str]]]:
    """Every record of LLVM's Intrinsics.td as llvm-tblgen-19 resolves it:
    name -> (classes, {field: value text})."""
    tblgen = require("llvm-tblgen-19")
    inc = require_llvm_headers()
    out = subprocess.run(
        [tblgen, "-I", str(inc), str(inc / "llvm" / "IR" / "Intrinsics.td"), "-print-records"],
        capture_output=True, text=True, check=True,
    ).stdout
    recs = {}
    for m in re.finditer(r"^def (\w+) \{\s*//([^\n]*)\n(.*?)^\}", out, re.M | re.S):
        fields = dict(re.findall(r"^\s+\S.*? (\w+) = (.*);$", m.group(3), re.M))
        recs[m.group(1)] = (m.group(2).split(), fields)
    return recs


def _items(text: str) -> list[str]:
    text = text.strip()
    assert text.startswith("[") and text.endswith("]"), text
    return [x.strip() for x in text[1:-1].split(",") if x.strip()]


def _spell(name: str, recs) -> str:
    """TableGen spelling of a (possibly anonymous) type or property record."""
    if not name.startswith("anonymous_"):
        return name
    classes, fields = recs[name]
    if "LLVMMatchType" in classes:
        return f"LLVMMatchType<{fields['Number']}>"
    if "LLVMQualPointerType" in classes:
        return f"LLVMQualPointerType<{fields.get('AddrSpace', '?')}>"
    kind = classes[-1]
    arg = int(fields["ArgNo"])
    return f"{kind}<RetIndex>" if arg == 0 else f"{kind}<ArgIndex<{arg - 1}>>"


def _llvm_signature(recs, name: str) -> dict:
    assert name in recs, f"{name} is not an LLVM 19 intrinsic"
    _, f = recs[name]
    clang = f.get("ClangBuiltinName")
    return {
        "results": [_spell(x, recs) for x in _items(f["RetTypes"])],
        "params": [_spell(x, recs) for x in _items(f["ParamTypes"])],
        "props": [_spell(x, recs) for x in _items(f["IntrProperties"])],
        "clang": clang.strip('"') if clang else None,
        "default_attrs": f["DisableDefaultAttributes"] == "0",
        # LLVM derives the IR name from the record name when LLVMName is empty
        "ir_name": f["LLVMName"].strip('"') or "llvm." + name[4:].replace("_", "."),
    }


def test_amdgpu_intrinsics_match_llvm(intrinsic_records):
    t = load_target("amdgpu")
    diffs = []
    for intr in t.intrinsics:
        want = _llvm_signature(intrinsic_records, intr.name)
        have = {
            "results": [x.tablegen for x in intr.results],
            "params": [x.tablegen for x in intr.params],
            "props": [p.tablegen for p in intr.properties],
            "clang": intr.clang_builtin,
            "default_attrs": intr.default_attrs,
            "ir_name": intr.ir_name,
        }
        for k, v in have.items():
            if v != want[k]:
                diffs.append(f"{intr.name} {k}: ours {v}, LLVM {want[k]}")
    assert diffs == []


@pytest.mark.parametrize("target", ["dslike", "amdgpu"])
def test_rewrites_fit_the_foreign_intrinsics(intrinsic_records, target):
    """Each foreign intrinsic exists in LLVM 19 with ``foreign_params`` parameters, and
    every mapped argument has the type of the target parameter it feeds."""
    from tdgen.model import Const
    from tdgen.model.intrinsics import tablegen_name_of

    t = load_target(target)
    for rw in t.rewrites:
        want = _llvm_signature(intrinsic_records, tablegen_name_of(rw.foreign))
        assert rw.foreign_params == len(want["params"]), rw.foreign
        assert [x.tablegen for x in rw.target.results] == want["results"], rw.foreign
        for i, src in enumerate(rw.operands):
            if isinstance(src, Const):
                continue
            assert want["params"][src] == rw.target.params[i].tablegen, (rw.foreign, i)
    if target == "dslike":
        assert len(t.rewrites) == 10  # shfl.sync.{idx,up,down,bfly}.{i32,f32}, laneid, tid.x


def test_intrinsic_types_match_llvm(intrinsic_records):
    """Each named intrinsic type of tdgen.types is an LLVM 19 record with the value
    type we give it (``VT``), overloaded exactly when LLVM's is (``isAny``)."""
    from tdgen.types import INTRINSIC_TYPES

    diffs = []
    for name, ty in INTRINSIC_TYPES.items():
        assert name in intrinsic_records, name
        _, f = intrinsic_records[name]
        ours_vt = ty.vt.name if ty.vt is not None else ("iPTR" if ty.addrspace is not None else None)
        if ours_vt is not None and f["VT"] != ours_vt:
            diffs.append(f"{name}: VT ours {ours_vt}, LLVM {f['VT']}")
        if (f["isAny"] == "1") != ty.is_overloaded:
            diffs.append(f"{name}: overloaded ours {ty.is_overloaded}, LLVM isAny={f['isAny']}")
    assert diffs == []
    assert len(INTRINSIC_TYPES) >= 15


def test_intrinsic_type_ir_spelling_accepted_by_opt():
    """``IntrinsicType.ir`` of vectors and address-space pointers is the IR type LLVM
    checks intrinsic declarations against (opt-19's verifier), and a wrong address
    space is rejected (so the oracle discriminates)."""
    from tdgen.types import LLVMQualPointerType, llvm_i32_ty, llvm_v4i32_ty

    opt = require("opt-19")

    def verify(params) -> subprocess.CompletedProcess:
        sig = ", ".join(t.ir for t in params)
        formals = ", ".join(f"{t.ir} %a{i}" for i, t in enumerate(params[:2]))
        actuals = ", ".join([f"{t.ir} %a{i}" for i, t in enumerate(params[:2])] + [f"{t.ir} 0" for t in params[2:]])
        ir = (
            f"declare void @llvm.amdgcn.raw.buffer.load.lds({sig})\n"
            f"define void @f({formals}) {{\n  call void @llvm.amdgcn.raw.buffer.load.lds({actuals})\n  ret void\n}}\n"
        )
        return subprocess.run([opt, "-passes=verify", "-disable-output"], input=ir, capture_output=True, text=True)

    tail = [llvm_i32_ty] * 5
    good = verify([llvm_v4i32_ty, LLVMQualPointerType(3), *tail])
    assert good.returncode == 0, good.stderr
    assert LLVMQualPointerType(3).ir == "ptr addrspace(3)" and llvm_v4i32_ty.ir == "<4 x i32>"
    bad = verify([llvm_v4i32_ty, LLVMQualPointerType(1), *tail])
    assert bad.returncode != 0 and "incorrect argument type" in bad.stderr


def test_foreign_intrinsic_table_matches_llvm(intrinsic_records):
    """Every foreign intrinsic the rewrite check accepts exists in LLVM 19 with the
    signature and convergence tdgen.builtins.FOREIGN_INTRINSICS gives it."""
    from tdgen.builtins import FOREIGN_INTRINSICS
    from tdgen.model.intrinsics import tablegen_name_of

    diffs = []
    for ir_name, f in FOREIGN_INTRINSICS.items():
        name = tablegen_name_of(ir_name)
        if name not in intrinsic_records:
            diffs.append(f"{ir_name}: not an LLVM 19 intrinsic")
            continue
        _, fields = intrinsic_records[name]
        have = ([x.tablegen for x in f.results], [x.tablegen for x in f.params], f.convergent)
        want = (
            _items(fields["RetTypes"]),
            _items(fields["ParamTypes"]),
            "IntrConvergent" in _items(fields["IntrProperties"]),
        )
        if fields["LLVMName"].strip('"') not in ("", ir_name):
            diffs.append(f"{ir_name}: LLVM spells it {fields['LLVMName']}")
        if have != want:
            diffs.append(f"{ir_name}: ours {have}, LLVM {want}")
    assert diffs == []
    assert len(FOREIGN_INTRINSICS) >= 32


def test_has_chain_matches_opt_memory_attributes(intrinsic_records):
    """Intrinsic.has_chain (INTRINSIC_W_CHAIN vs _WO_CHAIN, what the lowering check
    demands of the node) is true exactly when opt-19 does not give the call
    ``memory(none)``: for the amdgpu intrinsics (LLVM's own) and an IntrNoMem +
    IntrHasSideEffects intrinsic (llvm.aarch64.get.fpcr)."""
    from tdgen.model import IntrHasSideEffects, Intrinsic, IntrNoMem
    from tdgen.types import llvm_i64_ty

    opt = require("opt-19")
    fpcr = Intrinsic("int_aarch64_get_fpcr", [llvm_i64_ty], [], [IntrNoMem, IntrHasSideEffects], default_attrs=True)
    intrs = list(load_target("amdgpu").intrinsics) + [fpcr]
    # declared by LLVM's own signature (overloads as i32), so only properties matter
    decls, names = [], {}
    for intr in intrs:
        _, f = intrinsic_records[intr.name]
        ret, params = [
            [{"llvm_i64_ty": "i64", "llvm_i1_ty": "i1"}.get(x, "i32") for x in _items(f[k])]
            for k in ("RetTypes", "ParamTypes")
        ]
        names[intr.name] = intr.ir_name + (".i32" if f["isOverloaded"] == "1" else "")
        decls.append(f"declare {ret[0] if ret else 'void'} @{names[intr.name]}({', '.join(params)})")
    out = subprocess.run([opt, "-S"], input="\n".join(decls) + "\n", capture_output=True, text=True, check=True).stdout
    groups = dict(re.findall(r"^attributes (#\d+) = \{(.*)\}$", out, re.M))
    seen = 0
    for intr in intrs:
        name = names[intr.name]
        m = re.search(rf"^declare .*@{re.escape(name)}\(.*\) (#\d+)$", out, re.M)
        assert m, name
        assert intr.has_chain == ("memory(none)" not in groups[m.group(1)]), intr.name
        seen += 1
    assert seen == len(intrs) and fpcr.has_chain


# --------------------------------------------------------------- divergence


def _ir_call(intr, args: list[str]) -> str:
    ty = intr.results[0].ir if intr.results[0].vt is not None else "i32"
    name = intr.ir_name + ("" if not intr.is_overloaded else ".i32")
    return f"call {ty} @{name}({', '.join(args)})"


def test_amdgpu_divergence_classes_match_opt():
    opt = require("opt-19")
    t = load_target("amdgpu")
    lines = ["declare i32 @llvm.amdgcn.workitem.id.x()"]
    body = []
    probes = {}
    for k, intr in enumerate(t.intrinsics):
        n = len(intr.params)
        # uniform operands (kernel args) -> divergent only if a source of divergence;
        # divergent operands -> uniform only if always uniform.
        uargs = [f"i32 {'100' if ImmArg(i) in intr.properties else '%u'}" for i in range(n)]
        dargs = [f"i32 {'100' if ImmArg(i) in intr.properties else '%d'}" for i in range(n)]
        body.append(f"  %u{k} = {_ir_call(intr, uargs)}")
        body.append(f"  %d{k} = {_ir_call(intr, dargs)}")
        probes[k] = intr
    ir = "\n".join(
        ["define amdgpu_kernel void @k(i32 %u) {", "  %d = call i32 @llvm.amdgcn.workitem.id.x()"]
        + body + ["  ret void", "}"]
    )
    out = subprocess.run(
        [opt, "-mtriple=amdgcn", "-mcpu=gfx900", "-passes=print<uniformity>", "-disable-output"],
        input=ir, capture_output=True, text=True, check=True,
    ).stderr
    divergent = set(re.findall(r"DIVERGENT:\s+%(\w+) =", out))
    for k, intr in probes.items():
        if intr.divergence is DivergenceKind.SOURCE:
            assert f"u{k}" in divergent, intr.name
        elif intr.divergence is DivergenceKind.ALWAYS_UNIFORM:
            assert f"d{k}" not in divergent, intr.name
        else:
            has_operand = any(ImmArg(i) not in intr.properties for i in range(len(intr.params)))
            assert f"u{k}" not in divergent, intr.name
            assert (f"d{k}" in divergent) == has_operand, intr.name


# ------------------------------------------------------------- instructions


# Instructions the amdgpu model declares differently from LLVM on purpose, with why.
# The test below checks that llc-19 really rejects each (so an entry cannot go stale)
# and that every other instruction is accepted.
DEVIATIONS: dict[str, str] = {}


def _mir(t, extra: dict[str, list[str]], only=None, skip=()) -> tuple[str, dict[int, str]]:
    """A MIR function using every instruction once (or only those named in ``only``,
    minus ``skip``): explicit operands from the model (a vreg of the operand's register
    class, 0 for immediates), then the implicit registers the model declares, then any
    ``extra`` implicit operands."""
    defs, body, owner = [], [], {}
    n = 0
    for inst in t.instructions.values():
        if (only is not None and inst.name not in only) or inst.name in skip:
            continue
        ops = []
        for o in inst.ins:
            if o.kind in t.register_classes_by_name:
                n += 1
                defs.append(f"    %{n}:{o.kind.lower()} = IMPLICIT_DEF")
                ops.append(f"%{n}")
            elif any(k.name == o.kind and k.operand_type == "OPERAND_PCREL" for k in t.operands):
                ops.append("%bb.0")  # (a branch target: a block)
            else:
                ops.append("0")
        ops += [f"implicit-def ${r.lower()}" for r in inst.implicit_defs]
        ops += [f"implicit ${r.lower()}" for r in inst.implicit_uses]
        ops += extra.get(inst.name, [])
        outs = []
        for o in inst.outs:
            n += 1
            outs.append(f"%{n}:{o.kind.lower()}")
        lhs = f"{', '.join(outs)} = " if outs else ""
        body.append((inst.name, f"    {lhs}{inst.name} {', '.join(ops)}".rstrip()))
    # (VCC, read by the branches on a lane mask, is defined first: no modelled
    # instruction writes it but the S_AND_B64 the selection makes into it)
    lines = ["---", "name: f", "tracksRegLiveness: true", "body: |", "  bb.0:"] + defs + ["    $vcc = IMPLICIT_DEF"]
    # (terminators -- branches, the control-flow pseudos that end a block -- after the rest)
    term = {i.name for i in t.instructions.values() if i.field("isTerminator", 0)}
    body.sort(key=lambda nt: nt[0] in term)
    for name, text in body:
        owner[len(lines) + 1] = name
        lines.append(text)
    lines += ["    S_ENDPGM 0", "..."]
    return "\n".join(lines) + "\n", owner


def test_amdgpu_instructions_exist_with_our_operands(tmp_path):
    llc = require("llc-19")
    t = load_target("amdgpu")
    extra: dict[str, list[str]] = {}
    missing: list[str] = []
    # The MIR parser stops at the first instruction lacking an implicit register
    # operand LLVM's definition has; note it, add it, and go on, so the failure lists
    # every gap of the model at once. Explicit operands are never patched.
    for _ in range(4 * len(t.instructions) + 4):
        text, owner = _mir(t, extra, skip=DEVIATIONS)
        f = tmp_path / "m.mir"
        f.write_text(text)
        r = subprocess.run(
            [llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-run-pass=none", "-verify-machineinstrs", str(f), "-o", "/dev/null"],
            capture_output=True, text=True,
        )
        if r.returncode == 0:
            break
        m = re.search(r":(\d+):\d+: missing implicit register operand '([^']+)'", r.stderr)
        assert m, "llc rejected our instructions:\n" + "\n".join(
            ln for ln in r.stderr.splitlines() if ln.startswith(("***", "- instruction", "- operand", "error"))
        )
        name = owner[int(m.group(1))]
        missing.append(f"{name}: {m.group(2)}")
        extra.setdefault(name, []).append(m.group(2))
    else:
        pytest.fail("too many rounds")
    assert missing == [], "implicit registers missing from the model (implicit_defs/implicit_uses): " + "; ".join(missing)
    for name in DEVIATIONS:
        assert name in t.instructions, f"stale deviation entry: {name} is not in the model"
        text, _owner = _mir(t, {}, only={name})
        f.write_text(text)
        r = subprocess.run(
            [llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-run-pass=none", "-verify-machineinstrs", str(f), "-o", "/dev/null"],
            capture_output=True, text=True,
        )
        assert r.returncode != 0, f"{name} is now accepted by llc-19: remove it from DEVIATIONS"
        # rejected for the documented reason (the machine verifier objects to this
        # instruction's operands), not for an unrelated one (a MIR parse error, a missing
        # implicit register, a crash elsewhere)
        bad = [ln for ln in r.stderr.splitlines() if ln.startswith("- instruction:")]
        assert "*** Bad machine code:" in r.stderr and bad, f"{name}: llc-19 failed without a verifier report:\n{r.stderr}"
        assert all(re.search(rf"= {re.escape(name)} ", ln) for ln in bad), f"{name}: llc-19 objects to another instruction:\n" + "\n".join(bad)
        assert re.search(r"Expected a \w+ register, but got a \w+ register|\d+ operands expected, but \d+ given", r.stderr), (
            f"{name}: llc-19 reports no operand class/count problem:\n{r.stderr}"
        )
        assert "missing implicit register operand" not in r.stderr


def test_amdgpu_mad_u64_u32_declared_as_llvm_does(tmp_path):
    """V_MAD_U64_U32_e64 has LLVM's operands (VReg_64 result, SReg_64 carry-out, VReg_64
    addend, clamp): llc-19's MIR verifier accepts our declaration, and rejects the same
    instruction once the addend is narrowed to a 32-bit register as the model once had it
    (so the check above really looks at these operands)."""
    llc = require("llc-19")
    t = load_target("amdgpu")
    inst = t.instructions["V_MAD_U64_U32_e64"]
    assert [o.kind for o in inst.outs] == ["VReg_64", "SReg_64"]
    assert [o.kind for o in inst.ins] == ["VGPR_32", "VGPR_32", "VReg_64", "clampmod0"]

    def run(text: str) -> subprocess.CompletedProcess:
        f = tmp_path / "m.mir"
        f.write_text(text)
        return subprocess.run(
            [llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-run-pass=none", "-verify-machineinstrs", str(f), "-o", "/dev/null"],
            capture_output=True, text=True,
        )

    text, _owner = _mir(t, {}, only={"V_MAD_U64_U32_e64"})
    r = run(text)
    assert r.returncode == 0, r.stderr
    narrowed = re.sub(r"(%\d+):vreg_64 = IMPLICIT_DEF", r"\1:vgpr_32 = IMPLICIT_DEF", text)
    assert narrowed != text
    r = run(narrowed)
    assert r.returncode != 0 and "*** Bad machine code:" in r.stderr, r.stderr

"""C++ emitter: a checked ``Target`` -> template contexts for its C++ sources.

Files (names from ``emit_td.Layout``):
- ``<NS>ISelLowering.h``: ``llvm::<NS>ISD::NodeType`` (target SDNode opcodes after
  ``ISD::BUILTIN_OP_END``) and the declarations of the two functions below.
- ``<NS>ISelLowering.cpp``: ``get<NS>TargetNodeName`` (getTargetNodeName cases) and
  ``Lower<NS>INTRINSIC_WO_CHAIN``: one ``DAG.getNode`` per spec ``Lowering`` of an
  IntrNoMem intrinsic; intrinsics with memory effects (a chain) are lowered in
  ``Lower<NS>INTRINSIC_W_CHAIN`` (also for INTRINSIC_VOID), keeping the chain.
- ``<NS>IntrinsicRewrite.h`` / ``.cpp``: ``rewrite<NS>ForeignIntrinsics(Function &)``
  plus a new-PM pass: every call of a foreign intrinsic named by a spec ``Rewrite`` is rebuilt
  with IRBuilder as a call of the target intrinsic with the mapped operands.
- ``<NS>Divergence.h`` / ``.cpp``: ``is<NS>SourceOfDivergence`` / ``is<NS>AlwaysUniform`` over
  intrinsic IDs (the data behind TTI::isSourceOfDivergence / isAlwaysUniform) and the
  same questions by IR name for the target's glob rules (``llvm::GlobPattern``).

The target's intrinsic IDs come from ``Intrinsics<NS>.h``, which llvm-tblgen makes from
the generated ``Intrinsics<NS>.td`` (-gen-intrinsic-enums); it is not committed.
Case lists are sorted by their C++ names; glob rules keep the spec order (first match
wins).
"""

from __future__ import annotations

from .emit_td import Layout, layout
from .hw import DivergenceKind
from .model.intrinsics import Intrinsic
from .model.lowering import Const
from .model.nodes import SDNode
from .model.target import Target

# LLVM header declaring each target prefix's intrinsic IDs (for foreign intrinsics).
LLVM_INTRINSIC_HEADERS = {
    prefix: f"llvm/IR/Intrinsics{header}.h"
    for prefix, header in (
        ("aarch64", "AArch64"), ("amdgcn", "AMDGPU"), ("arm", "ARM"), ("bpf", "BPF"),
        ("dx", "DirectX"), ("hexagon", "Hexagon"), ("loongarch", "LoongArch"),
        ("mips", "Mips"), ("nvvm", "NVPTX"), ("ppc", "PowerPC"), ("r600", "R600"),
        ("riscv", "RISCV"), ("s390", "S390"), ("spv", "SPIRV"), ("ve", "VE"),
        ("wasm", "WebAssembly"), ("x86", "X86"), ("xcore", "XCore"),
    )
}


def contexts(target: Target) -> list[tuple[str, str, dict]]:
    lay = layout(target)
    # Without intrinsics llvm-tblgen makes no enum header for the prefix: don't include it.
    common = {"has_intrinsics": bool(target.intrinsics)}
    return [
        (lay.isel_header, "isellowering.h.j2", {**common, **isel_context(target, lay)}),
        (lay.isel_source, "isellowering.cpp.j2", {**common, **isel_context(target, lay)}),
        (lay.rewrite_header, "rewrite.h.j2", {**common, **rewrite_context(target, lay)}),
        (lay.rewrite_source, "rewrite.cpp.j2", {**common, **rewrite_context(target, lay)}),
        (lay.divergence_header, "divergence.h.j2", {**common, **divergence_context(target, lay)}),
        (lay.divergence_source, "divergence.cpp.j2", {**common, **divergence_context(target, lay)}),
    ]


def target_nodes(target: Target) -> list[SDNode]:
    """The target's own SDNodes (not LLVM's), sorted by enumerator."""
    return sorted((n for n in target.nodes if not n.builtin), key=lambda n: n.isd_name)


# ----------------------------------------------------------------- ISelLowering


def _guard(file_name: str) -> str:
    """Include guard of a generated header: TDGEN_<FILE>_H."""
    return "TDGEN_" + file_name.replace(".", "_").upper()


def isel_context(target: Target, lay: Layout) -> dict:
    nodes = target_nodes(target)
    wo_chain, w_chain = [], []
    for low in sorted(target.lowerings, key=lambda x: x.intrinsic.enum_name):
        case = {
            "intrinsic": low.intrinsic.enum_name,
            "ir_name": low.intrinsic.ir_name,
            "opcode": f"{lay.isd_namespace}::{low.node.isd_name}",
        }
        if low.intrinsic.has_chain:
            # INTRINSIC_W_CHAIN / INTRINSIC_VOID: chain, ID, then the params.
            ops = ["Op.getOperand(0)"] + [f"Op.getOperand({i + 2})" for i in low.operand_map]
            w_chain.append({**case, "operands": "DL, Op->getVTList(), {" + ", ".join(ops) + "}"})
        else:
            # INTRINSIC_WO_CHAIN: the ID, then the params.
            ops = [f"Op.getOperand({i + 1})" for i in low.operand_map]
            wo_chain.append({**case, "operands": ", ".join(["DL", "VT"] + ops)})
    return {
        "layout": lay,
        "guard": _guard(lay.isel_header),
        "nodes": [{"name": n.isd_name, "td": n.name} for n in nodes],
        "lowerings": wo_chain,
        "chained": w_chain,
    }


# -------------------------------------------------------------- IR rewrite pass


def rewrite_context(target: Target, lay: Layout) -> dict:
    headers = sorted({
        LLVM_INTRINSIC_HEADERS[r.foreign_prefix]
        for r in target.rewrites
        if r.foreign_prefix in LLVM_INTRINSIC_HEADERS and r.foreign_prefix != target.target_prefix
    })
    cases = []
    for r in sorted(target.rewrites, key=lambda r: r.foreign_enum):
        args = []
        for op in r.operands:
            if isinstance(op, Const):
                args.append(_const(op))
            else:
                args.append(f"II.getArgOperand({op})")
        cases.append({
            "foreign": r.foreign_enum,
            "foreign_ir": r.foreign,
            "target": r.target.enum_name,
            "target_ir": r.target.ir_name,
            "args": args,
            "overloads": _overload_types(r.target, args),
        })
    return {"layout": lay, "guard": _guard(lay.rewrite_header), "headers": headers,
            "cases": cases}


def _const(c: Const) -> str:
    t = c.type
    if t == "i1":
        return f"B.getInt1({'true' if c.value else 'false'})"
    if t.startswith("i") and t[1:].isdigit():
        if c.value < 0:  # getIntN takes the bits unsigned
            return f"ConstantInt::getSigned(B.getIntNTy({t[1:]}), {c.value})"
        return f"B.getIntN({t[1:]}, {c.value})"
    if t in ("half", "f16"):
        return f"ConstantFP::get(B.getHalfTy(), {float(c.value)!r})"
    if t in ("float", "f32"):
        return f"ConstantFP::get(B.getFloatTy(), {float(c.value)!r})"
    if t in ("double", "f64"):
        return f"ConstantFP::get(B.getDoubleTy(), {float(c.value)!r})"
    raise ValueError(f"no constant of IR type {t!r}")  # rejected by the spec checks


def _overload_types(intr: Intrinsic, args: list[str]) -> list[str]:
    """C++ expressions for the overloaded types of ``intr`` in declaration order:
    overloaded results take the replaced call's type, params their new operand's."""
    tys: list[str] = []
    for t in intr.results:
        if t.is_overloaded:
            tys.append("II.getType()")
    for i, t in enumerate(intr.params):
        if t.is_overloaded:
            tys.append(f"{args[i]}->getType()")
    return tys


# ------------------------------------------------------------------ divergence


def divergence_context(target: Target, lay: Layout) -> dict:
    def ids(kind: DivergenceKind) -> list[dict]:
        return [
            {"enum": i.enum_name, "ir_name": i.ir_name}
            for i in sorted(target.intrinsics, key=lambda i: i.enum_name)
            if i.divergence is kind
        ]

    rules = [
        {
            "pattern": cstring(r.pattern),
            "kind": {
                DivergenceKind.SOURCE: "Source",
                DivergenceKind.ALWAYS_UNIFORM: "AlwaysUniform",
                DivergenceKind.FOLLOWS_OPERANDS: "FollowsOperands",
            }[r.kind],
            "note": " ".join(r.note.split()),
        }
        for r in target.uniformity.rules
    ]
    return {
        "layout": lay,
        "guard": _guard(lay.divergence_header),
        "sources": ids(DivergenceKind.SOURCE),
        "uniform": ids(DivergenceKind.ALWAYS_UNIFORM),
        "rules": rules,
    }


def cstring(s: str) -> str:
    """A C++ string literal."""
    out = s.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{out}"'

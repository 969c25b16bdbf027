"""Target hooks: the target behaviour the engine calls, declared by the target's own folder.

LLVM keeps what a backend does differently behind virtual methods (``TargetLowering::
PerformDAGCombine``, ``computeKnownBitsForTargetNode``, ``TargetTransformInfo``, the
target's own IR passes such as ``AMDGPUCodeGenPrepare``). tdgen keeps it the same way:
the engine (``patterns/``) names no target, and a spec that needs target behaviour
names a module of its folder in ``Target(hooks="lowering")``; that module defines
``HOOKS = TargetHooks(...)``. ``target_hooks(target)`` gives the engine that record (or
``NO_HOOKS`` when the target declares none); every field has a default meaning "the
target adds nothing here", so the engine asks without testing which target it runs.

The fields are the hook points the engine calls; each field's comment names the
engine stage that calls it and the LLVM hook it stands for. A hook module is Python
(like ``CustomSelect.model``), loaded once per file and kept: it may import its
siblings relatively (``from . import mul24``).
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from .errors import Span, SpecError, expected


@dataclass(frozen=True)
class TargetHooks:
    """What a target adds to the engine's stages (empty: nothing)."""

    # patterns.llc: IR passes the target runs before selection, in order (AMDGPU's
    # AMDGPUCodeGenPrepare); each is called as ``f(fn, ctx)``, see patterns.llc.
    ir_passes: tuple[Callable[..., Any], ...] = ()
    # patterns.llc (the end of its pipeline, after CodeGenPrepare): the IR passes the
    # target's pass configuration adds just before instruction selection (AMDGPU's
    # StructurizeCFG, patterns.llc.structurize.structurize_cfg); each is called as
    # ``f(fn, analysis) -> bool`` (whether it changed the IR; ``analysis()``: the
    # uniformity analysis of the IR as it is) and raises a ``VerifyError`` for what it
    # does not model (the function is then not selected).
    pre_isel_passes: tuple[Callable[..., Any], ...] = ()
    # patterns.dag.combine (the combine driver, both runs): TargetLowering::PerformDAGCombine,
    # per opcode (``"ISD::MUL"``, or a target node's ``"<NS>ISD::X"``; LLVM's
    # setTargetDAGCombine): ``f(node, ctx) -> bool``, called when the engine's own visit
    # of the node changed nothing (a target node has no such visit: this is its visit),
    # as DAGCombiner::combine calls it. It commits its result through the combine run
    # ``ctx`` (patterns.dag.combine.context: ``set_result``, ``ctx.replace``; ``ctx.legal``
    # the selectable opcodes, ``ctx.legal_ops`` set in the run after legalization) and
    # says whether it changed the DAG.
    dag_combine: Mapping[str, Callable[..., bool]] = field(default_factory=dict)
    # patterns.dag.combine (the legalization between the two combine runs, after the
    # generic expansions): TargetLowering::LowerOperation of the opcodes the target marks
    # Custom, per opcode: ``f(node, ctx) -> bool``, called for each live node of the
    # opcode, like a combine.
    legalize: Mapping[str, Callable[..., bool]] = field(default_factory=dict)
    # patterns.dag.combine.known (known bits, leading zeros and sign bits, in the combines
    # and in the counts a block exports): computeKnownBitsForTargetNode as the known
    # leading zeros of a node of that opcode (a target node, or a target intrinsic's
    # ``ISD::INTRINSIC_WO_CHAIN``): ``f(node) -> int``, asked of the node alone.
    known_lz: Mapping[str, Callable[..., int]] = field(default_factory=dict)
    # patterns.dag.combine (SelectionDAG's CSE map, getNode): the target's node opcodes
    # an identical node is found for (a target node not listed is never CSE'd).
    cse_nodes: frozenset[str] = frozenset()
    # patterns.dag.combine.freeze (isGuaranteedNotToBeUndefOrPoison): the calling
    # conventions whose arguments llc lowers as loads from memory (LowerFormalArguments;
    # AMDGPU's amdgpu_kernel reads them from the kernarg segment), so an argument read
    # in the entry block may be poison; other arguments arrive in registers.
    argument_load_ccs: frozenset[str] = frozenset()
    # patterns.dag.builder (the memory operand of a load, store or atomic,
    # patterns.dag.memops): TargetLowering::getTargetMMOFlags, ``f(instruction) ->
    # iterable of the flags' MIR names`` (AMDGPU's MONoClobber, "amdgpu-noclobber", for
    # ``!amdgpu.noclobber``), or None.
    mem_flags: Callable[..., Any] | None = None
    # patterns.dag.legalize_vectors (an EXTRACT_VECTOR_ELT at a variable index):
    # TargetLowering's dynamic-extract expansion (AMDGPU: shouldExpandVectorDynExt in
    # performExtractVectorEltCombine), ``f(element bits, element count, index divergent)
    # -> bool``: whether the extract becomes a chain of selects of its lanes on ``index ==
    # i``; None: the target selects variable-index extracts itself. When given, selection
    # only ever sees extracts at constant indices (tdgen lint counts on it).
    expand_dynamic_extract: Callable[..., bool] | None = None
    # patterns.dag.builder (arguments and return values): the calling convention's
    # CCPromoteToType, ``f(value type, calling convention, is_return) -> register type or
    # None`` (AMDGPU's non-kernel functions pass an i1 in a 32-bit register): the argument
    # is read as a TRUNCATE of its register, a returned value ANY_EXTENDed into it.
    argument_register_type: Callable[..., Any] | None = None
    # patterns.run (the reference interpreter of the IR): the semantics of the target's
    # own intrinsics, a function returning the table name (or a dotted prefix ending in
    # ".*") -> handler ``h(wave, inst, args, mask)`` written with patterns.run.lanes'
    # primitives (what LLVM's LangRef/AMDGPUUsage say each intrinsic does); called on
    # first use, so loading a target imports no interpreter.
    run_intrinsics: Callable[[], Mapping[str, Any]] | None = None
    # patterns.select.machine (the selection loop, after the patterns and CustomSelect
    # steps declined): the target's own cases of SelectionDAGISel::Select for nodes whose
    # machine code no pattern expresses (terminators with block operands, branches on a
    # condition register): per opcode ``f(node, sel, out) -> bool``, appending the
    # machine instructions (``sel.instr(...)``) and saying whether it selected the node;
    # it raises a ``VerifyError`` for a form it does not model (reported at the node).
    select: Mapping[str, Callable[..., bool]] = field(default_factory=dict)
    # patterns.select.machine: the physical register (and its register class) an
    # operand-less intrinsic reads (the preloaded workitem ids: LowerFormalArguments'
    # live-in registers), by the intrinsic's IR name.
    preloaded: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # patterns.select.isel (after each function is selected): machine-function passes
    # of the target that complete or fix what selection left (LowerFormalArguments'
    # argument copies, AMDGPU's SIFixSGPRCopies): each is ``f(selected_function, sel,
    # diags) -> None``, editing the instructions in place and adding the errors of what
    # it does not model to ``diags``; a change it makes may be recorded in
    # ``selected_function.notes``.
    machine_passes: tuple[Callable[..., Any], ...] = ()
    # patterns.ir.verify (the IR reader's verifier, via the target's cached facts: see
    # patterns.ir.intrinsic_immargs.target_immargs): the ``immarg`` parameters of the
    # target's own intrinsics as LLVM's intrinsic tables (its Intrinsics*.td ``ImmArg``)
    # give them, as a table text in patterns/ir/intrinsic_immargs.py's format; a call
    # must pass a literal there whatever the declaration in the file says.
    intrinsic_immargs: str = ""
    # patterns.select.machine (the register of a value: CopyToReg, PHI, a generic
    # instruction's result): TargetLowering::getRegClassFor(VT, isDivergent),
    # ``f(value type, divergent) -> (register class name, file) or None`` for the
    # engine's rule (the first class of the file the divergence picks that holds the type):
    # AMDGPU keeps a divergent i1 in a scalar lane-mask pair.
    register_class_for: Callable[..., Any] | None = None


NO_HOOKS = TargetHooks()

_LOADED: dict[str, TargetHooks] = {}


def hooks_file(target) -> Path | None:
    """The file a target's ``hooks`` field names, or None when it names none."""
    name = getattr(target, "hooks", "")
    if not name:
        return None
    return Path(getattr(target, "spec_folder", "") or ".") / f"{name}.py"


def load_hooks(target) -> TargetHooks:
    """Load (once per file) and check the hook module of ``target``; SpecError at the
    Target record's ``hooks`` field when the module is missing, fails, or defines no
    ``HOOKS = TargetHooks(...)``."""
    path = hooks_file(target)
    if path is None:
        return NO_HOOKS
    key = str(path.resolve())
    hit = _LOADED.get(key)
    if hit is not None:
        return hit
    span = getattr(target, "span", None) or Span("")
    record = getattr(target, "name", "")
    if not path.is_file():
        raise SpecError(span, expected(f"a module '{path.name}' beside the spec", "no such file"),
                        record=record, field="hooks")
    import importlib.util
    import zlib  # (not hashlib: its import costs a few ms of every run's start-up)

    pkg = f"_tdgen_hooks_{zlib.crc32(str(path.parent.resolve()).encode()):08x}"
    if pkg not in sys.modules:
        package = types.ModuleType(pkg)
        package.__path__ = [str(path.parent)]  # type: ignore[attr-defined]
        package.__package__ = pkg
        sys.modules[pkg] = package
    modname = f"{pkg}.{path.stem}"
    spec = importlib.util.spec_from_file_location(modname, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # the hook module's own error, at the Target record
        del sys.modules[modname]
        raise SpecError(span, expected(f"a hook module '{path.name}' that runs", f"{type(e).__name__}: {e}"),
                        record=record, field="hooks") from None
    hooks = getattr(module, "HOOKS", None)
    if not isinstance(hooks, TargetHooks):
        raise SpecError(span, expected(f"'HOOKS = TargetHooks(...)' in {path.name}",
                                       type(hooks).__name__ if hooks is not None else "none"),
                        record=record, field="hooks")
    _LOADED[key] = hooks
    return hooks


def target_hooks(target) -> TargetHooks:
    """The hooks the engine calls for ``target`` (``NO_HOOKS`` for none). The spec
    loader has checked the module already, so this does not fail for a loaded target."""
    if not getattr(target, "hooks", ""):
        return NO_HOOKS
    return load_hooks(target)

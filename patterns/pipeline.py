"""The engine's pipeline, top to bottom, as llc runs it on one IR module.

    IR module (patterns.ir.reader.parse_module: text -> Module)
      -> per defined function:
         llc's IR passes, with the uniformity analysis of the IR they leave
                                       (patterns.llc.pipeline.run_ir_passes, patterns.uniformity)
         the SelectionDAG of each block, built from that IR (patterns.dag.builder)
         and combined/legalized                     (patterns.dag.combine)
         selected into machine instructions          (patterns.select.isel.select_dags)

``select_module`` and ``select_function`` run the whole chain; ``build_function_dags``
stops before selection (``tdgen explain`` and the tests read the DAGs)."""

from __future__ import annotations

from patterns.dag.builder import DAGBuilder, build_dags
from patterns.dag.combine.driver import run as combine_block
from patterns.dag.nodes import FunctionDAGs
from patterns.ir.dominators import shared_dominators
from patterns.llc.pipeline import run_ir_passes
from patterns.select.isel import SelectedFunction, select_dags
from patterns.select.matcher import MatcherTable, build_table
from patterns.ir.core import ArrayType, NamedStructType, StructType
from patterns.uniformity.analysis import analyze
from tdgen.errors import Diagnostics, ParseError, VerifyError, expected

__all__ = ["select_module", "select_function", "build_function_dags"]


def select_module(module, target, table: MatcherTable | None = None, *,
                  keep: list | None = None, failed: list | None = None) -> list[SelectedFunction]:
    """Select every defined function. ``keep``: a list that gets each function's DAGs
    (``FunctionDAGs``) instead of their being freed here (``tdgen isel`` keeps them until
    the process exits without tearing down the heap: freeing a 50k-instruction kernel's
    DAG node by node costs ~35 ms).

    Without ``failed``, all cannot-select errors are raised together and the result is
    every function. With ``failed`` (a list), selection goes on per function as llc's
    callers see it: the result holds the functions that selected, and ``failed`` gets
    ``(function name, errors)`` for each of the others (nothing is raised)."""
    import gc

    table = table or build_table(target)
    diags = Diagnostics()
    out = []
    enabled = gc.isenabled()
    gc.disable()  # the DAGs are acyclic garbage-free graphs: collection passes only cost time
    try:
        for fn in module.functions:
            if fn.is_declaration:
                continue
            # (no analysis given: the IR passes make it where they read it, and for
            # the IR they leave, which is the one selection reads)
            mine = Diagnostics() if failed is not None else diags
            sf, fdags = select_function(fn, target, None, table, mine)
            if failed is not None and mine:
                failed.append((fn.name, list(mine.errors)))
            else:
                out.append(sf)
            if keep is not None:
                keep.append(fdags)
    finally:
        if enabled:
            gc.enable()
    diags.check()
    return out


def select_function(fn, target, ua, table: MatcherTable | None = None, diags: Diagnostics | None = None, *,
                    stop_after: str | None = None):
    """Select ``fn``: (its ``SelectedFunction``, its ``FunctionDAGs``); ``ua``: its
    uniformity analysis, or None (made where needed, see ``build_function_dags``);
    ``stop_after``: the llc pass the result is to match (``"amdgpu-isel"``: without the
    target's machine passes after the selector), None: all of them (finalize-isel)."""
    table = table or build_table(target)
    own = diags is None
    if diags is None:
        diags = Diagnostics()
    try:
        fdags = build_function_dags(fn, target, ua)
    except VerifyError as e:  # (an IR pass refused the function: it is not selected)
        diags.add(e)
        if own:
            diags.check()
        return SelectedFunction(fn.name, [], {}), None
    sf = select_dags(fdags, target, table, diags, stop_after)
    if own:
        diags.check()
    return sf, fdags


def check_modeled_types(fn) -> None:
    """The selection models values of integer, floating-point, pointer and vector types:
    an instruction whose result, stored value or argument is an aggregate (a struct,
    array or named struct) is refused by name, never selected as something else."""
    for b in fn.blocks:
        for ins in b.instructions:
            tys = [ins.type] + [v.type for v in ins.operands if v is not None]
            for t in tys:
                if isinstance(t, (StructType, ArrayType, NamedStructType)):
                    raise VerifyError(ins.span, expected(
                        "values the SelectionDAG builder models (integers, floating point, pointers, vectors)",
                        f"'{ins.opcode}' with a value of aggregate type {t} (not modeled)"))


def build_function_dags(fn, target, ua, *, dce: str = "aggressive", combine: bool = True) -> FunctionDAGs:
    """The DAGs of every block of ``fn`` (source block order), combined
    (``patterns.dag.combine``) unless ``combine=False``; ``dce`` see
    ``patterns.dag.deadcode.live_instructions``.

    With ``combine``, llc's IR passes run first (patterns/llc/pipeline.py, on ``fn`` in place)
    and, when they changed the IR, the uniformity analysis is run again on the result
    (``run_ir_passes``): llc's instruction selector reads an analysis computed on the IR
    it selects (its pipeline recomputes it after the IR passes), so a value whose divergent inputs
    EarlyCSE/InstSimplify removed is uniform there, and a value the DAG combines fold to
    something uniform keeps the IR's verdict for its register (its users in other
    blocks read a vector register). ``ua``: the analysis of ``fn`` as given, or None
    (then computed here; with ``combine``, only where a pass reads it and for the IR
    selected). ``FunctionDAGs.ua`` is the analysis used."""
    if getattr(fn, "is_declaration", False):
        raise ParseError(getattr(fn, "span", None), expected("a function definition", f"declaration of @{fn.name}"))
    check_modeled_types(fn)
    with shared_dominators(fn):  # one dominator tree for the IR passes and the prepasses
        if combine:
            # llc's IR passes (EarlyCSE+InstSimplify, the target's passes, LICM), then the
            # uniformity analysis of the IR they leave
            ua = run_ir_passes(fn, ua, target)
        elif ua is None:
            ua = analyze(fn, target)
        builder = DAGBuilder(fn, target, ua, dce)  # (its IR prepasses: patterns.dag.prepare)
    # each block's DAG built, then combined, in reverse post-order
    return build_dags(builder, combine_block if combine else None)

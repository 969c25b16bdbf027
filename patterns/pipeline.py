"""The engine's pipeline from one IR function to its combined SelectionDAGs, in the order
llc runs it: llc's IR passes (which rerun the uniformity analysis on the IR they leave),
the DAG builder's IR prepasses, then each block's DAG built and combined."""

from __future__ import annotations

from patterns.dag.builder import DAGBuilder, build_dags
from patterns.dag.nodes import FunctionDAGs
from patterns.dag.combine.driver import run as combine_block
from patterns.ir.dominators import shared_dominators
from patterns.llc.pipeline import run_ir_passes
from patterns.uniformity.analysis import analyze
from tdgen.errors import ParseError, expected


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
    with shared_dominators(fn):  # one dominator tree for the IR passes and the prepasses
        if combine:
            # llc's IR passes (EarlyCSE+InstSimplify, mul24, LICM), then the uniformity
            # analysis of the IR they leave
            ua = run_ir_passes(fn, ua, target)
        elif ua is None:
            ua = analyze(fn, target)
        builder = DAGBuilder(fn, target, ua, dce)  # (its IR prepasses: patterns.dag.prepare)
    # each block's DAG built, then combined, in reverse post-order
    return build_dags(builder, combine_block if combine else None)

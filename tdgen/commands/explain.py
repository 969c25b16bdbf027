"""``tdgen explain FILE.ll --target T --value %v [--function F]``: why a value selects what it selects.

Finds the DAG node computing ``%v`` (after the combines), prints it with its divergence
and the reason chain for a divergent node, then every pattern rooted at its opcode in the
order the matcher tries them, each with the first failing check
(e.g. ``UniformBinFrag<add> predicate failed: t12 is divergent, via operand t9 <- %tid``)
or ``MATCHED`` for the one that is selected (later ones are never tried).
"""

from __future__ import annotations

import sys

from ..errors import Span, UsageError, expected
from ._iselcommon import load_ir, load_target


def configure(parser):
    parser.add_argument("file", metavar="FILE.ll")
    parser.add_argument("--target", "-t", required=True)
    parser.add_argument("--value", required=True, help="IR value name, e.g. %%x")
    parser.add_argument("--function", help="function name (default: the one defining the value)")


def run(args) -> int:
    from patterns.divergence import analyze
    from patterns.isel import describe_failure, divergence_path
    from patterns.matcher import build_table
    from patterns.sdag import build_function_dags

    target = load_target(args.target)
    module = load_ir(args.file)
    want = args.value.lstrip("%")
    table = build_table(target)
    fns = [f for f in module.functions if not f.is_declaration and (args.function is None or f.name == args.function.lstrip("@"))]
    if args.function is not None and not fns:
        raise UsageError(Span(args.file), expected("a function defined in the file", f"'{args.function}'"), field="--function")
    for fn in fns:
        for blk in fn.blocks:
            if not any(i.name == want for i in blk.instructions):
                continue
            ua = analyze(fn, target)
            fd = build_function_dags(fn, target, ua)
            dag = fd.dags[fn.blocks.index(blk)]
            node = next((n for n in dag.nodes if n.ir is not None and getattr(n.ir, "name", None) == want
                         and n.opcode not in ("ISD::CopyToReg", "ISD::CopyFromReg")), None)
            if node is None:
                sys.stdout.write(f"%{want} in @{fn.name} produces no DAG node of its own (folded or phi)\n")
                return 0
            out = [f"@{fn.name} %{want}: {node.label()}"]
            if node.divergent:
                out.append("  divergent because: " + " <- ".join(s for s in divergence_path(node)))
            cands = table.candidates(node.opcode)
            if not cands:
                out.append(f"  no pattern has root {node.opcode}")
            chosen = False
            for p in cands:
                head = f"  [{p.index}] {p.record} complexity={p.complexity} {p.src_text()} -> {p.dst_text()}"
                if chosen:
                    out.append(head + ": not tried (an earlier pattern matched)")
                    continue
                ok, _i, why = describe_failure(table, p, node)
                out.append(head + (": MATCHED" if ok else f": {why}"))
                chosen = chosen or ok
            sys.stdout.write("\n".join(out) + "\n")
            return 0
    raise UsageError(Span(args.file), expected("a value defined in the file", f"'%{want}'"), field="--value")

"""``tdgen isel FILE.ll --target T [--format mir|json]``: selected machine instructions per function.

Runs the uniformity analysis, builds the SelectionDAG of every block and selects with the
target's matcher table (patterns/isel.py). ``mir`` prints a MIR-like listing with LLVM's
opcode and register-class names (comparable with llc-19 -stop-after=finalize-isel);
``json`` gives the same data (opcode, dst, regclass, file, operands, IR value, node,
pattern) as one object per function. Exit 2 on bad input or when a node cannot be
selected (all such nodes are reported together).
"""

from __future__ import annotations

import sys

from ._iselcommon import gc_paused, load_ir, load_isel_target


def configure(parser):
    parser.add_argument("file", metavar="FILE.ll", help="LLVM IR file")
    parser.add_argument("--target", "-t", required=True, help="target name or spec path")
    parser.add_argument("--format", choices=("mir", "json"), default="mir")


def run(args) -> int:
    from patterns.isel import select_module
    from patterns.mir import print_function

    target = load_isel_target(args.target)
    with gc_paused():
        module = load_ir(args.file)
        funcs = select_module(module, target)
        if args.format == "json":
            import json

            data = [{"function": f.name,
                     "blocks": [{"name": b.name, "instrs": [mi.as_json() for mi in b.instrs]} for b in f.blocks]}
                    for f in funcs]
            text = json.dumps(data, indent=2, sort_keys=True) + "\n"
        else:
            text = "\n".join(print_function(f) for f in funcs)
    sys.stdout.write(text)
    return 0

"""``tdgen run FILE.ll --target T [--engine reference|selected|llc] [--wave 32|64] [--workgroup N]
[--groups G] [--seed S | --inputs FILE.json] [--format text|json]``: execute the file's kernels
and print every store of every work-item (patterns/run/api.py ``run``).

Exit 0 after a run (a run that found undefined behaviour prints it after the stores made
before it, and exits 1); 2 on bad input or a construct the interpreter does not model.
"""

from __future__ import annotations

import json
import sys


def configure(parser):
    parser.add_argument("file", metavar="FILE.ll", help="LLVM IR file")
    parser.add_argument("--target", "-t", required=True, help="target name or spec path")
    parser.add_argument("--engine", default="reference", help="reference (the IR's semantics), selected, llc")
    parser.add_argument("--wave", type=int, choices=(32, 64), default=64)
    parser.add_argument("--workgroup", type=int, default=64, metavar="N", help="work-items per work-group")
    parser.add_argument("--groups", type=int, default=1, metavar="G", help="number of work-groups")
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--seed", type=int, default=0, metavar="S", help="random inputs from seed S (default 0)")
    src.add_argument("--inputs", metavar="FILE.json", help="inputs (schemas/run-inputs.schema.json)")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def run(args) -> int:
    from patterns.run.api import run as run_kernels

    results = run_kernels(args.file, target=args.target, engine=args.engine, wave=args.wave,
                          workgroup=args.workgroup, groups=args.groups, seed=args.seed, inputs=args.inputs)
    if args.format == "json":
        text = json.dumps([r.as_json() for r in results], indent=2, sort_keys=True) + "\n"
    else:
        text = "".join(r.text() for r in results)
    sys.stdout.write(text)
    return 1 if any(r.undefined is not None for r in results) else 0

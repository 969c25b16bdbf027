"""``tdgen check-run FILE.ll --target T [--wave 32|64] [--workgroup N] [--groups G] [--trials K]
[--format text|json]``: run the IR reference and the target's selected code (and llc's, where
its engine applies) on K random input sets and compare every work-item's every store
(patterns/run/api.py ``check_run``).

Exit 0 when all agree; 1 with the first counterexample (inputs, work-item and lane, the
IR and machine instructions that stored the differing values, commands reproducing
both runs); 2 on bad input or a construct an engine does not model.
"""

from __future__ import annotations

import json
import sys


def configure(parser):
    parser.add_argument("file", metavar="FILE.ll", help="LLVM IR file")
    parser.add_argument("--target", "-t", required=True, help="target name or spec path")
    parser.add_argument("--wave", type=int, choices=(32, 64), default=64)
    parser.add_argument("--workgroup", type=int, default=64, metavar="N", help="work-items per work-group")
    parser.add_argument("--groups", type=int, default=1, metavar="G", help="number of work-groups")
    parser.add_argument("--trials", type=int, default=10, metavar="K", help="random input sets (seeds 0..K-1)")
    parser.add_argument("--engines", default=None, metavar="E,E",
                        help="the engines compared with the reference (default: every one that applies)")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def run(args) -> int:
    from patterns.run.api import check_run

    names = None if args.engines is None else [e for e in args.engines.split(",") if e]
    rep = check_run(args.file, target=args.target, wave=args.wave, workgroup=args.workgroup, groups=args.groups,
                    trials=args.trials, engine_names=names)
    if args.format == "json":
        sys.stdout.write(json.dumps(rep.as_json(), indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(rep.text())
    return 0 if rep.ok else 1

"""``tdgen coverage TARGET FILE...``: which selection patterns fire on a corpus, and which never do.

Every defined function of every file is selected with the target (``tdgen isel``; a
function that does not select is reported on stderr and skipped, the rest count). Each
pattern of the target's matcher table (a record; TableGen's commuted variants count as
their pattern) and each custom selection step is listed with the number of machine
instructions it made and where it is defined: first those that fired, most first, then
those that never did. What ``llvm-tblgen -instrument-coverage`` gives a rebuilt llc,
without building anything. ``--format json``: ``schemas/coverage.schema.json``.
"""

from __future__ import annotations

import json
import sys

from .common import add_target_argument, target_argument


def configure(parser) -> None:
    add_target_argument(parser)
    parser.add_argument("files", nargs="+", metavar="FILE.ll", help="LLVM IR files (- for stdin)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text; json: schemas/coverage.schema.json)")


def patterns_of(target) -> list[dict]:
    """One row per pattern record and custom step: record, source, result, location."""
    from patterns.select.matcher import build_table

    rows: dict[str, dict] = {}
    for p in sorted(build_table(target).patterns, key=lambda p: (p.order if p.order is not None else 0, p.index)):
        if p.record not in rows:
            rows[p.record] = {"pattern": p.record, "source": p.src_text(), "result": p.dst_text(),
                              "location": str(p.span) if p.span is not None else None, "count": 0}
    for cs in getattr(target, "custom_selects", ()) or ():
        rows.setdefault(cs.name, {"pattern": cs.name, "source": "custom select on " + ", ".join(tuple(getattr(cs, "opcodes", ())) or ("?",)),
                                  "result": "(C++ Select case)", "location": str(getattr(cs, "span", None) or "") or None,
                                  "count": 0})
    return list(rows.values())


def run(args) -> int:
    from patterns.ir import parse_module
    from patterns.ir.intrinsic_immargs import target_immargs

    from ..api import load_target, select_functions
    from ..errors import Diagnostics, TdgenError
    from .common import read_ir_text
    from .progress import progress_bar

    target = load_target(target_argument(args, "coverage"))
    rows = patterns_of(target)
    by_name = {r["pattern"]: r for r in rows}
    diags = Diagnostics()
    modules = []
    for f in args.files:  # every file read and parsed first: all bad inputs together
        try:
            text, shown = read_ir_text(f)
            modules.append((shown, parse_module(text, shown, target_immargs(target))))
        except TdgenError as e:
            diags.add(e)
    diags.check()
    skipped = 0
    with progress_bar("coverage", len(modules)) as step:
        for shown, module in modules:
            funcs, errors = select_functions(module, target, collect=True)
            for fn, errs in sorted(errors.items()):
                skipped += 1
                sys.stderr.write(f"{shown}: @{fn} not selected: {errs[0].format().split('; closest:')[0]}\n")
            for fn in funcs:
                for mi in fn.instrs():
                    r = by_name.get(mi.pattern or "")
                    if r is not None:
                        r["count"] += 1
            step()
    fired = sorted((r for r in rows if r["count"]), key=lambda r: -r["count"])
    never = [r for r in rows if not r["count"]]
    if args.format == "json":
        sys.stdout.write(json.dumps({"target": target.name, "files": len(modules), "skipped_functions": skipped,
                                     "fired": fired, "never_fired": never}, indent=2, sort_keys=True) + "\n")
        return 0
    out = [f"{target.name}: {len(fired)} of {len(rows)} pattern(s) fired on {len(modules)} file(s)"
           + (f" ({skipped} function(s) not selected, see stderr)" if skipped else "")]
    out.append("fired:")
    out.extend(f"  {r['count']:6d}  {r['pattern']}  {r['location'] or '-'}  {r['source']} -> {r['result']}"
               for r in fired)
    out.append(f"never fired ({len(never)}):")
    out.extend(f"          {r['pattern']}  {r['location'] or '-'}  {r['source']} -> {r['result']}" for r in never)
    sys.stdout.write("\n".join(out) + "\n")
    return 0

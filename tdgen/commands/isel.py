"""``tdgen isel FILE.ll --target T [--format mir|json]``: selected machine instructions per function.

Runs the uniformity analysis, builds the SelectionDAG of every block and selects with the
target's matcher table (patterns/select/isel.py). ``mir`` prints one MIR document per
function in LLVM's syntax (``patterns.select.mir.print_llvm_mir``: what ``llc-19 -x mir
-run-pass=none -verify-machineinstrs`` reads, for amdgpu), with LLVM's opcode and
register-class names (comparable with llc-19 -stop-after=finalize-isel);
``json`` gives the same data (opcode, dst, regclass, file, operands, IR value, node,
pattern) as one object per function. Selection goes on per function: every function
that selects is printed, the nodes of all the others that cannot be selected are
reported together (stderr), and the exit status is then 2; so is it on bad input.
"""

from __future__ import annotations

import sys

from .common import gc_paused, load_ir, load_isel_target

# What the last run built (the IR module, every function's DAGs, the machine
# instructions, the output's parts): kept, not freed, when ``run`` returns. The console
# entry point ends the process without tearing down the heap (tdgen.cli.entry), so in a
# ``tdgen isel`` process they are never freed one object at a time (~60 ms for a
# 50k-instruction kernel); an in-process caller holds at most one run's worth (the next
# run drops it).
_KEPT: list = []


def configure(parser):
    parser.add_argument("file", metavar="FILE.ll", help="LLVM IR file, or - for stdin")
    parser.add_argument("--target", "-t", required=True, help="target name or spec path")
    parser.add_argument("--format", choices=("mir", "json"), default="mir",
                        help="output format (default mir; json: schemas/isel.schema.json)")


def run(args) -> int:
    from patterns.pipeline import select_module
    from patterns.select.mir import print_llvm_mir

    target = load_isel_target(args.target)
    _KEPT.clear()
    keep = _KEPT
    with gc_paused():
        module = load_ir(args.file, target)
        keep.append(module)
        failed: list = []
        funcs = select_module(module, target, keep=keep, failed=failed)
        keep.append(funcs)
        if args.format == "json":
            text = json_text(funcs, keep)
        else:
            parts = [print_llvm_mir(f, target) for f in funcs]
            keep.append(parts)
            text = "".join(parts)
    sys.stdout.write(text)
    if failed:
        from tdgen.errors import ErrorList

        sys.stdout.flush()
        errors = [e for _name, errs in failed for e in errs]
        names = ", ".join(f"@{name}" for name, _errs in failed)
        sys.stderr.write(ErrorList(errors).format() + "\n")
        sys.stderr.write(f"tdgen isel: {len(failed)} of {len(failed) + len(funcs)} functions cannot be selected: "
                         f"{names}\n")
        return 2
    return 0


def json_data(funcs) -> list:
    """What ``--format json`` prints: per function its blocks and their instructions
    (``MachineInstr.as_json``)."""
    return [{"function": f.name,
             "blocks": [{"name": b.name, "instrs": [mi.as_json() for mi in b.instrs]} for b in f.blocks]}
            for f in funcs]


class _Other(Exception):
    """A value ``json_text`` does not write itself (not a str or None)."""


def json_text(funcs, keep: list | None = None) -> str:
    """``json.dumps(json_data(funcs), indent=2, sort_keys=True) + "\\n"``, written
    directly: with an indent, ``json.dumps`` runs its pure-Python encoder, one generator
    per container (~1 s for a 50k-instruction kernel). Strings are quoted by the same
    function ``json.dumps`` uses; the layout is the one it makes (keys sorted, two-space
    indent, ``[]`` for an empty list). A value of any other type than str or None sends
    the whole output through ``json.dumps``. ``keep`` gets the output's parts."""
    try:
        parts = _json_parts(funcs)
    except _Other:
        import json

        return json.dumps(json_data(funcs), indent=2, sort_keys=True) + "\n"
    if keep is not None:
        keep.append(parts)
    return "".join(parts)


def _json_parts(funcs) -> list:
    from json.encoder import encode_basestring_ascii as quote

    def text(v) -> str:
        if v.__class__ is str:
            return quote(v)
        if v is None:
            return "null"
        raise _Other

    if not funcs:
        return ["[]\n"]
    out: list = []
    add = out.append
    k = ",\n            "  # between the keys of an instruction
    for fi, f in enumerate(funcs):
        add('[\n  {\n    "blocks": ' if fi == 0 else ',\n  {\n    "blocks": ')
        if not f.blocks:
            add("[]")
        for bi, b in enumerate(f.blocks):
            add('[\n      {\n        "instrs": ' if bi == 0 else ',\n      {\n        "instrs": ')
            instrs = b.instrs
            if not instrs:
                add("[]")
            else:
                first = True
                for mi in instrs:
                    node = mi._node
                    if node.__class__ is int:
                        node = f"t{node}"
                    ops = mi.operands
                    if ops.__class__ is not list and ops.__class__ is not tuple:
                        raise _Other
                    if ops:
                        opt = "[\n              " + ",\n              ".join(
                            [quote(o) if o.__class__ is str else text(o) for o in ops]) + "\n            ]"
                    else:
                        opt = "[]"
                    md = mi.more_defs
                    if md:
                        mdt = k + '"more_defs": [' + ",".join(
                            ["\n              {\n                \"dst\": " + text(d) + ",\n                \"regclass\": "
                             + text(rc) + "\n              }" for d, rc in md]) + "\n            ]"
                    else:
                        mdt = ""
                    add(("[\n          {\n            \"dst\": " if first else ",\n          {\n            \"dst\": ")
                        + text(mi.dst) + k + '"file": ' + text(mi.file) + k + '"ir": ' + text(mi.ir) + mdt
                        + k + '"node": ' + text(node) + k + '"opcode": ' + text(mi.opcode)
                        + k + '"operands": ' + opt + k + '"pattern": ' + text(mi.pattern)
                        + k + '"regclass": ' + text(mi.regclass) + "\n          }")
                    first = False
                add("\n        ]")
            add(',\n        "name": ' + text(b.name) + "\n      }")
        if f.blocks:
            add("\n    ]")
        add(',\n    "function": ' + text(f.name) + "\n  }")
    add("\n]\n")
    return out

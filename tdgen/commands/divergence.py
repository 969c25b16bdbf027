"""``tdgen divergence FILE.ll``: uniformity analysis of an LLVM IR file.

``--format llvm`` (default) prints what ``opt-19 -passes='print<uniformity>'`` prints;
``--format json`` lists every value with its verdict and reason chain; ``--why %v``
(or ``@fn:%v``) prints the reason chain of one value. The target's uniformity facts
come from its spec (default amdgpu), and so does the data layout of a module without its
own ``target datalayout`` (the ``align`` printed for a load, store or alloca written
without one).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import Span, UsageError, expected


def configure(parser):
    parser.add_argument("file", help="LLVM IR file (.ll), or - for stdin")
    parser.add_argument("--target", "-t", default="amdgpu",
                        help="target name or spec path whose uniformity facts to use (default amdgpu)")
    parser.add_argument("--format", choices=("llvm", "json"), default=None,
                        help="output format (default llvm; json: schemas/divergence.schema.json)")
    parser.add_argument("--why", metavar="VALUE",
                        help="print the reason chain of one value: %%v or @function:%%v "
                             "(a text report of its own: not combinable with --format or -S)")
    parser.add_argument(
        "-S",
        dest="emit_ir",
        action="store_true",
        help="like opt -S: print the IR on stdout and the analysis on stderr",
    )
    parser.add_argument(
        "--llvm19-compat",
        action="store_true",
        help="reproduce LLVM 19's early stop of join propagation (issue 137277) instead of the correct result",
    )


def load_target_facts(name: str):
    """What the analysis needs of the target (``patterns.uniformity.rules.DivergenceFacts``:
    its ``uniformity`` model and the divergence class of each intrinsic it declares),
    through the on-disk target cache: a warm run neither executes the spec nor imports
    the spec model."""
    from patterns.uniformity.rules import DivergenceFacts

    from ..target_cache import load_derived

    return load_derived(name, "divergence-facts", DivergenceFacts.of)


def _read(path: str) -> tuple[str, str]:
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    from .common import read_input_file

    return read_input_file(path), path


_CMD = Span("tdgen divergence")  # where argument errors are reported: "tdgen divergence: field '--why': ..."


def _find_value(info, spec: str):
    fn_name = None
    val = spec
    if spec.startswith("@") and ":" in spec:
        fn_name, val = spec[1:].split(":", 1)
    if not val.startswith("%") or len(val) < 2:
        raise UsageError(_CMD, expected("a value like %name or @function:%name", repr(spec)), field="--why")
    name = val[1:]
    hits = []
    for fu in info.functions:
        fn = fu.function
        if fn_name is not None and fn.name != fn_name:
            continue
        for a in fn.args:
            if a.name == name or a.slot == name:
                hits.append((fu, a))
        for b in fn.blocks:
            for inst in b.instructions:
                if inst.name is not None and (inst.name == name or inst.slot == name):
                    hits.append((fu, inst))
    if not hits:
        where = f"function @{fn_name}" if fn_name else "any defined function"
        raise UsageError(_CMD, expected(f"a value defined in {where}", repr(spec)), field="--why")
    if len(hits) > 1:
        fns = ", ".join(sorted({"@" + fu.function.name for fu, _ in hits}))
        raise UsageError(_CMD, expected("a value name defined in one function (write @function:%name)", f"{spec!r} in {fns}"), field="--why")
    return hits[0]


def module_ir(module) -> str:
    """The defined functions as ``opt -S`` lays them out (header, labels, blank lines;
    function attributes and module-level entities are not reproduced)."""
    from patterns.ir.printer import function_text

    parts = []
    for f in module.functions:
        if f.is_declaration:
            continue
        cc = f"{f.cc} " if f.cc else ""
        params = ", ".join(f"{a.type} {a.ref}" for a in f.args)
        lines: list[str] = []
        for ln in function_text(f).split("\n"):
            if not ln.startswith(" ") and lines:
                lines.append("")
            lines.append(ln)
        parts.append(f"define {cc}{f.ret_type} @{f.name}({params}) {{\n" + "\n".join(lines) + "\n}\n")
    return "\n".join(parts)


def run(args) -> int:
    from patterns.uniformity.analysis import analyze
    from patterns.uniformity.printer import format_json, format_llvm
    from patterns.ir import parse_module
    from patterns.ir.datalayout import use_target_layout

    if args.why is not None:
        clash = [o for o, given in (("--format", args.format is not None), ("-S", args.emit_ir)) if given]
        if clash:
            raise UsageError(_CMD, expected("--why alone (it prints its own text report)",
                                            f"--why with {' and '.join(clash)}"), field="--why")
    target = load_target_facts(args.target)
    text, path = _read(args.file)
    module = use_target_layout(parse_module(text, path, target.intrinsic_immargs), target.data_layout)  # as opt -mtriple does
    info = analyze(module, target, llvm19_compat=args.llvm19_compat)
    out = sys.stdout
    if args.why is not None:
        fu, v = _find_value(info, args.why)
        steps = info.why(v)
        label = f"@{fu.function.name}:{v.ref}"
        if not steps:
            out.write(f"{label} is uniform\n")
        else:
            out.write(f"{label} is divergent:\n")
            for i, s in enumerate(steps, 1):
                out.write(f"  {i}. {s.format()}\n")
        return 0
    if args.emit_ir:
        sys.stdout.write(module_ir(module))
        out = sys.stderr
    if args.format == "json":
        out.write(format_json(info, path))
    else:
        out.write(format_llvm(info))
    return 0

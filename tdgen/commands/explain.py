"""``tdgen explain FILE.ll --target T --value %v [--function F]``: why a value selects what it selects.

``--value`` is ``%v`` or ``@fn:%v``; a name defined in several functions needs the function
(``@fn:%v`` or ``--function``), as for ``tdgen divergence --why``. For a function argument
it prints the argument's divergence and reason chain (it enters the DAG as a CopyFromReg;
no pattern selects it).

Finds the DAG node computing ``%v`` (after the combines), prints it with its divergence
and the reason chain for a divergent node, then the target's custom selection steps
(``CustomSelect``, C++ Select cases tried before the table) that handle its opcode, each
with what it selects or why it declines, then every pattern rooted at its opcode in the
order the matcher tries them, each with the first failing check
(e.g. ``UniformBinFrag<add> predicate failed: t12 is divergent, via operand t9 <- %tid``)
or ``MATCHED`` for the one that is selected (later ones, and the whole table after a
custom step selected the node, are never tried).
"""

from __future__ import annotations

import sys

from ..errors import Span, UsageError, expected
from .common import load_ir, load_isel_target


def configure(parser):
    parser.add_argument("file", metavar="FILE.ll")
    parser.add_argument("--target", "-t", required=True)
    parser.add_argument("--value", required=True,
                        help="IR value: %%name, or @function:%%name when several functions define %%name")
    parser.add_argument("--function", help="function name (default: the one defining the value)")


def _parse_value(spec: str, path: str) -> tuple[str | None, str]:
    """``%v`` or ``@fn:%v`` -> (function name or None, value name); anything else is an error
    quoting what the user typed."""
    fn_name, val = None, spec
    if spec.startswith("@") and ":" in spec:
        fn_name, val = spec[1:].split(":", 1)
    if not val.startswith("%") or len(val) < 2 or fn_name == "":
        raise UsageError(Span(path), expected("a value like %name or @function:%name", repr(spec)), field="--value")
    return fn_name, val[1:]


def run(args) -> int:
    from patterns.uniformity.analysis import analyze
    from patterns.select.custom import explain_custom
    from patterns.select.explain import describe_failure, divergence_path
    from patterns.select.matcher import build_table
    from patterns.pipeline import build_function_dags

    target = load_isel_target(args.target)
    module = load_ir(args.file)
    at_fn, want = _parse_value(args.value, args.file)
    if args.function is not None and at_fn is not None and args.function.lstrip("@") != at_fn:
        raise UsageError(Span(args.file), expected(f"one function (--function {args.function} or the @function: "
                                                   f"prefix of --value)", f"both @{args.function.lstrip('@')} and @{at_fn}"),
                         field="--value")
    only = at_fn if at_fn is not None else (args.function.lstrip("@") if args.function is not None else None)
    fns = [f for f in module.functions if not f.is_declaration and (only is None or f.name == only)]
    if only is not None and not fns:
        field = "--function" if args.function is not None else "--value"
        raise UsageError(Span(args.file), expected("a function defined in the file", f"'@{only}'"), field=field)
    hits = []  # (function, argument or instruction)
    for fn in fns:
        for a in fn.args:
            if a.name == want:
                hits.append((fn, a))
        for blk in fn.blocks:
            for i in blk.instructions:
                if i.name == want:
                    hits.append((fn, i))
    if not hits:
        where = f"function @{only}" if only is not None else "the file"
        raise UsageError(Span(args.file), expected(f"a value defined in {where}", repr(args.value)), field="--value")
    if len({id(fn) for fn, _ in hits}) > 1:
        names = ", ".join(sorted({"@" + fn.name for fn, _ in hits}))
        raise UsageError(Span(args.file), expected("a value name defined in one function (write @function:%name "
                                                   "or pass --function)", f"{args.value!r} in {names}"), field="--value")
    fn, v = hits[0]
    ua = analyze(fn, target)
    if type(v).__name__ == "Argument":
        div = ua.is_divergent(v)
        out = [f"@{fn.name} %{want}: function argument, read through ISD::CopyFromReg "
               f"[{'divergent' if div else 'uniform'}]"]
        if div:
            out.append("  divergent because: " + " <- ".join(" ".join(s.format().split()) for s in ua.why(v)))
        out.append("  no pattern selects an argument (it arrives in a register)")
        sys.stdout.write("\n".join(out) + "\n")
        return 0
    fd = build_function_dags(fn, target, ua)
    blk = v.block  # (after the IR passes: a merged block's code moved to its predecessor)
    if blk is None or blk not in fn.blocks:
        sys.stdout.write(f"%{want} in @{fn.name} produces no DAG node: its block is deleted before "
                         f"selection (unreachable, or only reached by a branch on a constant)\n")
        return 0
    # (the DAG of the block the value is selected in: its own, or where llc's Sink
    # moved it)
    home = fd.dags[fn.blocks.index(blk)]
    node = None
    for dag in [home] + [d for d in fd.dags if d is not home]:
        node = next((n for n in dag.nodes if n.ir is v and n.opcode not in ("ISD::CopyToReg", "ISD::CopyFromReg")),
                    None)
        if node is not None:
            break
    if node is None:
        sys.stdout.write(f"%{want} in @{fn.name} produces no DAG node of its own (folded or phi)\n")
        return 0
    out = [f"@{fn.name} %{want}: {node.label()}"]
    if node.divergent:
        out.append("  divergent because: " + " <- ".join(s for s in divergence_path(node)))
        leaf = _divergent_leaf(node)
        if leaf is not None and leaf.opcode == "ISD::CopyFromReg" and leaf.ir is not None and fd.ua is not None:
            # the IR value's own reason, in the analysis of the IR as selected (after
            # the IR passes: patterns/irpasses.run_ir_passes)
            steps = fd.ua.why(leaf.ir)
            if steps:
                out.append(f"  {leaf.ir_name()} is divergent because: "
                           + " <- ".join(" ".join(s.format().split()) for s in steps))
    table = build_table(target)
    # the target's custom selection steps (C++ Select cases) come before the table
    custom_lines, chosen = explain_custom(target, node)
    out.extend(custom_lines)
    why_not = "a custom step selected the node" if chosen else "an earlier pattern matched"
    cands = table.candidates(node.opcode)
    if not cands:
        out.append(f"  no pattern has root {node.opcode}")
    for p in cands:
        head = f"  [{p.index}] {p.record} complexity={p.complexity} {p.src_text()} -> {p.dst_text()}"
        if chosen:
            out.append(head + f": not tried ({why_not})")
            continue
        ok, _i, why = describe_failure(table, p, node)
        out.append(head + (": MATCHED" if ok else f": {why}"))
        chosen = chosen or ok
    # what the target's machine passes changed about the value after selection
    # (SIFixSGPRCopies moving it to the VALU ...): the function selected in full
    from patterns.select.isel import select_dags
    from tdgen.errors import Diagnostics

    sf = select_dags(fd, target, table, Diagnostics())
    out.extend(f"  after selection: {note}" for note in sf.notes if f"(%{want})" in note or f"(%{want}," in note)
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _divergent_leaf(n):
    """The node ``divergence_path`` ends at: the source of ``n``'s divergence."""
    cur, seen = n, 0
    while cur is not None and seen < 64:
        seen += 1
        if cur.source == "divergent":
            return cur
        cur = next((o for o in cur.ops if o.divergent), None)
    return None

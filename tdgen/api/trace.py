"""The explain trace of one IR value, as data (``tdgen.api.Explanation``).

What ``tdgen explain`` prints and ``tdgen.testing``'s failure messages show: the DAG
node computing the value (after llc's IR passes and the combines) with its divergence
and the chain back to the source of divergence, the target's custom selection steps for
its opcode, then every pattern rooted at its opcode in matcher order with the first
failing check (or ``MATCHED``; later ones are not tried). A function argument gets its
divergence and reason chain (it enters the DAG as a CopyFromReg; no pattern selects it).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import Span, UsageError, expected

__all__ = ["explain_module", "Attempt", "Explanation"]


@dataclass(frozen=True)
class Attempt:
    """One pattern tried for a value: its matcher ``index``, ``record``, ``complexity``,
    source and result DAG text, spec location, and ``outcome``: ``"MATCHED"``, the first
    failing check, or why it was not tried."""

    index: int
    record: str
    complexity: int
    src: str
    dst: str
    source: str | None
    outcome: str
    matched: bool
    tried: bool = True

    def line(self) -> str:
        """The attempt as ``tdgen explain`` prints it."""
        return f"  [{self.index}] {self.record} complexity={self.complexity} {self.src} -> {self.dst}: {self.outcome}"


@dataclass(frozen=True)
class Explanation:
    """Why ``value`` selects what it selects. ``node``: the DAG node's label (None when
    the value has no node of its own: ``note`` says why); ``divergent``; ``chain``: the
    DAG operands back to the source of divergence; ``ir_chain``: the IR value's own
    reason steps; ``custom``: lines of the target's custom selection steps;
    ``attempts``: the patterns rooted at the node's opcode in matcher order; ``after``:
    what the target's machine passes changed about the value after selection
    (SIFixSGPRCopies moving it to the VALU ...)."""

    value: str
    lines: tuple[str, ...]
    node: str | None = None
    divergent: bool | None = None
    chain: tuple[str, ...] = ()
    ir_chain: tuple = ()
    custom: tuple[str, ...] = ()
    attempts: tuple[Attempt, ...] = ()
    note: str | None = None
    after: tuple[str, ...] = ()

    @property
    def matched(self) -> Attempt | None:
        return next((a for a in self.attempts if a.matched), None)

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def __str__(self) -> str:
        return self.text


def _parse_value(spec: str, path: str) -> tuple[str | None, str]:
    fn_name, val = None, spec
    if spec.startswith("@") and ":" in spec:
        fn_name, val = spec[1:].split(":", 1)
    if not val.startswith("%") or len(val) < 2 or fn_name == "":
        raise UsageError(Span(path), expected("a value like %name or @function:%name", repr(spec)), field="--value")
    return fn_name, val[1:]


def _find(module, value: str, function: str | None, path: str):
    at_fn, want = _parse_value(value, path)
    if function is not None and at_fn is not None and function.lstrip("@") != at_fn:
        raise UsageError(Span(path), expected(f"one function (--function {function} or the @function: "
                                              f"prefix of --value)", f"both @{function.lstrip('@')} and @{at_fn}"),
                         field="--value")
    only = at_fn if at_fn is not None else (function.lstrip("@") if function is not None else None)
    fns = [f for f in module.functions if not f.is_declaration and (only is None or f.name == only)]
    if only is not None and not fns:
        field = "--function" if function is not None else "--value"
        raise UsageError(Span(path), expected("a function defined in the file", f"'@{only}'"), field=field)
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
        raise UsageError(Span(path), expected(f"a value defined in {where}", repr(value)), field="--value")
    if len({id(fn) for fn, _ in hits}) > 1:
        names = ", ".join(sorted({"@" + fn.name for fn, _ in hits}))
        raise UsageError(Span(path), expected("a value name defined in one function (write @function:%name "
                                              "or pass --function)", f"{value!r} in {names}"), field="--value")
    fn, v = hits[0]
    return fn, v, want


def _steps_text(steps) -> str:
    return " <- ".join(" ".join(s.format().split()) for s in steps)


def explain_module(module, target, value: str, *, function: str | None = None, path: str = "<string>"):
    """The ``Explanation`` of ``value`` (``%v`` or ``@fn:%v``) in ``module``; the module's
    function is transformed in place by llc's IR passes (parse a fresh one per call)."""
    from patterns.pipeline import build_function_dags
    from patterns.select.custom import explain_custom
    from patterns.select.explain import describe_failure, divergence_path
    from patterns.select.matcher import build_table
    from patterns.uniformity.analysis import analyze

    fn, v, want = _find(module, value, function, path)
    label = f"@{fn.name}:%{want}"
    ua = analyze(fn, target)
    if type(v).__name__ == "Argument":
        div = bool(ua.is_divergent(v))
        steps = tuple(ua.why(v)) if div else ()
        out = [f"@{fn.name} %{want}: function argument, read through ISD::CopyFromReg "
               f"[{'divergent' if div else 'uniform'}]"]
        if div:
            out.append("  divergent because: " + _steps_text(steps))
        note = "no pattern selects an argument (it arrives in a register)"
        out.append("  " + note)
        return Explanation(label, tuple(out), divergent=div, ir_chain=steps, note=note)
    fd = build_function_dags(fn, target, ua)
    blk = v.block  # (after the IR passes: a merged block's code moved to its predecessor)
    if blk is None or blk not in fn.blocks:
        note = (f"%{want} in @{fn.name} produces no DAG node: its block is deleted before "
                f"selection (unreachable, or only reached by a branch on a constant)")
        return Explanation(label, (note,), note=note)
    # (the DAG of the block the value is selected in: its own, or where llc's Sink moved it)
    home = fd.dags[fn.blocks.index(blk)]
    node = None
    for dag in [home] + [d for d in fd.dags if d is not home]:
        node = next((n for n in dag.nodes if n.ir is v and n.opcode not in ("ISD::CopyToReg", "ISD::CopyFromReg")),
                    None)
        if node is not None:
            break
    if node is None:
        note = f"%{want} in @{fn.name} produces no DAG node of its own (folded or phi)"
        return Explanation(label, (note,), note=note)
    out = [f"@{fn.name} %{want}: {node.label()}"]
    chain: tuple[str, ...] = ()
    ir_chain: tuple = ()
    if node.divergent:
        chain = tuple(divergence_path(node))
        out.append("  divergent because: " + " <- ".join(chain))
        leaf = _divergent_leaf(node)
        if leaf is not None and leaf.opcode == "ISD::CopyFromReg" and leaf.ir is not None and fd.ua is not None:
            # the IR value's own reason, in the analysis of the IR as selected (after
            # llc's IR passes: patterns/llc/pipeline.run_ir_passes)
            ir_chain = tuple(fd.ua.why(leaf.ir))
            if ir_chain:
                out.append(f"  {leaf.ir_name()} is divergent because: " + _steps_text(ir_chain))
    table = build_table(target)
    # the target's custom selection steps (C++ Select cases) come before the table
    custom_lines, chosen = explain_custom(target, node)
    out.extend(custom_lines)
    why_not = "a custom step selected the node" if chosen else "an earlier pattern matched"
    cands = table.candidates(node.opcode)
    if not cands:
        out.append(f"  no pattern has root {node.opcode}")
    attempts = []
    for p in cands:
        src = p.src_text()
        if chosen:
            a = Attempt(p.index, p.record, p.complexity, src, p.dst_text(), _span(p), f"not tried ({why_not})",
                        False, tried=False)
        else:
            ok, _i, why = describe_failure(table, p, node)
            a = Attempt(p.index, p.record, p.complexity, src, p.dst_text(), _span(p), "MATCHED" if ok else why, ok)
            chosen = chosen or ok
        attempts.append(a)
        out.append(a.line())
    # what the target's machine passes changed about the value after selection
    # (SIFixSGPRCopies moving it to the VALU ...): the function selected in full
    from patterns.select.isel import select_dags
    from tdgen.errors import Diagnostics

    sf = select_dags(fd, target, table, Diagnostics())
    after = tuple(note for note in sf.notes if f"(%{want})" in note or f"(%{want}," in note)
    out.extend(f"  after selection: {note}" for note in after)
    return Explanation(label, tuple(out), node=node.label(), divergent=bool(node.divergent), chain=chain,
                       ir_chain=ir_chain, custom=tuple(custom_lines), attempts=tuple(attempts), after=after)


def _span(p) -> str | None:
    return str(p.span) if p.span is not None else None


def _divergent_leaf(n):
    """The node ``divergence_path`` ends at: the source of ``n``'s divergence."""
    cur, seen = n, 0
    while cur is not None and seen < 64:
        seen += 1
        if cur.source == "divergent":
            return cur
        cur = next((o for o in cur.ops if o.divergent), None)
    return None

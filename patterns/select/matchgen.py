"""Matcher code generation: one root opcode's patterns compiled into one Python function (``compile_switch``).

In the manner of DAGISelEmitter: a switch on the root type when the patterns check
different ones (SwitchType), then the patterns' check chains in table order, with the
checks that consecutive patterns share tested once (FactorNodes' scopes). The matcher
table (``patterns.select.matcher``) compiles its matchers with it, and the selector code
generator (``patterns.select.selgen``) the same code with each pattern's result DAG
written in where it matches.
"""

from __future__ import annotations

from typing import Callable

from patterns.select.codecache import compile_source
from patterns.select.pattern import CompiledPattern
from patterns.select.predicates import eval_predicate

__all__ = ["compile_switch", "root_type"]


def root_type(p: CompiledPattern) -> str | None:
    for chk in p.checks:
        if chk[0] == "type" and chk[1] == 0:
            return chk[2]
    return None


def compile_switch(pats: list[CompiledPattern], bindings: dict, hit=None) -> Callable:
    """The matcher of one root opcode. When its patterns check different root types, a
    switch on the node's type comes first (LLVM's SwitchType after SwitchOpcode): each
    type gets the patterns checking that type or none, in table order, so a node only
    tries the patterns that can match its type. ``hit``: see ``_compile_group``."""
    types = sorted({t for t in map(root_type, pats) if t is not None})
    if len(types) <= 1:
        return _compile_group(pats, bindings, hit)
    untyped = [p for p in pats if root_type(p) is None]
    by_vt = {t: _compile_group([p for p in pats if root_type(p) in (t, None)], bindings, hit) for t in types}
    get = by_vt.get
    if hit is None:
        other = _compile_group(untyped, bindings) if untyped else (lambda _n: None)

        def switch(n0):
            return get(n0.vt, other)(n0)
    else:
        other = _compile_group(untyped, bindings, hit) if untyped else (lambda _n, _s, _o: False)

        def switch(n0, sel, out):  # (the selector form, see _compile_group)
            return get(n0.vt, other)(n0, sel, out)

    return switch


def _compile_group(pats: list[CompiledPattern], bindings: dict, hit=None) -> Callable:
    """One Python function trying ``pats`` in order. Each pattern's check chain becomes a
    sequence of tests on local variables (``n<slot>``, assigned as children are loaded),
    so a failing check costs one comparison and no call or allocation; a node's operand
    list is read once (the root's ``ops0_`` first, another node's into ``ops<slot>`` when
    its first child is loaded). As
    DAGISelEmitter's FactorNodes does, consecutive patterns that start with the same
    checks share them: the common checks are tested once, in an ``if`` whose body tries
    those patterns' remaining checks in order, and a pattern's own tail is one ``and``
    chain. Falling out of a shared block continues with the next pattern, so the first
    pattern (in table order) whose checks all pass is returned, as before factoring.
    Checks that are not simple attribute tests (immediate code, named and operand
    predicates) call ``eval_predicate`` -- the same code ``run`` uses, so the two agree by
    construction; ``tests/test_matcher_tblgen`` compares them on every node of a
    generated kernel.

    Without ``hit``: ``fn(n0) -> (pattern, {bound name: node}) | None``. With ``hit``, the
    selector form ``fn(n0, sel, out) -> bool``: ``hit(k, p, slots, ns)`` gives the source
    lines run when pattern ``p`` (the ``k``-th) matches, with its bound names' slots
    (``n<slot>`` variables) -- they end in a ``return`` -- and may add names to ``ns``;
    no pattern matching returns False."""
    ns: dict = {"_ev": eval_predicate, "_CONST": ("ISD::Constant", "ISD::TargetConstant")}
    preds: dict = {}  # id(predicate) -> its name in ``ns`` (equal checks must read equal)

    def pred_name(pr) -> str:
        name = preds.get(id(pr))
        if name is None:
            name = preds[id(pr)] = f"R{len(preds)}"
            ns[name] = pr
        return name

    # per pattern: its checks as ("c", condition) / ("a", variable, expression), the
    # lines run on a match, and the opcodes it requires of the root's operands as
    # (position of that check in the items, operand index, opcode)
    chains = []
    for k, p in enumerate(pats):
        items: list = []
        root_operand: dict = {}  # slot -> the root operand it was loaded from
        needs: list = []
        with_ops: set = set()  # the slots whose operand list is in a local (``ops<slot>``)
        for chk in p.checks:
            kind = chk[0]
            n = f"n{chk[1]}"
            if kind == "child":
                # (a node's operand list read once: ``ops0_`` for the root, else loaded
                # into ``ops<slot>`` before its first child is checked)
                if chk[1] == 0:
                    root_operand[chk[3]] = chk[2]
                    ops = "ops0_"
                else:
                    ops = f"ops{chk[1]}"
                    if chk[1] not in with_ops:
                        with_ops.add(chk[1])
                        items.append(("a", ops, f"{n}.ops"))
                items.append(("c", f"len({ops}) > {chk[2]}"))
                items.append(("a", f"n{chk[3]}", f"{ops}[{chk[2]}]"))
            elif kind == "opcode":
                i = root_operand.get(chk[1])
                if i is not None:
                    needs.append((len(items), i, chk[2]))
                items.append(("c", f"{n}.opcode == {chk[2]!r}"))
            elif kind == "type":
                items.append(("c", f"{n}.vt == {chk[2]!r}"))
            elif kind == "int":
                items.append(("c", f"{n}.value == {chk[2]!r} and {n}.opcode in _CONST"))
            elif kind == "same":
                items.append(("c", f"n{chk[2]} is {n}"))
            elif kind == "pred":
                pr = chk[2]
                if pr.kind == "uniform":
                    items.append(("c", f"not {n}.divergent"))
                elif pr.kind == "divergent":
                    items.append(("c", f"{n}.divergent"))
                elif pr.kind == "oneuse":
                    items.append(("c", f"{n}.uses == 1"))
                else:
                    items.append(("c", f"_ev({pred_name(pr)}, {n})"))
            elif kind == "predops":
                args = ", ".join(f"n{s}" if s >= 0 else "None" for s in chk[4])
                items.append(("c", f"_ev({pred_name(chk[2])}, {n}, ({args},))"))
            else:  # pragma: no cover - lower_checks makes no other kind
                raise AssertionError(kind)
        if hit is None:
            ns[f"P{k}"] = p
            env = ", ".join(f"{name!r}: n{s}" for name, s in sorted(bindings[id(p)].items()))
            chains.append((items, [f"return P{k}, {{{env}}}"], needs))
        else:
            chains.append((items, hit(k, p, bindings[id(p)], ns), needs))

    body: list = []
    used: set = set()  # the root operands whose opcode a precheck reads
    _emit_factored(chains, 0, "    ", body, used)
    lines = ["def _match(n0):" if hit is None else "def _match(n0, sel, out):", "    ops0_ = n0.ops"]
    if used:
        # the opcodes of the root's operands, read once (None: no such operand)
        lines += [f"    oc{i} = ops0_[{i}].opcode if len(ops0_) > {i} else None" for i in sorted(used)]
    lines += body
    lines.append("    return None" if hit is None else "    return False")
    exec(compile_source("\n".join(lines), "<matcher>"), ns)  # noqa: S102 - generated from the table
    return ns["_match"]


def _chain_tail(items, at: int, needs=(), used: set | None = None) -> str:
    """The checks of one pattern from ``at`` on as one condition (an SDNode operand is
    never None: ``is not None`` only makes the assignment an expression). ``needs``: the
    opcodes the pattern requires of the root's operands (see ``_compile_group``); one
    checked after the first of these checks is also tested first, on the opcode read
    once per node (``oc<i>``, its operand index added to ``used``): a pattern that
    cannot match fails on one comparison. (Checks have no effect but their answer and
    the local variables they bind, so testing a necessary condition early changes
    nothing else.)"""
    pre = []
    if used is not None:
        for pos, i, op in needs:
            if pos > at:
                pre.append(f"(oc{i} == {op!r})")
                used.add(i)
    return " and ".join(pre + [f"({it[1]})" if it[0] == "c" else f"(({it[1]} := {it[2]}) is not None)"
                               for it in items[at:]])


def _emit_factored(group: list, at: int, indent: str, lines: list, used: set | None = None) -> None:
    """Source lines trying ``group`` -- consecutive (checks, lines ending in a return,
    opcodes required of the root's operands) whose first ``at`` checks are the same
    and already done -- in order: a run of patterns that share their next check tests
    it once (an assignment is just made), the rest of a lone pattern is one ``and``
    chain (see ``_chain_tail``; ``used`` collects the root operands it prechecks). (A
    module function, not a closure that calls itself, so compiling leaves no reference
    cycle behind.)"""
    i = 0
    while i < len(group):
        items, ret = group[i][0], group[i][1]
        if at >= len(items):
            lines.extend(indent + r for r in ret)
            return  # the patterns after it can never be reached
        head = items[at]
        j = i + 1
        while j < len(group) and len(group[j][0]) > at and group[j][0][at] == head:
            j += 1
        if j - i == 1 or len(indent) > 160:  # (nesting kept well within Python's limits)
            for q in group[i:j]:
                lines.append(f"{indent}if {_chain_tail(q[0], at, q[2] if len(q) > 2 else (), used)}:")
                lines.extend(f"{indent}    {r}" for r in q[1])
        elif head[0] == "a":
            lines.append(f"{indent}{head[1]} = {head[2]}")
            _emit_factored(group[i:j], at + 1, indent, lines, used)
        else:
            lines.append(f"{indent}if {head[1]}:")
            _emit_factored(group[i:j], at + 1, indent + "    ", lines, used)
        i = j

"""Why a node is not selected: each pattern's first failing check, the closest patterns, the divergence chain.

What ``tdgen explain`` prints for a value (``describe_failure``, ``divergence_path``) and
the "cannot select" error naming the patterns that came closest (``cannot_select``).
"""

from __future__ import annotations

from tdgen.errors import VerifyError, expected

from patterns.dag.nodes import SDNode
from patterns.select.matcher import MatcherTable

__all__ = ["divergence_path", "describe_failure", "closest_patterns", "cannot_select", "node_text"]


def divergence_path(n: SDNode) -> list[str]:
    """Why ``n`` is divergent: the chain of operands back to a source of divergence."""
    steps = []
    cur = n
    seen = 0
    while cur is not None and seen < 64:
        seen += 1
        if cur.source == "divergent":
            ir = cur.ir_name() or cur.intrinsic or cur.name
            if cur.opcode == "ISD::CopyFromReg":
                steps.append(f"{cur.name} <- {ir} (divergent per the uniformity analysis)")
            else:
                steps.append(f"{cur.name} <- {ir} (source of divergence)")
            break
        nxt = next((o for o in cur.ops if o.divergent), None)
        if nxt is None:
            break
        if cur is not n:
            steps.append(cur.name)
        cur = nxt
    return steps


def describe_failure(table: MatcherTable, p, n: SDNode) -> tuple[bool, int, str]:
    ok, i, slots = table.run(p, n)
    if ok:
        return True, i, "matched"
    chk = p.checks[i]
    kind = chk[0]
    bad = slots[chk[1]]
    if kind == "pred":
        pr = chk[2]
        if pr.kind == "uniform":
            why = f"{pr.name} predicate failed: {bad.name} is divergent"
            path = divergence_path(bad)
            if path:
                why += ", via operand " + " <- ".join(s.split(" <- ")[0] for s in path[:-1]) + \
                    (" <- " if path[:-1] else "") + path[-1].split(" (")[0] if len(path) > 1 else ", via " + path[0].split(" (")[0]
            return False, i, why
        if pr.kind == "divergent":
            return False, i, f"{pr.name} predicate failed: {bad.name} is uniform"
        if pr.kind in ("imm", "nodeimm") and isinstance(bad.value, int):
            return False, i, f"{pr.name} predicate failed on {bad.name}, the constant {bad.value}"
        return False, i, f"{pr.name} predicate failed on {bad.name}"
    if kind == "opcode":
        return False, i, f"check '{chk[3]}' failed: {bad.name} is {bad.opcode}"
    if kind == "type":
        return False, i, f"check '{chk[3]}' failed: {bad.name} has type {bad.vt}"
    if kind == "int":
        return False, i, f"check '{chk[3]}' failed: {bad.name} is {bad.opcode}" + (
            f"<{bad.value}>" if bad.value is not None else "")
    if kind == "child":
        return False, i, f"check '{chk[4]}' failed: {bad.name} has {len(bad.ops)} operands"
    return False, i, f"check '{chk[-1]}' failed"


def closest_patterns(table: MatcherTable, n: SDNode, k: int = 3) -> list[tuple[object, str]]:
    scored = []
    for p in table.candidates(n.opcode):
        ok, i, why = describe_failure(table, p, n)
        scored.append((-(i / max(1, len(p.checks))), p.index, p, why))
    scored.sort(key=lambda x: (x[0], x[1]))
    return [(p, why) for _s, _i, p, why in scored[:k]]


def _where(p) -> str:
    return f" at {p.span}" if p.span is not None else ""


def node_text(n: SDNode) -> str:
    """``t5: i64 = ISD::PTRADD t2:i64, t4:i64 [divergent]``: the node, its result and
    operand types and its divergence, as a "cannot select" error names them."""
    ops = ", ".join(f"{o.name}:{o.vt}" for o in n.ops)
    div = "divergent" if n.divergent else "uniform"
    head = f"{n.name}: {n.vt} = {n.opcode}" if n.vt not in ("ch", "isVoid") else f"{n.name}: {n.opcode}"
    return f"{head}{' ' + ops if ops else ''} [{div}]"


def cannot_select(n: SDNode, table: MatcherTable, block=None) -> VerifyError:
    """``path:line:col: record '%v': expected a pattern selecting <node>, found ...``:
    as llc's "Cannot select" names the node, its types and divergence; the span is the
    IR instruction's (its line), the record its value. A node of no IR instruction (a
    constant) is placed at its ``block``'s label and named with it."""
    span = getattr(n.ir, "span", None)
    record = n.ir_name()
    if span is None and block is not None:
        span = getattr(block, "span", None)
        fn = getattr(block, "function", None)
        record = f"@{getattr(fn, 'name', '?')}:%{block.name}"
    close = closest_patterns(table, n)
    if close:
        found = "none matches; closest: " + "; ".join(
            f"{p.record}{_where(p)} {p.src_text()} ({why})" for p, why in close)
    else:
        found = f"no pattern rooted at {n.opcode} and no lowering of it (cannot select)"
    return VerifyError(span, expected(f"a pattern selecting {node_text(n)}", found), record=record)

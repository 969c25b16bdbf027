"""Selector code generation: one root opcode's matcher with each pattern's result DAG written in (``compile_selector``).

Each root opcode gets one compiled selector: the table's matcher for that opcode
(``patterns.select.matchgen``) with, where a pattern matches, the code that emits its
result DAG written in -- the use counting, the operands and the instructions of the
pattern's result plan, in the order ``patterns.select.machine.FnSelector.emit``
interprets the same plans (``interpreted_selector`` is that reference; the tests
compare the two). The selection loop (``patterns.select.machine``) compiles them on
first use, ``patterns.select.isel.IselBundle`` ahead of time for the target cache.
"""

from __future__ import annotations

from patterns.select.matchgen import compile_switch
from patterns.select.matcher import MatcherTable

__all__ = ["compile_selector", "interpreted_selector", "use_count_lines", "emit_source"]


def compile_selector(table: MatcherTable, opcode: str, plan_of, names: dict):
    """The selector of the nodes of root opcode ``opcode``, or None when no pattern is
    rooted there: ``fn(node, selector, out) -> bool``, the table's compiled matcher
    (``patterns.select.matchgen.compile_switch``) with, where each pattern matches, the code
    replacing the node by its result DAG (``plan_of(pattern)``) written in: the bound
    values gain a user, the node's operands lose one, then the instructions of the plan
    are appended to ``out`` -- what ``FnSelector.emit`` does with ``_emit_dst``, in the
    same order (operands left to right, depth first, then the instruction's own result
    register), so register numbering is identical; ``tests/test_matcher_tblgen``
    compares the two. ``names``: the helpers the generated code calls, by the names it
    calls them (``patterns.select.machine.SELECTOR_NAMES``)."""
    pats = table.by_opcode.get(opcode)
    if not pats:
        return None
    def hit(k, p, slots, ns):
        ns.update(names)
        lines = use_count_lines(p, slots)
        lines += ["irn = _irn(n0)", "tn = n0.id", "base = tn * 64"]
        emit_source(plan_of(p), True, lines, [0], slots, repr(p.record), opcode == "ISD::CopyFromReg")
        lines.append("return True")
        return lines

    return compile_switch(pats, table.slot_maps, hit)


def use_count_lines(p, slots: dict) -> list[str]:
    """The lines of ``FnSelector.emit``'s use counting for pattern ``p`` (bound names
    ``slots``): every bound value gains a user (once per name), then each operand of the
    root loses one, a node left without users releasing its operands. A bound value that
    is the root's own operand ``i`` gains and loses one: neither is written (its count
    is at least 1 until then, as that operand is one of its uses, so no release is
    missed or added) -- the operands of a two-operand root bound as they are cost no
    count at all."""
    gain: dict = {}
    for _name, s in sorted(slots.items()):
        if s != 0:
            gain[s] = gain.get(s, 0) + 1
    direct = {}  # root operand index -> the slot loaded from it
    for chk in p.checks:
        if chk[0] == "child" and chk[1] == 0:
            direct[chk[2]] = chk[3]
    kept = set()
    for i, s in sorted(direct.items()):
        if gain.get(s):
            gain[s] -= 1
            kept.add(i)
    lines = []
    for _name, s in sorted(slots.items()):
        if s != 0 and gain.get(s):
            gain[s] -= 1
            lines.append(f"n{s}.uses += 1")
    # (``ops0_``: the root's operand list, which the matcher loads first; a node losing
    # its last user releases its operands: patterns.select.machine.drop_use/drop_uses)
    if not kept:
        return lines + ["_drop_uses(ops0_, 0)"]
    top = max(direct) + 1  # (the matcher checked the root has operand top - 1)
    for i in range(top):
        if i not in kept:
            lines.append(f"_drop_use(ops0_[{i}])")
    lines.append(f"_drop_uses(ops0_, {top})")
    return lines


def interpreted_selector(table: MatcherTable, opcode: str, plan_of, names: dict):
    """``compile_selector`` done the slow way, the reference the tests compare it with:
    ``table.matcher_for`` picks the pattern, ``FnSelector.emit`` interprets its plan
    (``names`` is not needed)."""
    match = table.matcher_for(opcode)
    if match is None:
        return None

    def select(n, sel, out):
        hit = match(n)
        if hit is None:
            return False
        sel.emit(n, hit[0], hit[1], out)
        return True

    return select


def emit_source(pl, top: bool, lines: list, count: list, slots: dict, rec: str, root_copy: bool = False) -> str:
    """Append the lines computing plan ``pl`` to ``lines``; the expression of its value.
    A bound value is the matcher's variable ``n<slot>`` (``slots``: name -> slot);
    ``rec`` is the pattern's record name as Python source; ``root_copy``: the root is a
    CopyFromReg (its register is its own). Operands and registers come from the compiled
    helpers of ``patterns.select.machine`` (``SELECTOR_NAMES``): a node gets the next register
    number the first time it is asked for, as ``FnSelector.vreg`` gives it. (A module
    function, not a closure calling itself, so compiling leaves no reference cycle
    behind.)"""
    tag = pl[0]
    if tag == "lit":
        return repr(pl[1])
    if tag == "var":
        # sel.operand(env, name, is_register) written out
        s = slots.get(pl[1])
        if s is None:
            return repr("$" + pl[1])
        count[0] += 1
        v = f"v{count[0]}"
        lines.append(f"{v} = {'_reg' if pl[2] else '_any'}(sel, n{s})")
        return v
    if tag == "xform":
        # the bound constant becomes the transformed immediate (see FnSelector._emit_dst)
        kid = pl[2]
        s = slots.get(kid[1]) if kid[0] == "var" else None
        if s is None:
            return emit_source(kid, False, lines, count, slots, rec, root_copy)
        count[0] += 1
        v, x = f"v{count[0]}", f"n{s}"
        lines.append(f"{x}.uses -= 1")
        lines.append(f"if {x}.uses == 0:")
        lines.append(f"    for o in {x}.ops:")
        lines.append("        _release(o)")
        lines.append(f"{v} = str(_xf({pl[1]!r}, {x}))")
        return v
    if tag == "sub":
        _tag, idx, rc, file, inner = pl
        src = emit_source(inner, False, lines, count, slots, rec, root_copy)
        count[0] += 1
        d = f"d{count[0]}"
        env = "{" + ", ".join(f"{name!r}: n{s}" for name, s in sorted(slots.items())) + "}"
        lines.append(f"rc{count[0]}, f{count[0]} = sel.sub_copy_class({rc!r}, {src}, {env})")
        if top:
            root_vreg(d, lines, root_copy)
        else:
            lines.append(f"{d} = f'%{{sel.fresh()}}'")
        append_mi(lines, "'COPY'", d, f"rc{count[0]}", f"f{count[0]}", f"[{src} + {'.' + idx!r}]", rec,
                   f"base + {32 if top else 0} + len(out) % 32", "()")
        return d
    _tag, op, rc, file, has_out, kids, more = pl
    args = [emit_source(k, False, lines, count, slots, rec, root_copy) for k in kids]
    count[0] += 1
    d = f"d{count[0]}"
    if not has_out:
        lines.append(f"{d} = None")
    elif top:
        root_vreg(d, lines, root_copy)
    else:  # sel.fresh()
        lines.append(f"{d} = _fresh(sel)")
    more_defs = "(" + "".join(f"(f'%{{sel.fresh()}}', {m!r}), " for m in more) + ")"
    append_mi(lines, repr(op), d, repr(rc), repr(file), f"[{', '.join(args)}]", rec,
               f"base + {32 if top else 0} + len(out) % 32", more_defs)
    return f"({d} or '')"


def append_mi(lines: list, op: str, dst: str, rc: str, file: str, operands: str, rec: str, order: str,
               more_defs: str) -> None:
    """``out.append(MachineInstr(op, dst, rc, file, operands, irn, tn, rec, order, more_defs))``
    written out (each argument a Python expression; evaluated in this order)."""
    lines.append(f"out.append(_mi({op}, {dst}, {rc}, {file}, {operands}, irn, tn, {rec}, {order}, {more_defs}))")


def root_vreg(d: str, lines: list, root_copy: bool) -> None:
    """``d = sel.vreg(n0)`` written out."""
    if root_copy:
        lines.append(f"{d} = f'%{{n0.reg}}'")
        return
    lines.append(f"{d} = _reg(sel, n0)")  # (n0 is no CopyFromReg)

"""Instruction selection driver: DAG nodes -> machine instructions with register classes.

Per function: run the uniformity analysis, build each block's SelectionDAG
(``patterns.dag.builder.build_function_dags``, which also applies ``patterns.dag.combine``), then
select each block in LLVM's order -- SelectionDAGISel walks the node list from the end (users before operands):
each live node is matched against the table (``patterns.select.matcher``) rows for its opcode;
the first pattern that passes all checks emits its result DAG. Nodes a pattern covered
lose their user; a covered node that still has other users is selected on its own later,
a node left without users is dead and skipped. Each root opcode gets one compiled
selector (``_compile_selector``): the table's matcher for that opcode with, where a
pattern matches, the code that emits its result DAG written in (``_FnSelector.emit``
interprets the same result plans; the tests compare the two).

``IselView`` is what selection reads from a target, as plain records, and ``IselBundle``
that view with the matcher table, result plans and compiled selectors: what ``tdgen
isel``/``explain`` load from the on-disk target cache in one entry (no spec model
imported, no code compiled).

Before the table, a node whose opcode a ``CustomSelect`` of the target names (and whose
type is the step's ``vt``) goes to that step's model -- the C++ ``Select`` switch case
(AMDGPU's ``SelectS_BFE``) that runs before ``SelectCode``: it either replaces the node
with one machine instruction (its operands lose this user, as with a pattern) or
declines, and the table is tried. A model producing an undeclared instruction, a
scalar-class result for a divergent node, or raising, is a ``SpecError`` naming the
record and its ``model`` field.

An SDNodeXForm in a result DAG (``(NegateImm $c)``, or an ImmLeaf's ``xform`` the matcher
table wrote in, ``patterns.select.patsrc.promote_xforms``) turns the bound constant into the
immediate it computes (``patterns.select.matcher.apply_xform``).

A result DAG may use Target.td's instructions: they become what LLVM's InstrEmitter
makes of them (``REG_SEQUENCE`` and ``IMPLICIT_DEF`` stay, ``EXTRACT_SUBREG`` and
``COPY_TO_REGCLASS`` become ``COPY``), and an operand whose register class does not fit
the instruction operand's class gets a ``COPY`` into that class in between.

Bookkeeping nodes (EntryToken, CopyFromReg, CopyToReg, branches, loads, stores,
compares, selects, casts, constants) are selected by the target's patterns when it has
patterns rooted at their opcode; otherwise they become generic pseudo instructions
(``COPY``, ``LOAD``, ``STORE``, ``BRCOND``, ``SETCC``, ``MOV_IMM`` ...) so the output stays
complete without the target having to model memory or control flow. Every other opcode
must be matched: otherwise a ``VerifyError`` "cannot select" names the node, its type
and divergence, and the patterns that came closest.
"""

from __future__ import annotations

from tdgen.errors import Diagnostics, SpecError, VerifyError, expected

from patterns.select.machine import (FnSelector as _FnSelector, MachineInstr, _release, any_operand, drop_use, drop_uses, fresh_reg,
                      new_machine_instr, node_ir_name, reg_operand)
from patterns.select.matcher import MatcherTable, apply_xform, build_table
from patterns.dag.builder import SDNode, build_function_dags

__all__ = ["MachineInstr", "SelectedBlock", "SelectedFunction", "select_module", "select_function",
           "divergence_path", "closest_patterns", "custom_steps", "run_custom", "MachineNode", "Decline"]


class _Fields:
    """``__repr__``/``__eq__`` over ``__slots__``, as a dataclass has them (plain classes:
    no dataclass is made at import time)."""

    __slots__ = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # (mutable, as a dataclass with eq is)


class SelectedBlock(_Fields):
    __slots__ = ("name", "instrs")
    _FIELDS = __slots__

    def __init__(self, name: str, instrs: list[MachineInstr] | None = None):
        self.name = name
        self.instrs = [] if instrs is None else instrs


class SelectedFunction(_Fields):
    __slots__ = ("name", "blocks")
    _FIELDS = __slots__

    def __init__(self, name: str, blocks: list[SelectedBlock]):
        self.name = name
        self.blocks = blocks

    def instrs(self):
        for b in self.blocks:
            yield from b.instrs


# ---------------------------------------------------------------------------------------
# Custom selection steps (CustomSelect records): C++ Select cases tried before the table


class _Value(_Fields):
    """A small immutable value (equal by value, hashable)."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values())


class MachineNode(_Value):
    """What a custom step returns to replace the node: ``opcode`` with ``operands`` (DAG
    nodes, or ``TargetConstant`` immediates)."""

    __slots__ = ("opcode", "operands")
    _FIELDS = __slots__

    def __init__(self, opcode: str, operands: tuple):
        self.opcode = opcode
        self.operands = operands


class TargetConstant(_Value):
    __slots__ = ("value",)
    _FIELDS = __slots__

    def __init__(self, value: int):
        self.value = value


class Decline(_Value):
    """The step leaves the node to the table (``SelectCode(N)``), saying why."""

    __slots__ = ("reason",)
    _FIELDS = __slots__

    def __init__(self, reason: str):
        self.reason = reason


class CurDAG:
    """The helpers a ``CustomSelect`` model gets as ``cur`` (named after the C++
    ``CurDAG``): build the replacement, read constants and value-type operands."""

    __slots__ = ()

    @staticmethod
    def machine_node(opcode: str, *operands) -> MachineNode:
        return MachineNode(opcode, operands)

    @staticmethod
    def target_constant(value: int) -> TargetConstant:
        return TargetConstant(int(value))

    @staticmethod
    def decline(reason: str) -> Decline:
        return Decline(reason)

    @staticmethod
    def const(n) -> int | None:
        """A ConstantSDNode's getZExtValue (32-bit), or None for any other node."""
        if n.opcode == "ISD::Constant" and isinstance(n.value, int):
            return n.value & 0xFFFFFFFF
        return None

    @staticmethod
    def vt_bits(n) -> int:
        """The width of a value-type operand (``cast<VTSDNode>(Op)->getVT().getSizeInBits()``)."""
        from tdgen.types import VALUE_TYPES

        return VALUE_TYPES[n.vt].bits

    @staticmethod
    def is_mask_32(v: int) -> bool:
        """isMask_32: a non-empty run of ones starting at bit 0."""
        v &= 0xFFFFFFFF
        return v != 0 and (v & (v + 1)) == 0

    @staticmethod
    def popcount(v: int) -> int:
        return bin(v & 0xFFFFFFFF).count("1")


_CUR = CurDAG()
_STEPS: dict[int, tuple[object, dict]] = {}
_MODELS: dict[tuple[str, str], object] = {}


def _model_fn(cs):
    key = (cs.name, cs.model)
    fn = _MODELS.get(key)
    if fn is None:
        ns: dict = {"__name__": f"customselect_{cs.name}"}
        try:
            exec(compile(cs.model, f"<{cs.name}.model>", "exec"), ns)  # noqa: S102 - the target's model source
            fn = ns["select"]
        except Exception as e:  # noqa: BLE001 - tdgen.check reports these at load; a hand-built target may not be checked
            raise SpecError(cs.span, expected("Python source defining select(N, cur)", f"{type(e).__name__}: {e}"),
                            record=cs.name, field="model") from None
        _MODELS[key] = fn
    return fn


def custom_steps(target) -> dict[str, list]:
    """The target's custom steps by ISD opcode of the root: ``{opcode: [(record, fn)]}``,
    in declaration order (cached per target object)."""
    hit = _STEPS.get(id(target))
    if hit is not None and hit[0] is target:
        return hit[1]
    out: dict[str, list] = {}
    for cs in getattr(target, "custom_selects", ()):
        fn = _model_fn(cs)
        for name in cs.opcodes:
            out.setdefault(target.sdnodes[name].opcode, []).append((cs, fn))
    _STEPS[id(target)] = (target, out)
    return out


def _model_error(cs, n: SDNode, what: str, found: str) -> SpecError:
    ir = n.ir_name()
    span = getattr(n.ir, "span", None)
    where = (f"{ir} at {span}, " if span is not None else f"{ir}, ") if ir else ""
    return SpecError(cs.span, expected(f"{what} (selecting {where}{n.label()})", found), record=cs.name, field="model")


def run_custom(cs, fn, n: SDNode, target):
    """Run one step on ``n``: a checked ``MachineNode``, a ``Decline``, or a ``SpecError``
    (returned, not raised, so the caller collects it)."""
    if n.vt != cs.vt:
        return Decline(f"root type {n.vt} is not {cs.vt}")
    try:
        res = fn(n, _CUR)
    except Exception as e:  # noqa: BLE001 - a bug in the spec's model, reported at the record
        return _model_error(cs, n, "a model that runs", f"{type(e).__name__}: {e}")
    if res is None:
        return Decline("no shape the step handles")
    if isinstance(res, Decline):
        return res
    return _checked_custom(cs, n, res, target)


def _checked_custom(cs, n: SDNode, res, target):
    """``run_custom``'s checks of what a model returned (neither None nor a Decline)."""
    if not isinstance(res, MachineNode):
        return _model_error(cs, n, "cur.machine_node(...), cur.decline(...) or None", type(res).__name__)
    if res.opcode not in cs.emits:
        return _model_error(cs, n, f"an instruction listed in emits ({', '.join(cs.emits)})", repr(res.opcode))
    inst = target.instructions[res.opcode]
    for o in res.operands:
        if not isinstance(o, (SDNode, TargetConstant)):
            return _model_error(cs, n, "operands that are DAG nodes or cur.target_constant(...)", type(o).__name__)
    rc = target.register_classes_by_name.get(inst.outs[0].kind)
    if n.divergent and rc is not None and rc.file == "scalar":
        return _model_error(cs, n, "a vector-register result for a divergent node",
                            f"{res.opcode} writing scalar class {rc.name}")
    return res


def _custom_text(res: MachineNode) -> str:
    ops = ", ".join(str(o.value) if isinstance(o, TargetConstant) else o.name for o in res.operands)
    return f"{res.opcode} {ops}"


def explain_custom(target, n: SDNode) -> tuple[list[str], bool]:
    """``tdgen explain`` lines for the custom steps tried on ``n`` (before the table) and
    whether one of them selected it."""
    lines = []
    for cs, fn in custom_steps(target).get(n.opcode, ()):
        head = f"  [custom] {cs.name} (C++ Select case, tried before the table)"
        res = run_custom(cs, fn, n, target)
        if isinstance(res, MachineNode):
            lines.append(f"{head}: SELECTED {_custom_text(res)}")
            return lines, True
        if isinstance(res, Decline):
            lines.append(f"{head}: declined ({res.reason}); the table is tried")
        else:
            lines.append(f"{head}: error: {res.message}")
    return lines, False


def _compile_selector(table: MatcherTable, opcode: str, plan_of):
    """The selector of the nodes of root opcode ``opcode``, or None when no pattern is
    rooted there: ``fn(node, selector, out) -> bool``, the table's compiled matcher
    (``patterns.select.matcher._compile_switch``) with, where each pattern matches, the code
    replacing the node by its result DAG (``plan_of(pattern)``) written in: the bound
    values gain a user, the node's operands lose one, then the instructions of the plan
    are appended to ``out`` -- what ``_FnSelector.emit`` does with ``_emit_dst``, in the
    same order (operands left to right, depth first, then the instruction's own result
    register), so register numbering is identical; ``tests/test_matcher_tblgen``
    compares the two."""
    pats = table.by_opcode.get(opcode)
    if not pats:
        return None
    from patterns.select.matcher import _compile_switch

    def hit(k, p, slots, ns):
        ns.update(_SELECTOR_NAMES)
        lines = _use_count_lines(p, slots)
        lines += ["irn = _irn(n0)", "tn = n0.id", "base = tn * 64"]
        _emit_source(plan_of(p), True, lines, [0], slots, repr(p.record), opcode == "ISD::CopyFromReg")
        lines.append("return True")
        return lines

    return _compile_switch(pats, table._bindings, hit)


# the names the code of the generated selectors reads (patterns.select.machine's helpers)
_SELECTOR_NAMES = {"_mi": new_machine_instr, "_release": _release, "_xf": apply_xform, "_irn": node_ir_name,
                   "_reg": reg_operand, "_any": any_operand, "_fresh": fresh_reg, "_drop_use": drop_use,
                   "_drop_uses": drop_uses}


def _use_count_lines(p, slots: dict) -> list[str]:
    """The lines of ``_FnSelector.emit``'s use counting for pattern ``p`` (bound names
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


def _interpreted_selector(table: MatcherTable, opcode: str, plan_of):
    """``_compile_selector`` done the slow way, the reference the tests compare it with:
    ``table.matcher_for`` picks the pattern, ``_FnSelector.emit`` interprets its plan."""
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


def _emit_source(pl, top: bool, lines: list, count: list, slots: dict, rec: str, root_copy: bool = False) -> str:
    """Append the lines computing plan ``pl`` to ``lines``; the expression of its value.
    A bound value is the matcher's variable ``n<slot>`` (``slots``: name -> slot);
    ``rec`` is the pattern's record name as Python source; ``root_copy``: the root is a
    CopyFromReg (its register is its own). Operands and registers come from the compiled
    helpers of ``patterns.select.machine`` (``_SELECTOR_NAMES``): a node gets the next register
    number the first time it is asked for, as ``_FnSelector.vreg`` gives it. (A module
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
        # the bound constant becomes the transformed immediate (see _FnSelector._emit_dst)
        kid = pl[2]
        s = slots.get(kid[1]) if kid[0] == "var" else None
        if s is None:
            return _emit_source(kid, False, lines, count, slots, rec, root_copy)
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
        src = _emit_source(inner, False, lines, count, slots, rec, root_copy)
        count[0] += 1
        d = f"d{count[0]}"
        env = "{" + ", ".join(f"{name!r}: n{s}" for name, s in sorted(slots.items())) + "}"
        lines.append(f"rc{count[0]}, f{count[0]} = sel.sub_copy_class({rc!r}, {src}, {env})")
        if top:
            _root_vreg(d, lines, root_copy)
        else:
            lines.append(f"{d} = f'%{{sel._fresh()}}'")
        _append_mi(lines, "'COPY'", d, f"rc{count[0]}", f"f{count[0]}", f"[{src} + {'.' + idx!r}]", rec,
                   f"base + {32 if top else 0} + len(out) % 32", "()")
        return d
    _tag, op, rc, file, has_out, kids, more = pl
    args = [_emit_source(k, False, lines, count, slots, rec, root_copy) for k in kids]
    count[0] += 1
    d = f"d{count[0]}"
    if not has_out:
        lines.append(f"{d} = None")
    elif top:
        _root_vreg(d, lines, root_copy)
    else:  # sel._fresh()
        lines.append(f"{d} = _fresh(sel)")
    more_defs = "(" + "".join(f"(f'%{{sel._fresh()}}', {m!r}), " for m in more) + ")"
    _append_mi(lines, repr(op), d, repr(rc), repr(file), f"[{', '.join(args)}]", rec,
               f"base + {32 if top else 0} + len(out) % 32", more_defs)
    return f"({d} or '')"


def _append_mi(lines: list, op: str, dst: str, rc: str, file: str, operands: str, rec: str, order: str,
               more_defs: str) -> None:
    """``out.append(MachineInstr(op, dst, rc, file, operands, irn, tn, rec, order, more_defs))``
    written out (each argument a Python expression; evaluated in this order)."""
    lines.append(f"out.append(_mi({op}, {dst}, {rc}, {file}, {operands}, irn, tn, {rec}, {order}, {more_defs}))")


def _root_vreg(d: str, lines: list, root_copy: bool) -> None:
    """``d = sel.vreg(n0)`` written out."""
    if root_copy:
        lines.append(f"{d} = f'%{{n0.reg}}'")
        return
    lines.append(f"{d} = _reg(sel, n0)")  # (n0 is no CopyFromReg)


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


def cannot_select(n: SDNode, table: MatcherTable) -> VerifyError:
    """``path:line:col: record '%v': expected a pattern for <node>, found none; closest: ...``"""
    span = getattr(n.ir, "span", None)
    div = "divergent" if n.divergent else "uniform"
    close = closest_patterns(table, n)
    if close:
        found = "none matches; closest: " + "; ".join(
            f"{p.record}{_where(p)} {p.src_text()} ({why})" for p, why in close)
    else:
        found = f"no pattern rooted at {n.opcode}"
    return VerifyError(span, expected(f"a pattern selecting {n.name}: {n.vt} {n.opcode} [{div}]", found),
                       record=n.ir_name())


def select_function(fn, target, ua, table: MatcherTable | None = None, diags: Diagnostics | None = None):
    """Select ``fn``; ``ua``: its uniformity analysis, or None (made where needed, see
    ``build_function_dags``)."""
    table = table or build_table(target)
    own = diags is None
    if diags is None:
        diags = Diagnostics()
    fdags = build_function_dags(fn, target, ua)
    sel = _FnSelector(target, table, fdags)
    blocks = []
    for bi, dag in enumerate(fdags.dags):
        instrs = sel.select_dag(dag, diags)
        phis = []
        for phi, reg, div, inc in (fdags.phis[bi] if fdags.phis else ()):
            rc = sel._vector_rc if div else sel._scalar_rc
            ops = [x for text, b in inc for x in (text, f"%bb.{b}")]
            phis.append(MachineInstr("PHI", f"%{reg}", rc, "vector" if div else "scalar", ops,
                                     f"%{phi.name}", "phi"))
        blocks.append(SelectedBlock(dag.block.name, phis + instrs))
    if own:
        diags.check()
    return SelectedFunction(fn.name, blocks), fdags


def select_module(module, target, table: MatcherTable | None = None, *,
                  keep: list | None = None) -> list[SelectedFunction]:
    """Select every defined function; all cannot-select errors are reported together.
    ``keep``: a list that gets each function's DAGs (``FunctionDAGs``) instead of their
    being freed here (``tdgen isel`` keeps them until the process exits without tearing
    down the heap: freeing a 50k-instruction kernel's DAG node by node costs ~35 ms)."""
    import gc

    table = table or build_table(target)
    diags = Diagnostics()
    out = []
    enabled = gc.isenabled()
    gc.disable()  # the DAGs are acyclic garbage-free graphs: collection passes only cost time
    try:
        for fn in module.functions:
            if fn.is_declaration:
                continue
            # (no analysis given: the IR passes make it where they read it, and for
            # the IR they leave, which is the one selection reads)
            sf, fdags = select_function(fn, target, None, table, diags)
            out.append(sf)
            if keep is not None:
                keep.append(fdags)
    finally:
        if enabled:
            gc.enable()
    diags.check()
    return out


def _generic_instructions():
    """Target.td's instructions (tdgen.builtins, imported when first needed: a cached
    selector needs no plan compiled, and the spec model stays unimported)."""
    from tdgen.builtins import GENERIC_INSTRUCTIONS

    return GENERIC_INSTRUCTIONS


# ---------------------------------------------------------------------------------------
# The target as selection sees it, for the on-disk cache


class _Rec:
    """A plain record of the few fields selection reads from one spec record."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        return "_Rec(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"


class IselView:
    """What instruction selection reads from a ``Target`` (the uniformity analysis, the
    DAG builder and its IR passes, the combines, the selector, ``tdgen explain``), as
    plain records: small to unpickle, and loading it imports no spec model (the CLI
    caches it, see ``isel_bundle``). Every attribute is the target's own value or a
    record with the same fields: intrinsics by IR name (``divergence``, ``properties``
    as strings: LICM's speculation rules read them), lowerings
    (``intrinsic.ir_name``, ``node.name``/``opcode``, ``operand_map``), SDNodes by name
    (``opcode``), instructions by name (``ins``/``outs`` operand kinds), register
    classes, custom selection steps. Anything else is read from the full target, loaded
    (through the target cache) on first such use."""

    def __init__(self, target, source=None):
        from patterns.uniformity.analysis import DivergenceFacts

        self.name = target.name
        self.spec_path = getattr(target, "spec_path", "")
        # (what tdgen.hooks.target_hooks reads: the IR pipeline asks for the target's hooks)
        self.hooks = getattr(target, "hooks", "")
        self.spec_folder = getattr(target, "spec_folder", "")
        self.span = getattr(target, "span", None)
        self.uniformity = target.uniformity
        self._facts = DivergenceFacts.of(target)
        self._source = source  # how to load the target again (a spec folder), after unpickling
        self._full = target
        self.intrinsics_by_ir_name = {k: _Rec(ir_name=i.ir_name, divergence=i.divergence,
                                              properties=tuple(str(p) for p in i.properties))
                                      for k, i in target.intrinsics_by_ir_name.items()}
        self.sdnodes = {k: _Rec(name=n.name, opcode=n.opcode) for k, n in target.sdnodes.items()}
        lows = []
        for low in getattr(target, "lowerings", ()) or ():
            from patterns.dag.builder import _lowering_ir_name, _lowering_node, _lowering_opcode

            m = getattr(low, "operand_map", None)
            if m is None:
                m = getattr(low, "operands", None)
            lows.append(_Rec(intrinsic=_Rec(ir_name=_lowering_ir_name(target, low)),
                             node=_Rec(name=_lowering_node(low), opcode=_lowering_opcode(target, low)),
                             operand_map=m))
        self.lowerings = tuple(lows)
        self.instructions = {k: _Rec(ins=tuple(_Rec(kind=o.kind) for o in i.ins),
                                     outs=tuple(_Rec(kind=o.kind) for o in i.outs))
                             for k, i in target.instructions.items()}
        self.register_classes = tuple(
            _Rec(name=rc.name, file=rc.file, types=tuple(_Rec(name=getattr(t, "name", None), bits=getattr(t, "bits", 0))
                                                         for t in rc.types),
                 registers=rc.registers, subreg_indices=rc.subreg_indices, subregs=rc.subregs)
            for rc in target.register_classes)
        self.register_classes_by_name = {rc.name: rc for rc in self.register_classes}
        self.custom_selects = tuple(_Rec(name=cs.name, opcodes=cs.opcodes, emits=cs.emits, model=cs.model, vt=cs.vt,
                                         span=cs.span) for cs in getattr(target, "custom_selects", ()))

    def intrinsic_divergence(self, ir_name: str):
        return self._facts.intrinsic_divergence(ir_name)

    def full_target(self):
        """The target this view was made of (loaded on first use)."""
        full = self.__dict__.get("_full")
        if full is None:
            from tdgen.target_cache import load_target

            full = self.__dict__["_full"] = load_target(self._source)
        return full

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("_full", "_source", "_facts"):
            raise AttributeError(name)
        return getattr(self.full_target(), name)

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_full"}

    def __setstate__(self, state):
        self.__dict__.update(state)


class IselBundle:
    """What ``tdgen isel``/``explain`` load from the target cache in one entry: the
    target's ``IselView``, its matcher table, each pattern's result plan (by table
    index) and the compiled code of every root opcode's selector (``_compile_selector``,
    marshalled, by a digest of its generated source: ``patterns.select.matcher.compile_source``
    uses an entry only for exactly the source it was compiled from)."""

    def __init__(self, target, source=None):
        import marshal

        from patterns.select.matcher import build_table, recorded_sources

        view = IselView(target, source)
        table = build_table(target)
        sel = _FnSelector(view, None, None)  # (only compiles plans)
        plans = tuple(sel._plan(p) for p in table.patterns)
        with recorded_sources() as made:
            for opc in sorted(table.by_opcode):
                _compile_selector(table, opc, sel._plan)
        self.view = view
        self.table = table
        self.plans = plans
        self.code = {digest: marshal.dumps(code) for digest, code in made}

    def install(self):
        """Make this process use the bundle: ``build_table(view)`` returns its table, the
        selectors find their plans and code. Returns the view."""
        from patterns.select.matcher import adopt_table, store_code

        view, table = self.view, self.table
        adopt_table(view, table)
        plans, _sel = table.emit_cache(view)
        for p, plan in zip(table.patterns, self.plans):
            plans[id(p)] = plan
        store_code(self.code)
        return view

"""Instruction selection driver: DAG nodes -> machine instructions with register classes.

Per function: run the uniformity analysis, build each block's SelectionDAG
(``patterns.pipeline.build_function_dags``, which also applies ``patterns.dag.combine``), then
select each block in LLVM's order (``patterns.select.machine.FnSelector``: SelectionDAGISel
walks the node list from the end, users before operands): each live node is matched
against the table (``patterns.select.matcher``) rows for its opcode; the first pattern
that passes all checks emits its result DAG. Nodes a pattern covered lose their user; a
covered node that still has other users is selected on its own later, a node left
without users is dead and skipped. Each root opcode gets one compiled selector
(``patterns.select.selgen.compile_selector``): the table's matcher for that opcode with,
where a pattern matches, the code that emits its result DAG written in
(``FnSelector.emit`` interprets the same result plans; the tests compare the two).

``IselView`` is what selection reads from a target, as plain records, and ``IselBundle``
that view with the matcher table, result plans and compiled selectors: what ``tdgen
isel``/``explain`` load from the on-disk target cache in one entry (no spec model
imported, no code compiled).

Before the table, a node whose opcode a ``CustomSelect`` of the target names goes to
that step's model (``patterns.select.custom``): it either replaces the node with one
machine instruction or declines, and the table is tried.

An SDNodeXForm in a result DAG (``(NegateImm $c)``, or an ImmLeaf's ``xform`` the matcher
table wrote in, ``patterns.select.patsrc.promote_xforms``) turns the bound constant into the
immediate it computes (``patterns.select.xform.apply_xform``).

A result DAG may use Target.td's instructions: they become what LLVM's InstrEmitter
makes of them (``REG_SEQUENCE`` and ``IMPLICIT_DEF`` stay, ``EXTRACT_SUBREG`` and
``COPY_TO_REGCLASS`` become ``COPY``), and an operand whose register class does not fit
the instruction operand's class gets a ``COPY`` into that class in between.

No generic fallback: a node is selected by a pattern, a ``CustomSelect`` step or the
target's own Select step (``TargetHooks.select``: terminators, memory, constants ... as
the target's C++ would), or it is a "cannot select" ``VerifyError`` naming the node, its
operand types, its divergence, the IR value and line, and the patterns that came
closest (``patterns.select.explain``). Only the instructions LLVM itself makes without
a target pattern remain: ``COPY`` (CopyToReg, FREEZE, a preloaded register's read),
``IMPLICIT_DEF`` (UNDEF), ``PHI``, and what InstrEmitter makes of Target.td's
instructions. After the blocks are selected, a phi's constant incoming value is
materialized in its predecessor (``_phi_constants``) and the target's machine passes run
(``TargetHooks.machine_passes``: argument lowering, SIFixSGPRCopies-like fixes).
"""

from __future__ import annotations

from tdgen.errors import Diagnostics

from patterns.dag.legaltable import legal_table
from patterns.dag.calls import lowering_ir_name, lowering_node, lowering_opcode
from patterns.dag.isd import vt_of
from patterns.select import selgen
from patterns.select.custom import SlotFields
from patterns.select.machine import SELECTOR_NAMES, FnSelector
from patterns.select.matcher import MatcherTable, adopt_table, build_table
from patterns.select.mir import MachineInstr

__all__ = ["SelectedBlock", "SelectedFunction", "select_dags", "IselView", "IselBundle"]


class SelectedBlock(SlotFields):
    __slots__ = ("name", "instrs")
    _FIELDS = __slots__

    def __init__(self, name: str, instrs: list[MachineInstr] | None = None):
        self.name = name
        self.instrs = [] if instrs is None else instrs


class SelectedFunction(SlotFields):
    """One function's machine code: its blocks, and (for the MIR writer) its live-in
    physical registers (``liveins``: register -> class) and the notes the target's
    machine passes left (``notes``: what SIFixSGPRCopies-like passes changed, for
    ``tdgen explain``)."""

    __slots__ = ("name", "blocks", "liveins", "notes")
    _FIELDS = ("name", "blocks")

    def __init__(self, name: str, blocks: list[SelectedBlock], liveins: dict | None = None,
                 notes: list | None = None):
        self.name = name
        self.blocks = blocks
        self.liveins = {} if liveins is None else liveins
        self.notes = [] if notes is None else notes

    def instrs(self):
        for b in self.blocks:
            yield from b.instrs


def select_dags(fdags, target, table: MatcherTable, diags: Diagnostics, stop_after: str | None = None) -> SelectedFunction:
    """The machine code of one function from its combined DAGs (``patterns.pipeline``
    builds them): each block's DAG selected (``FnSelector.select_dag``, cannot-select
    errors added to ``diags``), its phis as ``PHI`` instructions in front, then the
    target's machine passes (``TargetHooks.machine_passes``; ``stop_after``: the llc
    pass to stop after, which such a pass may read, ``FnSelector.stop_after``)."""
    sel = FnSelector(target, table, fdags)
    sel.stop_after = stop_after
    blocks = []
    for bi, dag in enumerate(fdags.dags):
        instrs = sel.select_dag(dag, diags)
        phis = []
        for phi, reg, div, inc in (fdags.phis[bi] if fdags.phis else ()):
            if phi in sel.dead_phis:
                continue
            rc, file = sel.class_of(vt_of(phi.type), div)
            ops = [x for text, b in inc for x in (text, f"%bb.{b}")]
            phis.append(MachineInstr("PHI", f"%{reg}", rc, file, ops, f"%{phi.name}", "phi"))
        blocks.append(SelectedBlock(dag.block.name, phis + instrs))
    if fdags.phis:
        _phi_constants(sel, fdags, blocks, diags)
    sf = SelectedFunction(fdags.function.name, blocks, sel.liveins)
    if sel.hooks is not None:
        for mpass in sel.hooks.machine_passes:
            mpass(sf, sel, diags)
    return sf


def _phi_constants(sel, fdags, blocks, diags) -> None:
    """A phi's constant incoming value is a register defined in the predecessor, as
    llc's SelectionDAGBuilder makes it (a CopyToReg of the constant at the end of the
    predecessor's DAG): the constant is selected there by the target's own steps (a
    divergent phi's constant as a divergent node: the target may pick a vector move, as
    AMDGPU's VGPRImm does), placed before the predecessor's terminators; undef/poison
    becomes IMPLICIT_DEF."""
    from patterns.dag.nodes import SDNode

    made: dict = {}
    for bi, row in enumerate(fdags.phis):
        if not row:
            continue
        phis = [mi for mi in blocks[bi].instrs if mi.opcode == "PHI"]
        for mi, (phi, _reg, div, _inc) in zip(phis, [r for r in row if r[0] not in sel.dead_phis]):
            ops = list(mi.operands)
            for k in range(0, len(ops) - 1, 2):
                text = ops[k]
                if text.startswith("%"):
                    continue
                pred = int(ops[k + 1][4:])
                if not 0 <= pred < len(blocks):
                    continue
                vt = vt_of(phi.type)
                key = (pred, text, vt, div)
                reg = made.get(key)
                if reg is None and not div:
                    reg = _same_constant(blocks[pred].instrs, text, vt)
                if reg is None:
                    if text in ("undef", "poison"):
                        n = SDNode(-1, "ISD::UNDEF", vt)
                    else:
                        value = {"true": -1 if vt == "i1" else 1, "false": 0, "null": 0,
                                 "zeroinitializer": 0}.get(text)
                        if value is None:
                            try:
                                value = int(text, 0)
                            except ValueError:
                                continue
                        n = SDNode(-1, "ISD::Constant", vt, (), value)
                    n.divergent = div
                    n.uses = 1
                    n.block = fdags.dags[pred].block
                    n.ir = phi  # (errors about the constant point at the phi)
                    out: list = []
                    sel.select_detached(n, out, diags, fdags.dags[pred].block)
                    reg = made[key] = sel.vreg(n)
                    instrs = blocks[pred].instrs
                    at = len(instrs)
                    while at > 0 and sel.is_terminator(instrs[at - 1].opcode):
                        at -= 1
                    instrs[at:at] = out
                ops[k] = reg
            mi.operands = ops


def _same_constant(instrs, text: str, vt: str) -> str | None:
    """The register of a scalar move of the same constant in the predecessor (its DAG's
    one node for the value: llc's CopyToReg for the phi reads it), else None."""
    if vt not in ("i32", "i16") or not (text.lstrip("-").isdigit()):
        return None
    for mi in instrs:
        if mi.opcode == "S_MOV_B32" and mi.operands == [str(int(text, 0))] and mi.dst:
            return mi.dst
    return None


# ---------------------------------------------------------------------------------------
# The target as selection sees it, for the on-disk cache


class _Rec:
    """A plain record of the few fields selection reads from one spec record."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        return "_Rec(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"


def _field(inst, name: str, default):
    f = getattr(inst, "field", None)
    return f(name, default) if f is not None else default


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
        from patterns.uniformity.rules import DivergenceFacts

        self.name = target.name
        self.spec_path = getattr(target, "spec_path", "")
        # (what tdgen.hooks.target_hooks reads: the IR pipeline asks for the target's hooks)
        self.hooks = getattr(target, "hooks", "")
        self.spec_folder = getattr(target, "spec_folder", "")
        self.span = getattr(target, "span", None)
        self.uniformity = target.uniformity
        self._facts = DivergenceFacts.of(target)
        # (what the IR reader checks calls of the target's intrinsics against: patterns.ir.intrinsic_immargs)
        self.intrinsic_immargs = self._facts.intrinsic_immargs
        self._source = source  # how to load the target again (a spec folder), after unpickling
        self._full = target
        self.intrinsics_by_ir_name = {k: _Rec(ir_name=i.ir_name, divergence=i.divergence,
                                              properties=tuple(str(p) for p in i.properties))
                                      for k, i in target.intrinsics_by_ir_name.items()}
        self.sdnodes = {k: _Rec(name=n.name, opcode=n.opcode) for k, n in target.sdnodes.items()}
        lows = []
        for low in getattr(target, "lowerings", ()) or ():
            m = getattr(low, "operand_map", None)
            if m is None:
                m = getattr(low, "operands", None)
            lows.append(_Rec(intrinsic=_Rec(ir_name=lowering_ir_name(target, low)),
                             node=_Rec(name=lowering_node(low), opcode=lowering_opcode(target, low)),
                             operand_map=m))
        self.lowerings = tuple(lows)
        self.instructions = {k: _Rec(ins=tuple(_Rec(kind=o.kind) for o in i.ins),
                                     outs=tuple(_Rec(kind=o.kind) for o in i.outs),
                                     implicit_defs=tuple(getattr(i, "implicit_defs", ()) or ()),
                                     implicit_uses=tuple(getattr(i, "implicit_uses", ()) or ()),
                                     early_clobber="@earlyclobber" in str(_field(i, "Constraints", "") or ""),
                                     barrier=bool(_field(i, "isBarrier", 0) or _field(i, "isReturn", 0)),
                                     terminator=bool(_field(i, "isTerminator", 0)))
                             for k, i in target.instructions.items()}
        self.register_classes = tuple(
            _Rec(name=rc.name, file=rc.file, types=tuple(_Rec(name=getattr(t, "name", None), bits=getattr(t, "bits", 0))
                                                         for t in rc.types),
                 registers=rc.registers, subreg_indices=rc.subreg_indices, subregs=rc.subregs)
            for rc in target.register_classes)
        self.register_classes_by_name = {rc.name: rc for rc in self.register_classes}
        # (the DAG stage's lowering table and data layout, as plain data: patterns.dag.legaltable)
        self.legality = legal_table(getattr(target, "legality", None))
        self.data_layout = getattr(target, "data_layout", "")
        self.custom_selects = tuple(_Rec(name=cs.name, opcodes=cs.opcodes, emits=cs.emits, model=cs.model, vt=cs.vt,
                                         span=cs.span) for cs in getattr(target, "custom_selects", ()))
        # (the DAG builder applies the target's rewrites of foreign intrinsics: patterns.dag.calls)
        self.rewrites = tuple(_Rec(foreign=rw.foreign, target=_Rec(ir_name=rw.target.ir_name), operands=rw.operands)
                              for rw in getattr(target, "rewrites", ()))

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
    index) and the compiled code of every root opcode's selector (``selgen.compile_selector``,
    marshalled, by a digest of its generated source: ``patterns.select.codecache.compile_source``
    uses an entry only for exactly the source it was compiled from)."""

    def __init__(self, target, source=None):
        import marshal

        from patterns.select.codecache import recorded_sources

        view = IselView(target, source)
        table = build_table(target)
        sel = FnSelector(view, None, None)  # (only compiles plans)
        plans = tuple(sel.plan(p) for p in table.patterns)
        with recorded_sources() as made:
            for opc in sorted(table.by_opcode):
                selgen.compile_selector(table, opc, sel.plan, SELECTOR_NAMES)
        self.view = view
        self.table = table
        self.plans = plans
        self.code = {digest: marshal.dumps(code) for digest, code in made}

    def install(self):
        """Make this process use the bundle: ``build_table(view)`` returns its table, the
        selectors find their plans and code. Returns the view."""
        from patterns.select.codecache import store_code

        view, table = self.view, self.table
        adopt_table(view, table)
        plans, _sel = table.emit_cache(view)
        for p, plan in zip(table.patterns, self.plans):
            plans[id(p)] = plan
        store_code(self.code)
        return view

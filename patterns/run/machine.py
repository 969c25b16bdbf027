"""The machine interpreter: selected machine code run on the wave model, and the ``selected`` engine.

A ``Program`` is one machine function ready to run: its blocks (PHIs apart), how each
block ends and where its lanes go, the registers its arguments arrive in. Two sources:

- ``program_from_selection``: tdgen's own selection (``patterns.select.isel.select_dags``,
  the in-memory ``MachineInstr`` s). A target whose select hooks end the blocks with
  machine branches (amdgpu: S_BRANCH, S_CBRANCH_*, SI_IF / SI_END_CF / SI_IF_BREAK /
  SI_LOOP, S_ENDPGM) runs like llc's MIR: ``run_wave_mir``, one program counter, blocks
  in layout order, branches and exec-mask writes by their semantics. A selection that
  ends its blocks with the generic ``BR``/``BRCOND``/``RET`` (standing for the IR
  terminators; ``BRCOND``'s operand is the condition's register) runs with
  ``run_wave_cfg`` below (``runner_of``); a mix of the two is not modeled;
- ``patterns.run.mir_reader`` (llc's MIR), which runs with ``run_wave_mir``.

The instructions a target's select hooks emit that are not records with semantics (the
moves, compares, kernel-argument loads, global accesses, branches, SI_* pseudos) take
theirs from the target's ``mir_semantics.py`` ``MIR_INSTRUCTIONS`` -- the table the
``llc`` engine reads (``selection_semantics``). ``implicit $reg`` operands are kept apart
(``MInstr.extra["implicit"]``), as the MIR reader keeps them. The selection's physical
live-in registers get their entry values from the target's ``ENTRY_REGISTERS`` (the
kernarg segment pointer, the work-item ids; ``entry_register``).

An illegal state (``patterns.run.machine_state.IllegalState``) ends the run as the
result's ``undefined`` of kind ``illegal-state`` (the reference never has one, so the
engines disagree); an instruction without a meaning is ``NotModeled``.

``run_wave_cfg`` follows the IR's CFG with a reconvergence rule: every lane has the block
it waits at; the wave runs the waiting block first in reverse post-order, with the lanes
waiting there as the exec mask. For a reducible CFG this is the Southern-Islands exec-mask
scheme: at a divergent branch the exec mask is saved and ANDed with the condition for the
side that runs first, the other side runs with the saved mask minus those lanes, both
reconverge at the branch's immediate post-dominator where the saved mask is restored; a
loop runs its body with the lanes still in it, accumulating the lanes that left (the break
mask) until none is left. The trace (``Trace``) prints that sequence: each change of the
exec mask, why (divergent branch, other side, reconvergence, loop), and the mask.

The ``selected`` engine (``run_selected``, registered in ``patterns.run.engines``): select
the module with the target's patterns, build the launch's memory (``patterns.run.launch``),
give the entry registers their values (a selection without live-ins -- no argument
lowering -- has every argument preloaded into the scalar register it reads it from),
run every wave of every work-group
and return the stores (``patterns.run.result.Result``; stored types written ``i<bits>``, as
the machine knows only the width).
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from patterns.run.machine_generic import GENERIC_OPCODES
from patterns.run.machine_state import IllegalState, MInstr, NotModeledInstr, TargetSemantics, WaveRun

__all__ = ["Program", "MBlock", "program_from_selection", "run_wave_cfg", "run_selected", "Trace", "select_kernel",
           "run_program", "selection_semantics", "runner_of", "mir_facts", "entry_register", "run_wave_mir"]

MAX_BLOCK_STEPS = 200_000


@dataclass
class MBlock:
    """One block: ``label`` (``bb.N.name``), its PHIs, its other instructions, how it
    ends (``"br"``, ``"condbr"`` with the condition operand ``cond``, ``"ret"``) and its
    successors (block indices, the taken one first for ``condbr``)."""

    label: str
    phis: list[MInstr]
    body: list[MInstr]
    end: str
    succs: list[int]
    cond: str | None = None
    cases: list[tuple[int, int]] | None = None  # a switch's (value, block); succs[0] the default


@dataclass
class Program:
    name: str
    blocks: list[MBlock]
    block_of: dict[str, int]
    rpo: list[int]  # block index -> position in reverse post-order
    args: list[tuple[str | None, Any]] = field(default_factory=list)  # (register, IR argument)
    ir_function: Any = None
    liveins: dict = field(default_factory=dict)  # physical register -> register class (the entry's live-ins)


class Trace:
    """The exec-mask sequence of one wave (lines, as the SI scheme would write it)."""

    def __init__(self, wave: int, enabled: bool = True):
        self.wave = wave
        self.enabled = enabled
        self.lines: list[str] = []

    def mask(self, bits: np.ndarray) -> str:
        word = 0
        for k in np.flatnonzero(bits):
            word |= 1 << int(k)
        return f"0x{word:0{self.wave // 4}x}"

    def add(self, text: str) -> None:
        if self.enabled:
            self.lines.append(text)


def _file_of(target_sems: TargetSemantics, rc: str | None) -> str | None:
    return target_sems.rc_file(rc)


def program_from_selection(sf: Any, fdags: Any, sems: TargetSemantics) -> Program:
    """The ``Program`` of a function selected by tdgen (module docstring)."""
    from patterns.ir.cfg import rpo_index

    fn = fdags.function
    index = {id(b): i for i, b in enumerate(fn.blocks)}
    rpo_of = rpo_index(fn)
    blocks: list[MBlock] = []
    for i, (sb, blk, dag) in enumerate(zip(sf.blocks, fn.blocks, fdags.dags)):
        nodes = {n.id: n for n in dag.nodes}
        label = f"bb.{i}" + (f".{blk.name}" if blk.name and not str(blk.name).isdigit() else "")
        phis, body = [], []
        cond = None
        for k, mi in enumerate(sb.instrs):
            defs = []
            if mi.dst:
                defs.append((mi.dst, mi.regclass, mi.file))
            for d, rc in mi.more_defs or ():
                defs.append((d, rc, _file_of(sems, rc)))
            # (``implicit $reg`` operands, as llc prints them, are kept apart as the MIR reader does)
            ops = [o for o in mi.operands if not (type(o) is str and o.startswith("implicit"))]
            m = MInstr(mi.opcode, defs, ops, mi.ir, f"@{fn.name} {label} #{k}")
            if len(ops) != len(mi.operands):
                m.extra["implicit"] = [o.split()[-1] for o in mi.operands if type(o) is str and o.startswith("implicit")]
            node = nodes.get(mi._node) if type(mi._node) is int else None
            ir = getattr(node, "ir", None)
            if getattr(ir, "opcode", None) == "store" and ir.operands:
                m.extra["store_type"] = str(ir.operands[0].type)
            if mi.pattern is None and node is not None and mi.opcode in GENERIC_OPCODES:
                m.extra["node"] = node
            if mi.opcode == "PHI":
                phis.append(m)
            elif mi.opcode == "BRCOND" or (mi.opcode == "BR" and mi.operands):
                cond = mi.operands[0] if mi.operands else None
            elif mi.opcode in ("BR", "RET"):
                if mi.opcode == "RET" and mi.operands:
                    raise NotModeledInstr("a function returning a value (RET with operands)", m)
            else:
                body.append(m)
        term = blk.instructions[-1] if blk.instructions else None
        op = getattr(term, "opcode", None)
        succs = [index[id(s)] for s in blk.successors]
        if not any(mi.opcode in ("BR", "BRCOND", "RET") for mi in sb.instrs):
            # (the target's hooks ended the block with machine branches: the block runs in
            # layout order, its branches and exec-mask pseudos by their semantics)
            blocks.append(MBlock(label, phis, body, "layout", succs))
            continue
        if op == "ret":
            end = "ret"
        elif op == "br" and len(succs) == 2:
            end = "condbr"
            if cond is None:
                raise NotModeledInstr(f"{label}: a conditional branch without its BRCOND")
        elif op == "br":
            end = "br"
        elif op == "switch":
            end = "switch"
            if cond is None:
                raise NotModeledInstr(f"{label}: a switch without its condition register")
        else:
            raise NotModeledInstr(f"{label}: the terminator '{op}'")
        mb = MBlock(label, phis, body, end, succs, cond)
        if end == "switch":
            mb.succs = [index[id(term.targets[0])]]
            mb.cases = [(int(v.value), index[id(t)]) for v, t in term.cases]
            bits = getattr(term.operands[0].type, "bits", 64)
            mb.cases = [(v & ((1 << bits) - 1), t) for v, t in mb.cases]
        blocks.append(mb)
    block_of = {f"%bb.{i}": i for i in range(len(blocks))}
    rpo = [rpo_of.get(id(b), len(blocks) + i) for i, b in enumerate(fn.blocks)]
    args = [(("%" + fdags.vregs[a]) if a in fdags.vregs else None, a) for a in fn.args]
    prog = Program(fn.name, blocks, block_of, rpo, args, fn)
    prog.liveins = dict(getattr(sf, "liveins", None) or {})
    return prog


def run_wave_cfg(prog: Program, wr: WaveRun, trace: Trace) -> None:
    """Run ``prog`` on the wave ``wr`` following its CFG (module docstring)."""
    at = np.where(wr.valid, 0, -1).astype(np.int64)
    rpo = np.array(prog.rpo + [1 << 30], dtype=np.int64)
    prev = None
    steps = 0
    announced: tuple | None = None  # (block, mask) the last divergent branch sent its first side to
    others: list[tuple[int, np.ndarray, str]] = []  # the other sides: (block, mask, what)
    trace.add(f"{prog.blocks[0].label}: exec = {trace.mask(wr.valid)} (launch)")
    while True:
        live = at >= 0
        if not live.any():
            break
        steps += 1
        if steps > MAX_BLOCK_STEPS:
            raise NotModeledInstr(f"a run of more than {MAX_BLOCK_STEPS} blocks (a loop that does not end?)")
        b = int(at[live][np.argmin(rpo[at[live]])])
        ex = at == b
        blk = prog.blocks[b]
        if prev is not None and not np.array_equal(ex, prev[0]):
            side = next((k for k, (ob, om, _w) in enumerate(others) if ob == b and np.array_equal(om, ex)), None)
            if announced is not None and announced[0] == b and np.array_equal(announced[1], ex):
                pass
            elif side is not None:
                trace.add(f"{blk.label}: exec = {others[side][2]} = {trace.mask(ex)} (the other side)")
                del others[side]
            elif (ex & ~prev[0]).any() and not (prev[0] & ~ex).any():
                trace.add(f"{blk.label}: exec = {trace.mask(ex)} (reconverge: restore the saved exec)")
            elif prog.rpo[b] <= prog.rpo[prev[1]]:
                trace.add(f"{blk.label}: exec = {trace.mask(ex)} (loop: the lanes still in it; "
                          f"the others wait at the exit, break mask accumulated)")
            else:
                trace.add(f"{blk.label}: exec = {trace.mask(ex)} (the lanes waiting here)")
        announced = None
        wr.exec = ex
        if blk.phis:
            wr.run_phis(blk.phis, prog.block_of)
        for mi in blk.body:
            wr.execute(mi, b)
        wr.came_from = np.where(ex, b, wr.came_from)
        if blk.end == "ret":
            at = np.where(ex, -1, at)
        elif blk.end == "br":
            at = np.where(ex, blk.succs[0], at)
        elif blk.end == "switch":
            wr.cur = MInstr("BR", [], [blk.cond or ""], None, f"{blk.label} terminator")
            vals, _u, _f = wr.read(blk.cond or "")
            dest = np.full(wr.wave, blk.succs[0], dtype=np.int64)
            for v, t in reversed(blk.cases or []):
                dest = np.where(vals == np.uint64(v), t, dest)
            targets = sorted({int(x) for x in dest[ex]}, key=lambda t: prog.rpo[t])
            if len(targets) > 1:
                trace.add(f"{blk.label}: divergent switch on {blk.cond}: saved = exec = {trace.mask(ex)}; "
                          + ", ".join(f"{prog.blocks[t].label} {trace.mask(ex & (dest == t))}" for t in targets))
                announced = (targets[0], ex & (dest == targets[0]))
                others.extend((t, ex & (dest == t), "saved & case") for t in targets[1:])
            at = np.where(ex, dest, at)
        else:
            wr.cur = MInstr("BRCOND", [], [blk.cond or ""], None, f"{blk.label} terminator")
            vals, uni, file = wr.read(blk.cond or "")
            taken = (vals & np.uint64(1)) == 1
            t, f = blk.succs[0], blk.succs[1]
            to_t, to_f = ex & taken, ex & ~taken
            if to_t.any() and to_f.any():
                first = t if prog.rpo[t] <= prog.rpo[f] else f
                side, other = (to_t, to_f) if first == t else (to_f, to_t)
                c1, c2 = ("cond", "~cond") if first == t else ("~cond", "cond")
                trace.add(f"{blk.label}: divergent branch on {blk.cond}: saved = exec = {trace.mask(ex)}; "
                          f"exec = saved & {c1} = {trace.mask(side)} -> {prog.blocks[first].label}")
                announced = (first, side)
                others.append((f if first == t else t, other, f"saved & {c2}"))
            at = np.where(to_t, t, np.where(to_f, f, at))
        prev = (ex, b)


def _terminators_start(blk: MBlock, sems: TargetSemantics) -> int:
    """Index of the first of the block's trailing branch instructions (its terminators)."""
    k = len(blk.body)
    while k > 0:
        entry = sems.get(blk.body[k - 1].opcode)
        if entry is None or getattr(entry[0], "branch", None) is None:
            break
        k -= 1
    return k


def run_wave_mir(prog: Program, wr: WaveRun, trace: Trace) -> None:
    """Run ``prog`` (llc's MIR, or tdgen's selection ending its blocks with machine branches) on wave ``wr`` with one program counter (module docstring).
    PHIs are what PHI elimination makes of them: copies at the end of each predecessor,
    before its terminators, under the exec mask there (``WaveRun.phi_copies``); entering a
    block whose PHI has no incoming value for the block the wave came from is an
    illegal state."""
    b, prev, steps = 0, -1, 0
    terms = [_terminators_start(blk, wr.sems) for blk in prog.blocks]
    trace.add(f"{prog.blocks[0].label}: exec = {trace.mask(wr.exec)} (launch)")
    while 0 <= b < len(prog.blocks):
        steps += 1
        if steps > MAX_BLOCK_STEPS:
            raise NotModeledInstr(f"a run of more than {MAX_BLOCK_STEPS} blocks (a loop that does not end?)")
        blk = prog.blocks[b]
        if blk.phis:
            wr.check_phis(blk.phis, prog.block_of, prev)
        nxt = b + 1
        for k, mi in enumerate(blk.body + [None]):
            if k == terms[b]:
                copies = [c for s in sorted(set(blk.succs) | {b + 1}) if 0 <= s < len(prog.blocks)
                          for c in wr.phi_copies(prog.blocks[s].phis, prog.block_of, b)]
                wr.commit_phis(copies)
            if mi is None:
                break
            before = wr.exec
            wr.branch = None
            wr.execute(mi, b)
            if not np.array_equal(before, wr.exec):
                trace.add(f"{blk.label}: {mi.opcode}: exec = {trace.mask(wr.exec)} (was {trace.mask(before)})")
            if wr.branch is not None:
                kind, to = wr.branch
                if kind == "end":
                    return
                if to not in prog.block_of:
                    raise NotModeledInstr(f"a branch to {to}", mi)
                nxt = prog.block_of[to]
                break
        prev, b = b, nxt


def entry_register(wr: WaveRun, reg: str, what: str, offset: int = 0) -> None:
    """Give physical register ``reg`` its value at the kernel's entry: ``what`` one of
    ``kernarg``/``dispatch``/``implicit`` (that segment's address plus ``offset``),
    ``workitem_id_x``, ``workgroup_id_x``, ``zero``."""
    W = wr.wave
    if what in ("kernarg", "dispatch", "implicit"):
        v = (getattr(wr.segments, what) + offset) & 0xFFFFFFFFFFFFFFFF
        wr.physical[reg] = (np.full(W, np.uint64(v), dtype=np.uint64), True, "scalar")
    elif what == "workitem_id_x":
        wr.physical[reg] = (wr.local.astype(np.uint64), False, "vector")
    elif what == "workgroup_id_x":
        wr.physical[reg] = (np.full(W, np.uint64(wr.group), dtype=np.uint64), True, "scalar")
    elif what == "zero":
        file = "vector" if reg.startswith("$vgpr") else "scalar"
        wr.physical[reg] = (np.zeros(W, dtype=np.uint64), file == "scalar", file)
    else:
        raise NotModeledInstr(f"the entry value '{what}' of {reg}")


def _preload_args(prog: Program, wr: WaveRun, launch: Any, addresses: dict) -> None:
    """The entry state of tdgen's selection: the physical live-in registers as the
    target's ABI for its selection says (``ENTRY_REGISTERS`` of its ``mir_semantics.py``:
    register -> (what, offset), see ``entry_register``; a live-in it does not name is not
    modeled), and, for a selection that reads arguments from registers it did not load
    (no live-ins: no ABI lowering), each argument preloaded into the scalar register it is read from."""
    from patterns.run.launch import arg_bits

    if prog.liveins:
        facts = getattr(wr.sems, "facts", None)
        table = getattr(facts, "ENTRY_REGISTERS", None) or {}
        for reg in sorted(prog.liveins):
            got = table.get(reg)
            if got is None:
                raise NotModeledInstr(f"the entry value of live-in {reg} (no ENTRY_REGISTERS entry of the target)")
            entry_register(wr, reg, *got)
    for (reg, a), v in zip(prog.args, launch.args):
        if reg is None or prog.liveins:  # (with live-ins the selection loads its arguments itself)
            continue
        wr.set_uniform(reg[1:], arg_bits(a.type, v, addresses))


_FACTS: dict[str, Any] = {}


def mir_facts(target: Any):
    """The target's ``mir_semantics`` module (module docstring), or None."""
    folder = getattr(target, "spec_folder", "") or ""
    path = Path(folder) / "mir_semantics.py"
    key = str(path)
    if key in _FACTS:
        return _FACTS[key]
    mod = None
    if folder and path.is_file():
        spec = importlib.util.spec_from_file_location(f"_tdgen_mir_semantics_{hashlib.sha1(key.encode()).hexdigest()[:8]}",
                                                      path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)  # type: ignore[union-attr]
    _FACTS[key] = mod
    return mod


def selection_semantics(target: Any) -> TargetSemantics:
    """The semantics tdgen's selection of ``target`` runs with: the records' own, and for
    an instruction whose record states none (the moves, compares, memory accesses and
    control flow the target's select hooks emit), the entry of the same name in the
    target's ``mir_semantics.py`` ``MIR_INSTRUCTIONS`` -- the table the ``llc`` engine
    reads, so both engines run one definition of each instruction."""
    facts = mir_facts(target)
    sems = TargetSemantics(target.full_target() if hasattr(target, "full_target") else target,
                           getattr(facts, "MIR_INSTRUCTIONS", None))
    sems.facts = facts
    return sems


def select_kernel(module: Any, target: Any, kernel: str):
    """(program of ``kernel`` selected by tdgen, its FunctionDAGs, TargetSemantics); the
    module is copied first (llc's IR passes run on the selected copy in place)."""
    from patterns.pipeline import select_module

    # (a fresh copy: compiled IR classes cannot be deep-copied, so the module is read again)
    from patterns.ir import parse_module

    if not module.source:
        raise NotModeledInstr("selecting a module that was not read from IR text (no source to copy it from)")
    mod = parse_module(module.source, module.path)
    if mod.data_layout is None:
        mod.data_layout = module.data_layout
    for f in list(mod.functions):
        if not f.is_declaration and f.name != kernel:
            mod.functions.remove(f)
    keep: list = []
    sfs = select_module(mod, target, keep=keep)
    sems = selection_semantics(target)
    for sf, fd in zip(sfs, keep):
        if sf.name == kernel:
            return program_from_selection(sf, fd, sems), fd, sems
    raise NotModeledInstr(f"kernel @{kernel} (no such defined function)")


def run_program(prog: Program, sems: TargetSemantics, launch: Any, fn: Any, module: Any, *, engine: str,
                runner=run_wave_cfg, setup=_preload_args, keep_values: bool = False, trace: bool = True,
                generic_ir: bool = False):
    """Run ``prog`` on every wave of ``launch``: (Result, [WaveRun], [trace lines])."""
    from patterns.run.launch import build_memory
    from patterns.run.result import Result, Store, canonical
    from patterns.run.ub import Undefined

    mem, seg = build_memory(launch, fn, module)
    W = launch.wave
    waves, lines = [], []
    undefined = None
    try:
        for g in range(launch.groups):
            for w0 in range(0, launch.group_size, W):
                local = np.arange(w0, w0 + W, dtype=np.int64)
                valid = local < launch.group_size
                wr = WaveRun(sems, W, local, valid, mem, g)
                wr.keep_values = keep_values
                wr.generic_ir = generic_ir
                wr.segments = seg
                tr = Trace(W, trace)
                setup(prog, wr, launch, seg.buffers)
                runner(prog, wr, tr)
                waves.append(wr)
                lines.extend(f"wg {g} wave {w0 // W}: {x}" for x in tr.lines)
                if wr.generic_count:
                    lines.append(f"wg {g} wave {w0 // W}: {wr.generic_count} generic instructions run by their "
                                 "IR meaning")
    except Undefined as e:
        undefined = e
    except IllegalState as e:
        lane = e.lane if e.lane is not None else 0
        undefined = Undefined("illegal-state", e.message, item=(g, int(wr.local[lane])), lane=lane,
                              inst=e.instr.text() if e.instr is not None else None)
        lines.extend(f"wg {g} wave {w0 // W}: {x}" for x in tr.lines)
    except NotModeledInstr as e:
        from patterns.run.ub import NotModeled

        at = f" ({e.instr.where}: {e.instr.text()})" if e.instr is not None else ""
        raise NotModeled(None, f"{e.what}{at}") from None
    stores = [Store(space, buf, off, group, local, typ, val, origin)
              for group, local, space, buf, off, typ, val, origin in mem.store_records(mem.allocation_name)]
    return Result(engine, launch.kernel, canonical(stores), undefined, tuple(lines)), waves, lines


def runner_of(prog: Program):
    """How ``prog`` runs: ``run_wave_mir`` when every block ends with machine branches (the
    target's hooks emitted them), ``run_wave_cfg`` when every block ends with the generic
    BR/BRCOND/RET; a mix is not modeled."""
    from patterns.run.ub import NotModeled

    ends = {b.end == "layout" for b in prog.blocks}
    if len(ends) > 1:
        raise NotModeled(None, f"@{prog.name}: blocks ending with machine branches next to blocks ending with "
                               "the generic BR/BRCOND/RET")
    return run_wave_mir if ends == {True} else run_wave_cfg


def run_selected(module: Any, launch: Any, target: Any, *, generic: str | None = None, engine: str = "selected"):
    """The ``selected`` engine: tdgen's selection of ``launch.kernel`` run on the wave model.
    ``generic="ir"``: run the generic instructions by their IR meaning
    (``patterns.run.machine_generic``); by default they are ``NotModeled``."""
    from patterns.run.ub import NotModeled

    try:
        prog, fdags, sems = select_kernel(module, target, launch.kernel)
    except NotModeledInstr as e:
        at = f" ({e.instr.where}: {e.instr.text()})" if e.instr is not None else ""
        raise NotModeled(None, f"{e.what}{at}") from None
    fn = next(f for f in module.functions if f.name == launch.kernel)
    runner = runner_of(prog)
    res, _w, _l = run_program(prog, sems, launch, fn, module, engine=engine, runner=runner,
                              generic_ir=generic == "ir")
    return res


__all__ += ["IllegalState", "NotModeledInstr"]


def run_selected_ir(module: Any, launch: Any, target: Any):
    """The ``selected-ir`` engine: ``run_selected`` with ``generic="ir"`` (opt-in: check-run
    compares with it only when named, ``--engines selected-ir``)."""
    return run_selected(module, launch, target, generic="ir", engine="selected-ir")


run_selected_ir.applies = lambda target: False  # type: ignore[attr-defined]


def _localize(generic: str | None):
    def localize(module: Any, launch: Any, target: Any, group: int, item: int):
        """The IR value and machine instruction where work-item ``item`` first disagrees
        with the reference (``patterns.run.machine_check.first_disagreement``)."""
        import importlib

        check = importlib.import_module("patterns.run.machine_check")
        return check.first_disagreement(module, launch, target, group, item, generic=generic)
    return localize


# (for a counterexample: check-run may ask an engine where the lanes first disagree)
run_selected.localize = _localize(None)  # type: ignore[attr-defined]
run_selected_ir.localize = _localize("ir")  # type: ignore[attr-defined]


def _register() -> None:
    import importlib

    from patterns.run.engines import register

    register("selected", run_selected)
    register("selected-ir", run_selected_ir)
    importlib.import_module("patterns.run.mir_run")  # registers "llc" (it builds on this module)


_register()

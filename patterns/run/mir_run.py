"""llc-19 as an oracle: its MIR run on the machine interpreter, and the ``llc`` engine.

A target opts in with a module ``mir_semantics.py`` in its spec folder defining
``LLC_ARGS`` (llc's command line after the input), ``WAVES`` (the wave sizes that
command compiles for), ``ARGUMENT_REGISTERS`` (what each ``machineFunctionInfo.
argumentInfo`` register holds at entry: ``kernarg``, ``dispatch``, ``implicit`` -- the
launch's segment addresses --, ``workitem_id_x``, ``workgroup_id_x``, ``zero``) and
``MIR_INSTRUCTIONS`` (semantics of the instructions llc emits that are not the
target's records; see ``patterns.run.machine_state.TargetSemantics``).

``run_wave_mir`` runs one wave the way the hardware does: one program counter for the
wave, blocks in layout order, a block falling through to the next unless a branch
(``Branch`` effects of the semantics: ``S_BRANCH``, ``S_CBRANCH_*``, the SI_* pseudos) is
taken, the exec mask changed only by the instructions that write it (``SI_IF`` /
``SI_ELSE`` / ``SI_END_CF`` / ``SI_LOOP``). PHIs take the incoming value of the block the
wave came from. The trace prints every exec-mask change with the instruction that made
it. ``run_llc`` is the engine: llc-19 on the module's file (output cached per file and
command), ``patterns.run.mir_reader`` on its output, the kernel run on every wave.
"""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

from patterns.run.machine import MAX_BLOCK_STEPS, MBlock, Program, Trace, run_program
from patterns.run.machine_state import MInstr, NotModeledInstr, TargetSemantics, WaveRun
from patterns.run.mir_reader import MIRFunction, read_mir

__all__ = ["mir_facts", "program_from_mir", "run_wave_mir", "run_llc", "llc_mir"]

_FACTS: dict[str, Any] = {}
_MIR_CACHE: dict[tuple, str] = {}


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


def program_from_mir(mf: MIRFunction) -> Program:
    blocks = []
    for b in mf.blocks:
        phis = [mi for mi in b.instrs if mi.opcode == "PHI"]
        body = [mi for mi in b.instrs if mi.opcode != "PHI"]
        blocks.append(MBlock(b.label, phis, body, "layout", b.succs))
    block_of = {f"%bb.{i}": i for i in range(len(blocks))}
    return Program(mf.name, blocks, block_of, list(range(len(blocks))))


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
    """Run ``prog`` (llc's MIR) on wave ``wr`` with one program counter (module docstring).
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


def llc_mir(path: str, args: tuple[str, ...]) -> str:
    """llc's MIR of the IR file ``path`` (cached per file contents and command)."""
    from tdgen.errors import Span, UsageError, expected

    p = Path(path)
    if not p.is_file():
        raise UsageError(Span(path), expected("the kernel's IR file (llc reads it)", f"no file '{path}'"))
    data = p.read_bytes()
    key = (hashlib.sha256(data).hexdigest(), args)
    got = _MIR_CACHE.get(key)
    if got is None:
        import shutil

        llc = shutil.which("llc-19") or "/usr/lib/llvm-19/bin/llc"
        try:
            r = subprocess.run([llc, *args, "-o", "-", str(p)], capture_output=True, text=True, timeout=120)
        except OSError as e:
            raise UsageError(Span(path), expected("llc-19 installed", str(e))) from None
        if r.returncode != 0:
            raise UsageError(Span(path), expected("IR llc-19 compiles", r.stderr.strip().splitlines()[-1:] or "an error"))
        got = _MIR_CACHE[key] = r.stdout
    return got


def _entry_values(facts, mf: MIRFunction):
    def setup(prog: Program, wr: WaveRun, launch: Any, addresses: dict) -> None:
        seg = wr.segments
        W = wr.wave
        for name, reg in mf.argument_info.items():
            what = facts.ARGUMENT_REGISTERS.get(name)
            if what is None:
                continue
            if what in ("kernarg", "dispatch", "implicit"):
                v = getattr(seg, what)
                wr.physical[reg] = (np.full(W, np.uint64(v), dtype=np.uint64), True, "scalar")
            elif what == "workitem_id_x":
                wr.physical[reg] = (wr.local.astype(np.uint64), False, "vector")
            elif what == "workgroup_id_x":
                wr.physical[reg] = (np.full(W, np.uint64(wr.group), dtype=np.uint64), True, "scalar")
            else:
                file = "vector" if reg.startswith("$vgpr") else "scalar"
                wr.physical[reg] = (np.zeros(W, dtype=np.uint64), file == "scalar", file)
    return setup


def _store_types(module: Any, fn: Any, prog: Program) -> None:
    """The IR type each store of llc's MIR writes (its memory operand's ``%ir.<pointer>``)."""
    by_ptr = {}
    for blk in fn.blocks:
        for i in blk.instructions:
            if i.opcode == "store" and len(i.operands) > 1 and getattr(i.operands[1], "name", None):
                by_ptr[str(i.operands[1].name)] = str(i.operands[0].type)
    for blk in prog.blocks:
        for mi in blk.body:
            ptr = mi.extra.get("ir_pointer")
            if ptr in by_ptr:
                mi.extra["store_type"] = by_ptr[ptr]


def run_llc(module: Any, launch: Any, target: Any):
    """The ``llc`` engine: llc-19's selection of ``launch.kernel`` run on the wave model."""
    from patterns.run.ub import NotModeled

    facts = mir_facts(target)
    if facts is None:
        raise NotModeled(None, f"llc's MIR for target {getattr(target, 'name', target)} (no mir_semantics.py)")
    if launch.wave not in facts.WAVES:
        raise NotModeled(None, f"llc's code for wave{launch.wave} (it compiles for wave {facts.WAVES})")
    path = getattr(module, "path", "")
    text = llc_mir(path, tuple(facts.LLC_ARGS))
    mfs = read_mir(text, f"{path}.mir")
    mf = next((f for f in mfs if f.name == launch.kernel), None)
    if mf is None:
        raise NotModeled(None, f"llc's MIR without the kernel @{launch.kernel}")
    full = target.full_target() if hasattr(target, "full_target") else target
    sems = TargetSemantics(full, facts.MIR_INSTRUCTIONS)
    prog = program_from_mir(mf)
    fn = module.function(launch.kernel)
    _store_types(module, fn, prog)
    res, _w, _l = run_program(prog, sems, launch, fn, module, engine="llc", runner=run_wave_mir,
                              setup=_entry_values(facts, mf))
    return res


def _applies(target: Any) -> bool:
    return mir_facts(target) is not None


run_llc.applies = _applies  # type: ignore[attr-defined]


def _register() -> None:
    from patterns.run.engines import register

    register("llc", run_llc)


_register()

__all__ += ["MInstr"]

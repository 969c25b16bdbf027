"""llc-19 as an oracle: its MIR run on the machine interpreter, and the ``llc`` engine.

A target opts in with a module ``mir_semantics.py`` in its spec folder defining
``LLC_ARGS`` (llc's command line after the input), ``WAVES`` (the wave sizes that
command compiles for), ``ARGUMENT_REGISTERS`` (what each ``machineFunctionInfo.
argumentInfo`` register holds at entry: ``kernarg``, ``dispatch``, ``implicit`` -- the
launch's segment addresses --, ``workitem_id_x``, ``workgroup_id_x``, ``zero``) and
``MIR_INSTRUCTIONS`` (semantics of the instructions llc emits that are not the
target's records; see ``patterns.run.machine_state.TargetSemantics``).

``run_wave_mir`` (``patterns.run.machine``, shared with tdgen's selection when that ends
its blocks with machine branches) runs one wave the way the hardware does: one program counter for the
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
import subprocess
from pathlib import Path
from typing import Any

from patterns.run.machine import MBlock, Program, entry_register, mir_facts, run_program, run_wave_mir
from patterns.run.machine_state import MInstr, TargetSemantics, WaveRun
from patterns.run.mir_reader import MIRFunction, read_mir

__all__ = ["mir_facts", "program_from_mir", "run_wave_mir", "run_llc", "llc_mir"]

_MIR_CACHE: dict[tuple, str] = {}


def program_from_mir(mf: MIRFunction) -> Program:
    blocks = []
    for b in mf.blocks:
        phis = [mi for mi in b.instrs if mi.opcode == "PHI"]
        body = [mi for mi in b.instrs if mi.opcode != "PHI"]
        blocks.append(MBlock(b.label, phis, body, "layout", b.succs))
    block_of = {f"%bb.{i}": i for i in range(len(blocks))}
    return Program(mf.name, blocks, block_of, list(range(len(blocks))))


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
        for name, reg in mf.argument_info.items():
            what = facts.ARGUMENT_REGISTERS.get(name)
            if what is not None:
                entry_register(wr, reg, what)
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

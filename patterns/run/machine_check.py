"""Where the machine code first disagrees with the IR: the IR value and the machine instruction.

``first_disagreement(module, launch, target, group, item)`` runs the reference interpreter
on the work-group (keeping each wave's IR values: ``patterns.run.simt.Wave.env``) and the
selected machine code (keeping the value of every register each instruction defines),
then walks the machine instructions in program order and returns the first one that
stands for an IR value (``MachineInstr.ir``) whose value differs, on the work-item's lane,
from the IR's -- the last value each side computed (for a value computed in a loop, its
value in the last iteration the lane ran). Lanes where the IR value is poison are not
compared. What it returns is a dict: ``ir`` (the IR value's name), ``instr`` (the machine
instruction's text and where it is), ``lane``, ``expected``, ``found`` (hex).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["first_disagreement", "reference_values"]


def reference_values(module: Any, launch: Any, target: Any, group: int) -> dict:
    """{IR value name: (bits, poison) per work-item of ``group``} after the reference ran it."""
    from patterns.run.launch import build_memory, global_space
    from patterns.run.memory import LDS
    from patterns.run.reference import target_intrinsics
    from patterns.run.simt import Program, Wave

    fn = module.function(launch.kernel)
    prog = Program(fn, module, launch, target_intrinsics(target))
    mem, seg = build_memory(launch, fn, module, private_size=prog.private_size)
    prog.bind_memory(mem, seg, {g.name: a.address for g in module.globals.values()
                                if global_space(g) == LDS for a in mem.lds.allocations if a.name == g.name})
    W = launch.wave
    for g in range(group + 1):
        waves = [Wave(prog, g, w) for w in range((launch.group_size + W - 1) // W)]
        gens = [w.run() for w in waves]
        live = list(range(len(gens)))
        while live:
            nxt = []
            for k in live:
                try:
                    next(gens[k])
                    nxt.append(k)
                except StopIteration:
                    pass
            if nxt:
                mem.barrier(g)
            live = nxt
    out: dict = {}
    for w in waves:
        for v, val in w.env.items():
            name = getattr(v, "name", None)
            if name is None or not isinstance(val, tuple) or not isinstance(val[0], np.ndarray) or val[0].ndim != 1:
                continue
            bits, pz = out.setdefault(f"%{name}", (np.zeros(launch.group_size, dtype=np.uint64),
                                                  np.ones(launch.group_size, dtype=bool)))
            lanes = w.local < launch.group_size
            bits[w.local[lanes]] = val[0][lanes]
            pz[w.local[lanes]] = val[1][lanes]
    return out, fn


def first_disagreement(module: Any, launch: Any, target: Any, group: int, item: int, *,
                       generic: str | None = None) -> dict | None:
    """The first machine instruction whose IR value differs on work-item ``item`` of
    ``group`` (module docstring), or None when every compared value agrees."""
    from patterns.run.machine import run_program, runner_of, select_kernel
    from patterns.run.instr import value_type_bits
    from patterns.run.ub import Undefined

    try:
        ref, fn = reference_values(module, launch, target, group)
    except Undefined:
        return None
    prog, _fd, sems = select_kernel(module, target, launch.kernel)
    _res, waves, _lines = run_program(prog, sems, launch, fn, module, engine="selected", keep_values=True, runner=runner_of(prog),
                                      trace=False, generic_ir=generic == "ir")
    W = launch.wave
    wi = group * ((launch.group_size + W - 1) // W) + item // W
    if wi >= len(waves):
        return None
    wr = waves[wi]
    lane = item % W
    last: dict[int, tuple] = {}
    for mi, _d, vals, ex, _file in wr.trace_values:
        last[id(mi)] = (mi, vals, ex)
    types = {f"%{i.name}": i.type for b in fn.blocks for i in b.instructions if getattr(i, "name", None)}
    for blk in prog.blocks:
        for mi in blk.phis + blk.body:
            got = last.get(id(mi))
            if got is None or not mi.ir or mi.ir not in ref or mi.ir not in types:
                continue
            _mi, vals, ex = got
            if not ex[lane]:
                continue
            bits, pz = ref[mi.ir]
            if pz[item]:
                continue
            width = value_type_bits(types[mi.ir])
            mask = np.uint64((1 << width) - 1) if width < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
            want, have = int(bits[item] & mask), int(vals[lane] & mask)
            if want != have:
                return {"ir": mi.ir, "instr": f"{mi.text()}  ({mi.where})", "lane": lane,
                        "expected": f"0x{want:x}", "found": f"0x{have:x}"}
    return None

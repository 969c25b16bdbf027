"""The opt-in meaning of the selection engine's generic instructions, taken from the IR node each stands for.

When a target has no pattern for a node, tdgen's selection emits a generic instruction
(``MOV_IMM``, ``SETCC``, ``SELECT``, ``PTRADD``, ``LOAD``, ``STORE``, ``ZEXT``/``SEXT``/
``TRUNC``: ``patterns.select.machine``). By default the machine interpreter does not
run them (``NotModeled``: a target without a store instruction has not selected a
kernel). ``generic="ir"`` runs them by the meaning of the DAG node they came from --
the IR instruction's own semantics (``patterns.run.instr``'s operations) on the
machine registers, with the node's condition code for ``SETCC`` (the combines may have
changed it from the IR's). This checks a target's ALU, cross-lane and control-flow
selection lane by lane while it has no memory or compare instructions (the AMDGPU
subset today); a result says how many generic instructions ran (``Result.trace``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from patterns.run.machine_types import NotModeledInstr

__all__ = ["GENERIC_OPCODES", "run_generic"]

GENERIC_OPCODES = frozenset({"MOV_IMM", "SETCC", "SELECT", "PTRADD", "LOAD", "STORE", "ZEXT", "SEXT", "TRUNC"})
_CC = {"SETEQ": "eq", "SETNE": "ne", "SETLT": "slt", "SETLE": "sle", "SETGT": "sgt", "SETGE": "sge",
       "SETULT": "ult", "SETULE": "ule", "SETUGT": "ugt", "SETUGE": "uge"}
U64 = np.uint64


def _bits_of_vt(vt: str) -> int:
    if vt and vt[0] == "i" and vt[1:].isdigit():
        return int(vt[1:])
    if vt in ("f32",):
        return 32
    if vt in ("f64",):
        return 64
    if vt in ("f16",):
        return 16
    raise NotModeledInstr(f"a generic instruction on type {vt}")


def _write(wr, mi, vals: np.ndarray, uni: bool, bits: int) -> None:
    d, rc, file = mi.defs[0]
    file = file or wr.sems.rc_file(rc) or ("scalar" if uni else "vector")
    mask = U64((1 << bits) - 1) if bits < 64 else U64(0xFFFFFFFFFFFFFFFF)
    width = max(bits, 32) if file == "scalar" else bits
    # (a value, not a lane mask: a 1-bit boolean in a scalar register is the wave's one value)
    wr._write(d[1:], file, vals & mask, uni, width, width, "lane")


def run_generic(wr, mi) -> None:
    """Execute generic instruction ``mi`` (``mi.extra["node"]`` its DAG node) on wave ``wr``."""
    from patterns.run import ops
    from patterns.run.launch import layout_of
    from patterns.run.memory import from_bytes, to_bytes
    from patterns.run.instr import exec_select, gep_address

    node: Any = mi.extra.get("node")
    if node is None:
        raise NotModeledInstr(f"generic {mi.opcode} without its DAG node", mi)
    op = mi.opcode
    reads = [wr.read(t) for t in mi.operands]
    uni = all(u for _v, u, _f in reads)
    ir = node.ir
    if op == "MOV_IMM":
        _write(wr, mi, reads[0][0], True, _bits_of_vt(node.vt))
    elif op == "SETCC":
        cc = _CC.get(node.cc or "")
        if cc is None:
            raise NotModeledInstr(f"SETCC with condition {node.cc}", mi)
        bits = _bits_of_vt(node.ops[0].vt)
        r = ops.icmp(cc, reads[0][0] & U64((1 << bits) - 1), reads[1][0] & U64((1 << bits) - 1), bits)
        _write(wr, mi, r.astype(U64), uni, 1)
    elif op == "SELECT":
        r, _p = exec_select(ir, (reads[0][0], np.zeros(wr.wave, dtype=bool)), (reads[1][0], np.zeros(wr.wave, bool)),
                            (reads[2][0], np.zeros(wr.wave, dtype=bool)))
        _write(wr, mi, r, uni, _bits_of_vt(node.vt))
    elif op in ("ZEXT", "SEXT", "TRUNC"):
        src, dst = _bits_of_vt(node.ops[0].vt), _bits_of_vt(node.vt)
        v = reads[0][0] & U64((1 << src) - 1)
        if op == "SEXT" and src < 64:
            v = ops.sext(v, src).astype(np.int64).view(U64)
        _write(wr, mi, v, uni, dst)
    elif op == "PTRADD":
        if getattr(ir, "opcode", None) != "getelementptr":
            raise NotModeledInstr("a PTRADD that is not a getelementptr", mi)
        z = np.zeros(wr.wave, dtype=bool)
        idx = [((v, z), ir.operands[k + 1].type) for k, (v, _u, _f) in enumerate(reads[1:])]
        a, _p = gep_address(ir, layout_of(ir.block.function), (reads[0][0], z), idx, ir.source_type)
        _write(wr, mi, np.asarray(a, dtype=U64), uni, 64 if _bits_of_vt(node.vt) == 64 else 32)
    elif op in ("LOAD", "STORE"):
        ptr_t = ir.operands[0 if op == "LOAD" else 1].type
        space = getattr(ptr_t, "addrspace", 0)
        vt = ir.type if op == "LOAD" else ir.operands[0].type
        nbytes = layout_of(ir.block.function).store_size(vt)
        if op == "LOAD":
            data, init = wr.memory.load(space, reads[0][0], nbytes, wr.exec, wr.group, wr.local)
            if (wr.exec & ~init.all(axis=1)).any():
                lane = int(np.flatnonzero(wr.exec & ~init.all(axis=1))[0])
                from patterns.run.machine_types import IllegalState

                raise IllegalState(f"load of uninitialised memory (lane {lane})", mi, lane)
            _write(wr, mi, from_bytes(data), False, _bits_of_vt(node.vt))
        else:
            wr.memory.store(space, reads[1][0], to_bytes(reads[0][0], nbytes), wr.exec.copy(), wr.group, wr.local,
                            str(vt), origin=f"{mi.text()}  ({mi.where})")
    else:
        raise NotModeledInstr(f"generic instruction {op}", mi)
    wr.generic_count += 1

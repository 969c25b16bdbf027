"""FunctionLoweringInfo's LiveOutRegInfo as llc's combines see it: the known leading zero bits
and sign bits of each i32 value a block exports, recorded after the block's combines
(``record_exports``; the exporting node is kept and counted when a rule first asks:
``patterns.dag.combine.known.known_lz`` / ``live_sign_bits``), and those of an i32 phi, the
minimum over its incoming values (ComputePHILiveOutRegInfo: ``phi_lz``, ``phi_sb``). The
CopyFromRegs that read a value carry them (``SDNode.klz``, ``SDNode.ksb``). The counts are
given the function's target (``patterns.dag.combine.context.DAGTarget``: the known bits of
its nodes)."""

from __future__ import annotations

from typing import Any

from patterns.dag.combine.context import DAGTarget
from patterns.dag.combine.known import known_lz, live_sign_bits
from patterns.dag.isd import const_int, is_ir_constant, vt_of
from patterns.dag.nodes import SelectionDAG


def phi_lz(phi, live_lz: dict, rep: dict, vt_cache: dict, dt: DAGTarget) -> int:
    """Known leading zeros of an i32 phi: the minimum over its incoming values, a
    constant's own, a value's recorded one (``live_lz``), 0 for a value not recorded yet
    (a back edge, an argument) or undef (ComputePHILiveOutRegInfo gives up on those)."""
    return phi_live(phi, live_lz, rep, vt_cache, 0, const_lead_zeros, known_lz, dt)


def phi_sb(phi, live_sb: dict, rep: dict, vt_cache: dict, dt: DAGTarget) -> int:
    """Sign bits of an i32 phi, the same way (1 where nothing is known)."""
    return phi_live(phi, live_sb, rep, vt_cache, 1, const_sign_bits, live_sign_bits, dt)


def phi_live(phi, live: dict, rep: dict, vt_cache: dict, nothing: int, of_const, count, dt: DAGTarget) -> int:
    """The minimum over an i32 phi's incoming values of a count recorded per value in
    ``live`` (an int, or the exporting node until ``count(node, dt)`` counts it), a constant's
    by ``of_const``; ``nothing`` for another type, undef, or as soon as the minimum reaches
    it. ``rep``: CSE'd instruction -> its representative; ``vt_cache``: the builder's
    value types per type object."""
    v: Any
    t = phi.type
    vt = vt_cache.get(id(t))
    if (vt_of(t) if vt is None else vt[1]) != "i32":
        return nothing
    best = 32
    for v, _blk in phi.incoming:
        if is_ir_constant(v):
            c = const_int(v)
            if c is None:
                return nothing
            k = of_const(c)
        else:
            v = rep.get(v, v)
            k = live.get(v, nothing)
            if type(k) is not int:
                k = live[v] = count(k, dt)
        if k < best:
            best = k
            if best <= nothing:
                return nothing
    return best


def record_exports(dag: SelectionDAG, live_lz: dict, live_sb: dict) -> None:
    """After a block's combines: for each i32 value it exports (a CopyToReg root), the
    exporting node (counted when first asked: ``known_lz`` of a CopyFromReg, ``phi_lz``;
    ``live_sign_bits``, ``phi_sb``), or for a value only passed through, the counts its
    CopyFromReg carries."""
    for r in dag.roots:
        if r.opcode == "ISD::CopyToReg":
            ir = r.ir
            if ir is None or not r.ops:
                continue
            src = r.ops[0]
            if src.vt == "i32":
                if src.opcode == "ISD::CopyFromReg":
                    live_lz[ir] = src.klz
                    live_sb[ir] = src.ksb
                else:
                    live_lz[ir] = live_sb[ir] = src


def const_lead_zeros(c: int) -> int:
    """Leading zero bits of a 32-bit constant."""
    return 32 - (c & 0xFFFFFFFF).bit_length()


def const_sign_bits(c) -> int:
    """APInt::getNumSignBits of a 32-bit constant (1 for a non-integer)."""
    if type(c) is not int:
        return 1
    u = c & 0xFFFFFFFF
    if u >> 31:
        u ^= 0xFFFFFFFF
    return 32 - u.bit_length()

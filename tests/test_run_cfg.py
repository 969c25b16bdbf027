"""The SIMT reference against a one-work-item-at-a-time interpreter written here, on generated
control-flow kernels (testkit/cfggen.py: diamonds, triangles, switches, nested loops with
uniform and divergent trip counts and early exits, stores inside branches).

Without cross-lane operations or barriers, running the lanes of a wave in lock-step with a
reconvergence stack must give exactly what running each work-item alone gives: the same
stores, to the same places, in the same order per work-item. The interpreter below knows
only what cfggen emits (32-bit integer ops, icmp, select, phi, br, switch, GEP, load,
store) and Python's integers. 150 kernels in wave32 and wave64 here;
``TDGEN_RUN_CFG_ALL=1`` runs 500.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from patterns.ir import parse_module
from patterns.ir.core import Constant
from patterns.run.launch import from_seed
from patterns.run.reference import run_reference
from patterns.run.api import load_target
from testkit.cfggen import generate_cfg_kernel

COUNT = 500 if os.environ.get("TDGEN_RUN_CFG_ALL") else 150
M32 = 0xFFFFFFFF


def _s(v: int) -> int:
    return v - (1 << 32) if v & 0x80000000 else v


def _binop(op: str, a: int, b: int) -> int:
    if op == "add":
        return (a + b) & M32
    if op == "sub":
        return (a - b) & M32
    if op == "mul":
        return (a * b) & M32
    if op == "and":
        return a & b
    if op == "or":
        return a | b
    if op == "xor":
        return a ^ b
    assert b < 32, "cfggen never shifts by 32 or more"
    if op == "shl":
        return (a << b) & M32
    if op == "lshr":
        return a >> b
    return (_s(a) >> b) & M32


def _icmp(p: str, a: int, b: int) -> bool:
    if p[0] == "s":
        a, b = _s(a), _s(b)
    return {"eq": a == b, "ne": a != b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b}[
        p if p in ("eq", "ne") else p[1:]]


def scalar_run(fn, launch, bases: dict) -> list:
    """Every store of every work-item, one work-item after another: (local, buffer,
    offset, value)."""
    mem = {b.name: bytearray(b.data) for b in launch.buffers}
    args = {}
    for a, v in zip(fn.args, launch.args):
        args[a] = ("ptr", v.buffer, 0) if v.kind == "buffer" else int(v.value) & M32
    out = []
    for item in range(launch.group_size):
        env = dict(args)

        def get(v):
            if isinstance(v, Constant):
                return int(v.value) & M32 if v.kind == "int" else (1 if v.text == "true" else 0)
            return env[v]

        blk, prev = fn.blocks[0], None
        while True:
            phis = [i for i in blk.instructions if i.opcode == "phi"]
            vals = [get(next(v for v, b in p.incoming if b is prev)) for p in phis]
            for p, v in zip(phis, vals):
                env[p] = v
            nxt = None
            for inst in blk.instructions[len(phis):]:
                op, o = inst.opcode, inst.operands
                if op == "call":
                    env[inst] = item if inst.callee.endswith("workitem.id.x") else 0
                elif op in ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr"):
                    env[inst] = _binop(op, get(o[0]), get(o[1]))
                elif op == "icmp":
                    env[inst] = _icmp(inst.predicate, get(o[0]), get(o[1]))
                elif op == "select":
                    env[inst] = get(o[1]) if get(o[0]) else get(o[2])
                elif op == "getelementptr":
                    _, buf, off = get(o[0])
                    env[inst] = ("ptr", buf, off + 4 * _s(get(o[1])))
                elif op == "load":
                    _, buf, off = get(o[0])
                    env[inst] = int.from_bytes(mem[buf][off:off + 4], "little")
                elif op == "store":
                    _, buf, off = get(o[1])
                    v = get(o[0])
                    mem[buf][off:off + 4] = v.to_bytes(4, "little")
                    out.append((item, buf, off, v))
                elif op == "br":
                    nxt = inst.targets[0] if not o else inst.targets[0 if get(o[0]) else 1]
                elif op == "switch":
                    c = get(o[0])
                    nxt = next((d for cv, d in inst.cases if int(cv.value) & M32 == c), inst.targets[0])
                elif op == "ret":
                    break
                else:
                    raise AssertionError(op)
            if nxt is None:
                break
            prev, blk = blk, nxt
    return out


def _canon(stores):
    return sorted(stores, key=lambda s: (s[1], s[2], s[0]))


@pytest.fixture(scope="module")
def amdgpu():
    return load_target("amdgpu")


@pytest.mark.parametrize("chunk", range(10))
def test_simt_reference_equals_per_item_execution(chunk, amdgpu):
    lanes = 0
    for seed in range(chunk, COUNT, 10):
        text = generate_cfg_kernel(seed, 60 + seed % 60)
        module = parse_module(text, f"<cfg{seed}>")
        fn = module.function("kernel")
        for wave in (32, 64):
            launch = from_seed(fn, seed, group_size=64, wave=wave)
            res = run_reference(module, launch, amdgpu)
            assert res.undefined is None, (seed, wave, res.undefined)
            got = [(s.local, s.buffer, s.offset, s.value) for s in res.stores]
            want = _canon(scalar_run(fn, launch, {}))
            assert got == want, (seed, wave)
            lanes += launch.items
    assert lanes == 2 * 64 * len(range(chunk, COUNT, 10))


def test_generator_is_deterministic_and_divergent():
    a, b = generate_cfg_kernel(3, 120), generate_cfg_kernel(3, 120)
    assert a == b
    texts = [generate_cfg_kernel(s, 120) for s in range(20)]
    assert any("switch" in t for t in texts)
    assert any("%tid.b" in t for t in texts)  # divergent trip counts
    assert sum(t.count("store") for t in texts) > 20

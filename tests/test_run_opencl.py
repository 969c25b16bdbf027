"""The reference interpreter on real OpenCL C kernels compiled by clang-19 (the corpus of
tests/kernels/opencl/, compiled by testkit/clang.py), with results computed here
independently in numpy: vector add, an LDS tree reduction, an LDS prefix scan and an LDS
histogram with atomics. Skipped (with the reason) until the corpus and its compiler
helper are on the branch, and while the IR reader cannot read clang-19's output."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from llvm_tools import require

clang = pytest.importorskip("testkit.clang", reason="the OpenCL corpus (testkit/clang.py) is not merged yet")

from patterns.run.api import load_module, load_target  # noqa: E402
from patterns.run.launch import ArgValue, from_seed  # noqa: E402
from patterns.run.reference import run_reference  # noqa: E402
from tdgen.errors import TdgenError  # noqa: E402


@pytest.fixture(scope="module")
def amdgpu():
    return load_target("amdgpu")


def _kernel(name: str, amdgpu, tmp_path_factory):
    require("clang-19")
    path = next((p for p in clang.corpus_kernels() if p.stem == name), None)
    if path is None:
        pytest.skip(f"{name}.cl is not in the corpus")
    text = clang.compile_cl(path, "O2", cache_dir=tmp_path_factory.mktemp("clang"))
    from patterns.ir import parse_module

    try:
        module = parse_module(text, f"{name}.ll")
    except TdgenError as e:  # the reader engineer's fixes (range(...), call return attributes)
        pytest.skip(f"the IR reader does not read clang-19's {name}.ll yet: {str(e).splitlines()[0]}")
    return load_module(module, amdgpu)


def _launch(module, seed, *, group, groups, **scalars):
    fn = module.definitions()[0]
    launch = from_seed(fn, seed, group_size=group, wave=64, groups=groups)
    args = list(launch.args)
    for k, a in enumerate(fn.args):
        if a.type.is_int and k in scalars.get("ints", {}):
            args[k] = ArgValue("int", scalars["ints"][k])
    return fn, dataclasses.replace(launch, args=tuple(args))


def _buf(launch, k, dtype):
    return np.frombuffer(launch.buffer(launch.args[k].buffer).data, dtype=dtype)


def test_vector_add(amdgpu, tmp_path_factory):
    module = _kernel("vector_add", amdgpu, tmp_path_factory)
    fn, launch = _launch(module, 1, group=64, groups=2, ints={3: 100})
    res = run_reference(module, launch, amdgpu)
    assert res.undefined is None
    a, b = _buf(launch, 0, "<f4"), _buf(launch, 1, "<f4")
    want = (a[:100] + b[:100]).astype(np.float32).view("<u4")
    assert [(s.offset // 4, s.value) for s in res.stores] == [(i, int(want[i])) for i in range(100)]


def test_reduce_sum_lds(amdgpu, tmp_path_factory):
    module = _kernel("reduce_sum_lds", amdgpu, tmp_path_factory)
    fn, launch = _launch(module, 2, group=256, groups=2, ints={2: 400})
    res = run_reference(module, launch, amdgpu)
    assert res.undefined is None
    x = _buf(launch, 0, "<i4").astype(np.int64)
    want = [int(x[:256].sum()) & 0xFFFFFFFF, int(x[256:400].sum()) & 0xFFFFFFFF]
    glob = [(s.group, s.offset, s.value) for s in res.stores if s.space == "global"]
    assert glob == [(0, 0, want[0]), (1, 4, want[1])]


def test_prefix_scan(amdgpu, tmp_path_factory):
    module = _kernel("prefix_scan", amdgpu, tmp_path_factory)
    fn, launch = _launch(module, 3, group=256, groups=1)
    res = run_reference(module, launch, amdgpu)
    assert res.undefined is None
    x = _buf(launch, 0, "<u4").astype(np.uint64)
    scan = np.cumsum(x[:256]) & 0xFFFFFFFF
    out = {s.offset // 4: s.value for s in res.stores if s.space == "global" and s.buffer == launch.args[1].buffer}
    assert [out[i] for i in range(256)] == [int(v) for v in scan]
    sums = [s.value for s in res.stores if s.space == "global" and s.buffer == launch.args[2].buffer]
    assert sums == [int(scan[-1])]


def test_histogram_local_atomics(amdgpu, tmp_path_factory):
    module = _kernel("histogram_local", amdgpu, tmp_path_factory)
    fn, launch = _launch(module, 4, group=64, groups=1, ints={1: 64})
    res = run_reference(module, launch, amdgpu)
    assert res.undefined is None
    data = _buf(launch, 0, np.uint8)[:64]
    start = _buf(launch, 2, "<u4").astype(np.int64)
    counts = np.bincount(data & 63, minlength=64)
    final = {}
    for s in res.stores:
        if s.space == "global":
            final[s.offset // 4] = s.value  # the last atomic add to each bin
    assert final == {b: int(start[b] + counts[b]) & 0xFFFFFFFF for b in range(64) if counts[b]}

"""dslike end to end: NVVM shuffle kernels rewritten, lowered, selected onto dslike's own
instructions and run by the machine interpreter, lane by lane against the IR reference;
broken copies of the target caught."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from patterns.ir.reader import parse_module
from patterns.run import engines
from patterns.run.launch import from_seed
from patterns.run.machine import select_kernel
from patterns.run.result import first_difference
from tdgen.target_cache import load_target

ROOT = Path(__file__).resolve().parent.parent

KERNEL = """\
define ptx_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %b, i32 %c) {{
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %x = load i32, ptr addrspace(1) %in
  %v = add i32 %tid, %x
  {conv}
  %r = call {rt} @llvm.nvvm.shfl.sync.{mode}.{ty}(i32 -1, {rt} %f, i32 %b, i32 %c)
  store {rt} %r, ptr addrspace(1) %out
  ret void
}}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare {rt} @llvm.nvvm.shfl.sync.{mode}.{ty}(i32, {rt}, i32, i32)
"""


def kernel(mode: str, ty: str) -> str:
    if ty == "f32":
        return KERNEL.format(conv="%f = bitcast i32 %v to float", rt="float", mode=mode, ty=ty)
    return KERNEL.format(conv="%f = xor i32 %v, 0", rt="i32", mode=mode, ty=ty)


def _module(text: str, tmp_path: Path, name: str = "k.ll"):
    p = tmp_path / name
    p.write_text(text)
    return parse_module(text, str(p))


def _run(module, target, seed: int, wave: int = 32):
    fn = module.function("k")
    launch = from_seed(fn, seed, group_size=wave, wave=wave)
    ref = engines.engine("reference")(module, launch, target)
    sel = engines.engine("selected")(module, launch, target)
    return launch, ref, sel


@pytest.fixture(scope="module")
def dslike():
    return load_target(ROOT / "targets" / "dslike")


@pytest.mark.parametrize("ty", ["i32", "f32"])
@pytest.mark.parametrize("mode", ["idx", "up", "down", "bfly"])
def test_shuffle_kernel_selected_and_agrees_on_every_lane(mode, ty, dslike, tmp_path):
    m = _module(kernel(mode, ty), tmp_path)
    prog, _fd, _s = select_kernel(m, dslike, "k")
    opcodes = {mi.opcode for b in prog.blocks for mi in b.body}
    # no generic fallback: every instruction is dslike's own (a bitcast is a COPY)
    assert opcodes - {"COPY"} <= set(dslike.instructions), opcodes
    assert f"DS_SHFL_{mode.upper()}_B32" in opcodes
    assert {"FLAT_STORE_B32", "S_LOAD_B32", "V_WORKITEM_ID_X"} <= opcodes
    for seed, wave in ((0, 32), (1, 32), (2, 32), (3, 64)):
        _launch, ref, sel = _run(m, dslike, seed, wave)
        assert ref.undefined is None and sel.undefined is None
        assert len(ref.stores) == wave
        assert first_difference(ref, sel) is None, (seed, wave)
    # the values really move between lanes for some seed (not a kernel whose lanes agree)
    assert len({s.value for s in ref.stores}) > 1 or mode == "idx"


def _broken_copy(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    dst = tmp_path / "dslike_broken"
    shutil.copytree(ROOT / "targets" / "dslike", dst)
    spec = dst / "spec.py"
    text = spec.read_text()
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    spec.write_text(text)
    return dst


def test_shuffle_semantics_reading_the_wrong_lane_is_caught(tmp_path):
    broken = load_target(_broken_copy(tmp_path, ('semantics=_shfl_semantics("down")),',
                                                 'semantics=_shfl_semantics("down", 1)),')))
    m = _module(kernel("down", "i32"), tmp_path)
    diffs = []
    for seed in range(3):
        _launch, ref, sel = _run(m, broken, seed)
        d = first_difference(ref, sel)
        if d is not None:
            diffs.append(d)
    assert diffs, "the wrong-lane shuffle agreed with the reference"
    want, got = diffs[0]
    assert want.local == got.local and want.value != got.value


def test_scalar_add_without_its_uniform_predicate_is_an_illegal_state(tmp_path):
    # the pattern without its predicate, and made to win over the vector add (as the SALU
    # shifts of amdgpu win with AddedComplexity = 1)
    broken = load_target(_broken_copy(
        tmp_path, ('(set i32:$dst, (uniform_add i32:$src0, i32:$src1))', '(set i32:$dst, (add i32:$src0, i32:$src1))'),
        ('lets={"isCommutable": 1}, semantics=Sem.wave(', 'lets={"isCommutable": 1, "AddedComplexity": 9}, semantics=Sem.wave(')))
    m = _module(kernel("idx", "i32"), tmp_path)
    _launch, ref, sel = _run(m, broken, 0)
    assert ref.undefined is None
    assert sel.undefined is not None and sel.undefined.kind == "illegal-state"
    assert "read by scalar instruction S_ADD_U32" in sel.undefined.detail
    assert "S_ADD_U32" in sel.undefined.inst

"""dslike's Select hooks (targets/dslike/lowering.py): a kernel's return is S_ENDPGM, an
i32 <-> f32 bitcast a COPY in the register class of the value's file; the forms it does
not model are reported, per function, by ``tdgen isel``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from patterns.ir.reader import parse_module
from patterns.run import engines
from patterns.run.launch import from_seed
from patterns.run.machine import select_kernel
from patterns.run.result import first_difference
from tdgen.target_cache import load_target

ROOT = Path(__file__).resolve().parent.parent

UNIFORM = """\
define ptx_kernel void @u(ptr addrspace(1) %out, i32 %b) {
entry:
  %f = bitcast i32 %b to float
  %g = bitcast float %f to i32
  %h = add i32 %g, 1
  store i32 %h, ptr addrspace(1) %out
  ret void
}
"""

REFUSED = """\
define i32 @notkernel(i32 %a) {
entry:
  ret i32 %a
}
define ptx_kernel void @v(ptr addrspace(1) %out, double %d) {
entry:
  %x = bitcast double %d to i64
  %y = trunc i64 %x to i32
  store i32 %y, ptr addrspace(1) %out
  ret void
}
"""


def test_uniform_bitcasts_are_scalar_copies_and_the_kernel_ends_with_s_endpgm(tmp_path):
    target = load_target(ROOT / "targets" / "dslike")
    p = tmp_path / "u.ll"
    p.write_text(UNIFORM)
    m = parse_module(UNIFORM, str(p))
    prog, _fd, _sems = select_kernel(m, target, "u")
    body = [mi for b in prog.blocks for mi in b.body]
    copies = [mi for mi in body if mi.opcode == "COPY"]
    assert len(copies) == 2
    assert [o.opcode for o in body][-1] == "S_ENDPGM"
    assert "S_ENDPGM" in target.instructions
    # the bits pass through unchanged: the selected code stores b + 1 as the IR does
    fn = m.function("u")
    launch = from_seed(fn, 5, group_size=32, wave=32)
    ref = engines.engine("reference")(m, launch, target)
    sel = engines.engine("selected")(m, launch, target)
    assert ref.undefined is None and sel.undefined is None
    assert ref.stores and first_difference(ref, sel) is None


def test_unmodelled_returns_and_bitcasts_are_reported_per_function(tmp_path):
    p = tmp_path / "r.ll"
    p.write_text(REFUSED)
    r = subprocess.run([sys.executable, "-m", "tdgen", "isel", str(p), "--target", "targets/dslike"],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    # (the truncate after the bitcast has no dslike pattern either: its own error, line 8)
    assert len(lines) == 4 and lines[2].startswith(f"{p}:8:3: record '%y': ") and "ISD::TRUNCATE" in lines[2]
    assert lines[:2] + lines[3:] == [
        f"{p}:3:3: expected a form of t2: ISD::RET t1:i32 [divergent] the dslike target selects, found a return "
        "from a function of calling convention 'ccc' (dslike defines only kernels) (not modelled)",
        f"{p}:7:3: record '%x': expected a form of t2: i64 = ISD::BITCAST t1:f64 [uniform] the dslike target "
        "selects, found a bitcast from f64 to i64 (no scalar register class holds both) (not modelled)",
        "tdgen isel: 2 of 2 functions cannot be selected: @notkernel, @v",
    ]

"""tdgen.run / tdgen.check_run: the execution stage through the package-root API (IR as
text or a path), against values computed here independently."""

from __future__ import annotations

import tdgen

KERNEL = """
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %sq = mul i32 %tid, %tid
  %v = add i32 %sq, 7
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


def test_run_reference_from_text_and_path(tmp_path):
    (res,) = tdgen.run(KERNEL, "amdgpu", wave=64, workgroup=64)
    assert res.undefined is None
    values = sorted((s.offset // 4, int(s.value)) for s in res.stores)
    assert values == [(i, i * i + 7) for i in range(64)]
    f = tmp_path / "k.ll"
    f.write_text(KERNEL)
    (again,) = tdgen.run(str(f), "amdgpu", wave=64, workgroup=64)
    assert again.stores == res.stores


def test_check_run_agrees_on_every_lane():
    report = tdgen.check_run(KERNEL, tdgen.load_target("amdgpu"), wave=64, workgroup=64, trials=2)
    assert report.ok, report.counterexample
    assert report.lanes >= 64 and report.stores >= 64

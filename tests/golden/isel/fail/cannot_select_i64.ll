; --target tests/golden/isel/target: a 64-bit add; the target selects 32-bit adds only, so
; the message names the node, its type and divergence, and the closest patterns.
declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @add64(ptr addrspace(1) %out, i64 %a, i64 %b) {
entry:
  %s = add i64 %a, %b
  store i64 %s, ptr addrspace(1) %out
  ret void
}

; --target tests/golden/isel/target_custom: its CustomSelect puts a divergent shl in a scalar register
declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %u = shl i32 %a, %b
  %x = xor i32 %tid, %u
  %d = shl i32 %x, %b
  store i32 %d, ptr addrspace(1) %out
  ret void
}

; A 64-bit add: the amdgpu reference target models 32-bit ALU operations only.
declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @add64(ptr addrspace(1) %out, i64 %a, i64 %b) {
entry:
  %s = add i64 %a, %b
  store i64 %s, ptr addrspace(1) %out
  ret void
}

; Two functions that cannot be selected: both errors are reported together, in order.
declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @div(ptr addrspace(1) %out, i32 %a) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = udiv i32 %tid, %a
  store i32 %q, ptr addrspace(1) %out
  ret void
}

define amdgpu_kernel void @rem(ptr addrspace(1) %out, i32 %a, i32 %b) {
entry:
  %r = srem i32 %a, %b
  store i32 %r, ptr addrspace(1) %out
  ret void
}

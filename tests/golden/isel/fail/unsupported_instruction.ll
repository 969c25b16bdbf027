; The SelectionDAG builder does not model vector element insertion.
define amdgpu_kernel void @vec(ptr addrspace(1) %out, i32 %a) {
entry:
  %v = insertelement <2 x i32> undef, i32 %a, i32 0
  store <2 x i32> %v, ptr addrspace(1) %out
  ret void
}

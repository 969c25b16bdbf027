; The SelectionDAG builder does not model vector shuffles.
define amdgpu_kernel void @vec(ptr addrspace(1) %out, <2 x i32> %a) {
entry:
  %v = shufflevector <2 x i32> %a, <2 x i32> undef, <2 x i32> <i32 1, i32 0>
  store <2 x i32> %v, ptr addrspace(1) %out
  ret void
}

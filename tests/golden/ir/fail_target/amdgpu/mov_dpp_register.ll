; mov.dpp's row_mask (argument 3) is immarg in LLVM's tables; here it is a register
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %x, i32 %mask) {
  %v = call i32 @llvm.amdgcn.mov.dpp.i32(i32 %x, i32 1, i32 %mask, i32 15, i1 false)
  store i32 %v, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.amdgcn.mov.dpp.i32(i32, i32, i32, i32, i1)

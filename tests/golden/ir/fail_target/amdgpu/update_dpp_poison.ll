; update.dpp's dpp_ctrl (argument 3) is immarg in LLVM's tables; the declaration does not say so
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %x) {
  %v = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %x, i32 poison, i32 15, i32 15, i1 false)
  store i32 %v, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)

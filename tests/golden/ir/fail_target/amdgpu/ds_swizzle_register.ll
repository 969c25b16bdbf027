; ds.swizzle's pattern (argument 2) is immarg in LLVM's tables; the declaration does not say so
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %x, i32 %pattern) {
  %v = call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 %pattern)
  store i32 %v, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.amdgcn.ds.swizzle(i32, i32)

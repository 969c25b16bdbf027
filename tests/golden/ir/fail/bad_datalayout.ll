target datalayout = "e-p:64:64-i64:48"
target triple = "amdgcn"

define void @f(ptr addrspace(1) %p) {
entry:
  %v = load i64, ptr addrspace(1) %p
  ret void
}

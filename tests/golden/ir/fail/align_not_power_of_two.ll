define void @f(ptr addrspace(1) %p) {
entry:
  %x = load i32, ptr addrspace(1) %p, align 3
  ret void
}

define void @f(i32 %a, ptr addrspace(1) %p) {
entry:
  %s = store i32 %a, ptr addrspace(1) %p, align 4
  ret void
}

define void @f(ptr addrspace(16777216) %p) {
entry:
  ret void
}

; atomic accesses of 24 and 7 bits
define void @f(ptr %p) {
  %a = load atomic i24, ptr %p monotonic, align 4
  store atomic i7 0, ptr %p monotonic, align 1
  ret void
}

@lds = internal addrspace(3) global [4 x i32] undef

define void @f(i32 %v) {
entry:
  store i32 %v, ptr @lds, align 4
  ret void
}

define i16 @f(ptr %p) {
entry:
  %x = load i16, ptr %p, align 2, !range !0
  ret i16 %x
}

!0 = !{i32 0, i32 1}

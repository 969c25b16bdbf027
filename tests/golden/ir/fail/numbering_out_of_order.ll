define i32 @f(i32 %a) {
entry:
  %0 = add i32 %a, 1
  %0 = add i32 %a, 2
  ret i32 %0
}

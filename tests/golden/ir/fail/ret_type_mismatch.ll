define i32 @f(i32 %a) {
entry:
  ret void
}

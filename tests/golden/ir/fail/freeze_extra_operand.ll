define void @f(i32 %a) {
entry:
  %x = freeze i32 %a, i32 1
  ret void
}

define void @f(i32 %a, i32 %b) {
entry:
  %x = frobnicate i32 %a, %b
  ret void
}

define void @f(i32 %a) {
entry:
  %x = add j32 %a, 1
  ret void
}

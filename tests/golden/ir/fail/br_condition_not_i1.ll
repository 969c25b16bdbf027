define void @f(i32 %a) {
entry:
  br i32 %a, label %x, label %x
x:
  ret void
}

define i16 @f(i32 %a) {
entry:
  %x = zext i32 %a to i16
  ret i16 %x
}

define i32 @f(i32 %a) {
entry:
  %x = add i32 %a, 1
  %x = mul i32 %a, 2
  ret i32 %x
}

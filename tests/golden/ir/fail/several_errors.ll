define void @f(i32 %a) {
entry:
  %x = add i32 %a, %missing
  br label %gone
}

define i32 @g(i32 %a) {
entry:
  %y = sub i32 %a, 1
  %y = sub i32 %a, 2
  ret i64 %y
}

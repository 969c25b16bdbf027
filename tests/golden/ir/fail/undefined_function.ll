define i32 @f(i32 %a) {
entry:
  %r = call i32 @helper(i32 %a)
  ret i32 %r
}

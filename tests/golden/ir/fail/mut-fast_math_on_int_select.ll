define i32 @f(i1 %c, i32 %a) {
entry:
  %s = select nnan i1 %c, i32 %a, i32 0
  ret i32 %s
}

define i1 @f(i32 %a) {
entry:
  %c = icmp bigger i32 %a, 0
  ret i1 %c
}

; the entry block is the target of a loop's back edge
define void @f(i32 %n) {
entry:
  %i = add i32 %n, 1
  %c = icmp eq i32 %i, 0
  br i1 %c, label %exit, label %entry

exit:
  ret void
}

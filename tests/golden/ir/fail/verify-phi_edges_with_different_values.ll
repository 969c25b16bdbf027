; a conditional branch with both arms to %join: two entries for %entry, with different values
define i32 @f(i1 %c) {
entry:
  br i1 %c, label %join, label %join

join:
  %p = phi i32 [ 1, %entry ], [ 2, %entry ]
  ret i32 %p
}

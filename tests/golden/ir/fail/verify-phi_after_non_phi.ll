; a phi after an ordinary instruction of its block
define i32 @f(i1 %c, i32 %a) {
entry:
  br i1 %c, label %then, label %join

then:
  br label %join

join:
  %p = phi i32 [ 1, %then ], [ 2, %entry ]
  %s = add i32 %p, %a
  %q = phi i32 [ %a, %then ], [ 0, %entry ]
  ret i32 %s
}

; the join's phi has no entry for the %else edge
define i32 @f(i1 %c, i32 %a) {
entry:
  br i1 %c, label %then, label %else

then:
  %x = add i32 %a, 1
  br label %join

else:
  br label %join

join:
  %p = phi i32 [ %x, %then ]
  ret i32 %p
}

define i32 @f(i1 %c, i64 %w) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  %p = phi i32 [ 0, %entry ], [ %w, %a ]
  ret i32 %p
}

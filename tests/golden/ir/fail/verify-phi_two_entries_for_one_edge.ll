; %then reaches %join by one edge but the phi lists it twice
define i32 @f(i1 %c) {
entry:
  br i1 %c, label %then, label %join

then:
  br label %join

join:
  %p = phi i32 [ 1, %then ], [ 1, %then ], [ 2, %entry ]
  ret i32 %p
}

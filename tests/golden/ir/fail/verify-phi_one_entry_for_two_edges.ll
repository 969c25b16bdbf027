; both switch cases branch to %join: LLVM counts two edges from %entry, the phi has one
define i32 @f(i32 %k) {
entry:
  switch i32 %k, label %other [
    i32 0, label %join
    i32 1, label %join
  ]

other:
  br label %join

join:
  %p = phi i32 [ 7, %entry ], [ 9, %other ]
  ret i32 %p
}

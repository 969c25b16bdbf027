; a loop intrinsic without its parent token
define void @f(i32 %n) convergent {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %l = call token @llvm.experimental.convergence.loop()
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %loop, label %exit

exit:
  ret void
}

declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()

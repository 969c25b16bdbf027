; the loop intrinsic (the cycle's heart) is in the latch, not in the header
define void @f(i32 %n, i32 %x) convergent {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  br label %header

header:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  br label %latch

latch:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %t) ]
  %a = call i32 @g(i32 %x) [ "convergencectrl"(token %l) ]
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %header, label %exit

exit:
  ret void
}

declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
declare i32 @g(i32) convergent

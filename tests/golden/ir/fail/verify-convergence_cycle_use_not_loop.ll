; an ordinary convergent call in a loop uses the token from outside the loop
define void @f(i32 %n, i32 %x) convergent {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %a = call i32 @g(i32 %x) [ "convergencectrl"(token %t) ]
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %loop, label %exit

exit:
  ret void
}

declare token @llvm.experimental.convergence.entry()
declare i32 @g(i32) convergent

; convergence.entry outside the entry block
define i32 @f(i32 %x) convergent {
entry:
  br label %body

body:
  %t = call token @llvm.experimental.convergence.entry()
  %r = call i32 @g(i32 %x) [ "convergencectrl"(token %t) ]
  ret i32 %r
}

declare token @llvm.experimental.convergence.entry()
declare i32 @g(i32) convergent

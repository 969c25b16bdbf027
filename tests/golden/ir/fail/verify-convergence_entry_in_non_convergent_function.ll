; convergence.entry in a function that is not convergent
define i32 @f(i32 %x) {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  %r = call i32 @g(i32 %x) [ "convergencectrl"(token %t) ]
  ret i32 %r
}

declare token @llvm.experimental.convergence.entry()
declare i32 @g(i32) convergent

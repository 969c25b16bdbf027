; a second convergence.entry follows the first (itself a convergent operation)
define i32 @f(i32 %x) convergent {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  %t2 = call token @llvm.experimental.convergence.entry()
  %r = call i32 @g(i32 %x) [ "convergencectrl"(token %t) ]
  ret i32 %r
}

declare token @llvm.experimental.convergence.entry()
declare i32 @g(i32) convergent

; an anchor takes no token
define i32 @f(i32 %x) convergent {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  %a = call token @llvm.experimental.convergence.anchor() [ "convergencectrl"(token %t) ]
  %r = call i32 @g(i32 %x) [ "convergencectrl"(token %a) ]
  ret i32 %r
}

declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare i32 @g(i32) convergent

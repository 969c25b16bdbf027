; using %outer ends the region of %inner, which is then used again
define i32 @f(i32 %x) convergent {
entry:
  %outer = call token @llvm.experimental.convergence.anchor()
  %inner = call token @llvm.experimental.convergence.anchor()
  %a = call i32 @g(i32 %x) [ "convergencectrl"(token %outer) ]
  %b = call i32 @g(i32 %a) [ "convergencectrl"(token %inner) ]
  ret i32 %b
}

declare token @llvm.experimental.convergence.anchor()
declare i32 @g(i32) convergent

; one convergent call with a token and one without, in the same function
define i32 @f(i32 %x) convergent {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  %a = call i32 @g(i32 %x) [ "convergencectrl"(token %t) ]
  %b = call i32 @g(i32 %a)
  ret i32 %b
}

declare token @llvm.experimental.convergence.entry()
declare i32 @g(i32) convergent

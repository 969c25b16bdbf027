; a token on a call that is not convergent
define i32 @f(i32 %x) convergent {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  %a = call i32 @h(i32 %x) [ "convergencectrl"(token %t) ]
  ret i32 %a
}

declare token @llvm.experimental.convergence.entry()
declare i32 @h(i32)

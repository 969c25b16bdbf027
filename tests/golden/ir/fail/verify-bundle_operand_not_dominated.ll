; the bundle operand %t, defined in %then, does not dominate its use in %join
define i32 @f(i1 %c, i32 %x) convergent {
entry:
  br i1 %c, label %then, label %join

then:
  %t = call token @llvm.experimental.convergence.anchor()
  br label %join

join:
  %a = call i32 @g(i32 %x) [ "convergencectrl"(token %t) ]
  ret i32 %a
}

declare token @llvm.experimental.convergence.anchor()
declare i32 @g(i32) convergent

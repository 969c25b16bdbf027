; the token comes from an ordinary function, not a convergence-control intrinsic
define i32 @f(i32 %x) convergent {
entry:
  %t = call token @make_token()
  %r = call i32 @g(i32 %x) [ "convergencectrl"(token %t) ]
  ret i32 %r
}

declare token @make_token()
declare i32 @g(i32) convergent

; the convergencectrl bundle's operand is an i32, not a token
define i32 @f(i32 %x) convergent {
entry:
  %r = call i32 @g(i32 %x) [ "convergencectrl"(i32 %x) ]
  ret i32 %r
}

declare i32 @g(i32) convergent

; callbr may only call inline asm (asm goto) in LLVM 19
define void @f() {
entry:
  callbr void @g() to label %next [label %other]

next:
  ret void

other:
  ret void
}

declare void @g()

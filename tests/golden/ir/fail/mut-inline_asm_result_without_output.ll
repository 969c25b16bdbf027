define i32 @f() {
entry:
  %x = call i32 asm sideeffect "s_nop 0", ""()
  ret i32 %x
}

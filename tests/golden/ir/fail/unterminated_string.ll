define void @f() {
entry:
  call void asm sideeffect "s_nop 0", "~{memory}()
  ret void
}

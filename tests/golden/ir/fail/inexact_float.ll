define float @f(float %a) {
entry:
  %x = fadd float %a, 0.1
  ret float %x
}

define hidden hidden void @f() {
entry:
  ret void
}

define void @f(ptr %p) {
entry:
  %q = getelementptr void, ptr %p, i64 1
  ret void
}

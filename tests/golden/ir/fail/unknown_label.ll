define void @f(i1 %c) {
entry:
  br i1 %c, label %yes, label %nowhere
yes:
  ret void
}

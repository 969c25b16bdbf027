define void @f(<1 x <1 x i32>> %v) {
entry:
  ret void
}

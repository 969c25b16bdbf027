define void @f() {
entry:
  ret void, !tbaa !999
}

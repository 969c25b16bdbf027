define void @f() nosuchattribute {
entry:
  ret void
}

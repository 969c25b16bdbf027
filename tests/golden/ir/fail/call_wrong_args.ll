declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define i32 @f(i32 %a) {
entry:
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %a, i32 1)
  ret i32 %r
}

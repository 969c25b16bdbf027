declare i64 @llvm.amdgcn.dispatch.id()

define i64 @f() {
entry:
  %d = call nnan i64 @llvm.amdgcn.dispatch.id()
  ret i64 %d
}

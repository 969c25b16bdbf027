declare i64 @llvm.cttz.i64(i64, i1)

define i64 @f(i64 %v) {
entry:
  %c = call i64 @llvm.cttz.i64(i64 %v, i1 false) dereferenceable(8)
  ret i64 %c
}

; a non-literal argument for an immarg parameter
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32 immarg)
define i32 @f(i32 %x, i32 %y) {
  %r = call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 %y)
  ret i32 %r
}

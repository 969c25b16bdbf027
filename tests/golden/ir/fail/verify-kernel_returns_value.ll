; a kernel calling convention with a non-void return type
define amdgpu_kernel i32 @k() {
entry:
  ret i32 0
}

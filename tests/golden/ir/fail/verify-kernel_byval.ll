; a kernel calling convention with a byval parameter
define amdgpu_kernel void @f(ptr byval(i32) %x) {
  ret void
}

; Bit-field extracts: AMDGPU's SelectS_BFE (a CustomSelect step, tried before the table).
declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a, i32 %b) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %s = lshr i32 %a, 4
  %u = and i32 %s, 255
  %x = xor i32 %tid, %b
  %t = lshr i32 %x, 8
  %d = and i32 %t, 65535
  %y = or i32 %d, %u
  store i32 %y, ptr addrspace(1) %out
  ret void
}

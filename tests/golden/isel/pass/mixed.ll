; Uniform and divergent values through the modeled ops, a uniform if-then and a uniform loop.
declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @mixed(ptr addrspace(1) %out, i32 %a, i32 %b, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = xor i32 %tid, %a
  %u = add i32 %a, %b
  %x = mul i32 %d, %u
  %c = icmp slt i32 %u, %n
  %e1 = lshr i32 %u, %b
  %e2 = and i32 %e1, %x
  br i1 %c, label %then, label %join
then:
  %t1 = xor i32 %x, -1
  %t2 = shl i32 %u, 3
  %t3 = or i32 %t1, %t2
  br label %join
join:
  %p = phi i32 [ %t3, %then ], [ %e2, %entry ]
  br label %loop
loop:
  %i = phi i32 [ 0, %join ], [ %i.next, %loop ]
  %acc = phi i32 [ %p, %join ], [ %acc.next, %loop ]
  %s = sub i32 %acc, %u
  %acc.next = xor i32 %s, %i
  %i.next = add i32 %i, 1
  %lc = icmp ult i32 %i.next, %n
  br i1 %lc, label %loop, label %exit
exit:
  %r = ashr i32 %acc.next, %a
  store i32 %r, ptr addrspace(1) %out
  ret void
}

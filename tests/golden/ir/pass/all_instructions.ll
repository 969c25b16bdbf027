; Every instruction kind of the supported subset, in the forms opt normalizes.
define amdgpu_kernel void @kernel(ptr addrspace(1) %out, i32 inreg %n, float %f, <4 x i32> %v, i64 %w) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %a = add nuw nsw i32 %tid, 4294967295
  %b = sub i32 %a, 1
  %c = mul i32 %b, %b
  %d = and i32 %c, 255
  %e = or disjoint i32 %d, 256
  %x = xor i32 %e, -1
  %s = shl nsw i32 %x, 2
  %l = lshr exact i32 %s, 1
  %r = ashr i32 %l, 3
  %q = udiv i32 %r, 7
  %fa = fadd fast float %f, 1.0
  %fm = fmul nnan ninf float %fa, 2.5
  %fn = fneg float %fm
  %cmp = icmp slt i32 %r, 10
  %fc = fcmp olt float %fn, 0.0
  %sel = select i1 %cmp, i32 %r, i32 0
  %z = zext i32 %sel to i64
  %t = trunc i64 %w to i16
  %si = sitofp i32 %q to float
  %h = fptrunc float %si to half
  %p2i = ptrtoint ptr addrspace(1) %out to i64
  %ee = extractelement <4 x i32> %v, i32 1
  %ie = insertelement <4 x i32> %v, i32 %ee, i32 0
  %sv = shufflevector <4 x i32> %ie, <4 x i32> %v, <4 x i32> <i32 0, i32 5, i32 2, i32 7>
  %gep = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  %ld = load volatile i32, ptr addrspace(1) %gep
  %ld2 = load atomic i32, ptr addrspace(1) %gep syncscope("agent") acquire, align 4
  store i32 %ld, ptr addrspace(1) %gep, align 4
  %rmw = atomicrmw add ptr addrspace(1) %gep, i32 1 syncscope("workgroup") monotonic
  %cx = cmpxchg ptr addrspace(1) %gep, i32 0, i32 %ld seq_cst monotonic
  %cv = extractvalue { i32, i1 } %cx, 0
  %iv = insertvalue { i32, i1 } %cx, i32 5, 0
  %al = alloca i32, align 4, addrspace(5)
  %fz = freeze i32 %cv
  %asm = call i32 asm sideeffect "v_mov_b32 $0, $1", "=v,v"(i32 %fz)
  %bc = bitcast <4 x i32> %sv to <2 x i64>
  call void @llvm.amdgcn.s.barrier() #1
  switch i32 %fz, label %exit [
    i32 0, label %loop
    i32 1, label %exit
  ]
loop:
  %i = phi i32 [ 0, %entry ], [ %inc, %loop ]
  %inc = add i32 %i, 1
  %done = icmp eq i32 %inc, %n
  br i1 %done, label %exit, label %loop
exit:
  %m = phi i32 [ %fz, %entry ], [ %inc, %loop ], [ %fz, %entry ]
  %1 = add i32 %m, 1
  %2 = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %1)
  br i1 true, label %3, label %end
3:
  unreachable
end:
  ret void
}

define void @numbered(i32 %0, i32) {
  %3 = add i32 %0, %1
  br label %4
4:
  %x = add i32 %3, 1
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier() #1
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

attributes #0 = { nounwind "amdgpu-flat-work-group-size"="1,256" }
attributes #1 = { convergent nounwind }

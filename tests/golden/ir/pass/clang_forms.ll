; The forms clang-19 and LLVM's AMDGPU tests write that a reader must take: attributes
; everywhere, globals in address spaces, named types, comdats, aliases, quoted labels,
; constant expressions, fp and vector instructions, atomics with sync scopes. A comment
; with a " in it.
target triple = "amdgcn-amd-amdhsa"

%struct.pair = type { i32, float }
%struct.opaque = type opaque
$grp = comdat any

@lds = internal unnamed_addr addrspace(3) global [64 x i32] undef, align 4
@counter = dso_local addrspace(1) global i32 0, comdat($grp), align 4
@str = private unnamed_addr addrspace(4) constant [4 x i8] c"abc\00", align 1
@table = hidden addrspace(4) constant [2 x float] [float 1.000000e+00, float 2.500000e+00], section ".rodata", align 4
@pair = addrspace(1) global %struct.pair { i32 1, float 0.000000e+00 }, align 4
@alias = alias i32, ptr addrspace(1) @counter
@second = addrspace(4) constant ptr addrspace(4) getelementptr inbounds ([2 x float], ptr addrspace(4) @table, i64 0, i64 1)

define dso_local amdgpu_kernel void @forms(ptr addrspace(1) noundef align 4 %out, float noundef nofpclass(nan) %x, i32 noundef range(i32 0, 100) %n, ptr addrspace(1) nocapture noundef readonly byref(%struct.pair) align 4 %pp, <4 x i32> %vec) local_unnamed_addr #0 {
"entry block":
  %tid = tail call noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x()
  %tid64 = zext nneg i32 %tid to i64
  %slot = getelementptr inbounds [64 x i32], ptr addrspace(3) @lds, i32 0, i32 %tid
  store volatile i32 %tid, ptr addrspace(3) %slot, align 4
  %back = load volatile i32, ptr addrspace(3) %slot, align 4
  %neg = fneg nnan float %x
  %mul = fmul fast float %neg, 0x3FF8000000000000
  %add = fadd reassoc nsz arcp contract afn float %mul, 1.000000e+00
  %div = fdiv float %add, %x
  %rem = frem float %div, 2.000000e+00
  %cmp = fcmp olt float %rem, 1.000000e+00
  %cmp2 = fcmp fast ueq float %rem, %x
  %sel = select nnan i1 %cmp, float %rem, float %x
  %fi = fptosi float %sel to i32
  %fu = fptoui float %sel to i32
  %si = sitofp i32 %tid to float
  %ui = uitofp nneg i32 %tid to double
  %tr = fptrunc double %ui to half
  %ex = fpext half %tr to float
  %bf = bitcast float %ex to i32
  %p2i = ptrtoint ptr addrspace(1) %out to i64
  %i2p = inttoptr i64 %p2i to ptr addrspace(1)
  %flat = addrspacecast ptr addrspace(1) %i2p to ptr
  %ins = insertelement <4 x i32> %vec, i32 %bf, i64 0
  %shuf = shufflevector <4 x i32> %ins, <4 x i32> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %elt = extractelement <4 x i32> %shuf, i32 %n
  %vadd = add <4 x i32> %shuf, <i32 1, i32 2, i32 3, i32 4>
  %vcmp = icmp slt <4 x i32> %vadd, zeroinitializer
  %agg = insertvalue %struct.pair undef, i32 %elt, 0
  %agg2 = insertvalue %struct.pair %agg, float %ex, 1
  %first = extractvalue %struct.pair %agg2, 0
  %pf = getelementptr inbounds %struct.pair, ptr addrspace(1) %pp, i64 0, i32 1
  %pv = load float, ptr addrspace(1) %pf, align 4
  %rmw = atomicrmw add ptr addrspace(1) @counter, i32 1 syncscope("agent-one-as") monotonic, align 4
  %rmwf = atomicrmw fadd ptr addrspace(1) %out, float %pv syncscope("workgroup") seq_cst, align 4
  %cx = cmpxchg weak ptr addrspace(1) %out, i32 0, i32 %rmw syncscope("wavefront") acq_rel monotonic, align 4
  %cxv = extractvalue { i32, i1 } %cx, 0
  fence syncscope("workgroup") release
  %ld = load atomic i32, ptr addrspace(1) @alias syncscope("agent") acquire, align 4
  %fz = freeze i32 %ld
  %priv = alloca [4 x i32], align 4, addrspace(5)
  %pslot = getelementptr inbounds [4 x i32], ptr addrspace(5) %priv, i32 0, i32 %fz
  store i32 %first, ptr addrspace(5) %pslot, align 4
  %c = load ptr addrspace(4), ptr addrspace(4) @second, align 8
  %tv = load float, ptr addrspace(4) %c, align 4
  %sw = and i32 %fz, 3
  switch i32 %sw, label %"the end" [
    i32 0, label %zero
    i32 1, label %"the end"
  ]

zero:
  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %rf = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %lo)
  %asm = call i32 asm sideeffect "v_mov_b32 $0, $1", "=v,v"(i32 %rf)
  %sum = add nuw nsw i32 %asm, %cxv
  store i32 %sum, ptr addrspace(1) %out, align 4
  br label %"the end"

"the end":
  %ph = phi float [ %tv, %"entry block" ], [ %tv, %"entry block" ], [ %ex, %zero ]
  store float %ph, ptr addrspace(1) %out, align 4
  ret void
}

define internal fastcc noundef i32 @helper(i32 noundef signext %a) unnamed_addr #1 {
entry:
  %r = mul nsw i32 %a, 3
  ret i32 %r
}

define void @unreachable_tail(i1 %c) {
entry:
  br i1 %c, label %dead, label %live

dead:
  unreachable

live:
  %v = call fastcc i32 @helper(i32 signext 7)
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x() #2
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32) #2
declare i32 @llvm.amdgcn.readfirstlane.i32(i32) #3

attributes #0 = { convergent mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite) "amdgpu-flat-work-group-size"="1,256" "uniform-work-group-size"="true" }
attributes #1 = { alwaysinline nounwind }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { convergent nocallback nofree nounwind willreturn memory(none) }

declare i32 @llvm.amdgcn.workitem.id.x() inreg

declare i32 @llvm.amdgcn.workitem.id.x() #0

attributes #0 = { range(i32 0, 1024) nounwind }

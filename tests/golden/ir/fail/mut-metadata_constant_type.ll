!llvm.module.flags = !{!0}

!0 = !{i32 1, i32 true, i32 1}

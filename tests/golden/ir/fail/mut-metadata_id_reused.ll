!llvm.module.flags = !{!0}

!0 = !{i32 1, !"wchar_size", i32 4}
!0 = !{i32 1, !"wchar_size", i32 4}

!llvm.module.flags = !{!0}

!0 = !{i32 1, !"wchar_size", i8388609 4}

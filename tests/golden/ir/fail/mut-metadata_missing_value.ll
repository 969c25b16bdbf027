!llvm.module.flags = !{!0}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 }

!llvm.module.flags = !{!0}

!0 = !{!"x", double 0}

; !range on an add, !nonnull on an i32 load, !align on a getelementptr
define i32 @f(i32 %x, ptr %p) {
entry:
  %a = add i32 %x, 1, !range !0
  %b = load i32, ptr %p, align 4, !nonnull !1
  %q = getelementptr i8, ptr %p, i64 4, !align !2
  ret i32 %a
}

!0 = !{i32 0, i32 10}
!1 = !{}
!2 = !{i64 4}

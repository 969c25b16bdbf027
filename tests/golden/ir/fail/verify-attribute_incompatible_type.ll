; zeroext on a float parameter, align on an i32, nofpclass on an i32, a range of the wrong width
define void @f(float zeroext %x, i32 align 4 %y, i32 nofpclass(nan) %z, i32 range(i64 0, 4) %w) {
entry:
  ret void
}

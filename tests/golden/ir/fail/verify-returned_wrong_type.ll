; a 'returned' parameter whose type is not the return type
define i32 @f(i64 returned %x) {
  ret i32 0
}

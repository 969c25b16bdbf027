/* Integer math per element: signed/unsigned min and max, abs, rotates, bit counts,
 * shifts, division and remainder by a kernel argument, and 24-bit multiplies. */
#include "common.h"

static inline int imin(int a, int b) { return a < b ? a : b; }
static inline uint umax(uint a, uint b) { return a > b ? a : b; }

kernel void int_ops(global const int *a, global const uint *b, global int *out, int d) {
  uint i = global_x();
  int x = a[i];
  uint y = b[i];
  int m = imin(x, (int)y) + (int)umax((uint)x, y);
  uint r = (y << 5) | (y >> 27);
  int bits = __builtin_popcount(y) + __builtin_clz(y | 1) + __builtin_ctz(y | 0x80000000u);
  int ab = x < 0 ? -x : x;
  int q = d != 0 ? x / d + x % d : 0;
  uint u = d > 0 ? y / (uint)d : y;
  out[i] = m + (int)r + bits + ab + q + (int)u + ((x & 0xffffff) * (int)(y & 0xffffff)) + (x >> 3) + (int)(y >> 7);
}

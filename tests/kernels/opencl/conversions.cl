/* Conversions between integer and float types of several widths: sign and zero
 * extension, truncation, int <-> float, float <-> double, char and short vectors. */
#include "common.h"

kernel void convert_all(global const char *c, global const short *s, global const uint *u,
                        global const double *d, global float4 *out, global long *l, global uchar4 *bytes) {
  uint i = global_x();
  int ci = c[i];
  uint su = (ushort)s[i];
  long sl = s[i];
  float f = (float)u[i] + (float)ci + (float)d[i];
  double back = (double)f + (double)sl;
  out[i] = (float4)(f, (float)su, (float)back, (float)(long)back);
  l[i] = (long)u[i] * sl + (long)(ulong)u[i];
  bytes[i] = (uchar4)((uchar)ci, (uchar)su, (uchar)(u[i] >> 8), (uchar)f);
}

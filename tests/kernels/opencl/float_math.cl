/* Float math per element: fma, fmin/fmax clamps, fabs, copysign, floor/sqrt builtins,
 * float <-> int conversions with rounding and saturation, and a double accumulation. */
#include "common.h"

kernel void float_ops(global const float *x, global const float *y, global float *out, global int *ints,
                      global double *dsum, float lo, float hi) {
  uint i = global_x();
  float a = x[i], b = y[i];
  float c = fma(a, b, 1.0f);
  c = fmin(fmax(c, lo), hi);
  float d = fabs(a - b) + __builtin_copysignf(1.0f, b);
  float e = __builtin_sqrtf(fabs(c)) + __builtin_floorf(d);
  out[i] = c * d - e / (b + 2.0f);
  ints[i] = (int)e + (int)__builtin_rintf(d) + (int)(uint)fabs(c);
  double acc = (double)a * (double)b;
  dsum[i] = acc + (double)ints[i] - (double)(long)(acc * 1e3);
}

/* Half-precision arithmetic: a half-precision blend and fma of two images, with
 * conversions to and from float and a clamp to [0, 1]. */
#include "common.h"

kernel void blend_half(global const half *a, global const half *b, global half *out, float alpha) {
  uint i = global_x();
  half h = (half)alpha;
  half v = a[i] * h + b[i] * ((half)1.0f - h);
  v = v < (half)0.0f ? (half)0.0f : (v > (half)1.0f ? (half)1.0f : v);
  float f = (float)v;
  out[i] = (half)(f * f) + v;
}

/* Seven-point 1D stencil with the block and its halo staged in LDS (radius 3, 256
 * work-items per group). */
#include "common.h"

#define R 3
#define B 256

kernel void stencil_1d(global const float *in, global float *out, uint n) {
  local float tile[B + 2 * R];
  uint t = tid_x();
  int g = (int)global_x();
  tile[t + R] = g < (int)n ? in[g] : 0.0f;
  if (t < R) {
    int lo = g - R;
    int hi = g + B;
    tile[t] = lo >= 0 ? in[lo] : 0.0f;
    tile[t + B + R] = hi < (int)n ? in[hi] : 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const float w[2 * R + 1] = {0.05f, 0.1f, 0.2f, 0.3f, 0.2f, 0.1f, 0.05f};
  float acc = 0.0f;
  for (int k = -R; k <= R; ++k)
    acc = fma(w[k + R], tile[t + R + k], acc);
  if (g < (int)n)
    out[g] = acc;
}

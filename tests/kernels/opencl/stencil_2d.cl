/* Five-point 2D stencil (Jacobi step) on a width x height grid; boundary cells copy
 * their input. */
#include "common.h"

kernel void jacobi(global const float *in, global float *out, uint width, uint height) {
  uint x = global_x();
  uint y = global_y();
  if (x >= width || y >= height)
    return;
  uint c = y * width + x;
  if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
    out[c] = in[c];
    return;
  }
  out[c] = 0.25f * (in[c - 1] + in[c + 1] + in[c - width] + in[c + width]);
}

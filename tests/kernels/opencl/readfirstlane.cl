/* Wave-uniform work distribution: the first active lane's value is broadcast with
 * readfirstlane and used as a uniform base index; lanes then read relative to it. */
#include "common.h"

kernel void broadcast_first(global const int *offsets, global const float *in, global float *out) {
  uint i = global_x();
  int mine = offsets[i];
  int base = __builtin_amdgcn_readfirstlane(mine);
  float scale = in[base];
  out[i] = in[base + (int)lane_id()] * scale;
  if (mine == base)
    out[i] += 1.0f;
}

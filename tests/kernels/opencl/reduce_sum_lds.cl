/* Sum reduction through LDS: each work-group adds its 256 elements in a tree of halving
 * steps separated by barriers; work-item 0 writes the group's partial sum. */
#include "common.h"

kernel void reduce_sum(global const int *in, global int *partial, uint n) {
  local int buf[256];
  uint t = tid_x();
  uint i = global_x();
  buf[t] = i < n ? in[i] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = 128; s > 0; s >>= 1) {
    if (t < s)
      buf[t] += buf[t + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0)
    partial[group_x()] = buf[0];
}

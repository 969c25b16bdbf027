/* Inclusive prefix sum of 256-element blocks (Hillis-Steele in LDS with double
 * buffering); also writes each block's total for a second pass. */
#include "common.h"

kernel void prefix_scan(global const uint *in, global uint *out, global uint *block_sums) {
  local uint buf[2][256];
  uint t = tid_x();
  uint i = global_x();
  int src = 0;
  buf[0][t] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < 256; off <<= 1) {
    uint v = buf[src][t];
    if (t >= off)
      v += buf[src][t - off];
    buf[1 - src][t] = v;
    src = 1 - src;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[i] = buf[src][t];
  if (t == 255)
    block_sums[group_x()] = buf[src][t];
}

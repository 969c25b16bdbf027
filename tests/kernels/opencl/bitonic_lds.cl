/* Bitonic sort of 256-element blocks entirely in LDS: all stages and steps run in the
 * kernel with a barrier between steps (loops with uniform trip counts). */
#include "common.h"

kernel void bitonic_block(global int *data) {
  local int s[256];
  uint t = tid_x();
  uint base = group_x() * 256;
  s[t] = data[base + t];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 2; k <= 256; k <<= 1) {
    for (uint j = k >> 1; j > 0; j >>= 1) {
      uint p = t ^ j;
      if (p > t) {
        int a = s[t], b = s[p];
        bool up = (t & k) == 0;
        if ((a > b) == up) {
          s[t] = b;
          s[p] = a;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  data[base + t] = s[t];
}

/* Wave rotation and butterfly sum with ds_bpermute: each lane reads the value of lane
 * (lane + shift) mod 64, then a xor-butterfly leaves the wave's sum in every lane. */
#include "common.h"

kernel void rotate_and_sum(global const int *in, global int *rotated, global int *sums, uint shift) {
  uint i = global_x();
  uint lane = lane_id();
  int v = in[i];
  rotated[i] = __builtin_amdgcn_ds_bpermute((int)(((lane + shift) & 63u) << 2), v);
  for (uint m = 1; m < 64; m <<= 1)
    v += __builtin_amdgcn_ds_bpermute((int)((lane ^ m) << 2), v);
  if (lane == 0)
    sums[i >> 6] = v;
}

/* ds_swizzle patterns within groups of 32 lanes: quad broadcast of lane 0, a swap of
 * neighbouring lanes (bit mode xor 1) and a reverse of groups of 8, combined into one value. */
#include "common.h"

kernel void swizzles(global const int *in, global int *out) {
  uint i = global_x();
  int v = in[i];
  int quad0 = __builtin_amdgcn_ds_swizzle(v, 0x8000);        /* quad-perm mode: all take lane 0 */
  int swap1 = __builtin_amdgcn_ds_swizzle(v, (1 << 10) | 0x1f); /* bit mode: xor 1 */
  int rev8 = __builtin_amdgcn_ds_swizzle(v, (7 << 10) | 0x1f);  /* bit mode: xor 7 */
  out[i] = quad0 + 3 * swap1 - rev8;
}

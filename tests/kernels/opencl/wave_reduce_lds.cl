/* Two-level reduction: each wavefront sums its 64 lanes with DPP row shifts and
 * ds_bpermute, readfirstlane makes the wave's total scalar, and one lane per wave adds
 * it to an LDS accumulator with a local atomic before a global atomic_add. */
#include "common.h"

kernel void wave_reduce(global const int *in, global int *total) {
  local int acc;
  uint t = tid_x();
  if (t == 0)
    acc = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int v = in[global_x()];
  v += __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, true);
  v += __builtin_amdgcn_update_dpp(0, v, 0x112, 0xf, 0xf, true);
  v += __builtin_amdgcn_update_dpp(0, v, 0x114, 0xf, 0xf, true);
  v += __builtin_amdgcn_update_dpp(0, v, 0x118, 0xf, 0xf, true);
  /* the row totals sit in lanes 15, 31, 47 and 63 */
  uint lane = lane_id();
  int r1 = __builtin_amdgcn_ds_bpermute((int)((31u) << 2), v);
  int r2 = __builtin_amdgcn_ds_bpermute((int)((47u) << 2), v);
  int r3 = __builtin_amdgcn_ds_bpermute((int)((63u) << 2), v);
  int r0 = __builtin_amdgcn_ds_bpermute((int)((15u) << 2), v);
  int wave_sum = __builtin_amdgcn_readfirstlane(r0 + r1 + r2 + r3);
  if (lane == 0)
    atomic_add(&acc, wave_sum);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t == 0)
    atomic_add(total, acc);
}

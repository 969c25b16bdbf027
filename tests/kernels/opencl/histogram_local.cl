/* 64-bin histogram of bytes: counts in LDS with atomic_inc, then one atomic_add per bin
 * into the global histogram. */
#include "common.h"

kernel void histogram(global const uchar *data, uint n, global uint *hist) {
  local uint bins[64];
  uint t = tid_x();
  if (t < 64)
    bins[t] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = global_x(); i < n; i += group_size_x() * 64)
    atomic_inc(&bins[data[i] & 63]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t < 64 && bins[t] != 0)
    atomic_add(&hist[t], bins[t]);
}

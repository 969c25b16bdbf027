/* 16-bin histogram of keys with C11-style atomics: __opencl_atomic_fetch_add at
 * work-group scope in LDS, __atomic_fetch_add on global memory, and a global counter of
 * out-of-range keys. */
#include "common.h"

kernel void histogram_c11(global const int *keys, global int *hist, global int *rejected) {
  local atomic_int bins[16];
  uint t = tid_x();
  if (t < 16)
    __opencl_atomic_store(&bins[t], 0, memory_order_relaxed, memory_scope_work_group);
  barrier(CLK_LOCAL_MEM_FENCE);
  int k = keys[global_x()];
  if (k >= 0 && k < 16)
    __opencl_atomic_fetch_add(&bins[k], 1, memory_order_relaxed, memory_scope_work_group);
  else
    __atomic_fetch_add(rejected, 1, __ATOMIC_RELAXED);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t < 16) {
    int c = __opencl_atomic_load(&bins[t], memory_order_relaxed, memory_scope_work_group);
    __atomic_fetch_add(&hist[t], c, __ATOMIC_SEQ_CST);
  }
}

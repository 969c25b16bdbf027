/* Per-group lookup table in an LDS global variable (a program-scope-like `local` array
 * declared in the kernel), filled cooperatively from constant memory, then gathered. */
#include "common.h"

constant float table_init[16] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 3.5f,
                                 4.0f, 4.5f, 5.0f, 5.5f, 6.0f, 6.5f, 7.0f, 7.5f};

kernel void gather_table(global const uchar *idx, global float *out, float scale) {
  local float table[16];
  uint t = tid_x();
  if (t < 16)
    table[t] = table_init[t] * scale;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint i = global_x();
  out[i] = table[idx[i] & 15];
}

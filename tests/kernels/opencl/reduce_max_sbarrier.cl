/* Maximum reduction through a dynamically sized LDS buffer (a `local` kernel argument),
 * synchronised with the raw s_barrier builtin; the group size is read at run time. */
#include "common.h"

kernel void reduce_max(global const float *in, global float *out, local float *buf) {
  uint t = tid_x();
  uint size = group_size_x();
  buf[t] = in[global_x()];
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  for (uint s = size / 2; s > 0; s /= 2) {
    if (t < s)
      buf[t] = fmax(buf[t], buf[t + s]);
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  }
  if (t == 0)
    out[group_x()] = buf[0];
}

/* Lane permutations with mov_dpp: each lane takes the value of its quad mirror
 * (quad_perm [3,2,1,0]) minus that of its row mirror (row_mirror: lane 15 - i of its
 * 16-lane row), and a float moves through its bit pattern with quad_perm [1,0,3,2]. */
#include "common.h"

kernel void quad_ops(global const int *in, global const float *f, global int *out, global float *fout) {
  uint i = global_x();
  int v = in[i];
  int mirror = __builtin_amdgcn_mov_dpp(v, 0x1b, 0xf, 0xf, false);   /* quad_perm 3,2,1,0 */
  int rmirror = __builtin_amdgcn_mov_dpp(v, 0x140, 0xf, 0xf, false); /* row_mirror */
  out[i] = mirror - rmirror;
  int bits = __builtin_amdgcn_mov_dpp(as_int(f[i]), 0xb1, 0xf, 0xf, false); /* quad_perm 1,0,3,2 */
  fout[i] = as_float(bits) + f[i];
}

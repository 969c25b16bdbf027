/* Row-wise (16-lane) inclusive prefix sum with update_dpp row_shr:1,2,4,8; lanes shifted in
 * from outside the row read the identity 0 (bound_ctrl). */
#include "common.h"

kernel void row_scan(global const int *in, global int *out) {
  uint i = global_x();
  int v = in[i];
  v += __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, true); /* row_shr:1 */
  v += __builtin_amdgcn_update_dpp(0, v, 0x112, 0xf, 0xf, true); /* row_shr:2 */
  v += __builtin_amdgcn_update_dpp(0, v, 0x114, 0xf, 0xf, true); /* row_shr:4 */
  v += __builtin_amdgcn_update_dpp(0, v, 0x118, 0xf, 0xf, true); /* row_shr:8 */
  out[i] = v;
}

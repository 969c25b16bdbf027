/* Matrix transpose through a 16x17 LDS tile (the padding column avoids bank conflicts);
 * 16x16 work-groups, rows x cols input. */
#include "common.h"

#define T 16

kernel void transpose(global const float *in, global float *out, uint rows, uint cols) {
  local float tile[T][T + 1];
  uint tx = tid_x(), ty = tid_y();
  uint x = group_x() * T + tx;
  uint y = group_y() * T + ty;
  if (x < cols && y < rows)
    tile[ty][tx] = in[y * cols + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  x = group_y() * T + tx;
  y = group_x() * T + ty;
  if (x < rows && y < cols)
    out[y * rows + x] = tile[tx][ty];
}

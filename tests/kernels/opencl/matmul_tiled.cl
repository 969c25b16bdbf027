/* Tiled matrix multiply C = A * B (A is m x k, B is k x n, row-major) with 16x16 tiles of
 * A and B staged in LDS; the k loop is uniform, the bounds checks divergent. */
#include "common.h"

#define T 16

kernel void matmul(global const float *A, global const float *B, global float *C, uint m, uint n, uint k) {
  local float As[T][T];
  local float Bs[T][T];
  uint tx = tid_x(), ty = tid_y();
  uint row = group_y() * T + ty;
  uint col = group_x() * T + tx;
  float acc = 0.0f;
  for (uint t0 = 0; t0 < k; t0 += T) {
    As[ty][tx] = (row < m && t0 + tx < k) ? A[row * k + t0 + tx] : 0.0f;
    Bs[ty][tx] = (col < n && t0 + ty < k) ? B[(t0 + ty) * n + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < T; ++j)
      acc = fma(As[ty][j], Bs[j][tx], acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < m && col < n)
    C[row * n + col] = acc;
}

/* Sparse matrix-vector product y = A x with A in CSR form, one row per work-item:
 * the inner loop's bounds come from row_ptr, so its trip count diverges. */
#include "common.h"

kernel void spmv_csr(global const uint *row_ptr, global const uint *cols, global const float *vals,
                     global const float *x, global float *y, uint rows) {
  uint r = global_x();
  if (r >= rows)
    return;
  float sum = 0.0f;
  for (uint j = row_ptr[r]; j < row_ptr[r + 1]; ++j)
    sum += vals[j] * x[cols[j]];
  y[r] = sum;
}

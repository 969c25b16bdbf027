/* SAXPY: y[i] = alpha * x[i] + y[i], with a grid-stride loop (the grid has `groups`
 * work-groups) so any grid covers any n. */
#include "common.h"

kernel void saxpy(float alpha, global const float *x, global float *y, uint n, uint groups) {
  uint stride = group_size_x() * groups;
  for (uint i = global_x(); i < n; i += stride)
    y[i] = alpha * x[i] + y[i];
}

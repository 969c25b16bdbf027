/* Vector add: c[i] = a[i] + b[i] for every i below n (one element per work-item). */
#include "common.h"

kernel void vector_add(global const float *a, global const float *b, global float *c, uint n) {
  uint i = global_x();
  if (i < n)
    c[i] = a[i] + b[i];
}

/* Polynomial evaluation (Horner) with a uniform trip count: the degree is a kernel
 * argument, so every lane runs the same number of iterations. */
#include "common.h"

kernel void horner(global const float *coef, uint degree, global const float *x, global float *y) {
  uint i = global_x();
  float xv = x[i];
  float acc = 0.0f;
  for (uint d = 0; d <= degree; ++d)
    acc = fma(acc, xv, coef[degree - d]);
  y[i] = acc;
}

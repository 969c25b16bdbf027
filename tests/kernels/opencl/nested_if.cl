/* Classify points against nested regions: nested ifs on per-lane data (divergent) and
 * on kernel arguments (uniform), with an early return. */
#include "common.h"

kernel void classify(global const float2 *p, global int *cls, float r_inner, float r_outer, int mode) {
  uint i = global_x();
  float2 q = p[i];
  float d2 = q.x * q.x + q.y * q.y;
  int c;
  if (mode == 0) {
    cls[i] = -1;
    return;
  }
  if (d2 < r_outer * r_outer) {
    if (d2 < r_inner * r_inner) {
      c = 1;
      if (q.x > 0.0f) {
        if (q.y > 0.0f)
          c = 10;
        else
          c = 11;
      }
    } else {
      c = mode > 1 ? 2 : 3;
    }
  } else if (q.x < 0.0f) {
    c = 4;
  } else {
    c = 5;
  }
  cls[i] = c;
}

/* Affine transform of 2D points whose parameters arrive as a struct kernel argument
 * (passed by value), plus an array of structs in global memory. */
#include "common.h"

typedef struct {
  float m00, m01, m10, m11;
  float tx, ty;
  int flags;
} Affine;

typedef struct {
  float x, y;
  int id;
} Point;

kernel void transform(Affine t, global const Point *in, global Point *out, uint n) {
  uint i = global_x();
  if (i >= n)
    return;
  Point p = in[i];
  Point q;
  q.x = t.m00 * p.x + t.m01 * p.y + t.tx;
  q.y = t.m10 * p.x + t.m11 * p.y + t.ty;
  q.id = (t.flags & 1) ? p.id : -p.id;
  out[i] = q;
}

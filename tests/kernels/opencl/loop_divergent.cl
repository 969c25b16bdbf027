/* Collatz step counts: the while loop's trip count depends on each lane's start value
 * (a divergent loop exit), capped at `limit` steps with a break. */
#include "common.h"

kernel void collatz(global const uint *start, global uint *steps, uint limit) {
  uint i = global_x();
  uint v = start[i];
  uint n = 0;
  while (v > 1) {
    v = (v & 1) ? 3 * v + 1 : v >> 1;
    if (++n == limit)
      break;
  }
  steps[i] = n;
}

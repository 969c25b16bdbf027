/* One step of a bitonic sort over global memory: for stage `k` and distance `j`, each
 * work-item compares element i with its partner i ^ j and swaps them into the order of
 * its k-block (ascending when i & k is zero). */
#include "common.h"

kernel void bitonic_step(global uint *keys, uint j, uint k) {
  uint i = global_x();
  uint p = i ^ j;
  if (p > i) {
    uint a = keys[i];
    uint b = keys[p];
    bool up = (i & k) == 0;
    if ((a > b) == up) {
      keys[i] = b;
      keys[p] = a;
    }
  }
}

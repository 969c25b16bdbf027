/* A small bytecode interpreter step: a switch on a per-lane opcode (divergent switch)
 * with a default case, fall-through and a loop over a uniform program length. */
#include "common.h"

kernel void interpret(global const uchar *ops, uint len, global const int *init, global int *out) {
  uint i = global_x();
  int acc = init[i];
  for (uint pc = 0; pc < len; ++pc) {
    uchar op = ops[(i + pc) % len];
    switch (op & 7) {
    case 0: acc += 1; break;
    case 1: acc -= 3; break;
    case 2: acc *= 2; break;
    case 3: acc ^= 0x55; /* fall through */
    case 4: acc >>= 1; break;
    case 6: acc = -acc; break;
    default: acc |= (int)pc; break;
    }
  }
  out[i] = acc;
}

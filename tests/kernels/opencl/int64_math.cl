/* 64-bit integer math with 64-bit indexing: a splitmix64 hash of each global index,
 * 64-bit multiply, unsigned division and remainder, shifts, and addresses formed from
 * 64-bit offsets into a large buffer. */
#include "common.h"

static inline ulong splitmix64(ulong z) {
  z += 0x9e3779b97f4a7c15ul;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
  return z ^ (z >> 31);
}

kernel void hash64(global ulong *out, global const long *big, ulong stride, ulong modulus) {
  ulong i = global_x64();
  ulong h = splitmix64(i);
  long off = (long)(i * stride);
  long v = big[off] + (long)(h % modulus) - (long)(h / (modulus | 1));
  out[i] = h ^ (ulong)v ^ (h << 13) ^ ((ulong)v >> 7) ^ (ulong)((long)v >> 11);
}

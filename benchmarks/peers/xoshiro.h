/* The generator of the C peers: xoshiro256+ (Blackman and Vigna), the top 53 bits as a double
   in [0, 1), exactly as qtheory/_rng.py, and splitmix64 to expand a seed into its state.
   Included by redundancy.c and utility.c (one translation unit each, so the state is static). */
#ifndef QTHEORY_PEERS_XOSHIRO_H
#define QTHEORY_PEERS_XOSHIRO_H

#include <stdint.h>

static uint64_t s[4];

static inline uint64_t rotl(const uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline double uniform(void) {
    const uint64_t result = s[0] + s[3];
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return (result >> 11) * 0x1.0p-53;
}

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif

/* Shared pieces of the independent C loops in benchmarks/independent/.
 *
 * The generator is xoshiro256+ (Blackman and Vigna) with its four words in a struct that
 * each loop keeps in a local variable and passes by address to these always-inlined
 * functions: after inlining, gcc keeps the words in registers for the whole loop (no store
 * to memory per draw). A uniform double takes the top 53 bits (the low bits of xoshiro256+
 * are its weak ones). The state is seeded by splitmix64 of one 64-bit seed.
 *
 * Arrays are passed on stdin in binary (little-endian int32 / float64, as numpy writes
 * them), so that reading them costs nothing next to a run; the loop is timed alone, in
 * wall time and in processor time of the process.
 */
#ifndef QTHEORY_INDEPENDENT_COMMON_H
#define QTHEORY_INDEPENDENT_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

typedef struct {
    uint64_t s0, s1, s2, s3;
} rng_t;

ALWAYS_INLINE uint64_t rng_next(rng_t *r) {
    const uint64_t result = r->s0 + r->s3;
    const uint64_t t = r->s1 << 17;
    r->s2 ^= r->s0;
    r->s3 ^= r->s1;
    r->s1 ^= r->s2;
    r->s0 ^= r->s3;
    r->s2 ^= t;
    r->s3 = (r->s3 << 45) | (r->s3 >> 19);
    return result;
}

/* a double in [0, 1) with 53 random bits */
ALWAYS_INLINE double rng_uniform(rng_t *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* The weight of a state in a time average: its holding time's conditional mean 1 / R (`inv`),
   or, built with -DDRAWN_HOLDING_TIMES (an ablation, to measure what the draws cost), a drawn
   exponential holding time -log(1 - U) / R, as an event-driven simulation would draw it. */
#ifdef DRAWN_HOLDING_TIMES
#define HOLDING(rng, inv) (-log(1.0 - rng_uniform(rng)) * (inv))
#else
#define HOLDING(rng, inv) (inv)
#endif

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static rng_t rng_seed(uint64_t seed) {
    rng_t r;
    r.s0 = splitmix64(&seed);
    r.s1 = splitmix64(&seed);
    r.s2 = splitmix64(&seed);
    r.s3 = splitmix64(&seed);
    return r;
}

/* wall and processor clocks of a timed stretch */
typedef struct {
    struct timespec wall, cpu;
} stamp_t;

static stamp_t stamp(void) {
    stamp_t s;
    clock_gettime(CLOCK_MONOTONIC, &s.wall);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &s.cpu);
    return s;
}

static double seconds_between(struct timespec a, struct timespec b) {
    return (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
}

static void fail(const char *message) {
    fprintf(stderr, "%s\n", message);
    exit(2);
}

/* `count` items of `size` bytes from stdin into a new array (exit 2 if short) */
static __attribute__((unused)) void *read_array(size_t count, size_t size) {
    void *out = malloc(count * size + 64);
    if (out == NULL) fail("out of memory");
    if (count && fread(out, size, count, stdin) != count) fail("short input on stdin");
    return out;
}

/* the one output line: events, wall seconds, processor seconds, the statistic, and two
   statistics for the tests (nan unless built with -DCHECK, and where the loop has none) */
static void report(long events, stamp_t a, stamp_t b, double statistic, double check, double check2) {
    printf("%ld %.9f %.9f %.17g %.17g %.17g\n", events, seconds_between(a.wall, b.wall),
           seconds_between(a.cpu, b.cpu), statistic, check, check2);
}

#endif

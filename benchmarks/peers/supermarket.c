/* JSQ(2) supermarket model in C: the speed limit for the numba simulators.
 *
 * N single-server queues with unit service rate, Poisson arrivals of total rate
 * lambda * N; an arrival samples two distinct queues uniformly and joins the shorter
 * (ties to the first sampled; the pair is uniformly ordered, so ties are fair).
 * The event loop the L kernel ran on the complete bipartite graph with one server type
 * before issue 33 (the kernel now runs by uniformisation, so this port is a reference of
 * its earlier algorithm, not of today's): one exponential holding time per event, the
 * occupancy q_l (l = 1..L), the mean and the mean square queue length recorded on a
 * regular time grid, a busy list for departures.
 *
 * Output (one line): events seconds mean_queue_length_time_average cpu_seconds
 * where the average is over the grid points at times >= warmup; seconds is the wall time
 * of the loop, cpu_seconds the processor time of the process.
 *
 * The generator is xoshiro256+ by default; built with -DUSE_MT19937 it is the Mersenne
 * Twister with NumPy's 53-bit doubles, the generator numba uses, so that the cost of the
 * generator can be told apart from the cost of the loop.
 *
 * Build: gcc -O2 [-DUSE_MT19937] -o supermarket supermarket.c -lm
 * Usage: supermarket N lambda horizon warmup n_grid levels seed
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef USE_MT19937
static uint32_t mt[624];
static int mti = 625;

static void mt_seed(uint32_t seed) {
    mt[0] = seed;
    for (mti = 1; mti < 624; mti++) mt[mti] = 1812433253U * (mt[mti - 1] ^ (mt[mti - 1] >> 30)) + mti;
}

static inline uint32_t mt_next(void) {
    uint32_t y;
    if (mti >= 624) {
        int k;
        for (k = 0; k < 624 - 397; k++) {
            y = (mt[k] & 0x80000000U) | (mt[k + 1] & 0x7fffffffU);
            mt[k] = mt[k + 397] ^ (y >> 1) ^ (-(y & 1U) & 0x9908b0dfU);
        }
        for (; k < 623; k++) {
            y = (mt[k] & 0x80000000U) | (mt[k + 1] & 0x7fffffffU);
            mt[k] = mt[k + (397 - 624)] ^ (y >> 1) ^ (-(y & 1U) & 0x9908b0dfU);
        }
        y = (mt[623] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[623] = mt[396] ^ (y >> 1) ^ (-(y & 1U) & 0x9908b0dfU);
        mti = 0;
    }
    y = mt[mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static inline double uniform(void) {
    const uint32_t a = mt_next() >> 5, b = mt_next() >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
}
#else
static uint64_t s[4];

static inline uint64_t rotl(const uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256+ (Blackman and Vigna), top 53 bits as a double in [0, 1) */
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
#endif

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int main(int argc, char **argv) {
    if (argc != 8) {
        fprintf(stderr, "usage: %s N lambda horizon warmup n_grid levels seed\n", argv[0]);
        return 2;
    }
    const long n = atol(argv[1]);
    const double lam = atof(argv[2]);
    const double horizon = atof(argv[3]);
    const double warmup = atof(argv[4]);
    const long n_grid = atol(argv[5]);
    const long levels = atol(argv[6]);
    uint64_t seed = strtoull(argv[7], NULL, 10);
    if (n < 2 || lam <= 0.0 || horizon <= 0.0 || n_grid < 2 || levels < 1) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
#ifdef USE_MT19937
    mt_seed((uint32_t)splitmix64(&seed));
#else
    for (int i = 0; i < 4; i++) s[i] = splitmix64(&seed);
#endif

    long *state = calloc(n, sizeof(long));
    long *busy = malloc(n * sizeof(long));
    long *pos = malloc(n * sizeof(long));
    long *count = calloc(levels + 1, sizeof(long));
    double *occupancy = calloc(n_grid * levels, sizeof(double));
    double *mean_len = calloc(n_grid, sizeof(double));
    double *mean_sq = calloc(n_grid, sizeof(double));
    double *t_grid = malloc(n_grid * sizeof(double));
    for (long g = 0; g < n_grid; g++) t_grid[g] = horizon * g / (n_grid - 1);
    for (long j = 0; j < n; j++) pos[j] = -1;

    struct timespec t0, t1, p0, p1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p0);
    long n_busy = 0, total = 0, total_sq = 0, events = 0, g = 0;
    const double lam_total = lam * n, inv = 1.0 / n;
    double t = 0.0;
    for (;;) {
        const double rate = lam_total + (double)n_busy;
        t += -log(1.0 - uniform()) / rate;
        while (g < n_grid && t_grid[g] < t) {
            for (long l = 0; l < levels; l++) occupancy[g * levels + l] = count[l + 1] * inv;
            mean_len[g] = total * inv;
            mean_sq[g] = total_sq * inv;
            g++;
        }
        if (g == n_grid) break;
        events++;
        double r = uniform() * rate;
        if (r < lam_total) {
            double u = uniform() * n;
            long c1 = (long)u;
            if (c1 >= n) c1 = n - 1;
            long c2 = (long)((u - c1) * (n - 1));
            if (c2 >= n - 1) c2 = n - 2;
            if (c2 >= c1) c2++;
            const long target = state[c1] <= state[c2] ? c1 : c2;
            const long x = state[target];
            state[target] = x + 1;
            total += 1;
            total_sq += 2 * x + 1;
            if (x + 1 <= levels) count[x + 1]++;
            if (x == 0) {
                busy[n_busy] = target;
                pos[target] = n_busy;
                n_busy++;
            }
        } else {
            r -= lam_total;
            long idx = (long)r;
            if (idx >= n_busy) idx = n_busy - 1;
            const long j = busy[idx];
            const long x = state[j];
            state[j] = x - 1;
            total -= 1;
            total_sq -= 2 * x - 1;
            if (x <= levels) count[x]--;
            if (x == 1) {
                const long last = busy[n_busy - 1];
                busy[pos[j]] = last;
                pos[last] = pos[j];
                pos[j] = -1;
                n_busy--;
            }
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p1);
    const double seconds = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    const double cpu = (p1.tv_sec - p0.tv_sec) + 1e-9 * (p1.tv_nsec - p0.tv_nsec);
    double acc = 0.0;
    long k = 0;
    for (long h = 0; h < n_grid; h++) {
        if (t_grid[h] >= warmup) {
            acc += mean_len[h];
            k++;
        }
    }
    printf("%ld %.9f %.12f %.9f\n", events, seconds, k ? acc / k : NAN, cpu);
    free(state); free(busy); free(pos); free(count); free(occupancy); free(mean_len); free(mean_sq); free(t_grid);
    return 0;
}

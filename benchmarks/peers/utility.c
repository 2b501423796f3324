/* JLMU and SLTA dispatching to n infinite-server pools in C: the U kernel's algorithm in C (a port).
 *
 * m classes of pools (pools of class i are positions offset[i] .. offset[i+1]-1), tasks
 * arriving at rate n lambda and each leaving at rate mu. The event loop is the one of
 * qtheory.utility.simulation's kernel for policies 0 (JLMU) and 1 (SLTA), without sample
 * times, statement for statement: per class the pools sorted by occupancy with the start of
 * every occupancy block (bound), the array of tasks for departures, integrals of the
 * utility, of the occupancy counts (area_q: -t per change, plus the end value times the
 * horizon), of the law of the task count and of SLTA's index r over [warmup, t_end], each
 * state weighing its mean holding time 1 / R (no exponential is drawn), the integrals
 * restarted at the warm-up; the same draws in the same order (one uniform per event, reused
 * as the arrival's 64-bit word for the rule's pick or as the departing task). Fed the same
 * xoshiro256+ state it takes the same path as the numba kernel (tests/test_benchmark_peers.py
 * checks it). Left out: the state samples at given times (the benchmark asks for none; with
 * them the kernel draws its holding times) and the task integral (the package computes it from
 * hist_n; printed as nan).
 *
 * Input on stdin (whitespace separated): the m + 1 offsets; delta (m x J, the marginal
 * utilities) and key (m x J, delta rounded for the ties), row by row; for SLTA the number
 * K of enumerated coordinates and their classes and levels (ecls, elev).
 * Output: line 1 "status events area_u area_s t seconds cpu_seconds" (wall and processor
 * time of the run); line 2 area_q (m x (J + 2), row
 * by row); line 3 hist_n; line 4 time_r. Doubles printed with %.17g.
 *
 * Build: gcc -O2 -o utility utility.c -lm
 * Usage: utility jlmu|slta n m J lambda mu t_end warmup u_start max_tasks r0 green_min seed < arrays
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int64_t i64;

#include "xoshiro.h" /* s, uniform(), splitmix64() */

/* 2**64 rounded down to a double (qtheory.utility.policies.UNIFORM_WORD) */
#define UNIFORM_WORD 18446744073709549568.0

/* floor(u k / 2**64): the rule's one uniform choice among k (qtheory.utility.policies.pick) */
static inline i64 pick(uint64_t u, i64 k) { return (i64)(((unsigned __int128)u * (uint64_t)k) >> 64); }

static i64 read_int(void) {
    long v;
    if (scanf("%ld", &v) != 1) {
        fprintf(stderr, "bad input\n");
        exit(2);
    }
    return v;
}

static double read_double(void) {
    double v;
    if (scanf("%lf", &v) != 1) {
        fprintf(stderr, "bad input\n");
        exit(2);
    }
    return v;
}

int main(int argc, char **argv) {
    if (argc != 14) {
        fprintf(stderr, "usage: %s jlmu|slta n m J lambda mu t_end warmup u_start max_tasks r0 green_min seed\n",
                argv[0]);
        return 2;
    }
    const int policy = strcmp(argv[1], "jlmu") == 0 ? 0 : (strcmp(argv[1], "slta") == 0 ? 1 : -1);
    const i64 n = atol(argv[2]);
    const i64 m = atol(argv[3]);
    const i64 J = atol(argv[4]);
    const double lam = atof(argv[5]);
    const double mu = atof(argv[6]);
    const double t_end = atof(argv[7]);
    const double t_warm = atof(argv[8]);
    const double u_start = atof(argv[9]);
    const i64 cap = atol(argv[10]);
    const i64 r0 = atol(argv[11]);
    const double green_min = atof(argv[12]);
    uint64_t seed = strtoull(argv[13], NULL, 10);
    if (policy < 0 || n < 1 || m < 1 || J < 1 || lam <= 0 || mu <= 0 || t_end <= 0 || t_warm < 0 ||
        t_warm >= t_end || cap < 1 || r0 < 1) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    for (int i = 0; i < 4; i++) s[i] = splitmix64(&seed);
    const i64 W = J + 2;   /* row length of bound, last, area_q */
    i64 *offset = malloc((m + 1) * sizeof(i64));
    for (i64 i = 0; i <= m; i++) offset[i] = read_int();
    if (offset[0] != 0 || offset[m] != n) {
        fprintf(stderr, "bad offsets\n");
        return 2;
    }
    double *delta = malloc(m * J * sizeof(double));
    double *key = malloc(m * J * sizeof(double));
    for (i64 i = 0; i < m * J; i++) delta[i] = read_double();
    for (i64 i = 0; i < m * J; i++) key[i] = read_double();
    i64 K = 1;
    i64 *ecls, *elev;
    if (policy == 1) {
        K = read_int();
        ecls = malloc(K * sizeof(i64));
        elev = malloc(K * sizeof(i64));
        for (i64 i = 0; i < K; i++) ecls[i] = read_int();
        for (i64 i = 0; i < K; i++) elev[i] = read_int();
        if (r0 > K) {
            fprintf(stderr, "bad r0\n");
            return 2;
        }
    } else {
        ecls = calloc(1, sizeof(i64));
        elev = malloc(sizeof(i64));
        elev[0] = 1;
    }

    /* the empty initial state of qtheory.utility.simulation.simulate */
    i64 *pool_class = malloc(n * sizeof(i64));
    i64 *occ = calloc(n, sizeof(i64));
    i64 *perm = malloc(n * sizeof(i64));
    i64 *posn = malloc(n * sizeof(i64));
    i64 *bound = malloc(m * W * sizeof(i64));
    i64 *minocc = calloc(m, sizeof(i64));
    i64 *tasks = malloc(cap * sizeof(i64));
    for (i64 i = 0; i < m; i++) {
        for (i64 p = offset[i]; p < offset[i + 1]; p++) pool_class[p] = i;
        bound[i * W] = offset[i];
        for (i64 j = 1; j < W; j++) bound[i * W + j] = offset[i + 1];
    }
    for (i64 p = 0; p < n; p++) perm[p] = posn[p] = p;
    double *area_q = calloc(m * W, sizeof(double));
    double *hist_n = calloc(cap + 1, sizeof(double));
    double *time_r = calloc(K + 2, sizeof(double));
    const i64 hist_size = cap + 1;

    struct timespec c0, c1, p0, p1;
    clock_gettime(CLOCK_MONOTONIC, &c0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p0);
    i64 *green = calloc(m, sizeof(i64));
    i64 *thr = calloc(m, sizeof(i64));
    i64 r = r0;
    for (i64 k = 0; k < r0 - 1; k++) thr[ecls[k]]++;
    i64 N = 0;
    double U = u_start, t = 0.0, area_u = 0.0;
    i64 events = 0, status = 0;
    const double arrival_rate = n * lam;
    const double inv_word = UNIFORM_WORD / arrival_rate;
    const double inv_mu = 1.0 / mu;
    const int indexed = policy == 1;
    double *rate = malloc((cap + 1) * sizeof(double));
    double *inv_rate = malloc((cap + 1) * sizeof(double));
    for (i64 k = 0; k <= cap; k++) {
        rate[k] = arrival_rate + mu * k;
        inv_rate[k] = 1.0 / rate[k];
    }
    int window = 0;
    double phase_end = t_warm;

    for (;;) {
        /* the state weighs its mean holding time 1 / R (no sample times: none drawn) */
        const double t_next = t + inv_rate[N];
        double w = t_next - t;
        area_u += w * U;
        hist_n[N] += w;
        if (indexed) time_r[r] += w;
        if (t_next >= phase_end) {
            if (!window) {
                /* the warm-up: restart every integral with this state's part after it */
                window = 1;
                phase_end = t_end;
                w = t_next - t_warm;
                area_u = w * U;
                for (i64 k = 0; k < hist_size; k++) hist_n[k] = 0.0;
                for (i64 k = 0; k < K + 2; k++) time_r[k] = 0.0;
                hist_n[N] = w;
                time_r[r] = w;
                for (i64 i = 0; i < m; i++)
                    for (i64 j = 1; j < W - 1; j++) area_q[i * W + j] = -t_warm * (offset[i + 1] - bound[i * W + j]);
            }
            if (t_next >= t_end) {
                /* the horizon: give back the part past it */
                w = t_next - t_end;
                area_u -= w * U;
                hist_n[N] -= w;
                if (indexed) time_r[r] -= w;
                t = t_end;
                break;
            }
        }
        t = t_next;
        events++;
        const double v = uniform() * rate[N];
        if (v < arrival_rate) {
            const uint64_t u = (uint64_t)(v * inv_word);   /* the arrival's uniform word */
            i64 p = -1;
            if (policy == 0) {
                /* JLMU: the class with the largest marginal utility at its least occupancy */
                i64 best = 0;
                i64 x = minocc[0];
                double top = 0.0;
                if (x >= J) {
                    best = -1;
                } else {
                    top = key[x];
                    for (i64 i = 1; i < m; i++) {
                        x = minocc[i];
                        if (x >= J) {
                            best = -1;
                            break;
                        }
                        const double kk = key[i * J + x];
                        if (kk > top) {
                            best = i;
                            top = kk;
                        }
                    }
                }
                if (best >= 0) {
                    x = minocc[best];
                    const i64 lo = bound[best * W + x];
                    p = perm[lo + pick(u, bound[best * W + x + 1] - lo)];
                }
            } else {
                /* SLTA: green and yellow tokens, then the learning rules of Sec. 3.2 */
                const i64 ir = ecls[r - 1], jr = elev[r - 1];
                const i64 prev = r >= 2 ? ecls[r - 2] : -1;
                i64 g_total = 0, g_other = 0;
                for (i64 i = 0; i < m; i++) {
                    green[i] = bound[i * W + thr[i]] - offset[i];
                    g_total += green[i];
                    if (i != prev) g_other += green[i];
                }
                const i64 yellow = bound[ir * W + jr] - offset[ir];
                const int dec = prev >= 0 && g_total >= green_min && (prev >= 0 ? green[prev] : 0) >= 1;
                const int inc = g_total == 0 && yellow <= 1;
                if (g_other > 0) {
                    i64 vv = pick(u, g_other);
                    for (i64 i = 0; i < m; i++) {
                        if (i == prev) continue;
                        if (vv < green[i]) {
                            p = perm[offset[i] + vv];
                            break;
                        }
                        vv -= green[i];
                    }
                } else if (g_total > 0) {
                    p = perm[offset[prev] + pick(u, green[prev])];
                } else if (yellow > 0) {
                    p = perm[offset[ir] + pick(u, yellow)];
                } else {
                    p = pick(u, n);
                }
                if (dec) {
                    r--;
                    thr[ecls[r - 1]]--;
                } else if (inc) {
                    thr[ecls[r - 1]]++;
                    r++;
                    if (r > K) p = -2;
                }
            }
            if (p < 0) {
                status = -p;
                break;
            }
            const i64 i = pool_class[p];
            const i64 x = occ[p];
            if (x >= J) {
                status = 1;
                break;
            }
            if (N >= cap) {
                status = 3;
                break;
            }
            /* the count of (i, x + 1) grows at t: its integral takes -t (+ t_end times its end value) */
            area_q[i * W + x + 1] -= t;
            const i64 here = posn[p];
            const i64 dest = bound[i * W + x + 1] - 1;
            const i64 other = perm[dest];
            perm[dest] = p;
            perm[here] = other;
            posn[p] = dest;
            posn[other] = here;
            bound[i * W + x + 1] = dest;
            occ[p] = x + 1;
            if (dest == offset[i]) minocc[i] = x + 1;
            U += delta[i * J + x];
            tasks[N] = p;
            N++;
        } else {
            i64 k = (i64)((v - arrival_rate) * inv_mu);
            if (k >= N) k = N - 1;
            const i64 p = tasks[k];
            N--;
            tasks[k] = tasks[N];
            const i64 i = pool_class[p];
            const i64 x = occ[p];
            area_q[i * W + x] += t;
            const i64 here = posn[p];
            const i64 dest = bound[i * W + x];
            const i64 other = perm[dest];
            perm[dest] = p;
            perm[here] = other;
            posn[p] = dest;
            posn[other] = here;
            bound[i * W + x] = dest + 1;
            occ[p] = x - 1;
            if (x - 1 < minocc[i]) minocc[i] = x - 1;
            U -= delta[i * J + x - 1];
        }
    }
    if (status == 0)
        for (i64 i = 0; i < m; i++)
            for (i64 j = 1; j <= J; j++) area_q[i * W + j] += t_end * (offset[i + 1] - bound[i * W + j]);
    if (!indexed) time_r[1] = t_end - t_warm;   /* the index of JLMU is 1 throughout */
    clock_gettime(CLOCK_MONOTONIC, &c1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p1);
    const double seconds = (c1.tv_sec - c0.tv_sec) + 1e-9 * (c1.tv_nsec - c0.tv_nsec);
    const double cpu = (p1.tv_sec - p0.tv_sec) + 1e-9 * (p1.tv_nsec - p0.tv_nsec);
    printf("%ld %ld %.17g %.17g %.17g %.9f %.9f\n", (long)status, (long)events, area_u, NAN, t, seconds, cpu);
    for (i64 i = 0; i < m * W; i++) printf("%.17g%c", area_q[i], i == m * W - 1 ? '\n' : ' ');
    for (i64 i = 0; i < hist_size; i++) printf("%.17g%c", hist_n[i], i == hist_size - 1 ? '\n' : ' ');
    for (i64 i = 0; i < K + 2; i++) printf("%.17g%c", time_r[i], i == K + 1 ? '\n' : ' ');
    return status == 0 ? 0 : 3;
}

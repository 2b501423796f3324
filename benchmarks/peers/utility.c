/* JLMU and SLTA dispatching to n infinite-server pools in C: the speed limit for the U kernel.
 *
 * m classes of pools (pools of class i are positions offset[i] .. offset[i+1]-1), tasks
 * arriving at rate n lambda and each leaving at rate mu. The event loop is the one of
 * qtheory.utility.simulation._kernel_simulate for policies 0 (JLMU) and 1 (SLTA),
 * statement for statement: per class the pools sorted by occupancy with the start of
 * every occupancy block (bound), the array of tasks for departures, exact integrals of
 * the utility, of the task count, of the occupancy counts (area_q), of the law of the
 * task count and of SLTA's index r over [warmup, t_end]; the same int64 arrays; the same
 * draws in the same order (an exponential holding time, a uniform for the kind of event,
 * one integer draw for the pool or the task). Fed the same xoshiro256+ state it takes the
 * same path as the numba kernel (tests/test_benchmark_peers.py checks it). Left out: the
 * state samples at given times (the benchmark asks for none).
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

static inline double exponential(void) { return -log(1.0 - uniform()); }

static inline i64 randint(i64 k) {
    const i64 v = (i64)(uniform() * k);
    return v >= k ? k - 1 : v;
}

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
    double *last = calloc(m * W, sizeof(double));
    i64 *green = calloc(m, sizeof(i64));
    i64 *thr = calloc(m, sizeof(i64));
    i64 r = r0;
    for (i64 k = 0; k < r0 - 1; k++) thr[ecls[k]]++;
    i64 N = 0;
    double U = u_start, t = 0.0, area_u = 0.0, area_s = 0.0;
    i64 events = 0, status = 0;
    const double arrival_rate = n * lam;

#define ACCUMULATE(ci, cj)                                                       \
    do {                                                                         \
        const double a_ = last[(ci) * W + (cj)] > t_warm ? last[(ci) * W + (cj)] : t_warm; \
        const double b_ = t > t_warm ? t : t_warm;                               \
        if (b_ > a_) area_q[(ci) * W + (cj)] += (b_ - a_) * (offset[(ci) + 1] - bound[(ci) * W + (cj)]); \
        last[(ci) * W + (cj)] = t;                                               \
    } while (0)

    for (;;) {
        const double rate = arrival_rate + mu * N;
        const double t_next = t + exponential() / rate;
        const double a = t > t_warm ? t : t_warm;
        const double b = t_next < t_end ? t_next : t_end;
        if (b > a) {
            const double w = b - a;
            area_u += w * U;
            area_s += w * N;
            hist_n[N] += w;
            time_r[r] += w;
        }
        if (t_next >= t_end) {
            t = t_end;
            break;
        }
        t = t_next;
        events++;
        if (uniform() * rate < arrival_rate) {
            i64 pos = -1, p = -1;
            int dec = 0, inc = 0;
            if (policy == 0) {
                /* JLMU: the class with the largest marginal utility at its least occupancy */
                i64 best = -1;
                for (i64 i = 0; i < m; i++) {
                    const i64 x = minocc[i];
                    if (x >= J) {
                        best = -1;
                        break;
                    }
                    if (best < 0 || key[i * J + x] > key[best * J + minocc[best]]) best = i;
                }
                if (best < 0) {
                    status = 1;
                    break;
                }
                const i64 x = minocc[best];
                const i64 lo = bound[best * W + x];
                pos = lo + randint(bound[best * W + x + 1] - lo);
            } else {
                /* SLTA: green and yellow tokens, the learning rules of Sec. 3.2 */
                const i64 ir = ecls[r - 1], jr = elev[r - 1];
                const i64 prev = r >= 2 ? ecls[r - 2] : -1;
                i64 g_total = 0, g_other = 0;
                for (i64 i = 0; i < m; i++) {
                    green[i] = bound[i * W + thr[i]] - offset[i];
                    g_total += green[i];
                    if (i != prev) g_other += green[i];
                }
                const i64 yellow = bound[ir * W + jr] - offset[ir];
                dec = prev >= 0 && g_total >= green_min && (prev >= 0 ? green[prev] : 0) >= 1;
                inc = g_total == 0 && yellow <= 1;
                if (g_other > 0) {
                    i64 v = randint(g_other);
                    for (i64 i = 0; i < m; i++) {
                        if (i == prev) continue;
                        if (v < green[i]) {
                            pos = offset[i] + v;
                            break;
                        }
                        v -= green[i];
                    }
                } else if (g_total > 0) {
                    pos = offset[prev] + randint(green[prev]);
                } else if (yellow > 0) {
                    pos = offset[ir] + randint(yellow);
                } else {
                    p = randint(n);
                }
            }
            if (p < 0) p = perm[pos];
            const i64 i = pool_class[p];
            const i64 x = occ[p];
            if (x >= J) {
                status = 1;
                break;
            }
            if (N >= cap || N + 1 >= hist_size) {
                status = 3;
                break;
            }
            ACCUMULATE(i, x + 1);
            const i64 here = posn[p];
            const i64 dest = bound[i * W + x + 1] - 1;
            const i64 other = perm[dest];
            perm[dest] = p;
            perm[here] = other;
            posn[p] = dest;
            posn[other] = here;
            bound[i * W + x + 1]--;
            occ[p] = x + 1;
            if (minocc[i] == x && bound[i * W + x] == bound[i * W + x + 1]) minocc[i] = x + 1;
            U += delta[i * J + x];
            tasks[N] = p;
            N++;
            if (policy == 1) {
                if (dec) {
                    r--;
                    thr[ecls[r - 1]]--;
                } else if (inc) {
                    thr[ecls[r - 1]]++;
                    r++;
                    if (r > K) {
                        status = 2;
                        break;
                    }
                }
            }
        } else {
            const i64 k = randint(N);
            const i64 p = tasks[k];
            N--;
            tasks[k] = tasks[N];
            const i64 i = pool_class[p];
            const i64 x = occ[p];
            ACCUMULATE(i, x);
            const i64 here = posn[p];
            const i64 dest = bound[i * W + x];
            const i64 other = perm[dest];
            perm[dest] = p;
            perm[here] = other;
            posn[p] = dest;
            posn[other] = here;
            bound[i * W + x]++;
            occ[p] = x - 1;
            if (x - 1 < minocc[i]) minocc[i] = x - 1;
            U -= delta[i * J + x - 1];
        }
    }
    for (i64 i = 0; i < m; i++)
        for (i64 j = 1; j <= J; j++) ACCUMULATE(i, j);
    clock_gettime(CLOCK_MONOTONIC, &c1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p1);
    const double seconds = (c1.tv_sec - c0.tv_sec) + 1e-9 * (c1.tv_nsec - c0.tv_nsec);
    const double cpu = (p1.tv_sec - p0.tv_sec) + 1e-9 * (p1.tv_nsec - p0.tv_nsec);
    printf("%ld %ld %.17g %.17g %.17g %.9f %.9f\n", (long)status, (long)events, area_u, area_s, t, seconds, cpu);
    for (i64 i = 0; i < m * W; i++) printf("%.17g%c", area_q[i], i == m * W - 1 ? '\n' : ' ');
    for (i64 i = 0; i < hist_size; i++) printf("%.17g%c", hist_n[i], i == hist_size - 1 ? '\n' : ' ');
    for (i64 i = 0; i < K + 2; i++) printf("%.17g%c", time_r[i], i == K + 1 ? '\n' : ' ');
    return status == 0 ? 0 : 3;
}

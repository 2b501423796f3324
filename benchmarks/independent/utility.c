/* JLMU and SLTA dispatching to n infinite-server pools, written from the model for speed
 * (an independent peer).
 *
 * Model (paper U, Secs. 2-3; the benchmark uses the Table 1 system: two classes of 50
 * pools, u_i(x) = x log(r_i / x), r = (20, 30), rho = 10, n = 100): tasks arrive as a
 * Poisson process of rate n lambda, each task leaves at rate mu (infinite-server pools). A
 * pool of class i with x tasks contributes u_i(x); Delta(i, x) = u_i(x + 1) - u_i(x).
 * - JLMU (Sec. 3.1): an arrival joins a pool of the class whose least occupied pool has the
 *   largest marginal utility Delta(i, x_min(i)), ties between classes to the first class
 *   (the dictionary order; Delta rounded as the package's `key`).
 * - SLTA (Sec. 3.2): thresholds l_i(r) = number of the first r - 1 coordinates of the
 *   ranking (i_k, j_k) that belong to class i; green tokens on class-i pools with fewer
 *   than l_i(r) tasks, yellow tokens on class-i_r pools with fewer than j_r tasks. An
 *   arrival takes a uniform green token of a class other than i_{r-1} if any, else a
 *   uniform green token (of class i_{r-1}), else a uniform yellow token, else a uniform
 *   pool; r drops by one if there were at least n beta_n green tokens and one of class
 *   i_{r-1}, and grows by one if there was no green token and at most one yellow.
 * Statistic: the time average of the utility per pool, sum_p u(x_p) / n, over [warmup,
 * horizon] from empty pools (r = r0).
 *
 * Design choices (each exact for the law of the occupancy process q_n, with r_n for SLTA,
 * which is all the statistic reads):
 * - Per class the pools are kept sorted by occupancy, with the first position of every
 *   occupancy level (lo); a departure picks a uniform task from the list of tasks and moves
 *   its pool to the front of its level block. Pools of one class and one occupancy are
 *   statistically identical (the paper says so for JLMU's ties), so an arrival decided for
 *   a level x of class i (JLMU) or for a token at a uniform position (SLTA: only the level
 *   of that position matters) goes to the last pool of that level block, which then moves
 *   into the next block by shrinking it: no swap.
 * - No exponential draws: the time average weights each state by its holding time's
 *   conditional mean 1 / R, R = n lambda + mu (tasks), exact in expectation; R and 1 / R
 *   are tables indexed by the number of tasks. Warm-up and horizon are read on the clock
 *   these weights add up to.
 * - One uniform per event: u R decides the event; an arrival's u R / (n lambda) is uniform
 *   on [0, 1) and picks SLTA's token or pool; a departure's (u R - n lambda) / mu is uniform
 *   on [0, tasks) and picks the task.
 * - Generator state in local variables (common.h), int32 data, only the utility is
 *   integrated (with -DCHECK also the tasks per pool, whose stationary mean is rho: the
 *   task count is an M/M/infinity queue under any policy, and SLTA's time-averaged r).
 *
 * Build: gcc -O3 -march=native [-DCHECK] [-DDRAWN_HOLDING_TIMES (ablation, common.h)] -o utility utility.c -lm
 * Usage: utility jlmu|slta n m J lambda mu horizon warmup u_start r0 green_min K seed < arrays
 *   arrays: pools per class (m int32), Delta (m x J float64), key (m x J float64), for SLTA
 *   the K coordinates of the ranking: classes (K int32) and levels j_k (K int32)
 * Output: events wall_seconds cpu_seconds utility_per_pool tasks_per_pool mean_r (or nan);
 *   exit 3 when a pool passes J tasks, the task list its capacity, or r passes K
 */
#include <math.h>
#include <string.h>

#include "common.h"

#define MAX_CLASSES 16

int main(int argc, char **argv) {
    if (argc != 14) fail("usage: utility jlmu|slta n m J lambda mu horizon warmup u_start r0 green_min K seed");
    const int slta = strcmp(argv[1], "slta") == 0;
    if (!slta && strcmp(argv[1], "jlmu") != 0) fail("bad policy: jlmu or slta");
    const int32_t n = (int32_t)atol(argv[2]);
    const int32_t m = (int32_t)atol(argv[3]);
    const int32_t J = (int32_t)atol(argv[4]);
    const double lam = atof(argv[5]);
    const double mu = atof(argv[6]);
    const double horizon = atof(argv[7]);
    const double warmup = atof(argv[8]);
    const double u_start = atof(argv[9]);
    int32_t r = (int32_t)atol(argv[10]);
    const double green_min = atof(argv[11]);
    const int32_t K = (int32_t)atol(argv[12]);
    rng_t rng = rng_seed(strtoull(argv[13], NULL, 10));
    if (n < 1 || m < 1 || m > MAX_CLASSES || J < 1 || !(lam > 0.0) || !(mu > 0.0) || !(horizon > 0.0) ||
        !(warmup >= 0.0) || !(warmup < horizon) || (slta && (K < 1 || r < 1 || r > K)))
        fail("bad arguments: need n, J >= 1, 1 <= m <= 16, lambda, mu > 0, 0 <= warmup < horizon, 1 <= r0 <= K");
    const int32_t *count = read_array(m, sizeof(int32_t));
    const double *delta = read_array((size_t)m * J, sizeof(double));
    const double *key = read_array((size_t)m * J, sizeof(double));
    const int32_t *ecls = slta ? read_array(K, sizeof(int32_t)) : NULL;
    const int32_t *elev = slta ? read_array(K, sizeof(int32_t)) : NULL;

    const int32_t W = J + 2;                  /* row length of lo */
    int32_t off[MAX_CLASSES + 1];
    off[0] = 0;
    for (int32_t i = 0; i < m; i++) off[i + 1] = off[i] + count[i];
    if (off[m] != n) fail("pools per class do not add up to n");
    int32_t *cls = malloc(n * sizeof(int32_t));      /* class of pool p, and of position p */
    int32_t *occ = calloc(n, sizeof(int32_t));
    int32_t *perm = malloc(n * sizeof(int32_t));     /* pool at a position */
    int32_t *where = malloc(n * sizeof(int32_t));    /* position of a pool */
    int32_t *lo = malloc((size_t)m * W * sizeof(int32_t));
    for (int32_t i = 0; i < m; i++) {
        for (int32_t p = off[i]; p < off[i + 1]; p++) cls[p] = i;
        lo[i * W] = off[i];
        for (int32_t x = 1; x < W; x++) lo[i * W + x] = off[i + 1];
    }
    for (int32_t p = 0; p < n; p++) perm[p] = where[p] = p;
    const double mean_tasks = n * lam / mu;
    const int32_t cap = (int32_t)(mean_tasks + 20.0 * sqrt(mean_tasks) + 100.0);
    int32_t *tasks = malloc(cap * sizeof(int32_t));
    double *rate = malloc((cap + 1) * sizeof(double));
    double *inv_rate = malloc((cap + 1) * sizeof(double));
    const double lam_total = n * lam, inv_lam_total = 1.0 / lam_total, inv_mu = 1.0 / mu;
    for (int32_t k = 0; k <= cap; k++) {
        rate[k] = lam_total + mu * k;
        inv_rate[k] = 1.0 / rate[k];
    }
    int32_t minocc[MAX_CLASSES] = {0}, thr[MAX_CLASSES] = {0}, green[MAX_CLASSES];
    if (slta) {
        for (int32_t k = 0; k < K; k++)
            if (ecls[k] < 0 || ecls[k] >= m || elev[k] < 1 || elev[k] > J) fail("bad ranking");
        for (int32_t k = 0; k < r - 1; k++) thr[ecls[k]]++;
    }

    stamp_t start = stamp();
    int32_t N = 0, status = 0;
    double U = u_start, clock = 0.0, area = 0.0, area_tasks = 0.0, area_r = 0.0, weight = 0.0;
    long events = 0;
    int recording = 0;
    for (;;) {
        const double w = HOLDING(&rng, inv_rate[N]);
        if (recording) {
            area += w * U;
#ifdef CHECK
            area_tasks += w * (double)N;
            area_r += w * (double)r;
#endif
            weight += w;
        }
        clock += w;
        if (!recording && clock >= warmup) recording = 1;
        if (clock >= horizon) break;
        const double x = rng_uniform(&rng) * rate[N];
        events++;
        if (x < lam_total) {
            int32_t i, lev;
            if (!slta) {
                i = 0;
                for (int32_t c = 1; c < m; c++)
                    if (key[c * J + minocc[c]] > key[i * J + minocc[i]]) i = c;
                lev = minocc[i];
            } else {
                const double f = x * inv_lam_total;      /* uniform on [0, 1) */
                const int32_t ir = ecls[r - 1], jr = elev[r - 1], prev = r >= 2 ? ecls[r - 2] : -1;
                int32_t g_total = 0, g_other = 0;
                for (int32_t c = 0; c < m; c++) {
                    green[c] = lo[c * W + thr[c]] - off[c];
                    g_total += green[c];
                    g_other += c == prev ? 0 : green[c];
                }
                const int32_t yellow = lo[ir * W + jr] - off[ir];
                const int dec = prev >= 0 && g_total >= green_min && green[prev] >= 1;
                const int inc = g_total == 0 && yellow <= 1;
                int32_t position;
                if (g_other > 0) {
                    int32_t v = (int32_t)(f * g_other);
                    if (UNLIKELY(v >= g_other)) v = g_other - 1;
                    int32_t c = 0;
                    for (;; c++) {
                        if (c == prev) continue;
                        if (v < green[c]) break;
                        v -= green[c];
                    }
                    position = off[c] + v;
                } else {
                    const int32_t c = g_total > 0 ? prev : (yellow > 0 ? ir : -1);
                    const int32_t size = c >= 0 ? (g_total > 0 ? green[c] : yellow) : n;
                    int32_t v = (int32_t)(f * size);
                    if (UNLIKELY(v >= size)) v = size - 1;
                    position = (c >= 0 ? off[c] : 0) + v;
                }
                i = cls[position];
                lev = occ[perm[position]];
                if (dec) {
                    r--;
                    thr[ecls[r - 1]]--;
                } else if (inc) {
                    thr[ecls[r - 1]]++;
                    r++;
                    if (UNLIKELY(r > K || thr[ecls[r - 2]] > J)) {
                        status = 2;
                        break;
                    }
                }
            }
            if (UNLIKELY(lev >= J || N >= cap)) {
                status = 1;
                break;
            }
            /* the last pool of class i's level-lev block gets the task and leaves the block */
            const int32_t end = --lo[i * W + lev + 1];
            const int32_t p = perm[end];
            occ[p] = lev + 1;
            if (!slta && end == off[i]) minocc[i] = lev + 1;   /* the block was the least level's */
            U += delta[i * J + lev];
            tasks[N++] = p;
        } else {
            int32_t k = (int32_t)((x - lam_total) * inv_mu);
            if (UNLIKELY(k >= N)) k = N - 1;
            const int32_t p = tasks[k];
            tasks[k] = tasks[--N];
            const int32_t i = cls[p], lev = occ[p];
            /* p moves to the front of its level block, then into the block below */
            const int32_t here = where[p], front = lo[i * W + lev]++;
            const int32_t other = perm[front];
            perm[front] = p;
            perm[here] = other;
            where[p] = front;
            where[other] = here;
            occ[p] = lev - 1;
            if (!slta && lev - 1 < minocc[i]) minocc[i] = lev - 1;
            U -= delta[i * J + lev - 1];
        }
    }
    stamp_t end = stamp();
    if (status) {
        fprintf(stderr, status == 1 ? "a pool passed J tasks or the task list its capacity\n" : "r passed K or a threshold passed J\n");
        return 3;
    }
#ifdef CHECK
    const double check = area_tasks / (weight * n), check2 = slta ? area_r / weight : NAN;
#else
    const double check = NAN, check2 = NAN;
    (void)area_tasks;
    (void)area_r;
#endif
    report(events, start, end, area / (weight * n), check, check2);
    return 0;
}

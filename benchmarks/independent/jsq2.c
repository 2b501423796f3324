/* JSQ(2) supermarket model, written from the model for speed (an independent peer).
 *
 * Model (paper L with one server type and the complete graph; Mitzenmacher's supermarket):
 * N single-server queues of unit service rate; tasks arrive as a Poisson process of rate
 * lambda N; an arrival samples two distinct queues uniformly and joins the shorter (a tie
 * goes to either: the pair is drawn in uniformly random order and the first wins).
 * Statistic: the time average of the mean queue length, sum_j X_j / N, over [warmup,
 * horizon] from empty queues (what benchmarks/peers/models.py compares for every peer).
 *
 * Design choices (each exact, none changes the law of the queue-length process):
 * - No exponential draws. The statistic is a time average, so each state is weighted by
 *   its holding time's conditional mean 1 / R(x), R = lambda N + (busy servers), instead of
 *   a drawn holding time: exact in expectation and of lower variance (conditioning). The
 *   run's clock is the sum of these weights; warm-up and horizon are read on it (it stays
 *   within O(sqrt(events)) / R of the real clock, which shifts the window, not the law).
 *   1 / R is a table indexed by the number of busy servers.
 * - One uniform per event. u R decides the event (arrival if < lambda N); an arrival's
 *   u R / lambda is uniform on [0, N): its integer part is the first queue, its fractional
 *   part (again uniform, about 40 bits left) scaled by N - 1 the second (skipping the
 *   first); a departure's u R - lambda N is uniform on [0, busy): its integer part is the
 *   position of the departing server in the list of busy servers.
 * - The list of busy servers needs no back-pointers: a departure picks a server by its
 *   position k, and if the server turns idle the last entry moves to k.
 * - Generator state in local variables (common.h), int32 queue lengths and server
 *   numbers, no statistics beyond the one read (a second one, the busy fraction, whose
 *   stationary mean is lambda exactly, only when built with -DCHECK for the tests).
 *
 * Build: gcc -O3 -march=native [-DCHECK] [-DDRAWN_HOLDING_TIMES (ablation, common.h)] -o jsq2 jsq2.c
 * Usage: jsq2 N lambda horizon warmup seed
 * Output: events wall_seconds cpu_seconds mean_queue_length busy_fraction nan (checks nan
 *   unless built with -DCHECK)
 */
#include <math.h>

#include "common.h"

int main(int argc, char **argv) {
    if (argc != 6) fail("usage: jsq2 N lambda horizon warmup seed");
    const int32_t n = (int32_t)atol(argv[1]);
    const double lam = atof(argv[2]);
    const double horizon = atof(argv[3]);
    const double warmup = atof(argv[4]);
    rng_t rng = rng_seed(strtoull(argv[5], NULL, 10));
    if (n < 2 || n > (1 << 30) || !(lam > 0.0) || !(horizon > 0.0) || !(warmup >= 0.0) || !(warmup < horizon))
        fail("bad arguments: need N >= 2, lambda > 0, 0 <= warmup < horizon");

    int32_t *queue = calloc(n, sizeof(int32_t));
    int32_t *busy = malloc(n * sizeof(int32_t));
    double *rate = malloc((n + 1) * sizeof(double));
    double *inv_rate = malloc((n + 1) * sizeof(double));
    const double lam_total = lam * n, inv_lam = 1.0 / lam;
    for (int32_t k = 0; k <= n; k++) {
        rate[k] = lam_total + k;
        inv_rate[k] = 1.0 / rate[k];
    }

    stamp_t start = stamp();
    int32_t n_busy = 0;
    int64_t total = 0;
    long events = 0;
    double clock = 0.0, area = 0.0, area_busy = 0.0, weight = 0.0;

#define STEP()                                                                     \
    do {                                                                           \
        const double x = rng_uniform(&rng) * rate[n_busy];                         \
        events++;                                                                  \
        if (x < lam_total) {                                                       \
            const double v = x * inv_lam;                                          \
            int32_t c1 = (int32_t)v;                                               \
            if (UNLIKELY(c1 >= n)) c1 = n - 1;                                     \
            int32_t c2 = (int32_t)((v - c1) * (n - 1));                            \
            if (UNLIKELY(c2 >= n - 1)) c2 = n - 2;                                 \
            c2 += c2 >= c1;                                                        \
            const int32_t j = queue[c1] <= queue[c2] ? c1 : c2;                    \
            if (queue[j]++ == 0) busy[n_busy++] = j;                               \
            total++;                                                               \
        } else {                                                                   \
            int32_t k = (int32_t)(x - lam_total);                                  \
            if (UNLIKELY(k >= n_busy)) k = n_busy - 1;                             \
            const int32_t j = busy[k];                                             \
            if (--queue[j] == 0) busy[k] = busy[--n_busy];                         \
            total--;                                                               \
        }                                                                          \
    } while (0)

    while (clock < warmup) {
        clock += HOLDING(&rng, inv_rate[n_busy]);
        STEP();
    }
    while (clock < horizon) {
        const double w = HOLDING(&rng, inv_rate[n_busy]);
        area += w * (double)total;
#ifdef CHECK
        area_busy += w * (double)n_busy;
#endif
        weight += w;
        clock += w;
        STEP();
    }
    stamp_t end = stamp();
#ifdef CHECK
    const double check = area_busy / (weight * n);
#else
    const double check = NAN;
    (void)area_busy;
#endif
    report(events, start, end, area / (weight * n), check, NAN);
    return 0;
}

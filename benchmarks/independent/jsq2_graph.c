/* Local JSQ(2) on a compatibility graph with server types, written from the model for
 * speed (an independent peer).
 *
 * Model (paper L, Sec. 2.2; the benchmark uses the Sec. 6 system, K = 2 clusters, M = 3
 * server types of rates u = (1, 5, 10), on irg(p^1)): W dispatchers, each receiving tasks as
 * a Poisson process of rate lambda; N single-server queues, server j of type m(j) serving
 * at rate u_m. A task arriving at dispatcher i samples two distinct servers uniformly from
 * its neighbourhood N(i) and joins the shorter queue (a tie goes to either: the pair is
 * drawn in uniformly random order and the first wins); with one neighbour it joins it.
 * Statistic: the time average of the mean queue length over all servers, sum_j X_j / N,
 * over [warmup, horizon] from empty queues. The graph (the same realisation the numba
 * simulator is given) comes on stdin: rates, server types, dispatcher offsets, degrees,
 * neighbour lists.
 *
 * Design choices (each exact, none changes the law of the queue-length process):
 * - No exponential draws: each state is weighted by its holding time's conditional mean
 *   1 / R(x), R = lambda W + sum_m u_m (busy servers of type m), exact in expectation for a
 *   time average; warm-up and horizon are read on the clock these weights add up to.
 *   R is kept up to date as a double (exact here: integer rates), 1 / R is one division.
 * - The arrivals' choices are drawn in advance. Where an arrival goes depends on the
 *   state, but which dispatcher it reaches and which two list positions it samples do
 *   not: they are i.i.d. over arrivals. The loop keeps the next AHEAD = 16 arrivals drawn
 *   (a uniform of their own: integer part of u W the dispatcher, the fractional part,
 *   about 40 bits, scaled by the degree the two distinct positions, as in the supermarket
 *   loop) and prefetches their two list entries when drawing them, so that by the time an
 *   arrival is served its entries are in the cache. At N = 1000 the lists hold 1.7 MiB,
 *   more than a core's L2 cache: the lookahead doubles the rate here (an ablation with
 *   -DAHEAD=1, drawing one arrival ahead, and without any lookahead, 5 December 2026:
 *   45, 30 and 20 million events per second of processor time).
 * - One uniform per event for the rest: u R decides arrival or departure; a departure's
 *   u R - lambda W picks the type m with probability u_m busy_m / (departure rate) and,
 *   what is left over divided by u_m, the position of the server in the type's list of
 *   busy servers (no back-pointers: removal by position).
 * - Generator state in local variables (common.h), int32 data, no statistics beyond the
 *   one read (with -DCHECK also the time average of the departure rate over lambda W,
 *   whose stationary mean is 1 by flow balance, for the tests).
 *
 * Build: gcc -O3 -march=native [-DCHECK] [-DDRAWN_HOLDING_TIMES (ablation, common.h)] -o jsq2_graph jsq2_graph.c
 * Usage: jsq2_graph W N M E lambda horizon warmup seed < arrays
 *   arrays: u (M float64), server_type (N int32), offset (W int32), degree (W int32),
 *   neighbors (E int32)
 * Output: events wall_seconds cpu_seconds mean_queue_length departure_rate_ratio nan (checks
 *   nan unless built with -DCHECK)
 */
#include <math.h>

#include "common.h"

#define MAX_TYPES 16
#ifndef AHEAD
#define AHEAD 16 /* arrivals drawn in advance, a power of two */
#endif

int main(int argc, char **argv) {
    if (argc != 9) fail("usage: jsq2_graph W N M E lambda horizon warmup seed < arrays");
    const int32_t w_disp = (int32_t)atol(argv[1]);
    const int32_t n = (int32_t)atol(argv[2]);
    const int32_t n_types = (int32_t)atol(argv[3]);
    const long n_edges = atol(argv[4]);
    const double lam = atof(argv[5]);
    const double horizon = atof(argv[6]);
    const double warmup = atof(argv[7]);
    rng_t rng = rng_seed(strtoull(argv[8], NULL, 10));
    if (w_disp < 1 || n < 1 || n_types < 1 || n_types > MAX_TYPES || n_edges < 1 || n_edges > INT32_MAX ||
        !(lam > 0.0) || !(horizon > 0.0) || !(warmup >= 0.0) || !(warmup < horizon))
        fail("bad arguments: need W, N, E >= 1, 1 <= M <= 16, lambda > 0, 0 <= warmup < horizon");
    const double *u = read_array(n_types, sizeof(double));
    const int32_t *server_type = read_array(n, sizeof(int32_t));
    const int32_t *offset = read_array(w_disp, sizeof(int32_t));
    const int32_t *degree = read_array(w_disp, sizeof(int32_t));
    const int32_t *nbr = read_array(n_edges, sizeof(int32_t));
    int32_t first[MAX_TYPES] = {0}, size[MAX_TYPES] = {0}, n_busy[MAX_TYPES] = {0};
    double inv_u[MAX_TYPES];
    for (int32_t j = 0; j < n; j++) {
        if (server_type[j] < 0 || server_type[j] >= n_types) fail("bad server type");
        size[server_type[j]]++;
    }
    for (int32_t m = 0; m < n_types; m++) {
        if (!(u[m] > 0.0)) fail("bad service rate");
        inv_u[m] = 1.0 / u[m];
        if (m) first[m] = first[m - 1] + size[m - 1];
    }
    for (int32_t i = 0; i < w_disp; i++)
        if (degree[i] < 1 || offset[i] < 0 || (long)offset[i] + degree[i] > n_edges) fail("bad neighbour lists");
    for (long e = 0; e < n_edges; e++)
        if (nbr[e] < 0 || nbr[e] >= n) fail("bad neighbour");

    int32_t *queue = calloc(n, sizeof(int32_t));
    int32_t *busy = malloc(n * sizeof(int32_t));   /* type m's busy servers: busy[first[m] ..] */
    const double lam_total = lam * w_disp;

    /* the next AHEAD arrivals: a uniform dispatcher and two distinct uniform positions of its
       list from a uniform of their own (with one neighbour, both positions are that one) */
    const int32_t *ring1[AHEAD], *ring2[AHEAD];
    int32_t head = 0;
#define DRAW_ARRIVAL(h)                                                            \
    do {                                                                           \
        const double v_ = rng_uniform(&rng) * w_disp;                              \
        int32_t i_ = (int32_t)v_;                                                  \
        if (UNLIKELY(i_ >= w_disp)) i_ = w_disp - 1;                               \
        const int32_t deg_ = degree[i_];                                           \
        const int32_t *list_ = nbr + offset[i_];                                   \
        const double f_ = (v_ - i_) * deg_;                                        \
        int32_t c1_ = (int32_t)f_, c2_ = c1_;                                      \
        if (UNLIKELY(c1_ >= deg_)) c1_ = deg_ - 1;                                 \
        if (LIKELY(deg_ >= 2)) {                                                   \
            c2_ = (int32_t)((f_ - c1_) * (deg_ - 1));                              \
            if (UNLIKELY(c2_ >= deg_ - 1)) c2_ = deg_ - 2;                         \
            c2_ += c2_ >= c1_;                                                     \
        } else {                                                                   \
            c2_ = c1_;                                                             \
        }                                                                          \
        ring1[h] = list_ + c1_;                                                    \
        ring2[h] = list_ + c2_;                                                    \
        __builtin_prefetch(ring1[h]);                                              \
        __builtin_prefetch(ring2[h]);                                              \
    } while (0)
    for (int32_t h = 0; h < AHEAD; h++) DRAW_ARRIVAL(h);

    stamp_t start = stamp();
    double dep_rate = 0.0;
    int64_t total = 0;
    long events = 0;
    double clock = 0.0, area = 0.0, area_dep = 0.0, weight = 0.0;

#define STEP(x)                                                                    \
    do {                                                                           \
        events++;                                                                  \
        if (x < lam_total) {                                                       \
            /* the arrival drawn AHEAD arrivals ago; its list entries were prefetched */ \
            const int32_t *p1 = ring1[head], *p2 = ring2[head];                    \
            int32_t j = *p1;                                                       \
            const int32_t j2 = *p2;                                                \
            j = queue[j] <= queue[j2] ? j : j2;                                    \
            DRAW_ARRIVAL(head);                                                    \
            head = (head + 1) & (AHEAD - 1);                                       \
            if (queue[j]++ == 0) {                                                 \
                const int32_t m = server_type[j];                                  \
                busy[first[m] + n_busy[m]++] = j;                                  \
                dep_rate += u[m];                                                  \
            }                                                                      \
            total++;                                                               \
        } else {                                                                   \
            double r = x - lam_total;                                              \
            int32_t m = 0;                                                         \
            while (m < n_types - 1 && r >= u[m] * n_busy[m]) {                     \
                r -= u[m] * n_busy[m];                                             \
                m++;                                                               \
            }                                                                      \
            if (UNLIKELY(n_busy[m] == 0)) { /* round-off at the last boundary */   \
                m = n_types - 1;                                                   \
                while (n_busy[m] == 0) m--;                                        \
                r = 0.0;                                                           \
            }                                                                      \
            int32_t k = (int32_t)(r * inv_u[m]);                                   \
            if (UNLIKELY(k >= n_busy[m])) k = n_busy[m] - 1;                       \
            int32_t *slot = busy + first[m];                                       \
            const int32_t j = slot[k];                                             \
            if (--queue[j] == 0) {                                                 \
                slot[k] = slot[--n_busy[m]];                                       \
                dep_rate -= u[m];                                                  \
            }                                                                      \
            total--;                                                               \
        }                                                                          \
    } while (0)

    while (clock < warmup) {
        const double rate = lam_total + dep_rate;
        const double x = rng_uniform(&rng) * rate;
        clock += HOLDING(&rng, 1.0 / rate);
        STEP(x);
    }
    while (clock < horizon) {
        const double rate = lam_total + dep_rate;
        const double x = rng_uniform(&rng) * rate;
        const double w = HOLDING(&rng, 1.0 / rate);
        area += w * (double)total;
#ifdef CHECK
        area_dep += w * dep_rate;
#endif
        weight += w;
        clock += w;
        STEP(x);
    }
    stamp_t end = stamp();
#ifdef CHECK
    const double check = area_dep / (weight * lam_total);
#else
    const double check = NAN;
    (void)area_dep;
#endif
    report(events, start, end, area / (weight * n), check, NAN);
    return 0;
}

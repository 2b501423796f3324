/* Redundancy c.o.c. and c.o.s.-ALIS on circular-d, written from the model for speed (an
 * independent peer).
 *
 * Model (paper R, Secs. 2.1 and 2.3, Appendix E): N servers of speed 1 and N job types;
 * type t is compatible with servers t, t+1, ..., t+d-1 (mod N), so server s with types
 * s-d+1, ..., s. Jobs arrive as a Poisson process of rate lambda N, of each type with
 * probability 1/N; replica sizes are exponential of unit mean. Every server works on the
 * oldest job in the system it is compatible with (the central-queue view).
 * - c.o.c.: all replicas of a job are in service at once; the first completion removes the
 *   job. A server is busy iff some job of one of its types is present, and then completes
 *   at rate 1 the oldest such job.
 * - c.o.s.-ALIS: an arriving job with idle compatible servers starts on the one idle the
 *   longest, and its other replicas are dropped; otherwise it waits. A server that
 *   completes takes the oldest waiting job of its types, or else turns idle.
 * Statistic: the time average of the total number of jobs over n_events events after
 * warmup events from the empty system (the benchmark's counts, as the numba kernel).
 *
 * Design choices (each exact, none changes the law of the process):
 * - The state is one FIFO per job type of the arrival stamps of its jobs (present jobs
 *   for c.o.c., waiting jobs for c.o.s.). The oldest job a server is compatible with is the
 *   oldest of the d heads of its types' FIFOs, and the job a completion removes is always
 *   such a head: no per-server lists, no job table, no lazy deletion. Stamps are uint32,
 *   compared modulo 2^32 (never more than 2^31 jobs apart).
 * - No exponential draws: the time average weights each state by its holding time's
 *   conditional mean 1 / R(x), R = lambda N + (busy servers) (exact in expectation); 1 / R is
 *   a table indexed by the number of busy servers.
 * - One uniform per event: u R decides the event; an arrival's u R N / (lambda N) is uniform
 *   on [0, N): its integer part is the type; a departure's u R - lambda N is uniform on
 *   [0, busy): its integer part is the position of the completing server in the list of
 *   busy servers.
 * - Generator state in local variables (common.h), int32 / uint32 data, no statistics
 *   beyond the one read (with -DCHECK for c.o.s. also the time-averaged number of busy
 *   servers over lambda N, whose stationary mean is 1: each job is one unit of work).
 *
 * Build: gcc -O3 -march=native [-DCHECK] [-DDRAWN_HOLDING_TIMES (ablation, common.h)] -o redundancy redundancy.c
 * Usage: redundancy coc|cos N d lambda n_events warmup seed
 * Output: events wall_seconds cpu_seconds mean_jobs busy_ratio(c.o.s. with -DCHECK, else nan) nan;
 *   exit 3 on overflow of a FIFO
 */
#include <math.h>
#include <string.h>

#include "common.h"

#define MAX_SERVERS 64
#define CAP 4096 /* jobs per type FIFO, a power of two */
#define MASK (CAP - 1)

typedef struct {
    int32_t n, d;
    double lam_total, inv_lam_type;
    double rate[MAX_SERVERS + 1], inv_rate[MAX_SERVERS + 1];
} setup_t;

/* a older than b (uint32 stamps, modulo 2^32) */
ALWAYS_INLINE int older(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }

/* c.o.c.: fifo[t] holds the stamps of the type-t jobs present; live[s] counts the non-empty
   FIFOs of server s's types (busy iff > 0); busy servers in a list with back-pointers (a
   server turns idle because another server completed, not only by its own position) */
static int run_coc(const setup_t *c, long n_warm, long n_events, uint64_t seed, double *mean, double *check,
                   long *events_out, stamp_t *t0, stamp_t *t1) {
    const int32_t n = c->n, d = c->d;
    rng_t rng = rng_seed(seed);
    uint32_t *fifo = malloc((size_t)n * CAP * sizeof(uint32_t));
    uint32_t head[MAX_SERVERS] = {0}, tail[MAX_SERVERS] = {0};
    int32_t live[MAX_SERVERS] = {0}, busy[MAX_SERVERS], pos[MAX_SERVERS];
    int32_t n_busy = 0;
    int64_t total = 0;
    uint32_t stamp_next = 0;
    double area = 0.0, weight = 0.0;
    int overflow = 0;
    *t0 = stamp();
    for (long step = 0; step < n_warm + n_events; step++) {
        if (step >= n_warm) {
            const double w = HOLDING(&rng, c->inv_rate[n_busy]);
            area += w * (double)total;
            weight += w;
        }
        const double x = rng_uniform(&rng) * c->rate[n_busy];
        if (x < c->lam_total) {
            int32_t t = (int32_t)(x * c->inv_lam_type);
            if (UNLIKELY(t >= n)) t = n - 1;
            if (UNLIKELY(tail[t] - head[t] >= CAP)) {
                overflow = 1;
                break;
            }
            fifo[t * CAP + (tail[t] & MASK)] = stamp_next++;
            if (tail[t]++ == head[t]) {          /* the type's FIFO was empty */
                for (int32_t i = 0, s = t; i < d; i++, s = s + 1 == n ? 0 : s + 1) {
                    if (live[s]++ == 0) {
                        pos[s] = n_busy;
                        busy[n_busy++] = s;
                    }
                }
            }
            total++;
        } else {
            int32_t k = (int32_t)(x - c->lam_total);
            if (UNLIKELY(k >= n_busy)) k = n_busy - 1;
            const int32_t s = busy[k];
            /* the oldest job of server s's types s-d+1 .. s */
            int32_t best = -1;
            uint32_t best_stamp = 0;
            for (int32_t i = 0, t = s; i < d; i++, t = t == 0 ? n - 1 : t - 1) {
                if (head[t] != tail[t]) {
                    const uint32_t st = fifo[t * CAP + (head[t] & MASK)];
                    if (best < 0 || older(st, best_stamp)) {
                        best = t;
                        best_stamp = st;
                    }
                }
            }
            if (++head[best] == tail[best]) {    /* type `best` has no job left */
                for (int32_t i = 0, v = best; i < d; i++, v = v + 1 == n ? 0 : v + 1) {
                    if (--live[v] == 0) {
                        const int32_t p = pos[v], last = busy[--n_busy];
                        busy[p] = last;
                        pos[last] = p;
                    }
                }
            }
            total--;
        }
    }
    *t1 = stamp();
    *events_out = n_warm + n_events;
    *mean = area / weight;
    *check = NAN;
    free(fifo);
    return overflow;
}

/* c.o.s.-ALIS: fifo[t] holds the stamps of the waiting type-t jobs (all servers of type t are
   then busy); a busy server serves one job; idle_since orders idle servers (ALIS). A server
   turns idle only by its own completion, picked by its position in the busy list: no
   back-pointers */
static int run_cos(const setup_t *c, long n_warm, long n_events, uint64_t seed, double *mean, double *check,
                   long *events_out, stamp_t *t0, stamp_t *t1) {
    const int32_t n = c->n, d = c->d;
    rng_t rng = rng_seed(seed);
    uint32_t *fifo = malloc((size_t)n * CAP * sizeof(uint32_t));
    uint32_t head[MAX_SERVERS] = {0}, tail[MAX_SERVERS] = {0};
    int32_t busy[MAX_SERVERS];
    uint8_t serving[MAX_SERVERS] = {0};
    int64_t idle_since[MAX_SERVERS];
    for (int32_t s = 0; s < n; s++) idle_since[s] = s - n;   /* at the start, lower numbers idle longer */
    int32_t n_busy = 0;
    int64_t total = 0;
    uint32_t stamp_next = 0;
    double area = 0.0, area_busy = 0.0, weight = 0.0;
    int overflow = 0;
    *t0 = stamp();
    for (long step = 0; step < n_warm + n_events; step++) {
        if (step >= n_warm) {
            const double w = HOLDING(&rng, c->inv_rate[n_busy]);
            area += w * (double)total;
#ifdef CHECK
            area_busy += w * (double)n_busy;
#endif
            weight += w;
        }
        const double x = rng_uniform(&rng) * c->rate[n_busy];
        if (x < c->lam_total) {
            int32_t t = (int32_t)(x * c->inv_lam_type);
            if (UNLIKELY(t >= n)) t = n - 1;
            int32_t pick = -1;
            for (int32_t i = 0, s = t; i < d; i++, s = s + 1 == n ? 0 : s + 1)
                if (!serving[s] && (pick < 0 || idle_since[s] < idle_since[pick])) pick = s;
            if (pick >= 0) {
                serving[pick] = 1;
                busy[n_busy++] = pick;
            } else {
                if (UNLIKELY(tail[t] - head[t] >= CAP)) {
                    overflow = 1;
                    break;
                }
                fifo[t * CAP + (tail[t]++ & MASK)] = stamp_next++;
            }
            total++;
        } else {
            int32_t k = (int32_t)(x - c->lam_total);
            if (UNLIKELY(k >= n_busy)) k = n_busy - 1;
            const int32_t s = busy[k];
            int32_t best = -1;
            uint32_t best_stamp = 0;
            for (int32_t i = 0, t = s; i < d; i++, t = t == 0 ? n - 1 : t - 1) {
                if (head[t] != tail[t]) {
                    const uint32_t st = fifo[t * CAP + (head[t] & MASK)];
                    if (best < 0 || older(st, best_stamp)) {
                        best = t;
                        best_stamp = st;
                    }
                }
            }
            if (best >= 0) {
                head[best]++;                     /* s starts the oldest waiting job */
            } else {
                serving[s] = 0;
                idle_since[s] = step;
                busy[k] = busy[--n_busy];
            }
            total--;
        }
    }
    *t1 = stamp();
    *events_out = n_warm + n_events;
    *mean = area / weight;
#ifdef CHECK
    *check = area_busy / (weight * c->lam_total);
#else
    *check = NAN;
    (void)area_busy;
#endif
    free(fifo);
    return overflow;
}

int main(int argc, char **argv) {
    if (argc != 8) fail("usage: redundancy coc|cos N d lambda n_events warmup seed");
    const int mechanism = strcmp(argv[1], "cos") == 0 ? 1 : (strcmp(argv[1], "coc") == 0 ? 0 : -1);
    setup_t c;
    c.n = (int32_t)atol(argv[2]);
    c.d = (int32_t)atol(argv[3]);
    const double lam = atof(argv[4]);
    const long n_events = atol(argv[5]);
    const long n_warm = atol(argv[6]);
    const uint64_t seed = strtoull(argv[7], NULL, 10);
    if (mechanism < 0 || c.n < 2 || c.n > MAX_SERVERS || c.d < 1 || c.d >= c.n || !(lam > 0.0) || !(lam < 1.0) ||
        n_events < 1 || n_warm < 0)
        fail("bad arguments: need coc|cos, 2 <= N <= 64, 1 <= d < N, 0 < lambda < 1, n_events >= 1, warmup >= 0");
    c.lam_total = lam * c.n;
    c.inv_lam_type = 1.0 / lam;          /* each of the N types arrives at rate lambda */
    for (int32_t k = 0; k <= c.n; k++) {
        c.rate[k] = c.lam_total + k;
        c.inv_rate[k] = 1.0 / c.rate[k];
    }
    double mean, check;
    long events;
    stamp_t t0, t1;
    const int overflow = (mechanism ? run_cos : run_coc)(&c, n_warm, n_events, seed, &mean, &check, &events, &t0, &t1);
    if (overflow) {
        fprintf(stderr, "a type's FIFO overflowed (%d jobs)\n", CAP);
        return 3;
    }
    report(events, t0, t1, mean, check, NAN);
    return 0;
}

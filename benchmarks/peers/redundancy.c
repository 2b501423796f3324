/* Redundancy c.o.s.-ALIS and c.o.c. on circular-d in C: the speed limit for the R kernel.
 *
 * N servers of speed 1, N job types, type j compatible with servers j, j+1, ..., j+d-1
 * (mod N) (listed in increasing order, as qtheory stores a type), each type with
 * probability 1/N; Poisson arrivals of total rate lambda * N, exponential replica sizes
 * of unit mean. The event loop is the one
 * qtheory.redundancy.simulation._kernel_simulate ran before issue 33, statement for
 * statement (the kernel now keeps one FIFO of arrival stamps per job type and computes
 * only what it is asked for, with the same draws in the same order, so the paths still
 * agree): the same central-queue representation (a FIFO of job ids per server, lazy
 * deletion), the same
 * busy list, the same statistics (time averages weighted by the expected holding time
 * 1 / R(x), event and arrival averages, per-type integrals, histograms of Q), the same
 * int64 arrays, and the same draws in the same order: one uniform per event, reused
 * for the type of an arrival (x = u R / (lambda N)) and for the server of a completion.
 * Fed the same xoshiro256+ state it therefore takes the same path as the numba kernel
 * (tests/test_benchmark_peers.py checks it). What it leaves out: the alias table of the
 * type draw (uniform types make it the identity, which the test checks) and the
 * heterogeneous-speed search of the busy list (all speeds are 1).
 *
 * Output: line 1 "steps seconds code cpu_seconds" (wall and processor time of the run); line 2 the 17 numbers of the kernel's `stats`
 * array; line 3 the per-type time integrals acc_t; line 4 acc_e; lines 5 and 6 the time-
 * and event-weighted histograms of Q on 0..hist_max. Doubles printed with %.17g.
 *
 * Build: gcc -O2 -o redundancy redundancy.c -lm
 * Usage: redundancy coc|cos N d lambda n_events warmup init_jobs hist_max seed
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int64_t i64;

#include "xoshiro.h" /* s, uniform(), splitmix64() */

#define FIFO_CAP 65536
#define FIFO_MASK (FIFO_CAP - 1)
#define JOB_CAP 1048576
#define JOB_MASK (JOB_CAP - 1)

int main(int argc, char **argv) {
    if (argc != 10) {
        fprintf(stderr, "usage: %s coc|cos N d lambda n_events warmup init_jobs hist_max seed\n", argv[0]);
        return 2;
    }
    const int mechanism = strcmp(argv[1], "cos") == 0 ? 1 : (strcmp(argv[1], "coc") == 0 ? 0 : -1);
    const i64 n = atol(argv[2]);
    const i64 d = atol(argv[3]);
    const double lam = atof(argv[4]);
    const i64 n_events = atol(argv[5]);
    const i64 warmup = atol(argv[6]);
    const i64 init_jobs = atol(argv[7]);
    const i64 hist_max = atol(argv[8]);
    uint64_t seed = strtoull(argv[9], NULL, 10);
    if (mechanism < 0 || n < 2 || d < 1 || d >= n || lam <= 0.0 || lam >= 1.0 || n_events < 1 || warmup < 0 ||
        init_jobs < 0 || hist_max < 1) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    for (int i = 0; i < 4; i++) s[i] = splitmix64(&seed);

    struct timespec t0, t1, p0, p1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p0);
    const i64 k = n;   /* circular-d: one type per server */
    i64 *type_servers = malloc(k * d * sizeof(i64));
    for (i64 j = 0; j < k; j++) {
        /* in increasing order, as RedundancySystem stores them: the order decides ties of
           ALIS and the order of the busy list */
        for (i64 i = 0; i < d; i++) {
            const i64 v = (j + i) % n;
            i64 h = i;
            for (; h > 0 && type_servers[j * d + h - 1] > v; h--) type_servers[j * d + h] = type_servers[j * d + h - 1];
            type_servers[j * d + h] = v;
        }
    }
    const double lam_total = n * lam;

    /* as in the kernel, fifo, job_id and job_type are read only where written before */
    i64 *fifo = malloc((size_t)n * FIFO_CAP * sizeof(i64));
    i64 *head = calloc(n, sizeof(i64));
    i64 *tail = calloc(n, sizeof(i64));
    i64 *job_id = malloc(JOB_CAP * sizeof(i64));
    i64 *job_type = malloc(JOB_CAP * sizeof(i64));
    uint8_t *job_live = calloc(JOB_CAP, 1);
    i64 *live = calloc(n, sizeof(i64));
    uint8_t *busy = calloc(n, 1);
    i64 *busy_list = calloc(n, sizeof(i64));
    i64 *busy_pos = malloc(n * sizeof(i64));
    for (i64 j = 0; j < n; j++) busy_pos[j] = -1;
    i64 n_busy = 0;
    double busy_rate = 0.0;
    i64 *idle_since = calloc(n, sizeof(i64));
    i64 *serving = malloc(n * sizeof(i64));
    for (i64 j = 0; j < n; j++) serving[j] = -1;
    i64 *counts = calloc(k, sizeof(i64));
    i64 total = 0, next_id = 0, code = 0;
    double *hist_t = calloc(hist_max + 1, sizeof(double));
    double *hist_e = calloc(hist_max + 1, sizeof(double));
    double *acc_t = calloc(k, sizeof(double));
    double *acc_e = calloc(k, sizeof(double));
    double *last_t = calloc(k, sizeof(double));
    double *last_e = calloc(k, sizeof(double));
    const i64 track_a = 0, track_b = k - 1;
    double t_q = 0, t_q2 = 0, t_ra = 0, t_rb = 0, e_q = 0, e_q2 = 0, e_ra = 0, e_rb = 0;
    double a_n = 0, a_q = 0, a_q2 = 0, a_ra = 0, a_rb = 0, clock_t_ = 0.0, clock_e = 0.0;
    int recording = 0;

#define MARK_BUSY(srv)                   \
    do {                                 \
        busy[srv] = 1;                   \
        busy_pos[srv] = n_busy;          \
        busy_list[n_busy] = srv;         \
        n_busy++;                        \
        busy_rate += 1.0;                \
    } while (0)
#define MARK_IDLE(srv)                   \
    do {                                 \
        busy[srv] = 0;                   \
        const i64 p_ = busy_pos[srv];    \
        n_busy--;                        \
        const i64 last_ = busy_list[n_busy]; \
        busy_list[p_] = last_;           \
        busy_pos[last_] = p_;            \
        busy_pos[srv] = -1;              \
        busy_rate -= 1.0;                \
    } while (0)
#define CLOSE_INTERVAL(ty)                                   \
    do {                                                     \
        acc_t[ty] += counts[ty] * (clock_t_ - last_t[ty]);   \
        acc_e[ty] += counts[ty] * (clock_e - last_e[ty]);    \
        last_t[ty] = clock_t_;                               \
        last_e[ty] = clock_e;                                \
    } while (0)

    const i64 n_steps = init_jobs + warmup + n_events;
    i64 step;
    for (step = 0; step < n_steps; step++) {
        const int in_init = step < init_jobs;
        if (step == init_jobs + warmup) {
            recording = 1;
            for (i64 j = 0; j < k; j++) last_t[j] = last_e[j] = 0.0;
        }
        const double rate = lam_total + busy_rate;
        if (recording) {
            const double w = 1.0 / rate;
            const i64 qi = total < hist_max ? total : hist_max;
            hist_t[qi] += w;
            t_q += w * total;
            t_q2 += w * total * total;
            if (total > 0) {
                t_ra += w * counts[track_a] / total;
                t_rb += w * counts[track_b] / total;
            }
            clock_t_ += w;
        }
        const double u = uniform();
        if (in_init || u * rate < lam_total) {
            const double x = in_init ? uniform() : (u * rate) / lam_total;
            i64 t = (i64)(x * k);
            if (t >= k) t = k - 1;
            if (recording) CLOSE_INTERVAL(t);
            counts[t]++;
            total++;
            const i64 *srv = type_servers + t * d;
            i64 best = -1;
            if (mechanism == 1) {
                for (i64 i = 0; i < d; i++) {
                    const i64 sv = srv[i];
                    if (!busy[sv] && (best < 0 || idle_since[sv] < idle_since[best])) best = sv;
                }
            }
            if (best >= 0) {
                serving[best] = t;
                head[best] = tail[best];
                MARK_BUSY(best);
            } else {
                const i64 slot = next_id & JOB_MASK;
                if (job_live[slot]) {
                    code = 2;
                    break;
                }
                job_id[slot] = next_id;
                job_type[slot] = t;
                job_live[slot] = 1;
                for (i64 i = 0; i < d; i++) {
                    const i64 sv = srv[i];
                    if (tail[sv] - head[sv] >= FIFO_CAP) code = 1;
                    fifo[sv * FIFO_CAP + (tail[sv] & FIFO_MASK)] = next_id;
                    tail[sv]++;
                    if (mechanism == 0) {
                        live[sv]++;
                        if (live[sv] == 1) MARK_BUSY(sv);
                    }
                }
                next_id++;
            }
            if (code != 0) break;
            if (recording) {
                a_n += 1.0;
                a_q += total;
                a_q2 += (double)(total * total);
                a_ra += (double)counts[track_a] / total;
                a_rb += (double)counts[track_b] / total;
            }
        } else {
            i64 idx = (i64)((u * rate - lam_total) / 1.0);
            if (idx >= n_busy) idx = n_busy - 1;
            const i64 sv = busy_list[idx];
            if (mechanism == 1) {
                const i64 t = serving[sv];
                i64 nxt = -1;
                while (head[sv] < tail[sv]) {
                    const i64 jid = fifo[sv * FIFO_CAP + (head[sv] & FIFO_MASK)];
                    head[sv]++;
                    const i64 slot = jid & JOB_MASK;
                    if (job_id[slot] == jid && job_live[slot]) {
                        nxt = slot;
                        break;
                    }
                }
                if (recording) CLOSE_INTERVAL(t);
                counts[t]--;
                total--;
                if (nxt >= 0) {
                    job_live[nxt] = 0;
                    serving[sv] = job_type[nxt];
                } else {
                    serving[sv] = -1;
                    idle_since[sv] = step;
                    MARK_IDLE(sv);
                    if (n_busy == 0) busy_rate = 0.0;
                }
            } else {
                i64 slot = -1;
                while (head[sv] < tail[sv]) {
                    const i64 jid = fifo[sv * FIFO_CAP + (head[sv] & FIFO_MASK)];
                    const i64 sl = jid & JOB_MASK;
                    if (job_id[sl] == jid && job_live[sl]) {
                        slot = sl;
                        break;
                    }
                    head[sv]++;
                }
                head[sv]++;
                const i64 t = job_type[slot];
                job_live[slot] = 0;
                if (recording) CLOSE_INTERVAL(t);
                counts[t]--;
                total--;
                const i64 *srv = type_servers + t * d;
                for (i64 i = 0; i < d; i++) {
                    const i64 m = srv[i];
                    live[m]--;
                    if (live[m] == 0) {
                        head[m] = tail[m];
                        MARK_IDLE(m);
                    }
                }
                if (n_busy == 0) busy_rate = 0.0;
            }
        }
        if (recording) {
            const i64 qi = total < hist_max ? total : hist_max;
            hist_e[qi] += 1.0;
            e_q += total;
            e_q2 += (double)(total * total);
            if (total > 0) {
                e_ra += (double)counts[track_a] / total;
                e_rb += (double)counts[track_b] / total;
            }
            clock_e += 1.0;
        }
    }
    for (i64 j = 0; j < k; j++) {
        acc_t[j] += counts[j] * (clock_t_ - last_t[j]);
        acc_e[j] += counts[j] * (clock_e - last_e[j]);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p1);
    const double seconds = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    const double cpu = (p1.tv_sec - p0.tv_sec) + 1e-9 * (p1.tv_nsec - p0.tv_nsec);
    const double stats[17] = {clock_t_, t_q, t_q2, t_ra, t_rb, e_q, e_q2, e_ra, e_rb, clock_e, clock_t_,
                              (double)total, a_n, a_q, a_q2, a_ra, a_rb};
    printf("%ld %.9f %ld %.9f\n", (long)step, seconds, (long)code, cpu);
    for (int i = 0; i < 17; i++) printf("%.17g%c", stats[i], i == 16 ? '\n' : ' ');
    for (i64 j = 0; j < k; j++) printf("%.17g%c", acc_t[j], j == k - 1 ? '\n' : ' ');
    for (i64 j = 0; j < k; j++) printf("%.17g%c", acc_e[j], j == k - 1 ? '\n' : ' ');
    for (i64 j = 0; j <= hist_max; j++) printf("%.17g%c", hist_t[j], j == hist_max ? '\n' : ' ');
    for (i64 j = 0; j <= hist_max; j++) printf("%.17g%c", hist_e[j], j == hist_max ? '\n' : ' ');
    return code == 0 ? 0 : 3;
}

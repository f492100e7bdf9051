/* c2c-latency: core-to-core latency. One cache line is bounced between two CPUs: a flag
 * the responder (a helper pinned on the peer) turns from 0 to 1 and the initiator (pinned on
 * the first CPU) turns back to 0, each with a compare-and-swap it spins on until the other
 * has made its move. A spinning CAS holds the line exclusive, so the line moves once per
 * hand-off (spinning on a plain load would share it and add an invalidation to every
 * hand-off); this is core-to-core-latency's "CAS on a single shared cache line" and what a
 * spinlock hand-off costs. A sample is `reps` round trips; one-way latency = round trip / 2.
 *
 * Every unordered pair of --cpus is measured, one pair at a time, so that nothing else the
 * probe runs shares the caches or the interconnect. A round trip moves the line both ways,
 * so (a, b) and (b, a) are the same measurement: results carry cpu = the lower CPU of the
 * pair and params {"peer": the other}. docs/probe.md "c2c-latency". */
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "exec.h"
#include "record.h"
#include "kernel.h"

/* 128 bytes: the line and its neighbour (adjacent-line prefetchers fetch pairs), so no
 * other data of the process shares what is bounced. */
#define C2C_LINE 128
/* The responder must answer the first ping within this, or the pair is reported failed
 * (its CPU did not run the helper: offline, or held by a real-time task). */
#define C2C_ANSWER_S 1.0
/* Round trips per sample at least: the counter reads around a sample (tens of ns with
 * their fences) stay under 1% of it, as in c2clat's 100-round-trip samples. */
#define C2C_MIN_ROUND_TRIPS 100

static const struct kernel_param params[] = {
    {NULL},
};

struct pingpong {
    alignas(C2C_LINE) _Atomic int flag;   /* 0: the responder's move; 1: the initiator's */
    char pad[C2C_LINE - sizeof(int)];
    int peer;
};

/* Moves the flag from `from` to !from as soon as it holds `from`. Relaxed: the line itself
 * is all that is exchanged. */
static inline int flip(_Atomic int *flag, int from)
{
    int expected = from;
    return atomic_compare_exchange_strong_explicit(flag, &expected, !from, memory_order_relaxed,
                                                   memory_order_relaxed);
}

static void respond(void *arg, volatile int *stop)
{
    struct pingpong *pp = arg;
    while (!*stop)
        flip(&pp->flag, 0);
}

static void round_trips(void *state, uint64_t reps)
{
    struct pingpong *pp = state;
    for (uint64_t r = 0; r < reps; r++)
        while (!flip(&pp->flag, 1))
            ;
}

static int measure_pair(struct cpu_job *job)
{
    struct pingpong *pp = job->arg;
    struct helper *h = helper_start(pp->peer, respond, pp);
    if (!h) {
        snprintf(job->err, sizeof job->err, "cannot start the responder on CPU %d", pp->peer);
        exec_ready(job);
        return -1;
    }
    /* first ping with a deadline: a responder that never runs must not hang the probe */
    uint64_t t0 = counter_read(), limit = (uint64_t)(C2C_ANSWER_S * counter_info()->freq_hz);
    while (!flip(&pp->flag, 1)) {
        if (counter_read() - t0 > limit || probe_interrupted()) {
            snprintf(job->err, sizeof job->err, "CPU %d did not answer within %.0f s (offline or busy?)",
                     pp->peer, C2C_ANSWER_S);
            /* it may still answer later: let it, then stop it */
            helper_stop(h);
            exec_ready(job);
            return -1;
        }
    }
    job->events_per = "operation";   /* iterations: one-way transfers, counted on this side */
    exec_ready(job);
    exec_sample(job, round_trips, pp, C2C_MIN_ROUND_TRIPS);
    helper_stop(h);
    return 0;
}

/* One CPU, or --mode parallel, leaves nothing to measure: not an error, so a suite run with
 * --cpus 0 or --mode parallel goes on, but a warning says why there is no matrix. */
static const char *not_applicable(const struct run_ctx *ctx)
{
    if (ctx->mode == MODE_PARALLEL)
        return "c2c-latency measures one pair at a time: nothing measured with --mode parallel "
               "(use --mode serial)";
    if (ctx->ncpus < 2)
        return "c2c-latency needs at least two CPUs in --cpus (e.g. 0,1 or 0-3): nothing measured";
    return NULL;
}

static int run(struct run_ctx *ctx)
{
    if (not_applicable(ctx)) {
        emit_warning("c2c-not-applicable", not_applicable(ctx), -1);
        return 0;
    }
    struct run_ctx *one = malloc(sizeof *one);   /* ctx with the pair's first CPU only */
    struct pingpong *pp = aligned_alloc(C2C_LINE, sizeof *pp);
    double *ns = malloc(sizeof(double) * (size_t)ctx->samples);
    struct cpu_job job;
    int rc = 0;
    if (!one || !pp || !ns) {
        emit_error("out-of-memory", "c2c-latency: out of memory");
        rc = 1;
    }
    for (int i = 0; i < ctx->ncpus && rc == 0 && !probe_interrupted(); i++) {
        for (int j = 0; j < ctx->ncpus && rc == 0 && !probe_interrupted(); j++) {
            int a = ctx->cpus[i], b = ctx->cpus[j];
            if (a >= b)
                continue;
            *one = *ctx;
            one->cpus[0] = a;
            one->ncpus = 1;
            memset(pp, 0, sizeof *pp);
            pp->peer = b;
            memset(&job, 0, sizeof job);
            if (exec_each_cpu(one, measure_pair, pp, &job) != 0) {
                emit_error("thread-failed", "cannot start a measuring thread");
                rc = 1;
            }
            int outcome = job_outcome(&job);
            if (outcome < 0)
                rc = 1;
            if (outcome > 0) {
                uint64_t one_way = 2 * job.reps;
                for (int s = 0; s < job.nsamples; s++)
                    ns[s] = ticks_to_ns(job.ticks[s]) / (double)one_way;
                struct json_obj params;
                json_obj_init(&params);
                json_obj_uint(&params, "peer", (uint64_t)b);
                struct result_record r = {"c2c-latency", params.text, a, "latency", "ns", "lower",
                                          ns, job.nsamples, one_way, job.ticks, &job, NULL};
                emit_record(ctx, &r);
            }
            exec_free_jobs(one, &job);
        }
    }
    free(ns);
    free(pp);
    free(one);
    return rc;
}

const struct kernel c2c_latency_kernel = {
    .name = "c2c-latency",
    .help = "core-to-core latency: one cache line bounced between every pair of CPUs (one-way ns)",
    .params = params,
    .available = NULL,
    .prepare = NULL,
    .run = run,
};

/* c2c-latency: core-to-core latency. One cache line is bounced between two CPUs: the
 * initiator (pinned on the first CPU) writes an odd value into it and spins until the
 * responder (a helper pinned on the peer) has read it and written the next even value.
 * A sample is `reps` such round trips; one-way latency = round trip / 2.
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
#include "jsonl.h"
#include "kernel.h"

/* 128 bytes: the line and its neighbour (adjacent-line prefetchers fetch pairs), so no
 * other data of the process shares what is bounced. */
#define C2C_LINE 128
/* The responder must answer the first ping within this, or the pair is reported failed
 * (its CPU did not run the helper: offline, or held by a real-time task). */
#define C2C_ANSWER_S 1.0

static const struct kernel_param params[] = {
    {NULL, NULL, NULL, NULL, false},
};

struct pingpong {
    alignas(C2C_LINE) _Atomic uint64_t seq;   /* even: the initiator's turn; odd: the responder's */
    char pad[C2C_LINE - sizeof(uint64_t)];
    uint64_t next;                            /* initiator only: the even value it holds */
    int peer;
};

static void respond(void *arg, volatile int *stop)
{
    struct pingpong *pp = arg;
    for (;;) {
        uint64_t v = atomic_load_explicit(&pp->seq, memory_order_acquire);
        if (v & 1)
            atomic_store_explicit(&pp->seq, v + 1, memory_order_release);
        else if (*stop)
            return;
    }
}

static void round_trips(void *state, uint64_t reps)
{
    struct pingpong *pp = state;
    uint64_t v = pp->next;
    for (uint64_t r = 0; r < reps; r++) {
        atomic_store_explicit(&pp->seq, v + 1, memory_order_release);
        while (atomic_load_explicit(&pp->seq, memory_order_acquire) != v + 2)
            ;
        v += 2;
    }
    pp->next = v;
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
    uint64_t v = pp->next, t0 = counter_read(), limit = (uint64_t)(C2C_ANSWER_S * counter_info()->freq_hz);
    atomic_store_explicit(&pp->seq, v + 1, memory_order_release);
    while (atomic_load_explicit(&pp->seq, memory_order_acquire) != v + 2) {
        if (counter_read() - t0 > limit || probe_interrupted()) {
            snprintf(job->err, sizeof job->err, "CPU %d did not answer within %.0f s (offline or busy?)",
                     pp->peer, C2C_ANSWER_S);
            /* it may still answer later: let it, then stop it */
            helper_stop(h);
            exec_ready(job);
            return -1;
        }
    }
    pp->next = v + 2;
    exec_ready(job);
    exec_sample(job, round_trips, pp, 1);
    helper_stop(h);
    return 0;
}

static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    if (ctx->mode == MODE_PARALLEL) {
        snprintf(err, errlen, "c2c-latency: pairs are measured one at a time (valid: --mode serial)");
        return -1;
    }
    if (ctx->ncpus < 2) {
        snprintf(err, errlen, "c2c-latency: needs at least two CPUs in --cpus (valid: e.g. 0,1 or 0-3)");
        return -1;
    }
    return 0;
}

static int run(struct run_ctx *ctx)
{
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
            int outcome = exec_job_outcome(&job);
            if (outcome < 0)
                rc = 1;
            if (outcome > 0) {
                uint64_t one_way = 2 * job.reps;
                for (int s = 0; s < job.nsamples; s++)
                    ns[s] = ticks_to_ns(job.ticks[s]) / (double)one_way;
                char params_json[48], *cost = exec_cost_json(&job);
                snprintf(params_json, sizeof params_json, "{\"peer\":%d}", b);
                emit_result_extra(ctx, "c2c-latency", params_json, a, "latency", "ns", "lower",
                                  ns, job.nsamples, one_way, job.ticks, cost);
                free(cost);
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
    .prepare = prepare,
    .run = run,
};

/* mem-latency: dependent loads around a ring (pp_chase), per size, in ns and core cycles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "cache.h"
#include "chase.h"
#include "counter.h"
#include "exec.h"
#include "record.h"
#include "kernel.h"
#include "op_latency.h"
#include "params.h"
#include "timed_loops.h"

#define MAX_SIZES 256

static const char *const pattern_choices[] = {"seq", "random", NULL};

static const struct kernel_param params[] = {
    {"pattern", "random", pattern_choices, "seq: stride ring (lat_mem_rd); random: lines shuffled within 64-page groups, groups shuffled",
     .kind = PARAM_CHOICE},
    {"size", "auto", NULL, "ring sizes, e.g. 16k,8m; auto: 1 KiB to 4x the last-level cache, 4 per octave",
     .list = true, .kind = PARAM_SIZE_LIST, .min = 1, .keyword = "auto"},
    {"stride", "64", NULL, "bytes between ring elements (a cache line; 128 as published guides)",
     .kind = PARAM_SIZE, .min = sizeof(void *), .max = 1 << 20},
    {NULL},
};

struct latency_plan {
    enum chase_pattern pattern;
    uint64_t stride;
    uint64_t sizes[MAX_SIZES];
    int nsizes;
};

struct latency_point {
    const struct latency_plan *plan;
    uint64_t size;
    struct page_backing *backing;   /* one per job (job->index) */
};

struct chase_state {
    void **p;
};

static void **volatile chase_sink;

static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    struct latency_plan *plan = calloc(1, sizeof *plan);
    plan->pattern = kernel_choice(ctx, "pattern") == 0 ? CHASE_SEQ : CHASE_RANDOM;
    plan->stride = kernel_size(ctx, "stride");
    if (plan->stride % sizeof(void *)) {
        snprintf(err, errlen, "mem-latency: --stride '%s' is not valid (valid: a multiple of %zu bytes, e.g. 64 or 128)",
                 kernel_value(ctx, "stride"), sizeof(void *));
        free(plan);
        return -1;
    }
    const uint64_t *sizes = kernel_sizes(ctx, "size", &plan->nsizes);
    if (plan->nsizes == 0) {   /* auto */
        uint64_t llc = cache_llc_size(ctx->cpus[0], 8u << 20);
        plan->nsizes = size_sweep(1024, 4 * llc, 4, plan->stride, plan->sizes, MAX_SIZES);
    } else {
        memcpy(plan->sizes, sizes, sizeof(uint64_t) * (size_t)plan->nsizes);
    }
    for (int i = 0; i < plan->nsizes; i++) {
        uint64_t s = plan->sizes[i] / plan->stride * plan->stride;
        if (s < 2 * plan->stride) {
            snprintf(err, errlen, "mem-latency: --size %llu is too small (valid: at least two strides, %llu bytes)",
                     (unsigned long long)plan->sizes[i], (unsigned long long)(2 * plan->stride));
            free(plan);
            return -1;
        }
        plan->sizes[i] = s;
    }
    if (buffer_check_sizes(ctx, "mem-latency", plan->sizes, plan->nsizes, 1, err, errlen) != 0) {
        free(plan);
        return -1;
    }
    ctx->kernel_state = plan;
    return 0;
}

static void chase_body(void *state, uint64_t reps)
{
    struct chase_state *st = state;
    st->p = pp_chase(st->p, reps);
}

static int measure_on_cpu(struct cpu_job *job)
{
    const struct latency_point *pt = job->arg;
    void *buf;
    void *mapping = buffer_alloc(pt->size, 1, &buf);
    if (!mapping) {
        snprintf(job->err, sizeof job->err, "cannot map %llu bytes", (unsigned long long)pt->size);
        exec_ready(job);
        return -1;
    }
    buffer_backing(mapping, pt->size, 1, &pt->backing[job->index]);
    /* this CPU's own clock: on big.LITTLE the clusters differ */
    job->result = (void *)core_clock_on_cpu(job->cpu);
    struct chase_state st;
    st.p = chase_build(buf, pt->size, pt->plan->stride, page_size(), pt->plan->pattern, 1 + pt->size);
    job->events_per = "access";   /* iterations: the loads of the chase */
    exec_ready(job);
    exec_sample(job, chase_body, &st, 1);
    /* the ring's end pointer is data: keep the chase from being dead code for any compiler */
    chase_sink = st.p;
    buffer_free(mapping, pt->size, 1);
    return 0;
}

static int emit_point(struct run_ctx *ctx, struct cpu_job *job, void *params_json)
{
    const struct latency_point *pt = job->arg;
    emit_job_op_latency(ctx, "mem-latency", params_json, job, job->result, job->reps * CHASE_UNROLL,
                        jw_page_backing, &pt->backing[job->index]);
    return 0;
}

static int run(struct run_ctx *ctx)
{
    struct latency_plan *plan = ctx->kernel_state;
    struct page_backing *backing = calloc((size_t)ctx->ncpus, sizeof *backing);
    int rc = 0;
    for (int s = 0; s < plan->nsizes && !probe_interrupted() && rc == 0; s++) {
        struct latency_point pt = {plan, plan->sizes[s], backing};
        struct json_obj params;
        json_obj_init(&params);
        json_obj_str(&params, "pattern", plan->pattern == CHASE_SEQ ? "seq" : "random");
        json_obj_uint(&params, "size", pt.size);
        json_obj_uint(&params, "stride", plan->stride);
        rc = measure_each_cpu(ctx, measure_on_cpu, &pt, emit_point, params.text);
    }
    free(backing);
    free(plan);
    return rc;
}

const struct kernel mem_latency_kernel = {
    .name = "mem-latency",
    .help = "dependent-load latency of a pointer ring per size (ns and core cycles per load)",
    .params = params,
    .available = NULL,
    .prepare = prepare,
    .run = run,
};

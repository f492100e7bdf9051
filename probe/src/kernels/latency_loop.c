/* latency-loop: one CPU reads the counter in a tight loop for --duration seconds and bins
 * every pass into a histogram (histogram.h), while aggressor threads (aggressors.h) load
 * the shared cache from other CPUs. The timed loops are arch/<arch>/latency_loop.S; the
 * contract between them and this file is kernels/latency_loop.h.
 *
 * Emits one `histogram` record and results latency_min, latency_mean, latency_max, p99,
 * p99_99 (ns) and excursions (passes longer than --threshold ns), all lower-is-better.
 */
#include "kernels/latency_loop.h"

#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "arch/timed_loops.h"
#include "buffer.h"
#include "cache.h"
#include "counter.h"
#include "events.h"
#include "exec.h"
#include "histogram.h"
#include "record.h"
#include "kernel.h"
#include "kernels/aggressors.h"
#include "params.h"

_Static_assert(offsetof(struct latency_loop_ctx, exact) == LL_EXACT, "LL_EXACT");
_Static_assert(offsetof(struct latency_loop_ctx, fast_limit) == LL_FAST_LIMIT, "LL_FAST_LIMIT");
_Static_assert(offsetof(struct latency_loop_ctx, end) == LL_END, "LL_END");
_Static_assert(offsetof(struct latency_loop_ctx, slow) == LL_SLOW, "LL_SLOW");
_Static_assert(offsetof(struct latency_loop_ctx, delta) == LL_DELTA, "LL_DELTA");
_Static_assert(offsetof(struct latency_loop_ctx, now) == LL_NOW, "LL_NOW");
_Static_assert(offsetof(struct latency_loop_ctx, first) == LL_FIRST, "LL_FIRST");
_Static_assert(offsetof(struct latency_loop_ctx, last) == LL_LAST, "LL_LAST");

#define MAX_RAW 1000000           /* raw samples kept at most (8 MB here, about 12 MB of JSON) */
#define WARMUP_S 0.02             /* a first short loop faults in code, stack and exact[] */
#define RT_PRIORITY 80            /* above the kernel's threaded IRQs (50), below migration */

static const char *const variants[] = {"plain", "2ki", "2kl", NULL};
static const char *const rt_choices[] = {"0", "1", NULL};

static const struct kernel_param params[] = {
    {"variant", "plain", variants, "work between two counter reads: plain, 2ki (2048 adds), "
                                   "2kl (an inner loop of 2048 increments)", .kind = PARAM_CHOICE},
    {"duration", "1", NULL, "seconds the loop runs", .kind = PARAM_NUMBER, .min = 1e-6, .max = 86400},
    {"threshold", "1000", NULL, "ns: passes longer than this are counted as excursions",
     .kind = PARAM_NUMBER, .min = 0, .max = 1e15},
    {"raw", "0", NULL, "keep the first N pass times verbatim (at most 10000000)",
     .kind = PARAM_COUNT, .min = 0, .max = MAX_RAW},
    {"pattern", "none", aggressor_patterns, "what the aggressors do", .kind = PARAM_CHOICE},
    {"aggressor-cpus", "", NULL, "CPUs running the aggressor pattern, e.g. 0,2-3", .kind = PARAM_CPU_LIST},
    {"cache-sets", "", NULL, "last-level cache sets (default: detected)", .kind = PARAM_SIZE, .min = 1},
    {"cache-ways", "", NULL, "last-level cache ways (default: detected)", .kind = PARAM_SIZE, .min = 1},
    {"line-size", "", NULL, "cache line bytes (default: detected)", .kind = PARAM_SIZE, .min = 1},
    {"rt", "0", rt_choices, "1: SCHED_FIFO and mlockall for the measuring thread", .kind = PARAM_CHOICE},
    {NULL},
};

struct latency_plan {
    int variant, pattern, rt;
    double duration_s, threshold_ns;
    uint64_t raw;
    int aggressor_cpus[PROBE_MAX_CPUS];
    int naggressors;
    struct cache_geometry geometry;
    char params_json[512];
};

/* The victim's state; loop is first so the slow path can get back to it. */
struct victim {
    struct latency_loop_ctx loop;
    struct histogram hist;
    uint64_t fast_limit;          /* once raw samples are full */
    uint64_t exact[HIST_EXACT];
};

static void on_slow_pass(struct latency_loop_ctx *c)
{
    struct victim *v = (struct victim *)c;
    hist_record(&v->hist, c->delta, c->now);
    if (v->hist.raw && v->hist.raw_n >= v->hist.raw_cap)
        c->fast_limit = v->fast_limit;
    if (probe_interrupted())
        c->end = 0;
}

/* The same loop over counter_read(), for fallback builds and armv7 without user access
 * to CNTVCT (the probe then counts in clock_gettime nanoseconds). */
static void latency_loop_c(struct latency_loop_ctx *c, int variant)
{
    volatile uint64_t work = 0;
    uint64_t prev = counter_read();
    c->first = prev;
    while (prev < c->end) {
        /* the variant's work first, as the assembly loops do, so every pass holds it */
        if (variant > 0)
            for (int i = 0; i < LL_INNER; i++)
                work = work + 1;
        uint64_t now = counter_read(), delta = now - prev;
        prev = now;
        if (delta < c->fast_limit) {
            c->exact[delta]++;
        } else {
            c->delta = delta;
            c->now = now;
            c->slow(c);
            prev = counter_read();
        }
    }
    c->last = prev;
}

/* 1 when the .S loops read the same counter as counter_read(): not the clock_gettime
 * fallback, nor a counter quantised by the test switch (PLATPERF_COUNTER_QUANTUM). */
static int asm_loops_usable(void)
{
#ifdef PLATPERF_FALLBACK
    return 0;
#else
    return !counter_is_monotonic() && !counter_info()->quantum_ticks;
#endif
}

static void run_loop(struct victim *v, int variant, uint64_t ticks)
{
    v->loop.end = counter_read() + ticks;
#ifndef PLATPERF_FALLBACK
    if (asm_loops_usable()) {
        static void (*const loops[])(struct latency_loop_ctx *) = {
            latency_loop_plain, latency_loop_2ki, latency_loop_2kl};
        loops[variant](&v->loop);
        return;
    }
#endif
    latency_loop_c(&v->loop, variant);
}

static int geometry(struct latency_plan *p, const struct run_ctx *ctx, char *err, size_t errlen)
{
    const char *names[3] = {"cache-sets", "cache-ways", "line-size"};
    size_t *fields[3] = {&p->geometry.sets, &p->geometry.ways, &p->geometry.line};
    for (int i = 0; i < 3; i++)
        if (kernel_param(ctx, names[i])->set)
            *fields[i] = (size_t)kernel_size(ctx, names[i]);
    struct cache_level levels[CACHE_MAX_LEVELS];
    int n = cache_levels(ctx->cpus[0], levels, CACHE_MAX_LEVELS);
    if (n > 0) {
        const struct cache_level *llc = &levels[n - 1];
        if (!p->geometry.line)
            p->geometry.line = llc->line_size;
        if (!p->geometry.ways)
            p->geometry.ways = llc->ways;
        if (!p->geometry.sets)
            p->geometry.sets = llc->sets ? llc->sets
                               : llc->ways && llc->line_size ? llc->size / (llc->ways * llc->line_size) : 0;
    }
    if (p->pattern != AGG_NONE && !(p->geometry.sets && p->geometry.ways && p->geometry.line)) {
        snprintf(err, errlen, "the last-level cache geometry is not in sysfs; give --cache-sets, "
                 "--cache-ways and --line-size");
        return -1;
    }
    return 0;
}

static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    struct latency_plan *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ctx->kernel_state = p;
    p->variant = kernel_choice(ctx, "variant");
    p->pattern = aggressor_pattern_from_name(kernel_value(ctx, "pattern"));
    p->rt = kernel_choice(ctx, "rt") == 1;
    if (ctx->ncpus != 1) {
        snprintf(err, errlen, "latency-loop measures one CPU: give --cpus with one CPU (got %d)",
                 ctx->ncpus);
        return -1;
    }
    p->duration_s = kernel_number(ctx, "duration");
    p->threshold_ns = kernel_number(ctx, "threshold");
    p->raw = (uint64_t)kernel_count(ctx, "raw");
    const int *aggressors = kernel_cpus(ctx, "aggressor-cpus", &p->naggressors);
    memcpy(p->aggressor_cpus, aggressors, sizeof(int) * (size_t)p->naggressors);
    for (int i = 0; i < p->naggressors; i++) {
        int cpu = p->aggressor_cpus[i];
        if (cpu == ctx->cpus[0]) {
            snprintf(err, errlen, "CPU %d is both the measured CPU (--cpus) and an aggressor "
                     "(--aggressor-cpus); give them disjoint CPUs", cpu);
            return -1;
        }
        if (!cpu_is_online(cpu)) {
            snprintf(err, errlen, "aggressor CPU %d is not online", cpu);
            return -1;
        }
    }
    if (p->pattern != AGG_NONE && p->naggressors == 0) {
        snprintf(err, errlen, "--pattern %s needs --aggressor-cpus", aggressor_pattern_name(p->pattern));
        return -1;
    }
    if (geometry(p, ctx, err, errlen))
        return -1;
    uint64_t need = p->raw * 8;
    if (p->pattern != AGG_NONE)
        need += (uint64_t)p->naggressors * aggressor_buffer_bytes(&p->geometry);
    if (!buffer_fits(ctx, "the raw samples and 4x the LLC per aggressor", need, err, errlen))
        return -1;
    /* the aggressor list is part of the key: canonical "0,2,3" */
    char cpus[256] = "";
    for (int i = 0; i < p->naggressors; i++) {
        size_t len = strlen(cpus);
        snprintf(cpus + len, sizeof cpus - len, "%s%d", i ? "," : "", p->aggressor_cpus[i]);
    }
    struct json_obj params;
    json_obj_init(&params);
    json_obj_str(&params, "aggressors", p->pattern == AGG_NONE ? "" : cpus);
    json_obj_g(&params, "duration", p->duration_s, 6);
    json_obj_str(&params, "pattern", aggressor_pattern_name(p->pattern));
    json_obj_g(&params, "threshold", p->threshold_ns, 6);
    json_obj_str(&params, "variant", variants[p->variant]);
    snprintf(p->params_json, sizeof p->params_json, "%s", params.text);
    return 0;
}

struct victim_job {
    struct latency_plan *plan;
    struct victim *v;
    uint64_t *raw;
    int rt_applied;
    char rt_why[160];
    uint64_t sweeps;
    int loop_asm;
};

static void real_time(struct victim_job *vj)
{
    struct sched_param sp = {.sched_priority = RT_PRIORITY};
    /* mlockall first: a page fault in the loop is an excursion the study does not mean */
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        snprintf(vj->rt_why, sizeof vj->rt_why, "mlockall failed (needs root or "
                 "CAP_IPC_LOCK / a larger memlock limit)");
    else if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
        snprintf(vj->rt_why, sizeof vj->rt_why, "SCHED_FIFO refused (needs root or CAP_SYS_NICE)");
    else
        vj->rt_applied = 1;
}

static int victim_run(struct cpu_job *job)
{
    struct victim_job *vj = job->arg;
    struct latency_plan *p = vj->plan;
    struct victim *v = vj->v;
    const struct counter_info *ci = counter_info();
    if (p->rt)
        real_time(vj);

    /* aggressors first: the loop starts only once each one has its buffer and runs */
    struct aggressor agg[PROBE_MAX_CPUS];
    struct helper *helpers[PROBE_MAX_CPUS];
    atomic_int ready;
    atomic_init(&ready, 0);
    int started = 0;
    if (p->pattern != AGG_NONE)
        for (; started < p->naggressors; started++) {
            agg[started] = (struct aggressor){.pattern = p->pattern, .g = p->geometry,
                                              .cpu = p->aggressor_cpus[started], .ready = &ready};
            helpers[started] = helper_start(agg[started].cpu, aggressor_run, &agg[started]);
            if (!helpers[started])
                break;
        }
    int status = 0;
    if (started < (p->pattern != AGG_NONE ? p->naggressors : 0)) {
        snprintf(job->err, sizeof job->err, "could not start the aggressor thread for CPU %d",
                 p->aggressor_cpus[started]);
        status = -1;
    } else {
        /* a helper that could not pin itself never runs; give up after 60 s */
        time_t give_up = time(NULL) + 60;
        while (atomic_load(&ready) < started && time(NULL) < give_up)
            sched_yield();
        for (int i = 0; i < started && !status; i++)
            if (atomic_load(&ready) < started || !agg[i].ok) {
                snprintf(job->err, sizeof job->err, "aggressor on CPU %d could not be pinned or "
                         "given its buffer", agg[i].cpu);
                status = -1;
            }
    }

    if (!status) {
        uint64_t fast_limit = (uint64_t)(p->threshold_ns / ticks_to_ns(1)) + 1;
        if (fast_limit > HIST_EXACT)
            fast_limit = HIST_EXACT;
        v->fast_limit = fast_limit;
        v->loop = (struct latency_loop_ctx){.exact = v->exact, .fast_limit = fast_limit,
                                            .slow = on_slow_pass};
        hist_init(&v->hist, NULL, 0);
        run_loop(v, p->variant, (uint64_t)(WARMUP_S * ci->freq_hz));

        memset(v->exact, 0, sizeof v->exact);
        hist_init(&v->hist, vj->raw, p->raw);
        v->hist.threshold = (uint64_t)(p->threshold_ns / ticks_to_ns(1));
        /* raw samples: every pass takes the slow path until the buffer is full */
        v->loop.fast_limit = p->raw ? 0 : fast_limit;
        exec_ready(job);
        events_one_begin(&job->events, job->cpu);   /* --events: the loop is one sample */
        run_loop(v, p->variant, (uint64_t)(p->duration_s * ci->freq_hz));
        events_one_end(job->events);
        hist_add_exact(&v->hist, v->exact);
        vj->loop_asm = asm_loops_usable();
    }
    for (int i = 0; i < started; i++) {
        helper_stop(helpers[i]);
        vj->sweeps += agg[i].sweeps;
    }
    if (vj->rt_applied) {
        struct sched_param sp = {.sched_priority = 0};
        sched_setscheduler(0, SCHED_OTHER, &sp);
        munlockall();
    }
    return status;
}

/* A growing string for the histogram record's arrays. */
static void emit_histogram(struct run_ctx *ctx, const struct latency_plan *p,
                           const struct victim_job *vj, int cpu)
{
    const struct histogram *h = &vj->v->hist;
    double tick = ticks_to_ns(1);

    jw_begin("histogram");
    jw_str("benchmark", "latency-loop");
    jw_raw("params", p->params_json);
    jw_int("cpu", cpu);
    jw_str("mode", "serial");
    jw_str("unit", "ns");
    jw_num("tick_ns", tick);
    jw_str("buckets_scheme", "log-linear: 1 tick below 256 ticks, then 128 per power of two");
    jw_uint("count", h->count);
    jw_num("sum", (double)h->sum * tick);
    jw_num("min", (double)h->min * tick);
    jw_num("max", (double)h->max * tick);
    jw_num("threshold", p->threshold_ns);
    jw_uint("over_threshold", h->over);
    jw_histogram(h, tick, vj->v->loop.first);
    jw_num("elapsed_s", (double)(vj->v->loop.last - vj->v->loop.first) * tick * 1e-9);
    jw_str("loop", vj->loop_asm ? "asm" : "c");
    jw_object("rt");
    jw_bool("requested", p->rt);
    jw_bool("applied", p->rt && vj->rt_applied);
    jw_object_end();
    if (p->pattern != AGG_NONE) {
        jw_object("cache");
        jw_uint("sets", p->geometry.sets);
        jw_uint("ways", p->geometry.ways);
        jw_uint("line", p->geometry.line);
        jw_object_end();
        jw_uint("aggressor_sweeps", vj->sweeps);
    }
    jw_end();
    ctx->results++;
}

/* A figure's own fields: its resolution when it is one pass, the events counted per pass. */
struct figure_more { const uint64_t *ticks; const struct cpu_job *job; uint64_t passes; };

static void figure_fields(const void *arg)
{
    const struct figure_more *m = arg;
    if (m->ticks)
        jw_resolution_steps((double)*m->ticks);
    events_jw_record(m->job->events, "pass", m->passes, 1, NULL);
}

/* ticks: the figure is one pass of that many ticks (min, max, a quantile), which says when
 * it is within a few counter steps; NULL for the mean and the count. */
static void emit_one(struct run_ctx *ctx, const struct latency_plan *p, const struct cpu_job *job,
                     const char *metric, const char *unit, double value, uint64_t passes, const uint64_t *ticks)
{
    struct result_record r = {"latency-loop", p->params_json, job->cpu, metric, unit, "lower", &value, 1,
                              passes, NULL, NULL, NULL};
    struct figure_more more = {ticks, job, passes};
    emit_record_with(ctx, &r, figure_fields, &more);
    events_job_warnings(job->events, "pass", passes);
}

static int run(struct run_ctx *ctx)
{
    struct latency_plan *p = ctx->kernel_state;
    struct victim_job vj = {.plan = p};
    struct cpu_job job;
    int status = 0, ran = 0;
    vj.v = calloc(1, sizeof *vj.v);
    if (p->raw)
        vj.raw = calloc(p->raw, sizeof *vj.raw);
    if (!vj.v || (p->raw && !vj.raw)) {
        emit_error("out-of-memory", "latency-loop could not allocate its histogram");
        status = -1;
    } else if (exec_each_cpu(ctx, victim_run, &vj, &job) != 0) {
        emit_error("thread-failed", "latency-loop could not start its measuring thread");
        status = -1;
    } else if ((ran = 1) && job.status != 0) {
        emit_error("aggressor-failed", job.err);
        status = -1;
    } else {
        int cpu = ctx->cpus[0];
        const struct histogram *h = &vj.v->hist;
        double tick = ticks_to_ns(1);
        if (p->rt && !vj.rt_applied)
            emit_warning("rt-not-applied", vj.rt_why, cpu);
        if (!vj.loop_asm)
            emit_warning("latency-loop-c", "the latency loop ran as C over counter_read(), not the "
                         "assembly loop", cpu);
        emit_histogram(ctx, p, &vj, cpu);
        uint64_t p99 = hist_quantile(h, 0.99), p99_99 = hist_quantile(h, 0.9999);
        emit_one(ctx, p, &job, "latency_min", "ns", (double)h->min * tick, h->count, &h->min);
        emit_one(ctx, p, &job, "latency_mean", "ns", h->count ? (double)h->sum * tick / (double)h->count : 0,
                 h->count, NULL);
        emit_one(ctx, p, &job, "latency_max", "ns", (double)h->max * tick, h->count, &h->max);
        emit_one(ctx, p, &job, "p99", "ns", (double)p99 * tick, h->count, &p99);
        emit_one(ctx, p, &job, "p99_99", "ns", (double)p99_99 * tick, h->count, &p99_99);
        emit_one(ctx, p, &job, "excursions", "count", (double)h->over, h->count, NULL);
    }
    if (ran)
        exec_free_jobs(ctx, &job);
    free(vj.raw);
    free(vj.v);
    free(p);
    ctx->kernel_state = NULL;
    return status;
}

const struct kernel latency_loop_kernel = {
    .name = "latency-loop",
    .help = "pass-to-pass counter deltas on one CPU, with optional cache aggressors on others",
    .params = params,
    .available = NULL,
    .prepare = prepare,
    .run = run,
};

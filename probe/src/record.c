/* The records of docs/results-format.md, written with the JSON writer (jsonl.c), and what a
 * measuring job becomes in them. */
#include "record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "counter.h"
#include "events.h"
#include "histogram.h"
#include "summary.h"

void jw_resolution_steps(double ticks)
{
    if (ticks >= 0 && ticks_to_steps(ticks) < COUNTER_NEAR_STEPS)
        jw_g("resolution_steps", ticks_to_steps(ticks), 4);
}

void emit_record(struct run_ctx *ctx, const struct result_record *r)
{
    emit_record_with(ctx, r, NULL, NULL);
}

void emit_record_with(struct run_ctx *ctx, const struct result_record *r,
                      void (*more)(const void *more_arg), const void *more_arg)
{
    struct summary s = summarize(r->samples, r->n);
    jw_begin("result");
    jw_str("benchmark", r->benchmark);
    jw_raw("params", r->params ? r->params : "{}");
    if (r->cpu >= 0)
        jw_int("cpu", r->cpu);
    jw_str("mode", ctx->mode == MODE_PARALLEL ? "parallel" : "serial");
    jw_str("metric", r->metric);
    jw_str("unit", r->unit);
    jw_str("direction", r->direction);
    jw_double_array("samples", r->samples, r->n);
    jw_object("summary");
    jw_int("n", s.n);
    jw_num("min", s.min);
    jw_num("median", s.median);
    jw_num("mean", s.mean);
    jw_num("max", s.max);
    jw_num("stdev", s.stdev);
    jw_object_end();
    if (r->iterations)
        jw_uint("iterations", r->iterations);
    if (r->ticks)
        jw_uint_array("ticks", r->ticks, r->n);
    if (r->clock && r->clock->valid) {
        jw_object("core_clock");
        jw_num("hz", round(r->clock->hz));
        jw_num("cycles_per_tick", r->clock->cycles_per_tick);
        jw_num("error_pct", r->clock->error_pct);
        jw_object_end();
    }
    if (r->ticks && r->n > 0) {
        uint64_t least = r->ticks[0];
        for (int i = 1; i < r->n; i++)
            least = r->ticks[i] < least ? r->ticks[i] : least;
        jw_resolution_steps((double)least);
    }
    if (r->job)
        jw_job(r->job);
    if (r->job)
        events_jw_record(r->job->events, r->job->events_per, r->iterations, r->n, &r->job->events_expected);
    if (more)
        more(more_arg);
    jw_end();
    ctx->results++;
    if (r->job)
        events_job_warnings(r->job->events, r->job->events_per, r->iterations);
}

void emit_warning(const char *code, const char *message, int cpu)
{
    jw_warning(code, message, cpu);
}

void emit_error(const char *code, const char *message)
{
    jw_begin("error");
    jw_str("code", code);
    jw_str("message", message);
    jw_end();
}

void emit_end(const char *status, int results, double elapsed_s)
{
    jw_begin("end");
    jw_str("status", status);
    jw_int("results", results);
    jw_num("elapsed_s", round(elapsed_s * 1000) / 1000);
    jw_end();
}

void jw_job(const struct cpu_job *job)
{
    const struct sample_cost *c = &job->cost;
    jw_object("cost");
    jw_uint("target_ticks", c->target_ticks);
    jw_uint("sample_estimate_ticks", c->sample_estimate_ticks);
    jw_uint("calibration_ticks", c->calibration_ticks);
    jw_uint("warmup_ticks", c->warmup_ticks);
    jw_uint("sample_ticks", c->sample_ticks);
    jw_int("retakes", job->retried);
    jw_object_end();
    jw_flag_indexes("preempted", job->kept_preempted, job->nsamples);
    if (job->steal_ticks >= 0) {
        jw_object("steal");
        jw_int("ticks", job->steal_ticks);
        jw_int("retakes", job->steal_retried);
        jw_flag_indexes("samples", job->kept_stolen, job->nsamples);
        jw_object_end();
    }
    if (job->csw_voluntary >= 0) {
        jw_object("context_switches");
        jw_int("voluntary", job->csw_voluntary);
        jw_int("involuntary", job->csw_involuntary);
        jw_object_end();
    }
}

void report_preemption(const struct cpu_job *job)
{
    if (job->preempted) {
        char msg[240];
        snprintf(msg, sizeof msg, "%d of %d samples are kept although preempted (result \"preempted\" "
                 "lists them): each is retaken at most %d times and only while the samples cost under "
                 "%.1fx samples x min-time; the CPU is busy (%d retakes in all)", job->preempted,
                 job->nsamples, SAMPLE_RETAKES, SAMPLE_COST_FACTOR, job->retried);
        emit_warning("sample-preempted", msg, job->cpu);
    }
    int stolen = 0;
    for (int i = 0; i < job->nsamples; i++)
        stolen += job->kept_stolen[i];
    if (stolen) {
        char msg[240];
        snprintf(msg, sizeof msg, "%d of %d samples are kept although the hypervisor stole time from CPU %d "
                 "(result \"steal\" lists them; %d retaken for steal): other guests share this host",
                 stolen, job->nsamples, job->cpu, job->steal_retried);
        emit_warning("sample-steal", msg, job->cpu);
    }
}

int job_outcome(const struct cpu_job *job)
{
    if (job->status != 0) {
        emit_error("cpu-failed", job->err);
        return -1;
    }
    report_preemption(job);
    return job->nsamples > 0;
}

int measure_each_cpu(struct run_ctx *ctx, cpu_job_fn fn, void *arg, job_emit_fn emit, void *emit_arg)
{
    struct cpu_job *jobs = calloc((size_t)ctx->ncpus, sizeof *jobs);
    int rc = 0;
    if (!jobs || exec_each_cpu(ctx, fn, arg, jobs) != 0) {
        emit_error("thread-failed", "cannot start a measuring thread");
        rc = 1;
    }
    for (int j = 0; jobs && j < ctx->ncpus; j++) {
        int outcome = job_outcome(&jobs[j]);
        if (outcome < 0)
            rc = 1;
        if (outcome > 0 && emit(ctx, &jobs[j], emit_arg) != 0)
            rc = 1;
    }
    if (jobs)
        exec_free_jobs(ctx, jobs);
    free(jobs);
    return rc;
}

void jw_histogram(const struct histogram *h, double tick, uint64_t t_first)
{
    jw_array("buckets");
    for (unsigned b = 0; b < HIST_BUCKETS; b++)
        if (h->counts[b]) {
            jw_element_array();
            jw_element_g((double)hist_bucket_lower(b) * tick, 9);
            jw_element_g((double)hist_bucket_upper(b) * tick, 9);
            jw_element_uint(h->counts[b]);
            jw_array_end();
        }
    jw_array_end();
    struct hist_top top[HIST_TOP];
    unsigned ntop = hist_top_sorted(h, top);
    jw_array("top");
    for (unsigned i = 0; i < ntop; i++) {
        jw_element_object();
        jw_g("value", (double)top[i].value * tick, 9);
        jw_g("t_ns", (double)(top[i].t - t_first) * tick, 9);
        jw_object_end();
    }
    jw_array_end();
    if (h->raw) {
        jw_object("raw");
        jw_array("values");
        for (size_t i = 0; i < h->raw_n; i++)
            jw_element_g((double)h->raw[i] * tick, 9);
        jw_array_end();
        jw_bool("truncated", h->raw_n < h->count);
        jw_object_end();
    }
}

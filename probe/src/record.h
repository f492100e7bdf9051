/* The records a kernel writes (docs/results-format.md): result, warning, error, end, each
 * through the JSON writer of jsonl.h; and what a measuring job becomes in them (its cost,
 * the samples kept although preempted or stolen from, its preemption warning). */
#ifndef PLATPERF_RECORD_H
#define PLATPERF_RECORD_H

#include <stdint.h>

#include "exec.h"
#include "jsonl.h"
#include "kernel.h"

struct core_clock;
/* One `result` record. samples[n] in `unit`; the optional parts are written when set:
 * iterations (> 0), ticks[n], job (its "cost", "preempted", "steal", "context_switches"),
 * clock (the CPU's "core_clock"). With --events, job's counts are written as "events", per
 * job->events_per of `iterations` (events.h). A kernel's own fields: emit_record_with().
 * With ticks, "resolution_steps" is written when the smallest is within a few counter steps
 * (jw_resolution_steps). */
struct result_record {
    const char *benchmark;
    const char *params;          /* a JSON object: json_obj.text; NULL = {} */
    int cpu;                     /* < 0: not per CPU (no "cpu" field) */
    const char *metric, *unit, *direction;
    const double *samples;
    int n;
    uint64_t iterations;
    const uint64_t *ticks;
    const struct cpu_job *job;
    const struct core_clock *clock;
};
void emit_record(struct run_ctx *ctx, const struct result_record *r);
/* The same, with more fields written last by more(more_arg) with the jw_* calls. */
void emit_record_with(struct run_ctx *ctx, const struct result_record *r,
                      void (*more)(const void *more_arg), const void *more_arg);
/* Inside a record: "resolution_steps" (ticks in counter steps) when `ticks` are within
 * COUNTER_NEAR_STEPS steps (counter.h): the figure is quantised by the counter. For a figure
 * that is one timing (a minimum, a quantile of single passes), not an average. */
void jw_resolution_steps(double ticks);
void emit_warning(const char *code, const char *message, int cpu);   /* cpu < 0: none */
void emit_error(const char *code, const char *message);
void emit_end(const char *status, int results, double elapsed_s);

/* Inside a record: "cost":{...},"preempted":[...],"steal":{...},"context_switches":{...} of a
 * job: what its samples cost in ticks, which were kept although preempted, the steal time
 * with its retakes and marked samples, and the thread's context switches. */
void jw_job(const struct cpu_job *job);

struct histogram;
/* Inside a `histogram` record: "buckets" ([lower, upper, count] of every bucket used),
 * "top" (value and t_ns, from counter value t_first) and, with raw values, "raw"
 * ({"values": [...], "truncated": bool}); figures in ns of `tick_ns` per tick, 9 digits. */
void jw_histogram(const struct histogram *h, double tick_ns, uint64_t t_first);

/* A `warning` record for a job whose samples stayed preempted or stolen from (no-op
 * otherwise); call from the thread that emits the job's results. */
void report_preemption(const struct cpu_job *job);
/* After exec_each_cpu(): 1 when the job has samples to emit (its preemption warning written),
 * 0 when it has none, -1 when it failed (its `error` record written). */
int job_outcome(const struct cpu_job *job);
/* Emits a job's records (results, histograms); returns 0, or nonzero after an error record. */
typedef int (*job_emit_fn)(struct run_ctx *ctx, struct cpu_job *job, void *emit_arg);
/* Measure on every CPU, emit each job: exec_each_cpu(fn, arg), then for each job with
 * samples (job_outcome() > 0) emit(ctx, job, emit_arg); the jobs are freed. Returns 0, or 1
 * when a thread could not start (error record "thread-failed"), a job failed or an emit did. */
int measure_each_cpu(struct run_ctx *ctx, cpu_job_fn fn, void *arg, job_emit_fn emit, void *emit_arg);

#endif

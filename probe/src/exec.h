/* Execution machinery: pinning, serial/parallel runs behind a start barrier, sampling,
 * helper threads on other CPUs, and the SIGINT/SIGTERM flag. */
#ifndef PLATPERF_EXEC_H
#define PLATPERF_EXEC_H

#include <signal.h>
#include <stdint.h>

#include "kernel.h"

#define SAMPLE_MIN_TICKS 1000   /* a sample shorter than this is dominated by counter resolution */
#define SAMPLE_RETRIES 20       /* retakes of a sample the scheduler preempted */

struct cpu_job;
typedef int (*cpu_job_fn)(struct cpu_job *job);

/* One measuring thread: what it was given and what it measured. */
struct cpu_job {
    cpu_job_fn fn;        /* what the thread runs once pinned */
    struct run_ctx *ctx;
    int cpu;
    int index;            /* position of cpu in ctx->cpus */
    void *arg;            /* the kernel's, shared by every job of one exec_each_cpu() */
    /* filled by exec_sample(): */
    uint64_t *ticks;      /* ctx->samples entries (malloc'd by exec_each_cpu) */
    int nsamples;         /* taken; fewer than ctx->samples if interrupted */
    uint64_t reps;        /* body repetitions per sample */
    int retried;          /* samples retaken because the thread was preempted */
    int preempted;        /* samples kept although preempted in every attempt */
    int status;           /* the job function's return value */
    char err[256];        /* its one-line message when status != 0 */
    void *result;         /* free for the kernel (e.g. a histogram), kernel frees it */
};

/* A timed body: `reps` repetitions of the kernel's timed loop on state. */
typedef void (*timed_body_fn)(void *state, uint64_t reps);

/* Runs fn(job) on a thread pinned to each CPU of ctx->cpus: one after another in serial
 * mode, all at once in parallel mode (each job calls exec_ready() when set up; they are
 * released together). jobs must hold ctx->ncpus entries; the caller frees job ticks with
 * exec_free_jobs(). Returns 0, or -1 if a thread could not be created. */
int exec_each_cpu(struct run_ctx *ctx, cpu_job_fn fn, void *arg, struct cpu_job *jobs);
void exec_free_jobs(struct run_ctx *ctx, struct cpu_job *jobs);
/* Start barrier: in parallel mode waits until every job is ready; no-op in serial mode. */
void exec_ready(struct cpu_job *job);
/* Warm-up, calibration of reps (sample >= min_time and >= SAMPLE_MIN_TICKS), then
 * ctx->samples samples into job->ticks; in parallel mode each sample starts behind a
 * barrier so the CPUs overlap. A sample the scheduler preempted is retaken (up to
 * SAMPLE_RETRIES). Stops after the current sample when interrupted.
 * min_reps: smallest useful repetition count (1 usually). */
void exec_sample(struct cpu_job *job, timed_body_fn body, void *state, uint64_t min_reps);

/* A `warning` record for a job whose samples stayed preempted (no-op otherwise);
 * call from the thread that emits the job's results. */
void exec_report_preemption(const struct cpu_job *job);
/* After exec_each_cpu(): 1 when the job has samples to emit (its preemption warning written),
 * 0 when it has none, -1 when it failed (its `error` record written). */
int exec_job_outcome(const struct cpu_job *job);
/* Involuntary context switches of the calling thread so far (-1 if unknown). */
long thread_involuntary_switches(void);

/* Pins the calling thread. Returns 0 or an errno value. */
int pin_to_cpu(int cpu);
int cpu_is_online(int cpu);
/* Online CPUs into out (ascending); returns how many. */
int cpus_online(int *out, int max);

/* Helper threads (aggressors): fn runs pinned on cpu until *stop becomes nonzero. */
struct helper;
typedef void (*helper_fn)(void *arg, volatile int *stop);
struct helper *helper_start(int cpu, helper_fn fn, void *arg);   /* NULL on failure */
void helper_stop(struct helper *h);                               /* signals, joins, frees */

/* SIGINT/SIGTERM: the signal number once one arrived, else 0. */
extern volatile sig_atomic_t probe_signal;
static inline int probe_interrupted(void) { return probe_signal != 0; }
void exec_install_signals(void);

#endif

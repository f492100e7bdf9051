/* Execution machinery: pinning, serial/parallel runs behind a start barrier, helper threads
 * on other CPUs and the SIGINT/SIGTERM flag (exec.c); sampling (sampler.c). What a job
 * measured becomes records in record.c: exec knows nothing of the output. */
#ifndef PLATPERF_EXEC_H
#define PLATPERF_EXEC_H

#include <signal.h>
#include <stdint.h>

#include "events.h"
#include "kernel.h"

/* A sample shorter than this many counter steps is dominated by the counter's resolution:
 * 1000 keeps the quantisation of a sample under 0.1% whatever the step (counter.h). */
#define SAMPLE_MIN_STEPS 1000
/* SAMPLE_MIN_STEPS in ticks of the counter in use. */
uint64_t sample_min_ticks(void);
/* Retakes of one preempted sample before it is kept and marked. On a busy machine a long
 * sample is almost always preempted somewhere, so retaking until one is clean may never end. */
#define SAMPLE_RETAKES 3
/* The samples of one job, retakes included, stay within this many times samples x the
 * sample length asked (max(--min-time, the 1000-step floor)); past it nothing is retaken. */
#define SAMPLE_COST_FACTOR 1.5
/* Calibration times the body up to 1/CALIBRATION_FRACTION of a sample, then extrapolates:
 * growing the repetitions to a full sample would cost more than a sample itself. */
#define CALIBRATION_FRACTION 8
/* A warm-up run is as long as a sample but at most this: enough to settle caches, TLBs
 * and a frequency governor (tens of ms); a 1 s warm-up would double a 1-sample run. */
#define WARMUP_MAX_S 0.02

struct cpu_job;
typedef int (*cpu_job_fn)(struct cpu_job *job);

/* What measuring one job cost, in counter ticks, from the counter itself (result "cost"). */
struct sample_cost {
    uint64_t target_ticks;       /* sample length asked: max(--min-time, 1.5 x the floor) */
    uint64_t sample_estimate_ticks;   /* one sample's length as calibrated (~1.05 x target) */
    uint64_t calibration_ticks;  /* first pass + calibration timings, their retakes included */
    uint64_t warmup_ticks;       /* warm-up runs */
    uint64_t sample_ticks;       /* every sample timed: the kept ones and the retaken ones */
};

/* One measuring thread: what it was given and what it measured. */
struct cpu_job {
    cpu_job_fn fn;        /* what the thread runs once pinned */
    struct run_ctx *ctx;
    int cpu;
    int index;            /* position of cpu in ctx->cpus */
    void *arg;            /* the kernel's, shared by every job of one exec_each_cpu() */
    /* filled by exec_sample(): */
    uint64_t *ticks;      /* ctx->samples entries (malloc'd by exec_each_cpu) */
    unsigned char *kept_preempted;   /* ctx->samples flags: 1 = kept although preempted */
    unsigned char *kept_stolen;      /* ctx->samples flags: 1 = kept although the hypervisor stole time */
    int nsamples;         /* taken; fewer than ctx->samples if interrupted */
    uint64_t reps;        /* body repetitions per sample */
    int retried;          /* samples retaken because the thread was preempted */
    int preempted;        /* samples kept although preempted (retakes or budget used up) */
    int steal_retried;    /* of the retakes, those for hypervisor steal time */
    long long steal_ticks;   /* steal of the CPU over the samples, USER_HZ ticks; -1 unknown */
    long csw_voluntary, csw_involuntary;   /* context switches of the thread over the samples */
    struct sample_cost cost;
    int status;           /* the job function's return value */
    char err[256];        /* its one-line message when status != 0 */
    void *result;         /* free for the kernel (e.g. a histogram), kernel frees it */
    /* --events (events.h): the counts of each kept sample, opened by exec_sample(), freed
     * with the job; and what one of the job's operations is ("access", "byte", "pass"), set by
     * the kernel: its records' events are counts per `iterations` of that. */
    struct job_events *events;
    const char *events_per;
    /* what one operation holds by the kernel's own code (0: not known): the `expected` of
     * the counters that count it (events.h; events/claims.py checks them) */
    struct events_expected events_expected;
};

/* A timed body: `reps` repetitions of the kernel's timed loop on state. */
typedef void (*timed_body_fn)(void *state, uint64_t reps);

/* Runs fn(job) pinned to each CPU of ctx->cpus: in serial mode on the calling thread, pinned
 * to one CPU after another (its affinity restored at the end: the process stays
 * single-threaded while it measures); in parallel mode on one thread per CPU, all at once
 * (each job calls exec_ready() when set up; they are released together). jobs must hold ctx->ncpus entries; the caller frees job ticks with
 * exec_free_jobs(). Returns 0, or -1 if a thread could not be created. */
int exec_each_cpu(struct run_ctx *ctx, cpu_job_fn fn, void *arg, struct cpu_job *jobs);
void exec_free_jobs(struct run_ctx *ctx, struct cpu_job *jobs);
/* A copy of a job's accounting (cost, counts, the marks of its kept samples, no ticks), to
 * write after its jobs are freed (record.h: jw_job); 0, or -1 out of memory. */
int exec_keep_account(struct cpu_job *copy, const struct cpu_job *job);
void exec_free_account(struct cpu_job *copy);
/* Start barrier: in parallel mode waits until every job is ready; no-op in serial mode. */
void exec_ready(struct cpu_job *job);
/* Parallel mode: every job waits here before each sample, so the CPUs overlap. Returns 0
 * when the run was interrupted meanwhile (the last arriver decides for all), else 1. */
int exec_barrier(void);
/* The sampler (sampler.c). Calibration of reps (sample >= min_time and >= sample_min_ticks(), extrapolated from
 * timings of 1/CALIBRATION_FRACTION of a sample), ctx->warmup warm-up runs (each at most
 * WARMUP_MAX_S), then ctx->samples samples into job->ticks; in parallel mode each sample
 * starts behind a barrier so the CPUs overlap. A sample the scheduler preempted is retaken
 * up to SAMPLE_RETAKES times while the samples stay within SAMPLE_COST_FACTOR x samples x
 * the sample length; then it is kept and flagged in job->kept_preempted. A sample during which
 * the hypervisor stole time from the CPU (/proc/stat's steal) is retaken the same way and,
 * if kept, flagged in job->kept_stolen. job->cost counts
 * the ticks of each phase. Stops after the current sample when interrupted.
 * min_reps: smallest useful repetition count (1 usually). */
void exec_sample(struct cpu_job *job, timed_body_fn body, void *state, uint64_t min_reps);

/* Involuntary context switches of the calling thread so far (-1 if unknown). */
long thread_involuntary_switches(void);
/* Steal time of `cpu` so far in USER_HZ ticks, from the 8th value of its `cpuN` line in
 * /proc/stat ($PLATPERF_PROC_STAT instead, for tests); -1 if unknown (no file, no column). */
long long cpu_steal_ticks(int cpu);

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

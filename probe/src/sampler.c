/* The sampler (exec_sample, declared in exec.h): calibration of the repetitions, warm-up,
 * the samples with their retakes when the scheduler preempted the thread or the hypervisor
 * stole the CPU, and what it all cost (docs/probe.md, "What a run costs"). */
#include "exec.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "counter.h"
#include "events.h"

uint64_t sample_min_ticks(void)
{
    return steps_to_ticks(SAMPLE_MIN_STEPS);
}

static uint64_t time_body(timed_body_fn body, void *state, uint64_t reps)
{
    uint64_t t0 = counter_start();
    body(state, reps);
    return counter_stop() - t0;
}

long thread_involuntary_switches(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return -1;
    return ru.ru_nivcsw;
}

long long cpu_steal_ticks(int cpu)
{
    /* Read afresh each time (open, read, close: a test replaces the file while we run).
     * The cpuN lines come first; the buffer holds them up to this CPU's. */
    const char *path = getenv("PLATPERF_PROC_STAT");
    int fd = open(path && *path ? path : "/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[16384];
    size_t want = 256 + 160 * (size_t)(cpu + 2);
    if (want > sizeof buf - 1)
        want = sizeof buf - 1;
    ssize_t n = pread(fd, buf, want, 0);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char label[32];
    snprintf(label, sizeof label, "\ncpu%d ", cpu);
    const char *line = strstr(buf, label);
    if (!line)
        return -1;
    /* user nice system idle iowait irq softirq steal */
    unsigned long long v[8];
    if (sscanf(line + strlen(label), "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
               &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
        return -1;
    return (long long)v[7];
}

static void thread_switches(long *voluntary, long *involuntary)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0) {
        *voluntary = *involuntary = -1;
        return;
    }
    *voluntary = ru.ru_nvcsw;
    *involuntary = ru.ru_nivcsw;
}

/* One timing of reps repetitions; *preempted tells whether the scheduler took the CPU
 * away meanwhile, so that the timing includes another task (only preemption the kernel
 * counts; a hypervisor's steal time is invisible here: see sample_attempt). */
static uint64_t time_attempt(timed_body_fn body, void *state, uint64_t reps, int *preempted)
{
    long before = thread_involuntary_switches();
    uint64_t t = time_body(body, state, reps);
    *preempted = before >= 0 && thread_involuntary_switches() != before;
    return t;
}

/* Repetitions for a sample of `target` ticks. The body is timed at growing repetition
 * counts (x10 at most per step) until one unpreempted timing reaches
 * target / CALIBRATION_FRACTION, then the count is scaled to the target, 5% over so a
 * slightly faster sample still reaches it. Timing a whole sample's length here would cost
 * a sample (or SAMPLE_RETAKES + 1 samples when preempted) before anything is measured.
 * The timings add up to about 2.2 x target / CALIBRATION_FRACTION, at most
 * (SAMPLE_RETAKES + 2.2) x that when the last one is preempted (docs/probe.md).
 * *estimate gets the expected length of one sample at the returned count. */
static uint64_t calibrate(struct cpu_job *job, timed_body_fn body, void *state, uint64_t reps,
                          uint64_t target, uint64_t *estimate)
{
    const uint64_t min_reps = reps;
    uint64_t cal_target = target / CALIBRATION_FRACTION;
    uint64_t floor_ticks = sample_min_ticks() + sample_min_ticks() / 2;
    if (cal_target < floor_ticks)
        cal_target = floor_ticks < target ? floor_ticks : target;
    /* the first pass touches everything */
    uint64_t t = time_body(body, state, reps);
    job->cost.calibration_ticks += t;
    while (!probe_interrupted()) {
        int preempted;
        t = time_attempt(body, state, reps, &preempted);
        job->cost.calibration_ticks += t;
        if (t >= cal_target) {
            /* this timing is scaled up to a sample: a preempted one is too long and would
             * make every sample short, so take the fastest of a few (growing steps need no
             * such care: a long one only slows the growth) */
            for (int attempt = 0; preempted && attempt < SAMPLE_RETAKES && !probe_interrupted(); attempt++) {
                uint64_t again = time_attempt(body, state, reps, &preempted);
                job->cost.calibration_ticks += again;
                if (again < t)
                    t = again;
            }
            break;
        }
        double scale = t ? (double)cal_target / (double)t : 10.0;
        if (scale > 10)
            scale = 10;
        uint64_t next = (uint64_t)((double)reps * scale * 1.05) + 1;
        reps = next > reps ? next : reps + 1;
    }
    *estimate = t;
    /* down as well as up: a last timing stretched past the target by the scheduler
     * would otherwise make every sample as long */
    if (t > 0) {
        uint64_t scaled = (uint64_t)ceil((double)reps * (double)target / (double)t * 1.05);
        if (scaled < min_reps)
            scaled = min_reps;
        *estimate = (uint64_t)((double)t * (double)scaled / (double)reps);
        reps = scaled;
    }
    return reps;
}

/* A sample's timing, and whether the hypervisor stole time from the CPU meanwhile
 * (*stolen: the CPU's steal count moved; it moves in USER_HZ ticks, so a steal of a few
 * microseconds shows only when it crosses a tick, and a short sample may miss one). The
 * steal is read outside the timed region. */
static uint64_t sample_attempt(struct cpu_job *job, timed_body_fn body, void *state, uint64_t reps,
                               int *preempted, int *stolen)
{
    long long before = cpu_steal_ticks(job->cpu);
    long switches = thread_involuntary_switches();
    /* the events are read just outside the timed region (events.h) */
    events_begin(job->events);
    uint64_t t = time_body(body, state, reps);
    events_end(job->events);
    *preempted = switches >= 0 && thread_involuntary_switches() != switches;
    long long after = before >= 0 ? cpu_steal_ticks(job->cpu) : -1;
    *stolen = after > before && before >= 0;
    return t;
}

/* Warm-up runs: as long as a sample, but no longer than WARMUP_MAX_S. */
static void warm_up(struct cpu_job *job, timed_body_fn body, void *state, uint64_t reps,
                    uint64_t estimate, uint64_t min_reps)
{
    uint64_t warm_reps = reps;
    double warm_max = WARMUP_MAX_S * counter_info()->freq_hz;
    if (estimate > warm_max) {
        warm_reps = (uint64_t)((double)reps * warm_max / (double)estimate);
        if (warm_reps < min_reps)
            warm_reps = min_reps;
    }
    for (int i = 0; i < job->ctx->warmup && !probe_interrupted(); i++)
        job->cost.warmup_ticks += time_body(body, state, warm_reps);
}

/* What the samples of one job have used of their budget, and where the thread's steal and
 * context-switch counts stood when they began. */
struct sampling {
    double retake_budget;      /* ticks the retaken (discarded) attempts may take */
    uint64_t discarded, round_start;
    long long steal_start;
    long csw_vol_start, csw_invol_start;
};

static void sampling_begin(struct sampling *sp, struct cpu_job *job, double budget, uint64_t estimate)
{
    sp->retake_budget = budget - (double)job->ctx->samples * (double)estimate;
    sp->discarded = 0;
    job->nsamples = 0;
    sp->steal_start = cpu_steal_ticks(job->cpu);
    thread_switches(&sp->csw_vol_start, &sp->csw_invol_start);
}

/* Sample i: retaken while preempted or stolen from, up to SAMPLE_RETAKES times and within
 * the budget; kept and marked otherwise. Returns its ticks. */
static uint64_t take_sample(struct sampling *sp, struct cpu_job *job, timed_body_fn body, void *state, int i)
{
    int preempted, stolen, retakes = 0;
    uint64_t t;
    for (;;) {
        t = sample_attempt(job, body, state, job->reps, &preempted, &stolen);
        job->cost.sample_ticks += t;
        if ((!preempted && !stolen) || retakes == SAMPLE_RETAKES || probe_interrupted()
            || (double)(sp->discarded + t) > sp->retake_budget)
            break;
        sp->discarded += t;
        retakes++;
        job->retried++;
        job->steal_retried += stolen;
    }
    job->ticks[i] = t;
    events_keep(job->events, i);
    job->kept_preempted[i] = (unsigned char)preempted;
    job->kept_stolen[i] = (unsigned char)stolen;
    job->preempted += preempted;
    job->nsamples = i + 1;
    return t;
}

/* A sample under the floor (the calibration was misled, e.g. by a slow first pass under
 * emulation): lengthen the repetitions and start the samples again; what was timed so far
 * counts as calibration. */
static void restart_longer(struct sampling *sp, struct cpu_job *job, uint64_t t, double budget)
{
    uint64_t factor = 2 * (sample_min_ticks() / (t + 1) + 1);
    job->reps *= factor;
    uint64_t estimate = job->cost.sample_estimate_ticks * factor;
    job->cost.calibration_ticks += job->cost.sample_ticks - sp->round_start;
    job->cost.sample_ticks = sp->round_start;
    job->cost.sample_estimate_ticks = estimate;
    job->preempted = 0;
    job->steal_retried = 0;
    sampling_begin(sp, job, budget, estimate);
}

void exec_sample(struct cpu_job *job, timed_body_fn body, void *state, uint64_t min_reps)
{
    struct run_ctx *ctx = job->ctx;
    double want = ctx->min_time_s * counter_info()->freq_hz;
    /* half as much again above the 1000-step floor: one sample's length varies a little
     * from the next, and none may fall under the floor */
    uint64_t floor_ticks = sample_min_ticks() + sample_min_ticks() / 2;
    uint64_t target = want > floor_ticks ? (uint64_t)want : floor_ticks;
    uint64_t estimate = 0;
    min_reps = min_reps ? min_reps : 1;
    memset(&job->cost, 0, sizeof job->cost);
    job->cost.target_ticks = target;
    job->reps = calibrate(job, body, state, min_reps, target, &estimate);
    job->retried = job->preempted = job->steal_retried = 0;
    warm_up(job, body, state, job->reps, estimate, min_reps);

    /* Ticks the retaken (discarded) attempts may take: what is left of
     * SAMPLE_COST_FACTOR x samples x target once the samples themselves are paid for. */
    double budget = SAMPLE_COST_FACTOR * ctx->samples * (double)target;
    struct sampling sp = {0};
    job->cost.sample_estimate_ticks = estimate;
    sampling_begin(&sp, job, budget, estimate);
    events_job_start(&job->events, job->cpu, ctx->samples);
    int restarts = 0;
    for (int i = 0; i < ctx->samples; i++) {
        if (ctx->mode == MODE_PARALLEL) {
            if (!exec_barrier())
                break;
        } else if (probe_interrupted()) {
            break;
        }
        uint64_t t = take_sample(&sp, job, body, state, i);
        if (t < sample_min_ticks() && restarts < 8) {
            restarts++;
            restart_longer(&sp, job, t, budget);
            i = -1;
        }
    }
    events_job_stop(job->events);
    long long steal_end = sp.steal_start >= 0 ? cpu_steal_ticks(job->cpu) : -1;
    job->steal_ticks = steal_end >= sp.steal_start && sp.steal_start >= 0 ? steal_end - sp.steal_start : -1;
    long csw_vol, csw_invol;
    thread_switches(&csw_vol, &csw_invol);
    job->csw_voluntary = sp.csw_vol_start >= 0 && csw_vol >= 0 ? csw_vol - sp.csw_vol_start : -1;
    job->csw_involuntary = sp.csw_invol_start >= 0 && csw_invol >= 0 ? csw_invol - sp.csw_invol_start : -1;
}

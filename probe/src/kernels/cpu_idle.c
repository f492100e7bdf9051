/* cpu-idle: per CPU and per cpuidle state, how late a timer wakes the CPU from that state
 * (its wake-up latency as a program sees it), with every other state of the CPU disabled
 * through sysfs, beside the exit latency and target residency the kernel advertises for
 * the state. On Arm the deep states are PSCI CPU_SUSPEND: this is the firmware's suspend
 * path seen from Linux.
 *
 * Lateness = (counter time the sleep took) - (the relative time asked), with the thread's
 * timer slack at 1 ns, so the figure is the state's exit plus the kernel's wake-up path.
 * The `usage` counter of the state tells whether the CPU entered it (a warning if never), the
 * `rejected` counter (Linux 5.5+) whether the driver or firmware refused it (PSCI CPU_SUSPEND
 * returning DENIED, say: a warning, and both counts in the result for the host to mark it).
 * Serial (the default): one CPU after another, each with its own states switched in turn
 * (the other CPUs keep theirs). Parallel: state by state, that state alone enabled on every
 * CPU of --cpus and one thread a CPU sleeping at once behind a barrier, so that the CPUs go
 * down and wake together, as TF-A's "in parallel" tests do, and a cluster's or the
 * system's state can be entered (it needs every CPU of the cluster idle).
 * The `disable` files are restored by the restore guardian (sysfs_guard.h) whatever ends
 * the probe. Without cpuidle (a VM, a kernel without a driver) the kernel writes a warning
 * `no-cpuidle` and no result.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "counter.h"
#include "exec.h"
#include "record.h"
#include "kernel.h"
#include "sysfs_guard.h"

static const struct kernel_param params[] = {
    {"root", "/", NULL, "where sys/ is: / on a target; a writable copy of a board's tree in tests", false, .kind = PARAM_TEXT},
    {"sleep", "auto", NULL, "microseconds each timer sleeps; auto: 4x the state's target residency, at least 1000", false,
     .kind = PARAM_COUNT, .min = 1, .max = 1000000, .keyword = "auto"},
    {NULL},
};

#define PATH_LEN 512
#define MAX_STATES 16

struct idle_plan {
    char root[256];
    long sleep_us;   /* 0: auto */
};

struct idle_state {
    int index;
    char name[32];
    long latency_us, residency_us;
};

static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    struct idle_plan *plan = calloc(1, sizeof *plan);
    if (sysfs_root("cpu-idle", kernel_value(ctx, "root"), plan->root, sizeof plan->root, err, errlen) != 0) {
        free(plan);
        return -1;
    }
    plan->sleep_us = kernel_is_keyword(ctx, "sleep") ? 0 : (long)kernel_count(ctx, "sleep");
    ctx->kernel_state = plan;
    return 0;
}

static void state_path(const struct idle_plan *plan, int cpu, int state, const char *file, char *out)
{
    snprintf(out, PATH_LEN, "%s/sys/devices/system/cpu/cpu%d/cpuidle/state%d/%s", plan->root, cpu, state, file);
}

static long read_long(const char *path, long fallback)
{
    char word[32];
    if (sysfs_read_word(path, word, sizeof word) != 0)
        return fallback;
    char *end;
    long v = strtol(word, &end, 10);
    return end == word ? fallback : v;
}

/* The states of `cpu` in index order; returns how many (0: no cpuidle). */
static int enumerate(const struct idle_plan *plan, int cpu, struct idle_state *out)
{
    char path[PATH_LEN];
    int n = 0;
    for (int s = 0; s < MAX_STATES; s++) {
        state_path(plan, cpu, s, "disable", path);
        if (access(path, F_OK) != 0)
            break;
        out[n].index = s;
        state_path(plan, cpu, s, "name", path);
        if (sysfs_read_word(path, out[n].name, sizeof out[n].name) != 0)
            snprintf(out[n].name, sizeof out[n].name, "state%d", s);
        state_path(plan, cpu, s, "latency", path);
        out[n].latency_us = read_long(path, -1);
        state_path(plan, cpu, s, "residency", path);
        out[n].residency_us = read_long(path, -1);
        n++;
    }
    return n;
}

/* Only `only` enabled among the states of `cpu`. The others are disabled first and `only`
 * enabled last, so that no moment of the switch has two states enabled. 0 or an errno value. */
static int enable_only(const struct idle_plan *plan, int cpu, const struct idle_state *st, int n, int only)
{
    char path[PATH_LEN];
    for (int i = 0; i < n; i++) {
        state_path(plan, cpu, st[i].index, "disable", path);
        int e = i == only ? 0 : sysfs_write(path, "1");
        if (e)
            return e;
    }
    state_path(plan, cpu, st[only].index, "disable", path);
    return sysfs_write(path, "0");
}

static int stop_requested(void)
{
    return probe_interrupted() || output_reader_gone();
}

/* What one state's sleeps gave, beside their lateness. */
struct state_run {
    long sleep_us, entered, rejected;   /* -1: unknown */
    int index;
};

static void write_state_run(const void *arg)
{
    const struct state_run *sr = arg;
    jw_int("sleep_us", sr->sleep_us);
    jw_int("state_index", sr->index);
    jw_int("usage_delta", sr->entered);
    jw_int("rejected_delta", sr->rejected);
}

/* A state's usage and rejected counters (-1 where the kernel has none). */
struct state_counts {
    long usage, rejected;
};

static struct state_counts state_counts(const struct idle_plan *plan, int cpu, int index)
{
    char path[PATH_LEN];
    struct state_counts c;
    state_path(plan, cpu, index, "usage", path);
    c.usage = read_long(path, -1);
    state_path(plan, cpu, index, "rejected", path);
    c.rejected = read_long(path, -1);
    return c;
}

static void counts_since(struct state_run *sr, struct state_counts before, struct state_counts after)
{
    sr->entered = before.usage >= 0 && after.usage >= 0 ? after.usage - before.usage : -1;
    sr->rejected = before.rejected >= 0 && after.rejected >= 0 ? after.rejected - before.rejected : -1;
}

static double lateness_us(uint64_t ticks, long sleep_us)
{
    return (ticks_to_ns(ticks) - (double)sleep_us * 1000.0) / 1000.0;
}

/* One relative sleep of `sleep_us` (resumed after a signal unless the run is interrupted):
 * the counter ticks it took. */
static uint64_t timed_sleep(long sleep_us)
{
    struct timespec req = {sleep_us / 1000000, (sleep_us % 1000000) * 1000L};
    uint64_t t0 = counter_read();
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &req, &req) == EINTR && !probe_interrupted())
        ;
    return counter_read() - t0;
}

/* The sleeps of one state on `cpu` (pinned): late[] (us) and ticks[]; returns how many. */
static int sleep_in_state(struct run_ctx *ctx, int cpu, long sleep_us, double *late, uint64_t *ticks)
{
    int n = 0;
    pin_to_cpu(cpu);
    for (int k = -ctx->warmup; k < ctx->samples && !stop_requested(); k++) {
        uint64_t took = timed_sleep(sleep_us);
        if (k < 0)
            continue;
        ticks[n] = took;
        late[n] = lateness_us(took, sleep_us);
        n++;
    }
    return n;
}

/* The state's results (lateness, and the exit latency and target residency the kernel
 * gives), and a warning when the CPU did not enter it as asked. */
static void emit_state(struct run_ctx *ctx, int cpu, const struct idle_state *st, const struct state_run *sr,
                       const double *late, const uint64_t *ticks, int n)
{
    char msg[PATH_LEN];
    struct json_obj params;
    json_obj_init(&params);
    json_obj_str(&params, "state", st->name);
    struct result_record r = {"cpu-idle", params.text, cpu, "wakeup_lateness", "us", "lower", late, n, 0, ticks,
                              NULL, NULL};
    emit_record_with(ctx, &r, write_state_run, sr);
    double exit_us = (double)st->latency_us, residency_us = (double)st->residency_us;
    struct result_record one = {"cpu-idle", params.text, cpu, "exit_latency", "us", "lower", &exit_us, 1, 0, NULL,
                                NULL, NULL};
    if (st->latency_us >= 0)
        emit_record(ctx, &one);
    one.metric = "target_residency";
    one.samples = &residency_us;
    if (st->residency_us >= 0)
        emit_record(ctx, &one);
    if (sr->rejected > 0) {
        snprintf(msg, sizeof msg, "idle state %s of CPU %d was rejected %ld times (the driver or "
                 "firmware refused it) and entered %ld times during its %d sleeps%s", st->name, cpu,
                 sr->rejected, sr->entered, n, sr->entered == 0 ? ": its lateness is not that state's" : "");
        emit_warning("idle-state-rejected", msg, cpu);
    } else if (sr->entered == 0) {
        snprintf(msg, sizeof msg, "CPU %d never entered idle state %s during its %d sleeps "
                 "(usage unchanged): its lateness is not that state's", cpu, st->name, n);
        emit_warning("idle-state-not-entered", msg, cpu);
    }
}

/* The sleep of one state: --sleep, else 4x its target residency, at least 1 ms. */
static long state_sleep_us(const struct idle_plan *plan, const struct idle_state *st)
{
    if (plan->sleep_us)
        return plan->sleep_us;
    long us = st->residency_us > 0 ? 4 * st->residency_us : 0;
    return us < 1000 ? 1000 : us;
}

static int write_failed(int cpu, int e)
{
    char msg[200];
    snprintf(msg, sizeof msg, "cannot disable the other idle states of CPU %d: %s (root only)", cpu, strerror(e));
    emit_error("cpuidle-write-failed", msg);
    return 1;
}

/* Every state of one CPU, the others disabled while it is measured. 0, or 1 after an error record. */
static int measure_cpu(struct run_ctx *ctx, const struct idle_plan *plan, int cpu, const struct idle_state *states,
                       int nstates, double *late, uint64_t *ticks)
{
    for (int s = 0; s < nstates && !stop_requested(); s++) {
        const struct idle_state *st = &states[s];
        int e = enable_only(plan, cpu, states, nstates, s);
        if (e)
            return write_failed(cpu, e);
        struct state_run sr = {state_sleep_us(plan, st), -1, -1, st->index};
        struct state_counts before = state_counts(plan, cpu, st->index);
        int n = sleep_in_state(ctx, cpu, sr.sleep_us, late, ticks);
        if (n == 0)
            break;
        counts_since(&sr, before, state_counts(plan, cpu, st->index));
        emit_state(ctx, cpu, st, &sr, late, ticks, n);
    }
    return 0;
}

/* Parallel mode: one thread a CPU, pinned, sleeping `sleep_us` at once behind a barrier
 * before every sleep, so that the CPUs go down and wake together. */
static int sleep_together(struct cpu_job *job)
{
    const long sleep_us = *(const long *)job->arg;
    exec_ready(job);
    for (int k = -job->ctx->warmup; k < job->ctx->samples; k++) {
        if (!exec_barrier() || stop_requested())
            break;
        uint64_t took = timed_sleep(sleep_us);
        if (k >= 0)
            job->ticks[job->nsamples++] = took;
    }
    return 0;
}

/* Parallel mode, state by state: the state at position s alone enabled on every CPU that
 * has one there, then all of them sleep at once; the sleep is the longest any of them asks.
 * 0, or 1 after an error record. */
static int measure_parallel(struct run_ctx *ctx, const struct idle_plan *plan, struct idle_state (*states)[MAX_STATES],
                            const int *nstates, double *late)
{
    struct run_ctx *group = malloc(sizeof *group);
    struct cpu_job *jobs = calloc((size_t)ctx->ncpus, sizeof *jobs);
    struct state_counts *before = calloc((size_t)ctx->ncpus, sizeof *before);
    int *of = calloc((size_t)ctx->ncpus, sizeof *of), rc = 0;
    *group = *ctx;
    for (int s = 0; s < MAX_STATES && rc == 0 && !stop_requested(); s++) {
        long sleep_us = 0;
        group->ncpus = 0;
        for (int i = 0; i < ctx->ncpus; i++) {
            if (nstates[i] <= s)
                continue;
            int e = enable_only(plan, ctx->cpus[i], states[i], nstates[i], s);
            if (e) {
                rc = write_failed(ctx->cpus[i], e);
                break;
            }
            long us = state_sleep_us(plan, &states[i][s]);
            sleep_us = us > sleep_us ? us : sleep_us;
            of[group->ncpus] = i;
            group->cpus[group->ncpus++] = ctx->cpus[i];
        }
        if (rc || group->ncpus == 0)
            break;
        for (int j = 0; j < group->ncpus; j++)
            before[j] = state_counts(plan, group->cpus[j], states[of[j]][s].index);
        if (exec_each_cpu(group, sleep_together, &sleep_us, jobs) != 0) {
            emit_error("thread-failed", "cpu-idle could not start a thread on every CPU of --cpus");
            rc = 1;
        }
        for (int j = 0; j < group->ncpus && rc == 0; j++) {
            const struct idle_state *st = &states[of[j]][s];
            struct state_run sr = {sleep_us, -1, -1, st->index};
            counts_since(&sr, before[j], state_counts(plan, group->cpus[j], st->index));
            for (int k = 0; k < jobs[j].nsamples; k++)
                late[k] = lateness_us(jobs[j].ticks[k], sleep_us);
            if (jobs[j].nsamples > 0)
                emit_state(ctx, group->cpus[j], st, &sr, late, jobs[j].ticks, jobs[j].nsamples);
        }
        exec_free_jobs(group, jobs);
    }
    free(of);
    free(before);
    free(jobs);
    free(group);
    return rc;
}

/* Every state's disable file kept by the guard. 0; 1 after an error record; 2 when no CPU
 * has cpuidle states (a warning said so). */
static int guard_states(struct run_ctx *ctx, const struct idle_plan *plan, struct sysfs_guard *guard,
                        struct idle_state (*states)[MAX_STATES], int *nstates)
{
    char path[PATH_LEN], msg[PATH_LEN + 200];
    int any = 0;
    for (int i = 0; i < ctx->ncpus; i++) {
        nstates[i] = enumerate(plan, ctx->cpus[i], states[i]);
        any |= nstates[i] > 0;
        for (int s = 0; s < nstates[i]; s++) {
            state_path(plan, ctx->cpus[i], states[i][s].index, "disable", path);
            if (guard_keep(guard, path) != 0) {
                if (guard->n == GUARD_MAX)
                    snprintf(msg, sizeof msg, "more than %d idle-state files to restore: measure "
                             "fewer CPUs at a time (--cpus)", GUARD_MAX);
                else
                    snprintf(msg, sizeof msg, "cannot read %s", path);
                emit_error("cpuidle-unreadable", msg);
                return 1;
            }
        }
    }
    if (!any) {
        char driver[64] = "none";
        snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpuidle/current_driver", plan->root);
        sysfs_read_word(path, driver, sizeof driver);
        snprintf(msg, sizeof msg, "no cpuidle states under %s/sys/devices/system/cpu/cpu%d/cpuidle "
                 "(driver: %s): idle-state wake-up latencies not measured", plan->root, ctx->cpus[0], driver);
        emit_warning("no-cpuidle", msg, -1);
        return 2;
    }
    return 0;
}

static int run(struct run_ctx *ctx)
{
    struct idle_plan *plan = ctx->kernel_state;
    static struct sysfs_guard guard;
    struct idle_state (*states)[MAX_STATES] = calloc((size_t)ctx->ncpus, sizeof *states);
    int *nstates = calloc((size_t)ctx->ncpus, sizeof *nstates);
    char msg[PATH_LEN + 200];
    int rc = guard_states(ctx, plan, &guard, states, nstates);
    if (rc == 0 && guard_start(&guard, msg, sizeof msg) != 0) {
        emit_error("guard-failed", msg);
        rc = 1;
    }
    if (rc == 0) {
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);   /* the default 50 us slack would be counted as lateness */
        double *late = malloc(sizeof(double) * (size_t)ctx->samples);
        uint64_t *ticks = malloc(sizeof(uint64_t) * (size_t)ctx->samples);
        for (int i = 0; i < ctx->ncpus; i++)
            if (nstates[i] == 0) {
                snprintf(msg, sizeof msg, "CPU %d has no cpuidle states: not measured", ctx->cpus[i]);
                emit_warning("no-cpuidle", msg, ctx->cpus[i]);
            }
        if (ctx->mode == MODE_PARALLEL)
            rc = measure_parallel(ctx, plan, states, nstates, late);
        else
            for (int i = 0; i < ctx->ncpus && rc == 0 && !stop_requested(); i++)
                if (nstates[i] > 0)
                    rc = measure_cpu(ctx, plan, ctx->cpus[i], states[i], nstates[i], late, ticks);
        free(late);
        free(ticks);
        if (guard_finish(&guard) != 0) {
            emit_error("restore-failed", "an idle state's disable file could not be restored");
            rc = 1;
        }
    }
    free(states);
    free(nstates);
    free(plan);
    return rc == 2 ? 0 : rc;
}

const struct kernel cpu_idle_kernel = {
    .name = "cpu-idle",
    .help = "timer wake-up lateness from each cpuidle state, others disabled (PSCI CPU_SUSPEND on Arm), "
            "root only; --mode parallel: every CPU at once",
    .params = params,
    .available = NULL,
    .prepare = prepare,
    .run = run,
};

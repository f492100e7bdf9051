#include "kernels/os_common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "counter.h"
#include "summary.h"

void os_fail(struct os_case *c, const char *what)
{
    if (!c->failed_errno) {
        c->failed_errno = errno ? errno : EIO;
        snprintf(c->err, sizeof c->err, "%s: %s", what, strerror(c->failed_errno));
    }
}

long os_bread(const void *buf, size_t bytes)
{
    /* Each 1 KiB block is summed into its own accumulator, then added to the total, as
     * LMBench's bread() does: one add chain per block, and consecutive blocks overlap out
     * of order. A single chain over the whole buffer is bound by the add latency (one word
     * per cycle) and, in lat_ctx's overhead loop where the data is cache-warm, took 1.7x
     * LMBench's time at 256 KiB (docs/probe.md). */
    enum { BLOCK = 1024 / sizeof(long) };
    const long *p = buf, *end = p + bytes / sizeof(long);
    long sum = 0;
    for (; end - p >= BLOCK; p += BLOCK) {
        long block = p[0];
#pragma GCC unroll 128
        for (int i = 1; i < BLOCK; i++)
            block += p[i];
        sum += block;
    }
    for (; p < end; p++)
        sum += *p;
    return sum;
}

pid_t os_spawn(void (*fn)(void *arg), void *arg)
{
    pid_t pid = fork();
    if (pid == 0) {
        /* the helper dies with the probe: Ctrl-C reaches the process group, and a
         * killed probe must not leave servers behind */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        fn(arg);
        _exit(0);
    }
    return pid;
}

void os_reap(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

int os_tcp_listen(int *port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    if (s < 0)
        return -1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 512) != 0
        || getsockname(s, (struct sockaddr *)&a, &len) != 0) {
        int e = errno;
        close(s);
        errno = e;
        return -1;
    }
    *port = ntohs(a.sin_port);
    return s;
}

int os_tcp_connect(int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    if (s < 0)
        return -1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
        int e = errno;
        close(s);
        errno = e;
        return -1;
    }
    return s;
}

/* Per-operation figure of one sample (before any baseline subtraction). */
static double figure(const struct os_case *c, uint64_t ticks, uint64_t reps)
{
    double ns = ticks_to_ns(ticks), work = (double)reps * c->per_rep;
    switch (c->figure) {
    case OS_BANDWIDTH:
        return work / ns * 1e3;    /* bytes per ns = GB/s; x1000 = MB/s */
    case OS_RATE:
        return work / ns * 1e9;
    default:
        return ns / work / 1e3;
    }
}

struct os_job {
    struct os_case c;            /* this CPU's copy */
    double *values;              /* per sample, baseline subtracted */
    double baseline;             /* the per-operation median subtracted (0: none) */
    uint64_t ops;
    const struct core_clock *clock;   /* with_clock: estimated on the measured CPU */
};

/* A body that failed once is not run again (calibration and warm-up would repeat the failure). */
static void guarded_body(void *arg, uint64_t reps)
{
    struct os_case *c = arg;
    if (!c->failed_errno && !probe_interrupted())
        c->body(c, reps);
}

/* Measures c on the calling (pinned) CPU into job->ticks; returns 0, or -1 with c->err. */
static int measure(struct cpu_job *job, struct os_case *c, int ready)
{
    if (c->setup && c->setup(c) != 0) {
        if (ready)
            exec_ready(job);
        return -1;
    }
    if (ready)
        exec_ready(job);
    exec_sample(job, guarded_body, c, 1);
    if (c->teardown)
        c->teardown(c);
    return c->failed_errno ? -1 : 0;
}

static int os_cpu(struct cpu_job *job)
{
    struct os_job *oj = &((struct os_job *)job->arg)[job->index];
    double base = 0;
    if (oj->c.baseline) {
        /* the baseline's own baseline first (lat_sig prot - catch, where catch = catch - send) */
        struct os_case chain[4];
        int n = 0;
        for (const struct os_case *b = oj->c.baseline; b && n < 4; b = b->baseline)
            chain[n++] = *b;
        double sub = 0;
        for (int i = n - 1; i >= 0; i--) {
            if (measure(job, &chain[i], 0) != 0) {
                snprintf(oj->c.err, sizeof oj->c.err, "%s", chain[i].err);
                oj->c.failed_errno = chain[i].failed_errno ? chain[i].failed_errno : EIO;
                return 0;
            }
            double *v = malloc(sizeof(double) * (size_t)job->nsamples);
            for (int s = 0; s < job->nsamples; s++)
                v[s] = figure(&chain[i], job->ticks[s], job->reps);
            sub = summarize(v, job->nsamples).median - sub;
            free(v);
        }
        base = sub;
    }
    /* iterations: operations, or bytes for a bandwidth (per_rep) */
    job->events_per = oj->c.figure == OS_BANDWIDTH ? "byte" : "operation";
    if (measure(job, &oj->c, 1) != 0) {
        if (!oj->c.failed_errno)
            oj->c.failed_errno = EIO;
        return 0;
    }
    oj->baseline = base;
    oj->ops = (uint64_t)((double)job->reps * oj->c.per_rep);
    if (oj->c.with_clock) {
        const struct core_clock *cc = core_clock_on_cpu(job->cpu);   /* pinned here */
        oj->clock = cc->valid ? cc : NULL;
    }
    oj->values = malloc(sizeof(double) * (size_t)(job->nsamples > 0 ? job->nsamples : 1));
    for (int s = 0; s < job->nsamples; s++)
        oj->values[s] = figure(&oj->c, job->ticks[s], job->reps) - base;
    return 0;
}

/* emit_warning() with the row's key (benchmark, params), for the host */
static void row_warning(const char *code, const char *msg, int cpu, const struct os_case *c)
{
    jw_begin("warning");
    jw_str("code", code);
    jw_str("message", msg);
    jw_int("cpu", cpu);
    jw_str("benchmark", c->benchmark);
    jw_raw("params", c->params.text);
    jw_end();
}

static void write_overhead(const void *baseline)
{
    jw_g("overhead_subtracted", *(const double *)baseline, 6);
}

int os_run_case(struct run_ctx *ctx, const struct os_case *c)
{
    struct cpu_job *jobs = calloc((size_t)ctx->ncpus, sizeof *jobs);
    struct os_job *ojs = calloc((size_t)ctx->ncpus, sizeof *ojs);
    int rc = 0;
    for (int i = 0; i < ctx->ncpus; i++)
        ojs[i].c = *c;
    if (exec_each_cpu(ctx, os_cpu, ojs, jobs) != 0) {
        emit_error("thread-failed", "cannot start a measuring thread");
        rc = 1;
    }
    static const char *const units[] = {"us", "MB/s", "files/s"};
    for (int j = 0; j < ctx->ncpus; j++) {
        struct cpu_job *job = &jobs[j];
        struct os_job *oj = &ojs[j];
        char msg[2048];
        if (oj->c.failed_errno) {
            snprintf(msg, sizeof msg, "%s %s: not measured here (%s); the row is left out",
                     c->benchmark, c->params.text, oj->c.err[0] ? oj->c.err : "unsupported");
            row_warning("os-unsupported", msg, job->cpu, c);
            continue;
        }
        int outcome = job_outcome(job);
        if (outcome < 0)
            rc = 1;
        if (outcome <= 0)
            continue;
        if (c->baseline && job->nsamples > 0) {
            /* a difference of two timings that is not positive is no figure (LMBench hides
             * such a lat_ctx point; here it is said, with both terms) */
            struct summary diff = summarize(oj->values, job->nsamples);
            if (diff.min <= 0) {
                snprintf(msg, sizeof msg, "%s %s: the overhead subtracted (%.4g %s per operation) is not less "
                         "than the time measured in every sample (median %.4g, lowest %.4g before subtracting); "
                         "no figure is given: measure on a quieter CPU or with more --samples and --min-time",
                         c->benchmark, c->params.text, oj->baseline, units[c->figure],
                         diff.median + oj->baseline, diff.min + oj->baseline);
                row_warning("os-overhead-exceeds", msg, job->cpu, c);
                free(oj->values);
                continue;
            }
        }
        struct result_record r = {c->benchmark, c->params.text, job->cpu, c->metric,
                                  units[c->figure], c->figure == OS_LATENCY_US ? "lower" : "higher",
                                  oj->values, job->nsamples, oj->ops, job->ticks, job, oj->clock};
        emit_record_with(ctx, &r, c->baseline ? write_overhead : NULL, &oj->baseline);
        free(oj->values);
    }
    exec_free_jobs(ctx, jobs);
    free(jobs);
    free(ojs);
    return rc;
}

/* cpu-hotplug: the time Linux takes to take a CPU offline and bring it back online through
 * sysfs, per CPU, timed on the issuing CPU with the probe's counter. This is the path of
 * PSCI CPU_OFF / CPU_ON on an Arm board: the firmware's share is inside the kernel's
 * takedown/bringup steps, which the cpuhp tracepoints separate from the rest when tracefs
 * is mounted (results `cpu-hotplug-phases`).
 *
 * Serial only: one CPU goes offline at a time, from a CPU that stays online. A CPU without
 * an `online` file (CPU 0 on most machines) or that the kernel refuses to take offline is
 * reported as a warning, not an error. Every CPU taken offline is put back online by the
 * restore guardian (sysfs_guard.h) whatever ends the probe.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "counter.h"
#include "exec.h"
#include "record.h"
#include "kernel.h"
#include "params.h"
#include "cpuhp_trace.h"
#include "sysfs_guard.h"

static const char *const trace_choices[] = {"auto", "off", NULL};

static const struct kernel_param params[] = {
    {"root", "/", NULL, "where sys/ is: / on a target; a writable copy of a board's tree in tests", false, .kind = PARAM_TEXT},
    {"from", "auto", NULL, "CPU that issues the requests (auto: the first online CPU not measured)", false,
     .kind = PARAM_COUNT, .min = 0, .max = PROBE_MAX_CPUS - 1, .keyword = "auto"},
    {"offline-for", "0", NULL, "milliseconds each CPU stays offline between the two operations", false,
     .kind = PARAM_COUNT, .min = 0, .max = 600000},
    {"trace", "auto", trace_choices, "auto: split each operation into the kernel's cpuhp steps when tracefs is mounted", false, .kind = PARAM_CHOICE},
    {NULL},
};

#define PATH_LEN 512
/* offline: the CPU is stopped in takedown_cpu; online it is started in bringup_cpu (before
 * Linux 6.5) or cpuhp_kick_ap_alive + cpuhp_bringup_ap (parallel bringup). */
static const char *const phase_names[2][PH_COUNT] = {
    {"cpu_stop", "ap_states", "bp_states", "untraced"},
    {"cpu_start", "ap_states", "bp_states", "untraced"},
};

struct hotplug_plan {
    char root[256];
    int from;              /* -1: auto */
    long offline_ms;
    int trace;
};

static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    struct hotplug_plan *plan = calloc(1, sizeof *plan);
    const char *root = kernel_value(ctx, "root");
    if (sysfs_root("cpu-hotplug", root, plan->root, sizeof plan->root, err, errlen) != 0) {
        free(plan);
        return -1;
    }
    plan->from = kernel_is_keyword(ctx, "from") ? -1 : (int)kernel_count(ctx, "from");
    if (plan->from >= 0 && !cpu_is_online(plan->from)) {
        snprintf(err, errlen, "cpu-hotplug: --from '%d' is not valid (valid: auto or an online CPU)", plan->from);
        free(plan);
        return -1;
    }
    plan->offline_ms = (long)kernel_count(ctx, "offline-for");
    plan->trace = strcmp(kernel_value(ctx, "trace"), "auto") == 0;
    ctx->kernel_state = plan;
    return 0;
}

static void online_path(const struct hotplug_plan *plan, int cpu, char *out)
{
    snprintf(out, PATH_LEN, "%s/sys/devices/system/cpu/cpu%d/online", plan->root, cpu);
}

/* -- measuring -------------------------------------------------------------------------- */
static int stop_requested(void)
{
    return probe_interrupted() || output_reader_gone();
}

static void hold_offline(long ms)
{
    for (long left = ms; left > 0 && !stop_requested(); left -= 10) {
        struct timespec ts = {0, (left < 10 ? left : 10) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* One offline+online cycle; ticks and phases filled. 0; 1 offline refused (errno in *e);
 * 2 online failed. */
static int cycle(const struct hotplug_plan *plan, const struct tracer *t, int cpu, uint64_t ticks[2],
                 double phases[2][PH_COUNT], int traced[2], int *e)
{
    char path[PATH_LEN];
    online_path(plan, cpu, path);
    const char *values[2] = {"0", "1"};
    for (int op = 0; op < 2; op++) {
        if (t->dir[0])
            tracer_clear(t);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            *e = errno;
            return op + 1;
        }
        uint64_t t0 = counter_start();
        ssize_t n;
        do
            n = write(fd, values[op], 1);
        while (n < 0 && errno == EINTR);
        uint64_t t1 = counter_stop();
        *e = n == 1 ? 0 : (n < 0 ? errno : EIO);
        close(fd);
        if (*e)
            return op + 1;
        ticks[op] = t1 - t0;
        traced[op] = t->dir[0] && tracer_phases(t, cpu, ticks_to_ns(ticks[op]) / 1000.0, phases[op]) == 0;
        if (op == 0)
            hold_offline(plan->offline_ms);
    }
    return 0;
}

static void write_from_cpu(const void *from)
{
    jw_int("from_cpu", *(const int *)from);
}

/* Untraced, the totals are `cpu-hotplug` offline/online; traced, where tracing itself adds
 * to every operation (the events, a ring buffer for the CPU coming up), they are the phases'
 * `total`, so that the two never pool under one key. */
static void emit_cpu(struct run_ctx *ctx, int cpu, int from, int n, uint64_t *ticks[2],
                     double *phases[2][PH_COUNT], int traced_all)
{
    static const char *const ops[2] = {"offline", "online"};
    double *us = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int op = 0; op < 2; op++) {
        struct json_obj params;
        json_obj_init(&params);
        json_obj_str(&params, "op", ops[op]);
        for (int i = 0; i < n; i++)
            us[i] = ticks_to_ns(ticks[op][i]) / 1000.0;
        struct result_record r = {"cpu-hotplug", "{}", cpu, ops[op], "us", "lower", us, n, 0, ticks[op],
                                  NULL, NULL};
        if (traced_all) {
            r.benchmark = "cpu-hotplug-phases";
            r.params = params.text;
            r.metric = "total";
        }
        emit_record_with(ctx, &r, write_from_cpu, &from);
        for (int p = 0; traced_all && p < PH_COUNT; p++) {
            r.metric = phase_names[op][p];
            r.samples = phases[op][p];
            r.ticks = NULL;
            emit_record_with(ctx, &r, write_from_cpu, &from);
        }
    }
    free(us);
}

/* The CPUs to measure (warnings for those that cannot be) and the one that issues the
 * requests; -1 when there is none (said in a warning). */
static int choose_cpus(const struct run_ctx *ctx, const struct hotplug_plan *plan, int *measured, int *nmeasured)
{
    char path[PATH_LEN], msg[PATH_LEN + 200];
    *nmeasured = 0;
    for (int i = 0; i < ctx->ncpus; i++) {
        int cpu = ctx->cpus[i];
        online_path(plan, cpu, path);
        if (access(path, F_OK) != 0) {
            snprintf(msg, sizeof msg, "CPU %d cannot be taken offline: the kernel gives it no "
                     "online file (%s); not measured", cpu, path);
            emit_warning("cpu-not-hotpluggable", msg, cpu);
        } else if (cpu == plan->from) {
            snprintf(msg, sizeof msg, "CPU %d issues the requests (--from) and is not measured", cpu);
            emit_warning("cpu-issues-requests", msg, cpu);
        } else {
            measured[(*nmeasured)++] = cpu;
        }
    }
    int from = plan->from;
    if (from < 0) {
        int online[PROBE_MAX_CPUS];
        int non = cpus_online(online, PROBE_MAX_CPUS);
        for (int i = 0; i < non && from < 0; i++) {
            int listed = 0;
            for (int j = 0; j < *nmeasured; j++)
                listed |= measured[j] == online[i];
            if (!listed)
                from = online[i];
        }
        if (from < 0 && *nmeasured > 1) {   /* every online CPU asked for: the first issues */
            from = measured[0];
            snprintf(msg, sizeof msg, "CPU %d issues the requests and is not measured (every online CPU "
                     "was listed); measure it with --from another CPU", from);
            emit_warning("cpu-issues-requests", msg, from);
            memmove(measured, measured + 1, sizeof(int) * (size_t)--*nmeasured);
        }
    }
    if ((from < 0 || *nmeasured == 0) && *nmeasured > 0)
        emit_warning("no-issuing-cpu", "no other online CPU to issue the requests from: nothing measured", -1);
    return *nmeasured > 0 ? from : -1;
}

/* The guard keeps every measured CPU's online state and the tracer's instance; the tracer
 * is opened when asked for and can be. 0, or 1 after an error record. */
static int guard_cpus(const struct hotplug_plan *plan, struct sysfs_guard *guard, struct tracer *tracer,
                      const int *measured, int nmeasured)
{
    char path[PATH_LEN], msg[PATH_LEN + 200];
    for (int i = 0; i < nmeasured; i++) {
        online_path(plan, measured[i], path);
        if (guard_keep(guard, path) != 0) {
            snprintf(msg, sizeof msg, "cannot read %s: %s", path, strerror(errno));
            emit_error("hotplug-unreadable", msg);
            return 1;
        }
    }
    if (plan->trace && tracer_open(tracer, plan->root, guard, msg, sizeof msg) != 0)
        emit_warning("tracefs-unavailable", msg, -1);
    if (guard_start(guard, msg, sizeof msg) != 0) {
        emit_error("guard-failed", msg);
        return 1;
    }
    if (tracer->dir[0] && tracer_create(tracer, msg, sizeof msg) != 0)
        emit_warning("tracefs-unavailable", msg, -1);
    if (tracer->dir[0] && tracer_enable(tracer) != 0) {
        emit_warning("tracefs-unavailable", "cannot enable the cpuhp events in the tracefs instance: "
                     "operations are not split into the kernel's steps", -1);
        tracer->dir[0] = 0;
    }
    return 0;
}

/* The samples of one CPU, emitted; 0, or 1 when it did not come back online. */
static int measure_cpu(struct run_ctx *ctx, const struct hotplug_plan *plan, const struct tracer *tracer,
                       int cpu, int from, uint64_t *ticks[2], double *phases[2][PH_COUNT])
{
    char msg[256];
    int n = 0, traced_all = tracer->dir[0] != 0, outcome = 0, e = 0, rc = 0;
    for (int s = -ctx->warmup; s < ctx->samples && !stop_requested(); s++) {
        uint64_t tk[2];
        double ph[2][PH_COUNT];
        int traced[2];
        outcome = cycle(plan, tracer, cpu, tk, ph, traced, &e);
        if (outcome)
            break;
        if (s < 0)
            continue;
        for (int op = 0; op < 2; op++) {
            ticks[op][n] = tk[op];
            traced_all &= traced[op];
            for (int p = 0; p < PH_COUNT; p++)
                phases[op][p][n] = ph[op][p];
        }
        n++;
    }
    if (outcome == 1) {   /* EBUSY, EPERM: reported; samples taken before it are kept */
        snprintf(msg, sizeof msg, "the kernel refused to take CPU %d offline: %s; %d samples kept",
                 cpu, strerror(e), n);
        emit_warning("hotplug-refused", msg, cpu);
    }
    if (outcome == 2) {
        snprintf(msg, sizeof msg, "CPU %d did not come back online: %s", cpu, strerror(e));
        emit_error("hotplug-online-failed", msg);
        rc = 1;
    }
    if (n > 0)
        emit_cpu(ctx, cpu, from, n, ticks, phases, traced_all);
    return rc;
}

static int run(struct run_ctx *ctx)
{
    struct hotplug_plan *plan = ctx->kernel_state;
    static struct sysfs_guard guard;
    struct tracer tracer = {"", NULL};
    int measured[PROBE_MAX_CPUS], nmeasured = 0, rc = 0;
    int from = choose_cpus(ctx, plan, measured, &nmeasured);
    if (from < 0) {
        free(plan);
        return 0;
    }
    pin_to_cpu(from);
    if (guard_cpus(plan, &guard, &tracer, measured, nmeasured) != 0) {
        free(tracer.buf);
        free(plan);
        return 1;
    }
    uint64_t *ticks[2];
    double *phases[2][PH_COUNT];
    for (int op = 0; op < 2; op++) {
        ticks[op] = calloc((size_t)ctx->samples, sizeof(uint64_t));
        for (int p = 0; p < PH_COUNT; p++)
            phases[op][p] = calloc((size_t)ctx->samples, sizeof(double));
    }
    for (int i = 0; i < nmeasured && rc == 0 && !stop_requested(); i++)
        rc = measure_cpu(ctx, plan, &tracer, measured[i], from, ticks, phases);
    if (guard_finish(&guard) != 0) {
        emit_error("restore-failed", "a CPU taken offline could not be brought back online: "
                   "echo 1 > /sys/devices/system/cpu/cpuN/online");
        rc = 1;
    }
    for (int op = 0; op < 2; op++) {
        free(ticks[op]);
        for (int p = 0; p < PH_COUNT; p++)
            free(phases[op][p]);
    }
    free(tracer.buf);
    free(plan);
    return rc;
}

const struct kernel hotplug_kernel = {
    .name = "cpu-hotplug",
    .help = "time to take each CPU offline and online through sysfs (PSCI CPU_OFF/CPU_ON on Arm), root only",
    .params = params,
    .available = NULL,
    .prepare = prepare,
    .run = run,
    .serial_only = "CPUs go offline one at a time, from a CPU that stays online",
};

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
#include "jsonl.h"
#include "kernel.h"
#include "params.h"
#include "sysfs_guard.h"

static const char *const trace_choices[] = {"auto", "off", NULL};

static const struct kernel_param params[] = {
    {"root", "/", NULL, "where sys/ is: / on a target; a writable copy of a board's tree in tests", false, .kind = PARAM_TEXT},
    {"from", "auto", NULL, "CPU that issues the requests (auto: the first online CPU not measured)", false, .kind = PARAM_TEXT},
    {"offline-for", "0", NULL, "milliseconds each CPU stays offline between the two operations", false, .kind = PARAM_TEXT},
    {"trace", "auto", trace_choices, "auto: split each operation into the kernel's cpuhp steps when tracefs is mounted", false, .kind = PARAM_CHOICE},
    {NULL},
};

#define PATH_LEN 512
#define TRACE_BUF (1u << 20)
#define MAX_STEPS 512     /* top-level steps of one operation */
#define MAX_THREADS 16    /* threads running steps of one operation */
#define MAX_DEPTH 16

enum phase { PH_CPU, PH_AP, PH_BP, PH_UNTRACED, PH_COUNT };
/* offline: the CPU is stopped in takedown_cpu; online it is started in bringup_cpu (before
 * Linux 6.5) or cpuhp_kick_ap_alive + cpuhp_bringup_ap (parallel bringup). */
static const char *const phase_names[2][PH_COUNT] = {
    {"cpu_stop", "ap_states", "bp_states", "untraced"},
    {"cpu_start", "ap_states", "bp_states", "untraced"},
};
static const char *const cpu_steps[] = {"takedown_cpu", "bringup_cpu", "cpuhp_kick_ap_alive",
                                        "cpuhp_bringup_ap", NULL};

struct hotplug_plan {
    char root[256];
    int from;              /* -1: auto */
    long offline_ms;
    int trace;
};

static int prepare(struct run_ctx *ctx, char *err, size_t errlen)
{
    struct hotplug_plan *plan = calloc(1, sizeof *plan);
    const char *root = kernel_value(ctx, "root"), *from = kernel_value(ctx, "from");
    const char *off = kernel_value(ctx, "offline-for");
    char *end;
    if (ctx->mode == MODE_PARALLEL) {
        snprintf(err, errlen, "cpu-hotplug: --mode parallel is not valid (valid: serial; CPUs go "
                 "offline one at a time, from a CPU that stays online)");
        free(plan);
        return -1;
    }
    if (strlen(root) > 200 || root[0] == 0) {
        snprintf(err, errlen, "cpu-hotplug: --root '%.40s' is not valid (valid: a directory path "
                 "under 200 characters, / on a target)", root);
        free(plan);
        return -1;
    }
    snprintf(plan->root, sizeof plan->root, "%s", root);
    for (size_t n = strlen(plan->root); n > 0 && plan->root[n - 1] == '/'; n--)
        plan->root[n - 1] = 0;   /* "/" -> "": paths are root + "/sys/..." */
    plan->from = -1;
    if (strcmp(from, "auto") != 0) {
        long v = strtol(from, &end, 10);
        if (*end || end == from || v < 0 || v >= PROBE_MAX_CPUS || !cpu_is_online((int)v)) {
            snprintf(err, errlen, "cpu-hotplug: --from '%s' is not valid (valid: auto or an online CPU)", from);
            free(plan);
            return -1;
        }
        plan->from = (int)v;
    }
    plan->offline_ms = strtol(off, &end, 10);
    if (*end || end == off || plan->offline_ms < 0 || plan->offline_ms > 600000) {
        snprintf(err, errlen, "cpu-hotplug: --offline-for '%s' is not valid (valid: milliseconds "
                 "from 0 to 600000)", off);
        free(plan);
        return -1;
    }
    plan->trace = strcmp(kernel_value(ctx, "trace"), "auto") == 0;
    ctx->kernel_state = plan;
    return 0;
}

static void online_path(const struct hotplug_plan *plan, int cpu, char *out)
{
    snprintf(out, PATH_LEN, "%s/sys/devices/system/cpu/cpu%d/online", plan->root, cpu);
}

/* -- cpuhp trace ------------------------------------------------------------------------ */
struct tracer {
    char dir[400];         /* the instance, "" when not tracing */
    char *buf;
};

struct interval {
    double start, end;
    int cls;               /* enum phase, for control-side steps */
};

static int tracer_open(struct tracer *t, const struct hotplug_plan *plan, struct sysfs_guard *g,
                       char *why, size_t whylen)
{
    char base[300], path[PATH_LEN + 64];
    struct stat st;
    t->dir[0] = 0;
    snprintf(base, sizeof base, "%s/sys/kernel/tracing", plan->root);
    snprintf(path, sizeof path, "%s/events/cpuhp", base);
    if (stat(path, &st) != 0) {
        snprintf(why, whylen, "no cpuhp tracepoints under %s (tracefs not mounted, or a kernel "
                 "without CONFIG_TRACEPOINTS): operations are not split into the kernel's steps; "
                 "fix: mount -t tracefs nodev /sys/kernel/tracing", base);
        return -1;
    }
    /* an instance of our own: its buffer and events leave the system's tracing untouched.
     * Recorded with the guardian before it exists (tracer_create makes it once the guardian
     * runs), so no kill of the probe can leave it behind. */
    snprintf(t->dir, sizeof t->dir, "%s/instances/platperf-hotplug-%d", base, (int)getpid());
    guard_rmdir(g, t->dir);
    return 0;
}

static int tracer_create(struct tracer *t, char *why, size_t whylen)
{
    if (mkdir(t->dir, 0700) != 0) {
        snprintf(why, whylen, "cannot create the tracefs instance %s: %s", t->dir, strerror(errno));
        t->dir[0] = 0;
        return -1;
    }
    t->buf = malloc(TRACE_BUF);
    return 0;
}

static int tracer_enable(struct tracer *t)
{
    char path[PATH_LEN + 64];
    snprintf(path, sizeof path, "%s/trace_clock", t->dir);
    sysfs_write(path, "mono");     /* one clock for every CPU; "local" is per CPU */
    snprintf(path, sizeof path, "%s/events/cpuhp/enable", t->dir);
    return sysfs_write(path, "1");
}

static void tracer_clear(const struct tracer *t)
{
    char path[PATH_LEN + 64];
    snprintf(path, sizeof path, "%s/trace", t->dir);
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd >= 0)
        close(fd);
}

static int is_cpu_step(const char *fun)
{
    for (int i = 0; cpu_steps[i]; i++)
        if (strcmp(fun, cpu_steps[i]) == 0)
            return 1;
    return 0;
}

/* Splits one operation of `total_us` on `cpu` into phases (us) from the instance's trace:
 *   PH_CPU   the control side's steps that stop/start the CPU (firmware CPU_OFF / CPU_ON
 *            and the CPU's power-down / boot are inside), minus the CPU's own states in them
 *   PH_AP    the CPU's own states (its cpuhp/N thread)
 *   PH_BP    the control side's other steps, minus the CPU's own states in them (for
 *            cpuhp_kick_ap_work: the hand-over to the cpuhp/N thread)
 *   PH_UNTRACED  the rest of the write(): sysfs, device core, locks, scheduling.
 * Nested steps of one thread count once (the outermost). Returns 0, -1 without events. */
static int tracer_phases(const struct tracer *t, int cpu, double total_us, double out[PH_COUNT])
{
    char path[PATH_LEN + 64], ap_comm[32];
    snprintf(path, sizeof path, "%s/trace", t->dir);
    snprintf(ap_comm, sizeof ap_comm, "cpuhp/%d", cpu);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    ssize_t n;
    while (len < TRACE_BUF - 1 && (n = read(fd, t->buf + len, TRACE_BUF - 1 - len)) > 0)
        len += (size_t)n;
    close(fd);
    t->buf[len] = 0;

    static struct interval control[MAX_STEPS], ap[MAX_STEPS];
    int ncontrol = 0, nap = 0, events = 0;
    struct { int pid, depth, is_ap; double start[MAX_DEPTH]; char fun[MAX_DEPTH][64]; } th[MAX_THREADS];
    int nth = 0;
    for (char *line = t->buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (line[0] == '#')
            continue;
        char *ev = strstr(line, ": cpuhp_");
        char *bracket = strstr(line, " [");
        if (!ev || !bracket || bracket > ev)
            continue;
        /* timestamp: the number just before ": cpuhp_" */
        char *ts = ev;
        while (ts > line && (ts[-1] == '.' || (ts[-1] >= '0' && ts[-1] <= '9')))
            ts--;
        double when = strtod(ts, NULL);
        /* "comm-pid [cpu]": the pid after the last '-' before " [" */
        char *dash = bracket;
        while (dash > line && *dash != '-')
            dash--;
        int pid = atoi(dash + 1);
        char *comm = line;
        while (*comm == ' ')
            comm++;
        int is_ap = (size_t)(dash - comm) == strlen(ap_comm) && strncmp(comm, ap_comm, strlen(ap_comm)) == 0;
        char *name = ev + 2;
        unsigned ev_cpu;
        int a, b, c;
        char fun[64] = "";
        int enter = strncmp(name, "cpuhp_enter:", 12) == 0 || strncmp(name, "cpuhp_multi_enter:", 18) == 0;
        int exit_ = strncmp(name, "cpuhp_exit:", 11) == 0;
        char *data = strchr(name, ':') + 1;
        if (enter) {
            if (sscanf(data, " cpu: %u target: %d step: %d (%63[^)])", &ev_cpu, &a, &b, fun) != 4)
                continue;
        } else if (exit_) {
            if (sscanf(data, " cpu: %u state: %d step: %d ret: %d", &ev_cpu, &a, &b, &c) != 4)
                continue;
        } else {
            continue;
        }
        if ((int)ev_cpu != cpu)
            continue;
        int k = 0;
        while (k < nth && th[k].pid != pid)
            k++;
        if (k == nth) {
            if (nth == MAX_THREADS)
                continue;
            th[nth].pid = pid;
            th[nth].depth = 0;
            th[nth].is_ap = is_ap;
            nth++;
        }
        events++;
        if (enter) {
            if (th[k].depth < MAX_DEPTH) {
                th[k].start[th[k].depth] = when;
                snprintf(th[k].fun[th[k].depth], sizeof th[k].fun[0], "%s", fun);
            }
            th[k].depth++;
        } else if (th[k].depth > 0) {
            th[k].depth--;
            if (th[k].depth == 0) {   /* an outermost step ended */
                struct interval iv = {th[k].start[0], when, PH_BP};
                if (th[k].is_ap) {
                    if (nap < MAX_STEPS)
                        ap[nap++] = iv;
                } else if (ncontrol < MAX_STEPS) {
                    iv.cls = is_cpu_step(th[k].fun[0]) ? PH_CPU : PH_BP;
                    control[ncontrol++] = iv;
                }
            }
        }
    }
    if (!events)
        return -1;
    for (int i = 0; i < PH_COUNT; i++)
        out[i] = 0;
    double traced = 0;
    for (int i = 0; i < ncontrol; i++) {
        double d = (control[i].end - control[i].start) * 1e6;
        out[control[i].cls] += d;
        traced += d;
    }
    for (int i = 0; i < nap; i++) {
        double d = (ap[i].end - ap[i].start) * 1e6;
        out[PH_AP] += d;
        for (int j = 0; j < ncontrol; j++)
            if (ap[i].start >= control[j].start && ap[i].start <= control[j].end) {
                out[control[j].cls] -= d;
                break;
            }
    }
    out[PH_UNTRACED] = total_us - traced;
    for (int i = 0; i < PH_COUNT; i++)   /* the trace has 1 us resolution */
        out[i] = round(out[i] * 1000.0) / 1000.0;
    return 0;
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

/* Untraced, the totals are `cpu-hotplug` offline/online; traced, where tracing itself adds
 * to every operation (the events, a ring buffer for the CPU coming up), they are the phases'
 * `total`, so that the two never pool under one key. */
static void emit_cpu(struct run_ctx *ctx, int cpu, int from, int n, uint64_t *ticks[2],
                     double *phases[2][PH_COUNT], int traced_all)
{
    static const char *const ops[2] = {"offline", "online"};
    double *us = malloc(sizeof(double) * (size_t)(n ? n : 1));
    char issued[32];
    snprintf(issued, sizeof issued, "\"from_cpu\":%d", from);
    for (int op = 0; op < 2; op++) {
        char params_json[64];
        snprintf(params_json, sizeof params_json, "{\"op\":\"%s\"}", ops[op]);
        for (int i = 0; i < n; i++)
            us[i] = ticks_to_ns(ticks[op][i]) / 1000.0;
        if (!traced_all) {
            emit_result_extra(ctx, "cpu-hotplug", "{}", cpu, ops[op], "us", "lower", us, n, 0, ticks[op], issued);
            continue;
        }
        emit_result_extra(ctx, "cpu-hotplug-phases", params_json, cpu, "total", "us", "lower", us, n, 0,
                          ticks[op], issued);
        for (int p = 0; p < PH_COUNT; p++)
            emit_result_extra(ctx, "cpu-hotplug-phases", params_json, cpu, phase_names[op][p], "us", "lower",
                              phases[op][p], n, 0, NULL, issued);
    }
    free(us);
}

static int run(struct run_ctx *ctx)
{
    struct hotplug_plan *plan = ctx->kernel_state;
    static struct sysfs_guard guard;
    struct tracer tracer = {"", NULL};
    char path[PATH_LEN], msg[PATH_LEN + 200];
    int measured[PROBE_MAX_CPUS], nmeasured = 0, rc = 0;

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
            measured[nmeasured++] = cpu;
        }
    }
    int from = plan->from;
    if (from < 0) {
        int online[PROBE_MAX_CPUS];
        int non = cpus_online(online, PROBE_MAX_CPUS);
        for (int i = 0; i < non && from < 0; i++) {
            int listed = 0;
            for (int j = 0; j < nmeasured; j++)
                listed |= measured[j] == online[i];
            if (!listed)
                from = online[i];
        }
        if (from < 0 && nmeasured > 1) {   /* every online CPU asked for: the first issues */
            from = measured[0];
            snprintf(msg, sizeof msg, "CPU %d issues the requests and is not measured (every online CPU "
                     "was listed); measure it with --from another CPU", from);
            emit_warning("cpu-issues-requests", msg, from);
            memmove(measured, measured + 1, sizeof(int) * (size_t)--nmeasured);
        }
    }
    if (from < 0 || nmeasured == 0) {
        if (nmeasured > 0)
            emit_warning("no-issuing-cpu", "no other online CPU to issue the requests from: "
                         "nothing measured", -1);
        free(plan);
        return 0;
    }
    pin_to_cpu(from);

    for (int i = 0; i < nmeasured; i++) {
        online_path(plan, measured[i], path);
        if (guard_keep(&guard, path) != 0) {
            snprintf(msg, sizeof msg, "cannot read %s: %s", path, strerror(errno));
            emit_error("hotplug-unreadable", msg);
            free(plan);
            return 1;
        }
    }
    char why[PATH_LEN + 200];
    if (plan->trace && tracer_open(&tracer, plan, &guard, why, sizeof why) != 0)
        emit_warning("tracefs-unavailable", why, -1);
    if (guard_start(&guard, msg, sizeof msg) != 0) {
        emit_error("guard-failed", msg);
        free(plan);
        return 1;
    }
    if (tracer.dir[0] && tracer_create(&tracer, why, sizeof why) != 0)
        emit_warning("tracefs-unavailable", why, -1);
    if (tracer.dir[0] && tracer_enable(&tracer) != 0) {
        emit_warning("tracefs-unavailable", "cannot enable the cpuhp events in the tracefs instance: "
                     "operations are not split into the kernel's steps", -1);
        tracer.dir[0] = 0;
    }

    uint64_t *ticks[2];
    double *phases[2][PH_COUNT];
    for (int op = 0; op < 2; op++) {
        ticks[op] = calloc((size_t)ctx->samples, sizeof(uint64_t));
        for (int p = 0; p < PH_COUNT; p++)
            phases[op][p] = calloc((size_t)ctx->samples, sizeof(double));
    }
    for (int i = 0; i < nmeasured && rc == 0 && !stop_requested(); i++) {
        int cpu = measured[i], n = 0, traced_all = tracer.dir[0] != 0, outcome = 0, e = 0;
        for (int s = -ctx->warmup; s < ctx->samples && !stop_requested(); s++) {
            uint64_t tk[2];
            double ph[2][PH_COUNT];
            int traced[2];
            outcome = cycle(plan, &tracer, cpu, tk, ph, traced, &e);
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
    }
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
};

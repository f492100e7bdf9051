#include "cpuhp_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_LEN 512
#define TRACE_BUF (1u << 20)
#define MAX_STEPS 512     /* top-level steps of one operation */
#define MAX_THREADS 16    /* threads running steps of one operation */
#define MAX_DEPTH 16

/* The control side's steps that stop or start the CPU: offline in takedown_cpu; online in
 * bringup_cpu (before Linux 6.5) or cpuhp_kick_ap_alive + cpuhp_bringup_ap (parallel bringup). */
static const char *const cpu_steps[] = {"takedown_cpu", "bringup_cpu", "cpuhp_kick_ap_alive",
                                        "cpuhp_bringup_ap", NULL};

struct interval {
    double start, end;
    int cls;               /* enum phase, for control-side steps */
};

int tracer_open(struct tracer *t, const char *root, struct sysfs_guard *g, char *why, size_t whylen)
{
    char base[300], path[PATH_LEN + 64];
    struct stat st;
    t->dir[0] = 0;
    snprintf(base, sizeof base, "%s/sys/kernel/tracing", root);
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

int tracer_create(struct tracer *t, char *why, size_t whylen)
{
    if (mkdir(t->dir, 0700) != 0) {
        snprintf(why, whylen, "cannot create the tracefs instance %s: %s", t->dir, strerror(errno));
        t->dir[0] = 0;
        return -1;
    }
    t->buf = malloc(TRACE_BUF);
    return 0;
}

int tracer_enable(struct tracer *t)
{
    char path[PATH_LEN + 64];
    snprintf(path, sizeof path, "%s/trace_clock", t->dir);
    sysfs_write(path, "mono");     /* one clock for every CPU; "local" is per CPU */
    snprintf(path, sizeof path, "%s/events/cpuhp/enable", t->dir);
    return sysfs_write(path, "1");
}

void tracer_clear(const struct tracer *t)
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

/* The instance's trace into t->buf; its length, -1 when it cannot be read. */
static long read_trace(const struct tracer *t)
{
    char path[PATH_LEN + 64];
    snprintf(path, sizeof path, "%s/trace", t->dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    ssize_t n;
    while (len < TRACE_BUF - 1 && (n = read(fd, t->buf + len, TRACE_BUF - 1 - len)) > 0)
        len += (size_t)n;
    close(fd);
    t->buf[len] = 0;
    return (long)len;
}

/* One cpuhp_enter / cpuhp_multi_enter / cpuhp_exit event of a trace line. */
struct event {
    double when;
    int pid, is_ap, enter;
    unsigned cpu;
    char fun[64];
};

/* 1 when `line` is an enter or exit event ("comm-pid [cpu] flags timestamp: cpuhp_...");
 * is_ap: its thread is the cpuhp/N thread of the CPU (ap_comm). */
static int parse_event(char *line, const char *ap_comm, struct event *e)
{
    char *ev = strstr(line, ": cpuhp_"), *bracket = strstr(line, " [");
    if (line[0] == '#' || !ev || !bracket || bracket > ev)
        return 0;
    char *ts = ev;   /* the timestamp: the number just before ": cpuhp_" */
    while (ts > line && (ts[-1] == '.' || (ts[-1] >= '0' && ts[-1] <= '9')))
        ts--;
    e->when = strtod(ts, NULL);
    char *dash = bracket;   /* "comm-pid [cpu]": the pid after the last '-' before " [" */
    while (dash > line && *dash != '-')
        dash--;
    e->pid = atoi(dash + 1);
    char *comm = line;
    while (*comm == ' ')
        comm++;
    e->is_ap = (size_t)(dash - comm) == strlen(ap_comm) && strncmp(comm, ap_comm, strlen(ap_comm)) == 0;
    char *name = ev + 2, *data = strchr(name, ':') + 1;
    int a, b, c;
    e->fun[0] = 0;
    e->enter = strncmp(name, "cpuhp_enter:", 12) == 0 || strncmp(name, "cpuhp_multi_enter:", 18) == 0;
    if (e->enter)
        return sscanf(data, " cpu: %u target: %d step: %d (%63[^)])", &e->cpu, &a, &b, e->fun) == 4;
    if (strncmp(name, "cpuhp_exit:", 11) == 0)
        return sscanf(data, " cpu: %u state: %d step: %d ret: %d", &e->cpu, &a, &b, &c) == 4;
    return 0;
}

/* The outermost steps of each thread, as the events open and close them. */
struct steps {
    struct interval control[MAX_STEPS], ap[MAX_STEPS];
    int ncontrol, nap, events, nth;
    struct { int pid, depth, is_ap; double start[MAX_DEPTH]; char fun[MAX_DEPTH][64]; } th[MAX_THREADS];
};

static void step_event(struct steps *s, const struct event *e)
{
    int k = 0;
    while (k < s->nth && s->th[k].pid != e->pid)
        k++;
    if (k == s->nth) {
        if (s->nth == MAX_THREADS)
            return;
        s->th[k].pid = e->pid;
        s->th[k].depth = 0;
        s->th[k].is_ap = e->is_ap;
        s->nth++;
    }
    s->events++;
    if (e->enter) {
        if (s->th[k].depth < MAX_DEPTH) {
            s->th[k].start[s->th[k].depth] = e->when;
            snprintf(s->th[k].fun[s->th[k].depth], sizeof s->th[k].fun[0], "%s", e->fun);
        }
        s->th[k].depth++;
    } else if (s->th[k].depth > 0 && --s->th[k].depth == 0) {   /* an outermost step ended */
        struct interval iv = {s->th[k].start[0], e->when, PH_BP};
        if (s->th[k].is_ap) {
            if (s->nap < MAX_STEPS)
                s->ap[s->nap++] = iv;
        } else if (s->ncontrol < MAX_STEPS) {
            iv.cls = is_cpu_step(s->th[k].fun[0]) ? PH_CPU : PH_BP;
            s->control[s->ncontrol++] = iv;
        }
    }
}

static void sum_phases(const struct steps *s, double total_us, double out[PH_COUNT])
{
    for (int i = 0; i < PH_COUNT; i++)
        out[i] = 0;
    double traced = 0;
    for (int i = 0; i < s->ncontrol; i++) {
        double d = (s->control[i].end - s->control[i].start) * 1e6;
        out[s->control[i].cls] += d;
        traced += d;
    }
    for (int i = 0; i < s->nap; i++) {
        double d = (s->ap[i].end - s->ap[i].start) * 1e6;
        out[PH_AP] += d;
        for (int j = 0; j < s->ncontrol; j++)
            if (s->ap[i].start >= s->control[j].start && s->ap[i].start <= s->control[j].end) {
                out[s->control[j].cls] -= d;
                break;
            }
    }
    out[PH_UNTRACED] = total_us - traced;
    for (int i = 0; i < PH_COUNT; i++)   /* the trace has 1 us resolution */
        out[i] = round(out[i] * 1000.0) / 1000.0;
}

int tracer_phases(const struct tracer *t, int cpu, double total_us, double out[PH_COUNT])
{
    char ap_comm[32];
    snprintf(ap_comm, sizeof ap_comm, "cpuhp/%d", cpu);
    if (read_trace(t) < 0)
        return -1;
    static struct steps s;
    memset(&s, 0, sizeof s);
    for (char *line = t->buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        struct event e;
        if (parse_event(line, ap_comm, &e) && (int)e.cpu == cpu)
            step_event(&s, &e);
    }
    if (!s.events)
        return -1;
    sum_phases(&s, total_us, out);
    return 0;
}

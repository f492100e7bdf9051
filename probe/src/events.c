/* The counters of --events: the run's check and each job's perf_event_open groups (events.h). */
#include "events.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

static struct {
    int given;
    char asked[1024];
    enum event_status status[EVENTS_MAX];
    struct event_attr attr[EVENTS_MAX];
    int resolved[EVENTS_MAX];
    char why[EVENTS_MAX][240];
    int software_user_only;   /* the kernel refused the kernel's part of software events */
    char denied[320];
    int on;
    const int *cpus;
    int ncpus;
} run;

int events_configure(const char *list, char *err, size_t errlen)
{
    if (events_parse(list, err, errlen) != 0)
        return -1;
    snprintf(run.asked, sizeof run.asked, "%s", list);
    run.given = 1;
    return 0;
}

const char *events_asked(void) { return run.given ? run.asked : NULL; }
const char *events_denied(void) { return run.denied[0] ? run.denied : NULL; }
int events_on(void) { return run.on; }

int events_cpus(const int **cpus)
{
    *cpus = run.cpus;
    return run.ncpus;
}

enum event_status events_status(int i, const char **why)
{
    *why = run.why[i];
    return run.status[i];
}

const struct event_attr *events_resolved(int i)
{
    return run.resolved[i] ? &run.attr[i] : NULL;
}

static int perf_open(const struct event_attr *a, int user_only, int group_fd)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = a->type;
    attr.config = a->config;
    attr.config1 = a->config1;
    attr.config2 = a->config2;
    attr.read_format = READ_FORMAT;
    attr.exclude_kernel = (unsigned)user_only;
    attr.exclude_hv = 1;
    /* the calling thread on whatever CPU it runs (the measuring thread is pinned), or an
     * uncore PMU's CPU, every task on it */
    int pid = a->cpu >= 0 ? -1 : 0;
    int fd = (int)syscall(__NR_perf_event_open, &attr, pid, a->cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && errno == EINVAL) {
        /* kernels before 3.14 know no PERF_FLAG_FD_CLOEXEC (old BSP kernels) */
        fd = (int)syscall(__NR_perf_event_open, &attr, pid, a->cpu, group_fd, 0UL);
        if (fd >= 0)
            fcntl(fd, F_SETFD, FD_CLOEXEC);
        else
            errno = EINVAL;
    }
    return fd;
}

/* Hardware (PMU) events count user space only; software ones the kernel's part too unless
 * the kernel refused it at the check. */
static int counts_user_only(const struct event_def *def)
{
    return !def->software || run.software_user_only;
}

static int paranoid_level(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int level = -9;
    if (f) {
        if (fscanf(f, "%d", &level) != 1)
            level = -9;
        fclose(f);
    }
    return level;
}

static void set_denied(int err)
{
    int level = paranoid_level();
    /* Debian's kernels (and Android's) refuse any use to a user at 3; upstream reads 3 as 2 */
    if (level >= 3)
        snprintf(run.denied, sizeof run.denied, "perf_event_paranoid is %d: no counting without CAP_PERFMON; "
                 "as root: sysctl kernel.perf_event_paranoid=1 (or run as root)", level);
    else
        snprintf(run.denied, sizeof run.denied, "perf_event_open is refused here (%s; perf_event_paranoid %d): "
                 "no counting; run as root or with CAP_PERFMON, outside a container that filters the call",
                 strerror(err), level);
}

/* Opens def (resolved as a) once; the status it gets, with why. A refused kernel part of a
 * software event makes every software event user-space only from then on. */
static enum event_status try_open(const struct event_def *def, const struct event_attr *a, char *why, size_t whylen)
{
    int fd = perf_open(a, counts_user_only(def), -1);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && def->software && !run.software_user_only) {
        fd = perf_open(a, 1, -1);
        if (fd >= 0)
            run.software_user_only = 1;
    }
    int err = errno;
    if (fd >= 0) {
        close(fd);
        if (def->needs_kernel && run.software_user_only) {
            snprintf(why, whylen, "reads 0 in user space only");
            return EVENT_KERNEL_ONLY;
        }
        return EVENT_COUNTED;
    }
    if ((err == EACCES || err == EPERM) && a->cpu >= 0) {
        snprintf(why, whylen, "%s counts CPU-wide (on CPU %d, for its cluster or the system): needs root or "
                 "perf_event_paranoid <= 0", a->pmu, a->cpu);
        return EVENT_NOT_HERE;
    }
    if (err == EACCES || err == EPERM) {
        set_denied(err);
        snprintf(why, whylen, "perf_event_open: %s", strerror(err));
        return EVENT_DENIED;
    }
    if (!def->software && (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)) {
        snprintf(why, whylen, "no PMU counts it (%s)", strerror(err));
        return EVENT_NO_HARDWARE;
    }
    snprintf(why, whylen, "perf_event_open: %s", strerror(err));
    return EVENT_NOT_HERE;
}

/* Event i on every CPU of the run: counted on all, some, or none (the first CPU's why). */
static void check_event(int i, const int *cpus, int ncpus)
{
    const struct event_def *def = events_def(i);
    int counted = 0;
    enum event_status first = EVENT_COUNTED;
    for (int c = 0; c < ncpus; c++) {
        struct event_attr a;
        char why[240];
        int resolved = event_resolve(def, cpus[c], &a, why, sizeof why) == 0;
        if (resolved && !run.resolved[i]) {
            run.attr[i] = a;
            run.resolved[i] = 1;
        }
        enum event_status s = resolved ? try_open(def, &a, why, sizeof why) : EVENT_NOT_HERE;
        if (s == EVENT_COUNTED) {
            counted++;
        } else if (first == EVENT_COUNTED) {
            first = s;
            snprintf(run.why[i], sizeof run.why[i], "%s", why);
        }
        if (s == EVENT_DENIED || s == EVENT_KERNEL_ONLY)
            break;
    }
    run.status[i] = counted == ncpus ? EVENT_COUNTED : counted > 0 ? EVENT_SOME_CPUS : first;
}

void events_check(const int *cpus, int ncpus)
{
    if (!run.given)
        return;
    run.cpus = cpus;
    run.ncpus = ncpus;
    /* software events first: whether the kernel's part is allowed is learnt on them */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < events_count(); i++)
            if (events_def(i)->software == !pass)
                check_event(i, cpus, ncpus);
    for (int i = 0; i < events_count(); i++) {
        if (run.denied[0] && run.status[i] != EVENT_DENIED) {
            run.status[i] = EVENT_DENIED;
            snprintf(run.why[i], sizeof run.why[i], "counting refused (events-denied)");
        }
        run.on |= run.status[i] == EVENT_COUNTED || run.status[i] == EVENT_SOME_CPUS;
    }
}

static void close_all(struct job_events *je)
{
    for (int e = 0; e < je->n; e++)
        if (je->fd[e] >= 0)
            close(je->fd[e]);
    for (int e = 0; e < je->n; e++)
        je->fd[e] = -1;
}

static void note_missing(struct job_events *je, const struct event_def *def, const char *why)
{
    size_t used = strlen(je->missing);
    snprintf(je->missing + used, sizeof je->missing - used, "%s%s (%s)", used ? "; " : "", def->name, why);
}

/* Counter e (def i, resolved as a) into group g, or as the leader of a new group when g < 0
 * or the PMU refuses it in g (no counter left for it there: the groups take turns). */
static int open_counter(struct job_events *je, int i, const struct event_attr *a, int g)
{
    const struct event_def *def = events_def(i);
    int fd = g >= 0 ? perf_open(a, counts_user_only(def), je->leader[g]) : -1;
    if (fd < 0) {
        fd = perf_open(a, counts_user_only(def), -1);
        if (fd < 0) {
            char why[120];
            snprintf(why, sizeof why, "perf_event_open on CPU %d: %s", je->cpu, strerror(errno));
            note_missing(je, def, why);
            return -1;
        }
        g = je->ngroups++;
        je->leader[g] = fd;
        je->group_size[g] = 0;
    }
    int e = je->n++;
    je->def[e] = i;
    je->attr[e] = *a;
    je->fd[e] = fd;
    je->group[e] = g;
    je->slot[e] = je->group_size[g]++;
    return g;
}

/* Which group an event joins: one a PMU (software events, the CPU's own PMU whatever the
 * spelling, each uncore PMU); a PMU's group that is full starts another. task-clock leads a
 * group of its own: as page-faults' sibling it read 0 in every group read, its enabled time
 * running (Linux 6.18, x86_64; tests/probe/test_probe_events_per.py). */
static const char *group_key(const struct event_def *def, const struct event_attr *a)
{
    if (def->software && strcmp(def->name, "task_clock") == 0)
        return "task_clock";
    return def->software ? "software" : a->cpu >= 0 ? a->pmu : "core";
}

static void open_groups(struct job_events *je)
{
    char key[EVENTS_MAX][sizeof ((struct event_attr *)0)->pmu];
    int current[EVENTS_MAX], nkeys = 0;
    for (int i = 0; i < events_count(); i++) {
        const struct event_def *def = events_def(i);
        if (run.status[i] != EVENT_COUNTED && run.status[i] != EVENT_SOME_CPUS)
            continue;
        struct event_attr a;
        char why[240];
        if (event_resolve(def, je->cpu, &a, why, sizeof why) != 0) {
            note_missing(je, def, why);
            continue;
        }
        int k = 0;
        while (k < nkeys && strcmp(key[k], group_key(def, &a)) != 0)
            k++;
        if (k == nkeys) {
            snprintf(key[nkeys], sizeof key[nkeys], "%s", group_key(def, &a));
            current[nkeys++] = -1;
        }
        int got = open_counter(je, i, &a, current[k]);
        if (got >= 0)
            current[k] = got;
    }
}

void events_job_start(struct job_events **jep, int cpu, int samples)
{
    if (!run.on)
        return;
    if (*jep)
        events_job_free(*jep);
    struct job_events *je = *jep = calloc(1, sizeof *je);
    if (!je)
        return;
    je->cpu = cpu;
    open_groups(je);
    je->samples = samples;
    je->count = calloc((size_t)samples * (size_t)(je->n ? je->n : 1), sizeof *je->count);
    je->enabled = calloc((size_t)samples * (size_t)(je->ngroups ? je->ngroups : 1), sizeof *je->enabled);
    je->running = calloc((size_t)samples * (size_t)(je->ngroups ? je->ngroups : 1), sizeof *je->running);
    if (!je->count || !je->enabled || !je->running) {
        snprintf(je->missing, sizeof je->missing, "every counter (out of memory for the counts)");
        close_all(je);
        je->n = je->ngroups = 0;
    }
}

static int read_group(const struct job_events *je, int g, uint64_t *words)
{
    size_t want = sizeof(uint64_t) * (size_t)(3 + je->group_size[g]);
    return read(je->leader[g], words, want) == (ssize_t)want && words[0] == (uint64_t)je->group_size[g] ? 0 : -1;
}

void events_begin(struct job_events *je)
{
    if (!je)
        return;
    je->read_failed = 0;
    for (int g = 0; g < je->ngroups; g++)
        je->read_failed |= read_group(je, g, je->begin[g]) != 0;
}

void events_end(struct job_events *je)
{
    if (!je)
        return;
    uint64_t end[EVENTS_MAX][EVENTS_READ_WORDS];
    for (int g = 0; g < je->ngroups; g++)
        je->read_failed |= read_group(je, g, end[g]) != 0;
    for (int g = 0; g < je->ngroups; g++) {
        je->last_enabled[g] = je->read_failed ? 0 : end[g][1] - je->begin[g][1];
        je->last_running[g] = je->read_failed ? 0 : end[g][2] - je->begin[g][2];
    }
    for (int e = 0; e < je->n; e++) {
        int g = je->group[e], w = 3 + je->slot[e];
        je->last[e] = je->read_failed ? 0 : end[g][w] - je->begin[g][w];
    }
}

void events_keep(struct job_events *je, int sample)
{
    if (!je || sample < 0 || sample >= je->samples)
        return;
    for (int e = 0; e < je->n; e++)
        je->count[(size_t)sample * (size_t)je->n + (size_t)e] = je->last[e];
    for (int g = 0; g < je->ngroups; g++) {
        je->enabled[(size_t)sample * (size_t)je->ngroups + (size_t)g] = je->last_enabled[g];
        je->running[(size_t)sample * (size_t)je->ngroups + (size_t)g] = je->last_running[g];
    }
    je->kept = sample + 1;
}

void events_job_stop(struct job_events *je)
{
    if (je)
        close_all(je);
}

void events_one_begin(struct job_events **je, int cpu)
{
    events_job_start(je, cpu, 1);
    events_begin(*je);
}

void events_one_end(struct job_events *je)
{
    events_end(je);
    events_keep(je, 0);
    events_job_stop(je);
}

void events_job_free(struct job_events *je)
{
    if (!je)
        return;
    close_all(je);
    free(je->count);
    free(je->enabled);
    free(je->running);
    free(je);
}

static uint64_t *copy_words(const uint64_t *from, size_t n)
{
    uint64_t *to = malloc(sizeof *to * (n ? n : 1));
    if (to && n)
        memcpy(to, from, sizeof *to * n);
    return to;
}

struct job_events *events_job_copy(const struct job_events *je)
{
    if (!je)
        return NULL;
    struct job_events *copy = malloc(sizeof *copy);
    if (!copy)
        return NULL;
    *copy = *je;
    for (int e = 0; e < copy->n; e++)
        copy->fd[e] = -1;
    copy->count = copy_words(je->count, (size_t)je->samples * (size_t)je->n);
    copy->enabled = copy_words(je->enabled, (size_t)je->samples * (size_t)je->ngroups);
    copy->running = copy_words(je->running, (size_t)je->samples * (size_t)je->ngroups);
    if (copy->count && copy->enabled && copy->running)
        return copy;
    events_job_free(copy);
    return NULL;
}

/* Events counted around each sample (--events, docs/results-format.md "events"): a
 * perf_event_open group per measuring thread, read just before and just after each timed
 * attempt, outside the timed region, so the timed code is the same with and without events.
 * The counts of the attempt a sample keeps are the sample's. Hardware events count user space
 * only (exclude_kernel: the timed loop's own work, not the interrupts that fell into it);
 * software events count the kernel's part too where the kernel allows it.
 *
 * A group holds what the PMU can count at once: a counter the kernel refuses in the group
 * starts another one, and the groups then take turns on the counters (multiplexing), each
 * counting for part of a sample: its time_running / time_enabled is kept with the counts, and
 * the records say so (event_records.c); nothing is scaled in silence.
 *
 * events.c opens and reads the counters; event_records.c writes what they counted. */
#ifndef PLATPERF_EVENTS_H
#define PLATPERF_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "event_names.h"
#include "event_source.h"

/* One group's read (PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING):
 * nr, time_enabled, time_running, then nr values. */
#define EVENTS_READ_WORDS (EVENTS_MAX + 3)

/* What a kernel's own code says one of its operations holds (0: not known), written as the
 * `expected` of the counters that count it, which the host checks the counts against
 * (events/claims.py): the instructions retired, and the load and store instructions, which
 * the Arm common event L1D_CACHE counts both of and the generic L1-dcache-loads, where it
 * counts load instructions (timed_loops.h generic_l1d_counts_loads), the loads of. */
struct events_expected {
    double instructions, loads, stores;
};

/* What the counting of one job holds. */
struct job_events {
    int cpu;
    int n;                                   /* counters open on this job */
    int def[EVENTS_MAX];                     /* each one's index in the run's list */
    struct event_attr attr[EVENTS_MAX];
    int fd[EVENTS_MAX];
    int group[EVENTS_MAX], slot[EVENTS_MAX]; /* each one's group and place in the group's read */
    int ngroups;
    int leader[EVENTS_MAX];                  /* fd of each group's leader */
    int group_size[EVENTS_MAX];
    uint64_t begin[EVENTS_MAX][EVENTS_READ_WORDS];   /* each group's read before the attempt */
    uint64_t last[EVENTS_MAX];               /* each counter's count over the last attempt */
    uint64_t last_enabled[EVENTS_MAX], last_running[EVENTS_MAX];   /* each group's, ns */
    int read_failed;                         /* a read returned short: the attempt's counts are 0 */
    int samples;                             /* room in the arrays below */
    uint64_t *count;                         /* [sample * n + e]: counts over each kept sample */
    uint64_t *enabled, *running;             /* [sample * ngroups + g]: ns the group was enabled / counting */
    int kept;                                /* samples kept */
    char missing[512];                       /* counters this CPU could not open, with why */
};

/* --events LIST (run_options.c): the run's list (event_names.c), and the text as given for
 * the meta record. 0, or -1 with one line in err. */
int events_configure(const char *list, char *err, size_t errlen);
/* The --events text; NULL when not given. */
const char *events_asked(void);

/* The run's check, in the main thread before anything is measured: each event of the run's
 * list resolved for each CPU of `cpus` and opened once. An event that cannot be counted is
 * marked unavailable (its why kept); events_denied() is non-NULL when the kernel refuses
 * counting altogether (perf_event_paranoid, no CAP_PERFMON). No-op without --events. */
void events_check(const int *cpus, int ncpus);
/* What became of event i of the run's list at the check. */
enum event_status {
    EVENT_COUNTED,        /* opened on every CPU of the run */
    EVENT_SOME_CPUS,      /* opened on some CPUs only (big.LITTLE: a core without it) */
    EVENT_NO_HARDWARE,    /* a PMU event and no PMU counts it (ENOENT: a VM without a vPMU) */
    EVENT_NOT_HERE,       /* not on this machine: no such source, a PMU without the event */
    EVENT_KERNEL_ONLY,    /* counts only in the kernel and the kernel's part is not allowed */
    EVENT_DENIED,         /* perf_event_open refused altogether */
};
/* Event i's status, with why (one clause) where it is not counted everywhere. */
enum event_status events_status(int i, const char **why);
/* Event i as resolved on the first CPU of the check where it resolved; NULL if on none. */
const struct event_attr *events_resolved(int i);
/* Why the kernel refuses counting altogether, with the fix; NULL when it does not. */
const char *events_denied(void);
/* The CPUs of the check. */
int events_cpus(const int **cpus);
/* 1 when a run counts events (--events given, something countable). */
int events_on(void);

/* The sampler's hooks (sampler.c); each a no-op when *je / je is NULL. start opens the
 * groups of a job pinned on cpu for `samples` samples (a job sampled again starts afresh);
 * begin/end read them around an attempt; keep makes the last attempt's counts sample i's;
 * stop closes the counters (the counts stay until events_job_free). */
void events_job_start(struct job_events **je, int cpu, int samples);
void events_begin(struct job_events *je);
void events_end(struct job_events *je);
void events_keep(struct job_events *je, int sample);
void events_job_stop(struct job_events *je);
/* A job that is one sample (latency-loop's whole loop): start + begin, then end + keep + stop. */
void events_one_begin(struct job_events **je, int cpu);
void events_one_end(struct job_events *je);
void events_job_free(struct job_events *je);
/* A copy of a job's counts, for a record written after its job is freed (exec_keep_account);
 * NULL for NULL or out of memory. */
struct job_events *events_job_copy(const struct job_events *je);

/* The records (event_records.c). Inside the meta record: "events": {"asked", "pmu" (the core
 * PMU of each CPU the check was made on), "counters" (what each resolved to, its status)},
 * no-op without --events; after it: the run's warnings (events-denied, events-unavailable,
 * events-kernel-only). */
void events_jw_meta(void);
void events_warnings(void);
/* Inside a result record: "events": {"per", "counters": [...]} of je's kept samples (n of
 * them), `per` what one of the record's `iterations` is, each counter with its `expected`
 * where `expected` (may be NULL) gives one. Writes nothing when je is NULL or counted nothing,
 * or when per or iterations is missing (events_job_warnings says so). */
void events_jw_record(const struct job_events *je, const char *per, uint64_t iterations, int n,
                      const struct events_expected *expected);
/* The same for a record whose samples hold different numbers of operations (align-sweep: a
 * placement's rounds, each with its own repetitions): "iterations": [...] in "events", each
 * sample's divisor, where the record has none of its own. */
void events_jw_record_each(const struct job_events *je, const char *per, const uint64_t *iterations, int n);
/* After a result record: the warnings its counts need, each once a run (events-multiplexed;
 * events-unavailable for counters a CPU could not open; events-not-written for a record with
 * counts but no per or iterations). */
void events_job_warnings(const struct job_events *je, const char *per, uint64_t iterations);
/* At the run's end: events-not-written when events were counted for a run of `kernel` and no
 * record carried them (cpu-idle and cpu-hotplug: their figure is the kernel's and the
 * firmware's time, which a thread's user-space counters do not see; docs/events.md). */
void events_run_end(const char *kernel, int results);

#endif

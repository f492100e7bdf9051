/* What --events counted, in the records of docs/results-format.md ("events"): the meta
 * record's "events", each result's "events" and the warnings that say what was not counted,
 * or counted for part of a sample only (events.h). */
#include <stdio.h>
#include <string.h>

#include "events.h"
#include "jsonl.h"
#include "kernel.h"
#include "timed_loops.h"

static const char *event_name(const struct event_def *def, const struct event_attr *a)
{
    if (def->raw[0])
        return def->raw;
    /* the Arm common event where the core PMU counted it, else the kernel's generic one */
    return strcmp(a->pmu, "hardware") && strcmp(a->pmu, "hw_cache") && strcmp(a->pmu, "software") && def->arm
        ? def->arm : def->generic;
}

static const char *const status_names[] = {"counted", "some-cpus", "no-hardware", "not-here", "kernel-only",
                                           "denied"};

/* meta.events.counters: each counter of the list, what it resolved to, whether it counts. */
static void jw_resolution(void)
{
    jw_array("counters");
    for (int i = 0; i < events_count(); i++) {
        const struct event_def *def = events_def(i);
        const struct event_attr *a = events_resolved(i);
        const char *why;
        enum event_status s = events_status(i, &why);
        jw_element_object();
        jw_str("name", def->name);
        jw_str("asked", def->asked);
        jw_str("status", status_names[s]);
        if (a) {
            jw_str("event", event_name(def, a));
            jw_str("pmu", a->pmu);
            jw_str("code", a->code);
            jw_uint("type", a->type);
            jw_uint("config", a->config);
            if (a->cpu >= 0)
                jw_int("cpu", a->cpu);   /* an uncore PMU, counted CPU-wide there */
        }
        if (s != EVENT_COUNTED)
            jw_str("why", why);
        jw_object_end();
    }
    jw_array_end();
}

void events_jw_meta(void)
{
    const char *asked = events_asked();
    if (!asked)
        return;
    const int *cpus;
    int ncpus = events_cpus(&cpus);
    jw_object("events");
    jw_str("asked", asked);
    jw_object("pmu");
    for (int c = 0; c < ncpus; c++) {
        char pmu[64], key[24];
        if (event_core_pmu(cpus[c], pmu, sizeof pmu) == 0) {
            snprintf(key, sizeof key, "cpu%d", cpus[c]);
            jw_str(key, pmu);
        }
    }
    jw_object_end();
    jw_resolution();
    jw_object_end();
}

/* The names of the run's events whose status is one of `want` (a bit per status), ", "
 * between, or with why after each ("l2d (why); llc (why)"). Returns how many. */
static int names_of(unsigned want, int with_why, char *out, size_t outlen)
{
    size_t used = 0;
    int n = 0;
    out[0] = 0;
    for (int i = 0; i < events_count() && used < outlen; i++) {
        const char *why;
        enum event_status s = events_status(i, &why);
        if (!(want & (1u << s)))
            continue;
        used += (size_t)snprintf(out + used, outlen - used, with_why ? "%s%s (%s)" : "%s%s",
                                 n ? (with_why ? "; " : ", ") : "", events_def(i)->name, why);
        n++;
    }
    return n;
}

#define BIT(s) (1u << (s))

/* events-unavailable: "hardware events are not available here (event sources: ...)" when no
 * PMU counts any of them (a VM without a virtual PMU), else each event not counted, with why. */
static void unavailable_warning(void)
{
    char counted[400], missing[1200], sources[300], msg[2000];
    if (names_of(BIT(EVENT_NO_HARDWARE) | BIT(EVENT_NOT_HERE) | BIT(EVENT_SOME_CPUS), 1, missing, sizeof missing) == 0)
        return;
    int ncounted = names_of(BIT(EVENT_COUNTED) | BIT(EVENT_SOME_CPUS), 0, counted, sizeof counted);
    int hardware_counted = 0, no_hardware = 0;
    for (int i = 0; i < events_count(); i++) {
        const char *why;
        enum event_status s = events_status(i, &why);
        hardware_counted |= !events_def(i)->software && (s == EVENT_COUNTED || s == EVENT_SOME_CPUS);
        no_hardware |= s == EVENT_NO_HARDWARE;
    }
    int used;
    if (no_hardware && !hardware_counted) {
        event_sources_list(sources, sizeof sources);
        used = snprintf(msg, sizeof msg, "hardware events are not available here (event sources: %s)", sources);
        char others[1200];
        if (names_of(BIT(EVENT_NOT_HERE) | BIT(EVENT_SOME_CPUS), 1, others, sizeof others))
            used += snprintf(msg + used, sizeof msg - (size_t)used, "; not counted either: %s", others);
    } else {
        used = snprintf(msg, sizeof msg, "not counted: %s", missing);
    }
    if (used < (int)sizeof msg)
        snprintf(msg + used, sizeof msg - (size_t)used, ncounted ? ": counting %s%s" : ": nothing counted",
                 counted, ncounted ? " only" : "");
    jw_warning("events-unavailable", msg, -1);
}

void events_warnings(void)
{
    if (!events_asked())
        return;
    if (events_denied()) {
        jw_warning("events-denied", events_denied(), -1);
        return;
    }
    char names[400], msg[600];
    int n = names_of(BIT(EVENT_KERNEL_ONLY), 0, names, sizeof names);
    if (n) {
        snprintf(msg, sizeof msg, "%s read%s 0 in user space only (not root): not counted; as root, or "
                 "with kernel.perf_event_paranoid=1, %s counted", names, n == 1 ? "s" : "", n == 1 ? "it is" : "they are");
        jw_warning("events-kernel-only", msg, -1);
    }
    unavailable_warning();
}

/* What the kernel's code says counter `def`, counted as `event`, counts per operation; 0 where
 * it says nothing. L1D_CACHE, the Arm common event on the core's PMU, counts every load and
 * store that looks up the L1 data cache: one per load or store instruction of the peak loops
 * (whether a pair or a multiple-register access counts once is the core's choice, which only a
 * real PMU shows: docs/events.md). The generic L1-dcache-loads counts loads where it counts
 * load instructions, and something else elsewhere (timed_loops.h). */
static double expected_count(const struct event_def *def, const char *event, const struct events_expected *x)
{
    if (!x)
        return 0;
    if (strcmp(def->name, "instructions") == 0)
        return x->instructions;
    if (strcmp(def->name, "l1d") == 0 && strcmp(event, "L1D_CACHE") == 0)
        return x->loads + x->stores;
    if (strcmp(def->name, "l1d") == 0 && strcmp(event, "L1-dcache-loads") == 0 && generic_l1d_counts_loads())
        return x->loads;
    return 0;
}

static void jw_counter(const struct job_events *je, int e, int n, const struct events_expected *expected)
{
    const struct event_def *def = events_def(je->def[e]);
    const char *event = event_name(def, &je->attr[e]);
    double count = expected_count(def, event, expected);
    int g = je->group[e];
    jw_element_object();
    jw_str("name", def->name);
    if (count > 0)
        jw_num("expected", count);
    jw_str("asked", def->asked);
    jw_str("event", event);
    jw_str("pmu", je->attr[e].pmu);
    jw_str("code", je->attr[e].code);
    jw_str("unit", def->count_unit);
    jw_array("counts");
    for (int i = 0; i < n; i++)
        jw_element_uint(je->count[(size_t)i * (size_t)je->n + (size_t)e]);
    jw_array_end();
    jw_array("enabled_ns");
    for (int i = 0; i < n; i++)
        jw_element_uint(je->enabled[(size_t)i * (size_t)je->ngroups + (size_t)g]);
    jw_array_end();
    jw_array("running_ns");
    for (int i = 0; i < n; i++)
        jw_element_uint(je->running[(size_t)i * (size_t)je->ngroups + (size_t)g]);
    jw_array_end();
    jw_object_end();
}

static int written;   /* a record of the run carried events */

/* "events", with each sample's own divisor ("iterations": [...]) when `each` is given. */
static void jw_events(const struct job_events *je, const char *per, int n, const struct events_expected *expected,
                      const uint64_t *each)
{
    written = 1;
    jw_object("events");
    jw_str("per", per);
    if (each)
        jw_uint_array("iterations", each, n);
    jw_array("counters");
    for (int e = 0; e < je->n; e++)
        jw_counter(je, e, n, expected);
    jw_array_end();
    jw_object_end();
}

void events_jw_record(const struct job_events *je, const char *per, uint64_t iterations, int n,
                      const struct events_expected *expected)
{
    if (!je || je->n == 0 || n <= 0 || n > je->kept || !per || !iterations)
        return;
    jw_events(je, per, n, expected, NULL);
}

void events_jw_record_each(const struct job_events *je, const char *per, const uint64_t *iterations, int n)
{
    if (!je || je->n == 0 || n <= 0 || n > je->kept || !per || !iterations)
        return;
    for (int i = 0; i < n; i++)
        if (!iterations[i])
            return;
    jw_events(je, per, n, NULL, iterations);
}

/* Once a run: the first caller of each code gets 1. */
static int first_time(int *flag)
{
    return __atomic_exchange_n(flag, 1, __ATOMIC_RELAXED) == 0;
}

static void multiplexed_warning(const struct job_events *je)
{
    static int said;
    int partial = 0, hardware = 0, widest = 0;
    for (size_t k = 0; k < (size_t)je->kept * (size_t)je->ngroups; k++)
        partial |= je->running[k] < je->enabled[k];
    if (!partial || !first_time(&said))
        return;
    for (int e = 0; e < je->n; e++)
        hardware += !events_def(je->def[e])->software;
    for (int g = 0; g < je->ngroups; g++)
        widest = je->group_size[g] > widest ? je->group_size[g] : widest;
    char msg[240];
    snprintf(msg, sizeof msg, "%d counters on %d: the groups took turns; each sample's running share is in "
             "the record (running_ns / enabled_ns), the counts are as counted, not scaled", hardware, widest);
    jw_warning("events-multiplexed", msg, -1);
}

static int said_unwritten;

void events_run_end(const char *kernel, int results)
{
    if (events_on() && results > 0 && !written && first_time(&said_unwritten)) {
        char msg[260];
        snprintf(msg, sizeof msg, "%s writes no counts: its figure is the kernel's and the firmware's work, "
                 "which the measuring thread's counters do not count (docs/events.md); nothing counted is "
                 "stored", kernel);
        jw_warning("events-not-written", msg, -1);
    }
}

void events_job_warnings(const struct job_events *je, const char *per, uint64_t iterations)
{
    static unsigned char said_missing[PROBE_MAX_CPUS];
    if (!je || je->kept == 0)
        return;
    if (je->n && (!per || !iterations) && first_time(&said_unwritten))
        jw_warning("events-not-written", "a result of this kernel does not say how many operations a "
                     "sample holds (iterations) or what one is: its counted events are not written", je->cpu);
    if (je->n)
        multiplexed_warning(je);
    if (je->missing[0] && je->cpu >= 0 && je->cpu < PROBE_MAX_CPUS
        && __atomic_exchange_n(&said_missing[je->cpu], 1, __ATOMIC_RELAXED) == 0) {
        char msg[640];
        snprintf(msg, sizeof msg, "not counted on CPU %d: %s", je->cpu, je->missing);
        jw_warning("events-unavailable", msg, je->cpu);
    }
}

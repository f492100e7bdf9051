/* The events --events names (docs/events.md): perf's own spellings, each one counter or a
 * pair (an access and its refill), mapped to the Arm PMUv3 common event numbers (Arm ARM
 * D17.11 / the PMUv3 "common architectural and microarchitectural events") and to the Linux
 * kernel's generic hardware, cache and software events (linux/perf_event.h) for machines
 * whose PMU is not an Arm core PMU (x86, or an Arm kernel without its PMU's sysfs). Raw
 * events as perf spells them: `armv8_pmuv3/r17/`, `cpu/event=0x24,umask=0x21/`, `r17`. */
#ifndef PLATPERF_EVENT_NAMES_H
#define PLATPERF_EVENT_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define EVENTS_MAX 24          /* counters of one run (an alias such as l2d is two) */
#define EVENT_NAME_LEN 64

/* One counter asked for. */
struct event_def {
    char name[EVENT_NAME_LEN];    /* the metric's stem: "l2d_refill", "page_faults", "armv8_pmuv3_r17" */
    char asked[EVENT_NAME_LEN];   /* the --events item it came from: "l2d" */
    const char *arm;              /* PMUv3 common event ("L2D_CACHE_REFILL"), NULL for none */
    int arm_number;               /* its number (0x17), -1 for none */
    int generic_type;             /* PERF_TYPE_HARDWARE / HW_CACHE / SOFTWARE; -1: no generic event */
    uint64_t generic_config;
    const char *generic;          /* perf's name of that generic event ("L1-dcache-load-misses") */
    char raw[EVENT_NAME_LEN * 2]; /* a raw spelling as typed ("cpu/event=0x24,umask=0x21/"), "" else */
    const char *count_unit;       /* what one count is: cycles, instructions, ns, events */
    int software;                 /* a software event: no counter taken, any machine */
    int needs_kernel;             /* reads 0 when counted in user space only (context switches) */
};

/* --events LIST into the run's list. 0, or -1 with one line in err (an unknown name lists the
 * valid ones; a list of more than EVENTS_MAX counters is refused, never cut short). */
int events_parse(const char *list, char *err, size_t errlen);
/* The run's events: how many, and each (i < events_count()). */
int events_count(void);
struct event_def *events_def(int i);
/* "cycles|instructions|..." : the names --events takes besides raw ones. */
void events_known_names(char *out, size_t outlen);

#endif

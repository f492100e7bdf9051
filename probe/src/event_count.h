#ifndef PLATPERF_EVENT_COUNT_H
#define PLATPERF_EVENT_COUNT_H

#include <stddef.h>

/* The number of hardware events the core PMU of `cpu` counts at once, measured with pinned
 * groups of growing size (event_count.c); -1 with the reason in why when it cannot be
 * measured (no PMU, not allowed). Moves the calling thread to `cpu` and back. */
int events_at_once(int cpu, char *why, size_t whylen);
/* meta.pmu_counters: per distinct core PMU (measured on its first online CPU; one entry
 * without "pmu" where the kernel names none per CPU, x86), {"pmu", "cpu", "at_once"} or
 * {"pmu", "cpu", "why"}. */
void pmu_counters_jw(void);

#endif

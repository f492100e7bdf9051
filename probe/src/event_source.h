/* Where an event is counted: the kernel's event sources in /sys/bus/event_source/devices
 * ($PLATPERF_EVENT_SOURCES instead, for tests), each with its `type` (perf_event_attr.type),
 * `format/` (how a term such as event= or umask= sits in config), `events/` (named events:
 * an Arm core PMU lists only the common events its PMCEID registers say the core implements),
 * `cpus` (the CPUs of a core PMU), `cpumask` (the CPU an uncore PMU counts on: arm_dsu_*,
 * x86 uncore), `associated_cpus` (a DSU's cluster) and `caps/`. */
#ifndef PLATPERF_EVENT_SOURCE_H
#define PLATPERF_EVENT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "event_names.h"

/* An event as perf_event_open takes it on one CPU. */
struct event_attr {
    uint32_t type;
    uint64_t config, config1, config2;
    char pmu[48];       /* the source's name: "armv8_pmuv3_0", "cpu"; "hardware", "hw_cache",
                           "software", "raw" for the kernel's generic types */
    int cpu;            /* -1: counted for the measuring thread; else an uncore PMU's (a DSU's
                           cluster, a memory controller's) counted CPU-wide on this CPU, its
                           `cpumask`'s: what the whole cluster did during the sample */
    char code[128];     /* the event as the record names it: "0x17", "event=0x24,umask=0x21" */
};

/* def on `cpu`: an Arm core PMU of that CPU (a source with `cpus` holding it and
 * events/cpu_cycles) gives the PMUv3 number, if its events/ lists it; else the kernel's
 * generic event; a raw spelling is read against its source's format/ and events/.
 * 0, or -1 with why it cannot be counted on this machine in why. */
int event_resolve(const struct event_def *def, int cpu, struct event_attr *out, char *why, size_t whylen);
/* The event sources' names, "software, msr, tracepoint", for messages. */
void event_sources_list(char *out, size_t outlen);
/* The Arm core PMU of cpu into name ("" if none): what docs/events.md calls the CPU's PMU. */
int event_core_pmu(int cpu, char *name, size_t namelen);

#endif

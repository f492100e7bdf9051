/* The cpuhp tracepoints of one hotplug operation, read from a tracefs instance of the
 * probe's own, and the operation split into the kernel's phases (docs/psci.md). */
#ifndef PLATPERF_CPUHP_TRACE_H
#define PLATPERF_CPUHP_TRACE_H

#include <stddef.h>

#include "sysfs_guard.h"

/*   PH_CPU       the control side's steps that stop/start the CPU (firmware CPU_OFF / CPU_ON
 *                and the CPU's power-down / boot are inside), minus the CPU's own states in them
 *   PH_AP        the CPU's own states (its cpuhp/N thread)
 *   PH_BP        the control side's other steps, minus the CPU's own states in them (for
 *                cpuhp_kick_ap_work: the hand-over to the cpuhp/N thread)
 *   PH_UNTRACED  the rest of the write(): sysfs, device core, locks, scheduling. */
enum phase { PH_CPU, PH_AP, PH_BP, PH_UNTRACED, PH_COUNT };

struct tracer {
    char dir[400];         /* the instance, "" when not tracing */
    char *buf;
};

/* An instance of the probe's own under root's tracefs, its removal recorded with the guard
 * before it exists; -1 with why (one line saying what to do) when there is no tracefs or no
 * cpuhp events. tracer_create() makes it, once the guardian runs (-1 with why). */
int tracer_open(struct tracer *t, const char *root, struct sysfs_guard *g, char *why, size_t whylen);
int tracer_create(struct tracer *t, char *why, size_t whylen);
/* The cpuhp events on, with one clock for every CPU; 0 or an errno value. */
int tracer_enable(struct tracer *t);
/* The instance's buffer emptied, before an operation. */
void tracer_clear(const struct tracer *t);
/* The operation of `total_us` on `cpu` just traced, split into out[] (us). Nested steps of
 * one thread count once (the outermost). Returns 0, -1 without events. */
int tracer_phases(const struct tracer *t, int cpu, double total_us, double out[PH_COUNT]);

#endif

/* The one reader of time: the counter set up once (counter_init), its step, conversions and the
 * core clock. Its reads, and every architecture #if of the probe's timing, are counter_read.h's:
 * x86_64 TSC with fences, aarch64 cntvct_el0 with isb, armv7 the generic timer CNTVCT when user
 * access is allowed (probed under a SIGILL handler), else clock_gettime(CLOCK_MONOTONIC_RAW) in
 * nanoseconds. */
#ifndef PLATPERF_COUNTER_H
#define PLATPERF_COUNTER_H

#include <stdint.h>

#include "counter_read.h"   /* struct counter_info, counter_start/stop/read */

/* Figures within this many steps of zero are quantised: the records say so (resolution_steps). */
#define COUNTER_NEAR_STEPS 4
/* A step this long (ns) or longer cannot resolve an L1 hit: the meta warns. */
#define COUNTER_COARSE_NS 10.0

/* Must run once before any read (selects the armv7 path, finds the frequency, measures the step). */
void counter_init(void);
const struct counter_info *counter_info(void);
/* No hardware counter: the reads are clock_gettime(CLOCK_MONOTONIC_RAW) in ns. */
int counter_is_monotonic(void);

double ticks_to_ns(uint64_t ticks);
/* A duration of `ticks` in counter steps, and the ticks of `steps` steps (rounded up). */
double ticks_to_steps(double ticks);
uint64_t steps_to_ticks(double steps);

/* Core clock from the add chain (timed_loops.h): core cycles per counter tick. */
struct core_clock {
    int valid;
    double hz, cycles_per_tick, error_pct;
};
/* Estimated once, on whichever CPU the calling thread runs (meta.core_clock). */
const struct core_clock *core_clock_estimate(void);
/* The estimate for `cpu`; the caller must be pinned to it (cached per CPU). */
#define COUNTER_MAX_CPUS 1024
const struct core_clock *core_clock_on_cpu(int cpu);

#endif

/* The one reader of time. Every architecture #if of the probe's timing lives in counter.c
 * (and the inline reads below): x86_64 TSC with fences, aarch64 cntvct_el0 with isb,
 * armv7 the generic timer CNTVCT when user access is allowed (probed under a SIGILL
 * handler), else clock_gettime(CLOCK_MONOTONIC_RAW) in nanoseconds. */
#ifndef PLATPERF_COUNTER_H
#define PLATPERF_COUNTER_H

#include <stdint.h>

struct counter_info {
    const char *name;           /* "tsc", "cntvct_el0", "cntvct", "clock_monotonic_raw" */
    double freq_hz;
    const char *freq_source;    /* "cpuid-0x15", "cpuid-0x16", "calibrated", "cntfrq", "nominal" */
    double step_ticks;          /* the effective step: what the counter advances by (>= 1) */
    double resolution_ns;       /* step_ticks in ns (clock_getres for clock_monotonic_raw if coarser) */
    uint64_t read_overhead_ticks;   /* minimum of back-to-back reads */
    uint64_t pair_mode_ticks;   /* most common non-zero difference of back-to-back reads */
    uint64_t pair_min_ticks;    /* smallest non-zero one */
    uint64_t pairs;             /* back-to-back pairs those two come from */
    double read_mean_ns;        /* one read, averaged over a run of reads (finer than a step) */
    uint64_t quantum_ticks;     /* the test switch PLATPERF_COUNTER_QUANTUM, 0 when unset */
    const char *stop_read;      /* how counter_stop reads on x86_64: "rdtscp;lfence", or
                                 * "lfence;rdtsc;lfence" on a CPU without RDTSCP; NULL elsewhere */
};

/* Figures within this many steps of zero are quantised: the records say so (resolution_steps). */
#define COUNTER_NEAR_STEPS 4
/* A step this long (ns) or longer cannot resolve an L1 hit: the meta warns. */
#define COUNTER_COARSE_NS 10.0

/* Must run once before any read (selects the armv7 path, finds the frequency, measures the step). */
void counter_init(void);
const struct counter_info *counter_info(void);
/* No hardware counter: the reads are clock_gettime(CLOCK_MONOTONIC_RAW) in ns. */
int counter_is_monotonic(void);

/* counter_start/counter_stop bracket a timed region: the fences keep earlier and later
 * instructions out of it (x86: lfence;rdtsc / rdtscp;lfence, Arm: isb around the read). */
uint64_t counter_start(void);
uint64_t counter_stop(void);
/* A plain ordered read, for loops that time every pass (latency loops). */
uint64_t counter_read(void);
double ticks_to_ns(uint64_t ticks);
/* A duration of `ticks` in counter steps, and the ticks of `steps` steps (rounded up). */
double ticks_to_steps(double ticks);
uint64_t steps_to_ticks(double steps);
/* counter_init's (counter_step.c): the step in ticks, once the frequency is known; fills the
 * back-to-back figures of `ci` (pairs, read_overhead_ticks, pair_min/mode_ticks, read_mean_ns). */
double counter_measure_step(struct counter_info *ci);

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

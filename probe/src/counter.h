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
    double resolution_ns;
    uint64_t read_overhead_ticks;   /* minimum of back-to-back reads */
    const char *stop_read;      /* how counter_stop reads on x86_64: "rdtscp;lfence", or
                                 * "lfence;rdtsc;lfence" on a CPU without RDTSCP; NULL elsewhere */
};

/* Must run once before any read (selects the armv7 path, finds the frequency). */
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

/* The counter's raw reads (counter_read.c): what counter.h, the step (counter_step.c) and every
 * timed region read, and what the counter is. Below counter.c: nothing here calls it. */
#ifndef PLATPERF_COUNTER_READ_H
#define PLATPERF_COUNTER_READ_H

#include <stdint.h>

struct counter_info {
    const char *name;           /* "tsc", "cntvct_el0", "cntvct", "clock_monotonic_raw" */
    double freq_hz;
    const char *freq_source;    /* "cpuid-0x15", "cpuid-0x16", "calibrated", "cntfrq", "nominal" */
    double step_ticks;          /* the effective step: what the counter advances by (>= 1) */
    double resolution_ns;       /* step_ticks in ns (clock_getres for clock_monotonic_raw if coarser) */
    uint64_t read_overhead_ticks;   /* the floor of back-to-back reads: their minimum over
                                     * overhead_pairs pairs (counter_step.c, read_floor) */
    uint64_t overhead_pairs;
    uint64_t pair_mode_ticks;   /* most common non-zero difference of back-to-back reads */
    uint64_t pair_min_ticks;    /* smallest non-zero one */
    uint64_t pairs;             /* back-to-back pairs those two come from */
    double read_mean_ns;        /* one read, averaged over a run of reads (finer than a step) */
    uint64_t quantum_ticks;     /* the test switch PLATPERF_COUNTER_QUANTUM, 0 when unset */
    const char *stop_read;      /* how counter_stop reads on x86_64: "rdtscp;lfence", or
                                 * "lfence;rdtsc;lfence" on a CPU without RDTSCP; NULL elsewhere */
};

/* Which reads and at what frequency: fills name, freq_hz and freq_source (calibrated against
 * CLOCK_MONOTONIC_RAW when the hardware does not say), stop_read and quantum_ticks. */
void counter_read_init(struct counter_info *ci);

/* counter_start/counter_stop bracket a timed region: the fences keep earlier and later
 * instructions out of it (x86: lfence;rdtsc / rdtscp;lfence, Arm: isb around the read). */
uint64_t counter_start(void);
uint64_t counter_stop(void);
/* A plain ordered read, for loops that time every pass (latency loops). */
uint64_t counter_read(void);

#endif

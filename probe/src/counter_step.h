/* The counter's effective step (counter_step.c), measured once by counter_init with the raw
 * reads (counter_read.h). */
#ifndef PLATPERF_COUNTER_STEP_H
#define PLATPERF_COUNTER_STEP_H

#include "counter_read.h"

/* The step in ticks, once the frequency is known; fills the back-to-back figures of `ci`
 * (pairs, read_overhead_ticks, pair_min/mode_ticks, read_mean_ns). */
double counter_measure_step(struct counter_info *ci);

/* The same over a fake counter `read` (probe-selfcheck): its differences are all the delays
 * there are; ci needs freq_hz. */
double counter_measure_step_with(struct counter_info *ci, uint64_t (*read)(void));

#endif

/* The peak kernels' claim (issue 37, docs/events.md "What each kernel checks"): what a pass of
 * the chosen peak loop over its buffers retires, per counted byte, from the loop's own code. */
#ifndef PLATPERF_BW_CLAIM_H
#define PLATPERF_BW_CLAIM_H

#include <stdint.h>

#include "events.h"

/* Instructions, load and store instructions per counted byte of one pass of the peak loop of
 * `kernel` (0 read, 1 write, 2 copy) over buffers of `size` bytes, `counted` bytes counted per
 * byte of a buffer; each 0 where the loop's code does not give it. */
struct events_expected peak_expected(int kernel, uint64_t size, unsigned counted);

#endif

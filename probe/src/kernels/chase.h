/* Pointer-chase rings for mem-latency (and the self-check that verifies them). */
#ifndef PLATPERF_CHASE_H
#define PLATPERF_CHASE_H

#include <stddef.h>
#include <stdint.h>

enum chase_pattern { CHASE_SEQ, CHASE_RANDOM };

/* Links the elements buf + i*stride (i < bytes/stride) into one cycle and returns the
 * first element. seq: i -> i+1 (a stride ring, as LMBench lat_mem_rd). random: pages
 * in a random order and, within each page, its lines in a random order (TLB-aware as
 * multichase: every line of a page is visited before the next page, so the ring
 * measures the caches, not a TLB miss per load). seed makes it reproducible. */
void **chase_build(void *buf, size_t bytes, size_t stride, size_t page, enum chase_pattern pattern,
                   uint64_t seed);

#endif

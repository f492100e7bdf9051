/* Pointer-chase rings for mem-latency (and the self-check that verifies them). */
#ifndef PLATPERF_CHASE_H
#define PLATPERF_CHASE_H

#include <stddef.h>
#include <stdint.h>

enum chase_pattern { CHASE_SEQ, CHASE_RANDOM };

/* Pages per TLB-locality group of the random pattern: 64 pages (256 KiB with 4 KiB
 * pages) fit the first-level data TLB of the cores targeted, as multichase's default. */
#define CHASE_TLB_PAGES 64

/* Links the elements buf + i*stride (i < bytes/stride) into one cycle and returns the
 * first element. seq: i -> i+1 (a stride ring, as LMBench lat_mem_rd). random: the buffer
 * cut in groups of CHASE_TLB_PAGES pages, the groups in a random order and, within each
 * group, its lines in a random order (TLB-aware as multichase: a group's lines are all
 * visited before the next group, so the ring measures the caches, not a TLB miss per
 * load, while no prefetcher sees a pattern). seed makes it reproducible. */
void **chase_build(void *buf, size_t bytes, size_t stride, size_t page, enum chase_pattern pattern,
                   uint64_t seed);

#endif

/* Aggressors: threads pinned to other CPUs that load the shared cache and memory while a
 * latency loop measures one CPU (the Agilex 5 study's hammer patterns).
 *
 * Over a buffer of 4 x the last-level cache (sets x ways x line x 4), one sweep is:
 *   way_hammer   for each set, one line in each way:  offset = way*way_bytes + set*line,
 *                way in 0..4*ways-1 inner, set outer (way_bytes = sets*line)
 *   set_crawler  the same lines way by way, crossing every set boundary in turn:
 *                set inner, way outer
 *   bw-read      every 64-bit word, in address order
 *   bw-write     every 64-bit word written, in address order
 *   memcpy       the first half of the buffer copied onto the second half
 * Sets, ways and line size come from the detected last-level cache (cache.h) or the
 * kernel's --cache-sets/--cache-ways/--line-size overrides.
 * The set an address maps to is a physical-address property; the buffer is asked for
 * transparent huge pages so that virtual and physical set bits agree within 2 MiB.
 */
#ifndef PLATPERF_AGGRESSORS_H
#define PLATPERF_AGGRESSORS_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

enum aggressor_pattern {
    AGG_NONE,
    AGG_WAY_HAMMER,
    AGG_SET_CRAWLER,
    AGG_BW_READ,
    AGG_BW_WRITE,
    AGG_MEMCPY,
    AGG_PATTERNS
};

struct cache_geometry {
    size_t sets, ways, line;   /* of the last-level cache */
};

/* The names, in enum order, NULL-terminated (a kernel parameter's choices). */
extern const char *const aggressor_patterns[AGG_PATTERNS + 1];
/* -1 for an unknown name. */
int aggressor_pattern_from_name(const char *name);
const char *aggressor_pattern_name(int pattern);

size_t aggressor_buffer_bytes(const struct cache_geometry *g);

/* The byte offsets one sweep touches, in order, for the address patterns (way_hammer,
 * set_crawler: one per line read; bw-read, bw-write, memcpy: one per line, the line's
 * first byte). Writes at most max; returns the sweep's full length. */
size_t aggressor_sequence(int pattern, const struct cache_geometry *g, size_t *out, size_t max);

/* One aggressor thread's state; aggressor_run is its helper_fn (exec.h helper_start):
 * it allocates and touches its own buffer on its CPU, adds 1 to *ready (also on failure,
 * with ok left 0), then sweeps until *stop. */
struct aggressor {
    int pattern;
    struct cache_geometry g;
    int cpu;
    atomic_int *ready;
    int ok;                   /* buffer set up and running on cpu */
    uint64_t sweeps, sink;
};
void aggressor_run(void *arg, volatile int *stop);

#endif

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
 * The set an address maps to is a physical-address property; the buffer is asked for
 * transparent huge pages so that virtual and physical set bits agree within 2 MiB.
 */
#ifndef PLATPERF_AGGRESSORS_H
#define PLATPERF_AGGRESSORS_H

#include <stddef.h>
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

/* -1 for an unknown name. */
int aggressor_pattern_from_name(const char *name);
const char *aggressor_pattern_name(int pattern);
/* "none|way_hammer|..." for error messages. */
const char *aggressor_pattern_choices(void);

/* Fills g from <cpu_dir>/cache/index*, the highest level unified or data cache
 * (cpu_dir e.g. /sys/devices/system/cpu/cpu0). Fields already non-zero are kept, so
 * command-line overrides win. Returns 0 when sets, ways and line are all known. */
int cache_geometry_detect(struct cache_geometry *g, const char *cpu_dir);
size_t aggressor_buffer_bytes(const struct cache_geometry *g);

/* The byte offsets one sweep touches, in order, for the address patterns (way_hammer,
 * set_crawler: one per line read; bw-read, bw-write, memcpy: one per line, the line's
 * first byte). Writes at most max; returns the sweep's full length. */
size_t aggressor_sequence(int pattern, const struct cache_geometry *g, size_t *out, size_t max);

struct aggressors;
/* Starts one pinned thread per CPU, each with its own buffer, and returns once every
 * one has touched its buffer and is about to enter its loop. NULL and a message in err
 * on failure. */
struct aggressors *aggressors_start(int pattern, const struct cache_geometry *g, const int *cpus,
                                    int ncpus, char *err, size_t errlen);
/* Stops and joins them; returns the number of complete sweeps they made. */
uint64_t aggressors_stop(struct aggressors *a);

#endif

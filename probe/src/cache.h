/* Cache geometry of CPU 0 from /sys/devices/system/cpu/cpu0/cache (sizes in bytes). */
#ifndef PLATPERF_CACHE_H
#define PLATPERF_CACHE_H

#include <stdint.h>

struct cache_level {
    int level;              /* 1, 2, 3 */
    char type[64];          /* Data, Instruction, Unified */
    uint64_t size;
    unsigned line_size, ways, sets;
};

#define CACHE_MAX_LEVELS 8
/* Data/unified caches of cpu, smallest level first; returns how many (0 if unknown). */
int cache_levels(int cpu, struct cache_level *out, int max);
/* Size of the last-level data/unified cache of cpu, or `fallback` when sysfs says nothing. */
uint64_t cache_llc_size(int cpu, uint64_t fallback);

#endif

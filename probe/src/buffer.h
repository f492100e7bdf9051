/* Measurement buffers: page-aligned anonymous mappings, counted against --max-memory so a
 * run is refused up front rather than swapped or OOM-killed. */
#ifndef PLATPERF_BUFFER_H
#define PLATPERF_BUFFER_H

#include <stddef.h>
#include <stdint.h>

/* Offset between consecutive buffers of one allocation: a cache line plus a quarter page
 * so that src/dst/... of a copy do not map to the same cache sets nor alias in the low
 * 12 address bits (4K aliasing of loads against stores). A multiple of 64. */
#define BUFFER_SKEW (1024 + 64)

uint64_t mem_available(void);          /* MemAvailable from /proc/meminfo, bytes; 0 unknown */
uint64_t default_memory_cap(void);     /* 50% of MemAvailable */
size_t page_size(void);
/* Bytes a set of n buffers of `bytes` each takes from buffer_alloc (with skews). */
uint64_t buffer_footprint(uint64_t bytes, int n);

/* n buffers of `bytes` each, page-aligned then skewed by i*BUFFER_SKEW, zero-filled and
 * touched by the calling (pinned) thread so pages are local to its node. bufs[i] gets
 * buffer i. Returns the mapping (for buffer_free) or NULL. */
void *buffer_alloc(uint64_t bytes, int n, void **bufs);
void buffer_free(void *mapping, uint64_t bytes, int n);

struct run_ctx;
/* The memory cap, checked the same way for every kernel: `bytes_per_cpu` is what the most
 * demanding point of the run takes on one CPU (buffer_footprint() of its buffers); in
 * parallel mode every CPU of --cpus takes as much at once. `what` names that point
 * ("size 16384"). Returns 1 when it fits under --max-memory, else 0 with one line in err
 * giving the minimum --max-memory and, when the cap was not set, where the default came from. */
int buffer_fits(const struct run_ctx *ctx, const char *what, uint64_t bytes_per_cpu, char *err, size_t errlen);

/* buffer_fits() for the largest of `nsizes` sizes of `nbuf` buffers each: 0 when it fits,
 * -1 (err set) when not. */
int buffer_check_sizes(const struct run_ctx *ctx, const char *kernel, const uint64_t *sizes, int nsizes,
                       int nbuf, char *err, size_t errlen);

/* The older form: `need` already counts every CPU. 0 when it fits, -1 (err set) when not. */
int buffer_check_cap(const struct run_ctx *ctx, const char *kernel, const char *what, uint64_t need,
                     char *err, size_t errlen);

#endif

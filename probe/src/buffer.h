/* Measurement buffers: anonymous mappings, counted against --max-memory so a run is refused
 * up front rather than swapped or OOM-killed, backed by the pages --pages asks for.
 *
 * Why huge pages by default: with 4 KiB pages a buffer's physical pages are random, so
 * which L2/L3 sets a ring below the cache size fills changes from one process to the next
 * (page colouring); a run whose pages crowd some sets measures a slower cache. A huge
 * page is physically contiguous, so a ring inside one maps onto the sets the same way in
 * every run (docs/probe.md "Page backing"). */
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

#define HUGE_PAGE_BYTES (2u << 20)   /* a PMD transparent huge page on x86_64 and 4K-granule arm64 */

/* --pages: auto (the default) and huge ask for transparent huge pages (madvise), 4k asks
 * for none (LMBench's malloc'd buffers, also where THP is "always"). */
enum page_mode { PAGES_AUTO, PAGES_4K, PAGES_HUGE };
extern const char *const page_choices[];   /* "auto", "4k", "huge": indexed by page_mode */
void buffer_set_pages(enum page_mode mode);
enum page_mode buffer_pages(void);
/* 1 when /sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise" */
int thp_offered(void);

/* What backs a set of buffers: they span `bytes` (skews included); huge_bytes of the
 * mapping are huge pages (smaps AnonHugePages), -1 when /proc/self/smaps cannot tell. */
struct page_backing {
    uint64_t bytes;
    int64_t huge_bytes;
};
void buffer_backing(void *mapping, uint64_t bytes, int n, struct page_backing *out);
/* "huge" (all of it), "4k" (none), "mixed", "unknown" */
const char *page_backing_name(const struct page_backing *b);
/* The result field "pages":{"asked":"auto","backing":"huge","bytes":N,"huge_bytes":N} of a
 * struct page_backing, written with the jw_* calls: emit_record_with()'s `more`. */
void jw_page_backing(const void *backing);

/* Bytes a set of n buffers of `bytes` each takes from buffer_alloc (with skews), whole
 * huge pages unless --pages 4k. */
uint64_t buffer_footprint(uint64_t bytes, int n);

/* n buffers of `bytes` each, page-aligned (huge-page-aligned unless --pages 4k) then skewed by i*BUFFER_SKEW, zero-filled and
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

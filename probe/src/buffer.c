#include "buffer.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record.h"
#include "kernel.h"
#include "params.h"

uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (uint64_t)kb * 1024;
}

uint64_t default_memory_cap(void) { return mem_available() / 2; }

size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

const char *const page_choices[] = {"auto", "4k", "huge", NULL};
static enum page_mode pages_asked = PAGES_AUTO;

void buffer_set_pages(enum page_mode mode) { pages_asked = mode; }
enum page_mode buffer_pages(void) { return pages_asked; }

int thp_offered(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char line[128] = "";
    if (!f)
        return 0;
    if (!fgets(line, sizeof line, f))
        line[0] = 0;
    fclose(f);
    return line[0] && !strstr(line, "[never]");
}

/* auto and huge ask for transparent huge pages; the mapping is then whole, aligned huge
 * pages so that the kernel can back it with them (a huge page never straddles a VMA edge) */
static uint64_t mapping_align(void) { return pages_asked == PAGES_4K ? page_size() : HUGE_PAGE_BYTES; }

/* Buffer i starts at i * round_up(bytes, page) + i * BUFFER_SKEW: the bytes the buffers span. */
static uint64_t buffers_span(uint64_t bytes, int n)
{
    return round_up(round_up(bytes, page_size()) * (uint64_t)n + (uint64_t)n * BUFFER_SKEW, page_size());
}

uint64_t buffer_footprint(uint64_t bytes, int n) { return round_up(buffers_span(bytes, n), mapping_align()); }

void *buffer_alloc(uint64_t bytes, int n, void **bufs)
{
    uint64_t stride = round_up(bytes, page_size());
    uint64_t len = buffer_footprint(bytes, n), align = mapping_align();
    /* over-map by one alignment unit, then trim both ends to an aligned window */
    uint64_t over = len + (align > page_size() ? align : 0);
    char *raw = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *m = (char *)(uintptr_t)round_up((uint64_t)(uintptr_t)raw, align);
    if (m > raw)
        munmap(raw, (size_t)(m - raw));
    if (raw + over > m + len)
        munmap(m + len, (size_t)(raw + over - (m + len)));
#ifdef MADV_HUGEPAGE
    /* THP "madvise" (many distributions, this VM) backs the mapping with huge pages only
     * when asked; "always" does it unasked, so 4k says no explicitly (LMBench's malloc'd
     * buffers). Refused (THP off, old kernel, qemu-user): the pages stay 4 KiB, and
     * buffer_backing() reports what was got. */
    madvise(m, len, pages_asked == PAGES_4K ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
#endif
    for (int i = 0; i < n; i++) {
        bufs[i] = m + stride * (uint64_t)i + (uint64_t)i * BUFFER_SKEW;
        /* first touch from the pinned thread: pages come from its node, and no page
         * fault lands inside a timed sample */
        memset(bufs[i], 0, bytes);
    }
    return m;
}

void buffer_free(void *mapping, uint64_t bytes, int n)
{
    if (mapping)
        munmap(mapping, buffer_footprint(bytes, n));
}

void buffer_backing(void *mapping, uint64_t bytes, int n, struct page_backing *out)
{
    out->bytes = buffers_span(bytes, n);
    out->huge_bytes = -1;
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return;
    char line[256];
    int inside = 0;
    uint64_t start = (uint64_t)(uintptr_t)mapping;
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo, hi, kb;
        char dash;
        if (sscanf(line, "%llx%c%llx ", &lo, &dash, &hi) == 3 && dash == '-') {
            if (inside)
                break;
            /* the mapping may have merged with a neighbour that has the same flags (another
             * CPU's buffers in parallel mode): its huge pages are capped below */
            inside = lo <= start && start < hi;
        } else if (inside && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
            out->huge_bytes = (int64_t)kb * 1024;
            if ((uint64_t)out->huge_bytes > round_up(out->bytes, HUGE_PAGE_BYTES))
                out->huge_bytes = (int64_t)round_up(out->bytes, HUGE_PAGE_BYTES);   /* a merged neighbour's */
            break;
        }
    }
    fclose(f);
}

const char *page_backing_name(const struct page_backing *b)
{
    if (b->huge_bytes < 0)
        return "unknown";
    if (b->huge_bytes == 0)
        return "4k";
    /* the span's last, partly used huge page may stay 4 KiB: it holds at most a skew and
     * the tail of the last buffer, so whole huge pages over the rest count as "huge" */
    return (uint64_t)b->huge_bytes >= b->bytes / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES ? "huge" : "mixed";
}

void jw_page_backing(const void *backing)
{
    const struct page_backing *b = backing;
    jw_object("pages");
    jw_str("asked", page_choices[pages_asked]);
    jw_str("backing", page_backing_name(b));
    jw_uint("bytes", b->bytes);
    if (b->huge_bytes >= 0)
        jw_uint("huge_bytes", (uint64_t)b->huge_bytes);
    jw_object_end();
}

static int cap_message(const struct run_ctx *ctx, const char *kernel, const char *what, uint64_t need,
                       char *err, size_t errlen)
{
    if (need <= ctx->max_memory)
        return 1;
    char need_text[32], cap_text[32], avail_text[32];
    format_size(need, need_text, sizeof need_text);
    format_size(ctx->max_memory, cap_text, sizeof cap_text);
    if (ctx->max_memory_arg) {
        snprintf(err, errlen, "%s: --max-memory '%s' (%s) is too small: %s needs %s; valid: at least %s",
                 kernel, ctx->max_memory_arg, cap_text, what, need_text, need_text);
    } else {
        format_size(mem_available(), avail_text, sizeof avail_text);
        snprintf(err, errlen, "%s: %s needs %s, over the memory cap of %s (the default: 50%% of "
                 "MemAvailable, %s); set --max-memory to at least %s if the machine can take it",
                 kernel, what, need_text, cap_text, avail_text, need_text);
    }
    return 0;
}

int buffer_fits(const struct run_ctx *ctx, const char *what, uint64_t bytes_per_cpu, char *err, size_t errlen)
{
    int parallel = ctx->mode == MODE_PARALLEL;
    char text[160];
    /* more than the size asked: buffers are whole pages, each skewed (BUFFER_SKEW), and in
     * parallel mode every CPU has its own */
    snprintf(text, sizeof text, "%s%s", what, parallel ? " on every CPU at once" : "");
    return cap_message(ctx, ctx->kernel->name, text, bytes_per_cpu * (parallel ? (uint64_t)ctx->ncpus : 1),
                       err, errlen);
}

int buffer_check_sizes(const struct run_ctx *ctx, const char *kernel, const uint64_t *sizes, int nsizes,
                       int nbuf, char *err, size_t errlen)
{
    (void)kernel;
    uint64_t most = 0, most_size = 0;
    for (int i = 0; i < nsizes; i++) {
        uint64_t bytes = buffer_footprint(sizes[i], nbuf);
        if (bytes > most || (bytes == most && sizes[i] > most_size)) {   /* whole huge pages: sizes tie */
            most = bytes;
            most_size = sizes[i];
        }
    }
    char what[64];
    snprintf(what, sizeof what, "size %llu", (unsigned long long)most_size);
    return buffer_fits(ctx, what, most, err, errlen) ? 0 : -1;
}

int buffer_check_cap(const struct run_ctx *ctx, const char *kernel, const char *what, uint64_t need,
                     char *err, size_t errlen)
{
    return cap_message(ctx, kernel, what, need, err, errlen) ? 0 : -1;
}

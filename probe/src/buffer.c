#include "buffer.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* Buffer i starts at i * round_up(bytes, page) + i * BUFFER_SKEW. */
uint64_t buffer_footprint(uint64_t bytes, int n)
{
    return round_up(round_up(bytes, page_size()) * (uint64_t)n + (uint64_t)n * BUFFER_SKEW, page_size());
}

void *buffer_alloc(uint64_t bytes, int n, void **bufs)
{
    uint64_t stride = round_up(bytes, page_size());
    void *m = mmap(NULL, buffer_footprint(bytes, n), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    for (int i = 0; i < n; i++) {
        bufs[i] = (char *)m + stride * (uint64_t)i + (uint64_t)i * BUFFER_SKEW;
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
        if (bytes > most) {
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

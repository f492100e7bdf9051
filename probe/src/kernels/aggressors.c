/* See aggressors.h for the patterns' definitions. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sched_getcpu */
#endif
#include "aggressors.h"

#include <sched.h>
#include <string.h>
#include <sys/mman.h>

const char *const aggressor_patterns[AGG_PATTERNS + 1] = {
    "none", "way_hammer", "set_crawler", "bw-read", "bw-write", "memcpy", NULL,
};

int aggressor_pattern_from_name(const char *name)
{
    for (int p = 0; p < AGG_PATTERNS; p++)
        if (strcmp(name, aggressor_patterns[p]) == 0)
            return p;
    return -1;
}

const char *aggressor_pattern_name(int pattern)
{
    return pattern >= 0 && pattern < AGG_PATTERNS ? aggressor_patterns[pattern] : "?";
}

size_t aggressor_buffer_bytes(const struct cache_geometry *g)
{
    return 4 * g->sets * g->ways * g->line;
}

/* One sweep. Without buf it only lists the offsets it would touch (at most max into out),
 * so the tests check the very loops the threads run. Returns the offsets in a sweep. */
static size_t sweep(int pattern, const struct cache_geometry *g, unsigned char *buf, size_t *out,
                    size_t max, uint64_t *sink)
{
    const size_t way_bytes = g->sets * g->line, lines = 4 * g->ways, bytes = aggressor_buffer_bytes(g);
    size_t n = 0;
    uint64_t acc = 0;
    switch (pattern) {
    case AGG_WAY_HAMMER:
        for (size_t set = 0; set < g->sets; set++)
            for (size_t way = 0; way < lines; way++, n++) {
                size_t off = way * way_bytes + set * g->line;
                if (!buf) {
                    if (n < max)
                        out[n] = off;
                } else {
                    acc += *(volatile uint64_t *)(buf + off);
                }
            }
        break;
    case AGG_SET_CRAWLER:
        for (size_t way = 0; way < lines; way++)
            for (size_t set = 0; set < g->sets; set++, n++) {
                size_t off = way * way_bytes + set * g->line;
                if (!buf) {
                    if (n < max)
                        out[n] = off;
                } else {
                    acc += *(volatile uint64_t *)(buf + off);
                }
            }
        break;
    case AGG_BW_READ:
    case AGG_BW_WRITE:
    case AGG_MEMCPY: {
        size_t end = pattern == AGG_MEMCPY ? bytes / 2 : bytes;
        if (!buf) {
            for (size_t off = 0; off < end; off += g->line, n++)
                if (n < max)
                    out[n] = off;
            break;
        }
        n = end / g->line;
        uint64_t *w = (uint64_t *)buf;
        if (pattern == AGG_BW_READ)
            for (size_t i = 0; i < end / 8; i++)
                acc += w[i];
        else if (pattern == AGG_BW_WRITE)
            for (size_t i = 0; i < end / 8; i++)
                w[i] = i;
        else
            memcpy(buf + end, buf, end);
        /* keeps the compiler from dropping the stores as dead */
        __asm__ volatile("" : : "r"(buf) : "memory");
        break;
    }
    default:
        break;
    }
    if (sink)
        *sink += acc;
    return n;
}

size_t aggressor_sequence(int pattern, const struct cache_geometry *g, size_t *out, size_t max)
{
    return sweep(pattern, g, NULL, out, max, NULL);
}

void aggressor_run(void *arg, volatile int *stop)
{
    struct aggressor *a = arg;
    size_t bytes = aggressor_buffer_bytes(&a->g);
    unsigned char *buf = NULL;
    a->ok = sched_getcpu() == a->cpu;
    /* allocated and touched on its own CPU: first touch puts the pages on its node */
    if (a->ok && a->pattern != AGG_NONE) {
        void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            a->ok = 0;
        } else {
            madvise(m, bytes, MADV_HUGEPAGE);
            memset(m, 1, bytes);
            buf = m;
        }
    }
    atomic_fetch_add(a->ready, 1);
    if (buf)
        while (!*stop) {
            sweep(a->pattern, &a->g, buf, NULL, 0, &a->sink);
            a->sweeps++;
        }
    if (buf)
        munmap(buf, bytes);
}

#include "chase.h"

#include <stdlib.h>

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void shuffle(size_t *v, size_t n, uint64_t *seed)
{
    for (size_t i = n; i > 1; i--) {   /* Fisher-Yates */
        size_t j = (size_t)(xorshift(seed) % i);
        size_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

void **chase_build(void *buf, size_t bytes, size_t stride, size_t page, enum chase_pattern pattern,
                   uint64_t seed)
{
    size_t n = bytes / stride;
    if (n == 0)
        return NULL;
    size_t *order = malloc(n * sizeof *order);
    if (!order)
        return NULL;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    if (pattern == CHASE_RANDOM) {
        /* shuffle groups of CHASE_TLB_PAGES pages, not single pages: within one page the
         * lines would be visited back to back and a spatial (region) prefetcher would
         * fetch the page's other lines ahead of the chase */
        size_t group = page * CHASE_TLB_PAGES;
        size_t per_page = stride < group ? group / stride : 1;
        size_t pages = (n + per_page - 1) / per_page;
        size_t *page_order = malloc(pages * sizeof *page_order);
        if (!page_order) {
            free(order);
            return NULL;
        }
        uint64_t s = seed ? seed : 0x9e3779b97f4a7c15ull;
        for (size_t p = 0; p < pages; p++)
            page_order[p] = p;
        shuffle(page_order, pages, &s);
        size_t k = 0;
        size_t *lines = malloc(per_page * sizeof *lines);
        for (size_t p = 0; p < pages; p++) {
            size_t first = page_order[p] * per_page, count = 0;
            for (size_t l = 0; l < per_page && first + l < n; l++)
                lines[count++] = first + l;
            shuffle(lines, count, &s);
            for (size_t l = 0; l < count; l++)
                order[k++] = lines[l];
        }
        free(lines);
        free(page_order);
    }
    char *base = buf;
    for (size_t i = 0; i < n; i++)
        *(void **)(base + order[i] * stride) = base + order[(i + 1) % n] * stride;
    void **first = (void **)(base + order[0] * stride);
    free(order);
    return first;
}

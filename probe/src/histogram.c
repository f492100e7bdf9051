/* See histogram.h for the bucket scheme. */
#include "histogram.h"

#include <string.h>

static unsigned msb64(uint64_t v)
{
    return 63u - (unsigned)__builtin_clzll(v);
}

unsigned hist_bucket(uint64_t value)
{
    if (value < HIST_EXACT)
        return (unsigned)value;
    unsigned shift = msb64(value) - HIST_SUB_BITS;
    return shift * HIST_SUB + (unsigned)(value >> shift);
}

uint64_t hist_bucket_lower(unsigned bucket)
{
    if (bucket < HIST_EXACT)
        return bucket;
    unsigned shift = bucket / HIST_SUB - 1;
    return (uint64_t)(bucket - shift * HIST_SUB) << shift;
}

uint64_t hist_bucket_upper(unsigned bucket)
{
    if (bucket + 1 >= HIST_BUCKETS)
        return UINT64_MAX;
    return hist_bucket_lower(bucket + 1);
}

void hist_init(struct histogram *h, uint64_t *raw, size_t raw_cap)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
    h->threshold = UINT64_MAX;
    h->raw = raw;
    h->raw_cap = raw ? raw_cap : 0;
}

static void top_sift_down(struct hist_top *top, unsigned n, unsigned i)
{
    for (;;) {
        unsigned l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && top[l].value < top[m].value)
            m = l;
        if (r < n && top[r].value < top[m].value)
            m = r;
        if (m == i)
            return;
        struct hist_top tmp = top[i];
        top[i] = top[m];
        top[m] = tmp;
        i = m;
    }
}

static void top_offer(struct histogram *h, uint64_t value, uint64_t t)
{
    if (h->ntop < HIST_TOP) {
        unsigned i = h->ntop++;
        h->top[i] = (struct hist_top){value, t};
        while (i > 0) {                       /* sift up */
            unsigned p = (i - 1) / 2;
            if (h->top[p].value <= h->top[i].value)
                break;
            struct hist_top tmp = h->top[p];
            h->top[p] = h->top[i];
            h->top[i] = tmp;
            i = p;
        }
    } else if (value > h->top[0].value) {
        h->top[0] = (struct hist_top){value, t};
        top_sift_down(h->top, HIST_TOP, 0);
    }
}

void hist_record(struct histogram *h, uint64_t value, uint64_t t)
{
    h->counts[hist_bucket(value)]++;
    h->count++;
    h->sum += value;
    if (value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
    if (value > h->threshold)
        h->over++;
    top_offer(h, value, t);
    if (h->raw) {
        h->raw_seen++;
        if (h->raw_n < h->raw_cap)
            h->raw[h->raw_n++] = value;
    }
}

void hist_add_exact(struct histogram *h, const uint64_t exact[HIST_EXACT])
{
    for (uint64_t v = 0; v < HIST_EXACT; v++) {
        uint64_t n = exact[v];
        if (!n)
            continue;
        h->counts[v] += n;
        h->count += n;
        h->sum += v * n;
        if (v < h->min)
            h->min = v;
        if (v > h->max)
            h->max = v;
        if (v > h->threshold)
            h->over += n;
    }
}

void hist_merge(struct histogram *into, const struct histogram *from)
{
    for (unsigned b = 0; b < HIST_BUCKETS; b++)
        into->counts[b] += from->counts[b];
    into->count += from->count;
    into->sum += from->sum;
    if (from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
    into->over += from->over;
    for (unsigned i = 0; i < from->ntop; i++)
        top_offer(into, from->top[i].value, from->top[i].t);
}

uint64_t hist_quantile(const struct histogram *h, double q)
{
    if (h->count == 0)
        return 0;
    /* rank of the q-quantile, 1-based, rounded up: the smallest value with at least
     * q * count values at or below it */
    double want = q * (double)h->count;
    uint64_t rank = (uint64_t)want;
    if ((double)rank < want)
        rank++;
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        seen += h->counts[b];
        if (seen >= rank) {
            uint64_t v = b < HIST_EXACT ? b : hist_bucket_upper(b) - 1;
            if (v > h->max)
                v = h->max;
            if (v < h->min)
                v = h->min;
            return v;
        }
    }
    return h->max;
}

unsigned hist_top_sorted(const struct histogram *h, struct hist_top out[HIST_TOP])
{
    unsigned n = h->ntop;
    memcpy(out, h->top, n * sizeof out[0]);
    for (unsigned i = 1; i < n; i++) {         /* insertion sort, largest first */
        struct hist_top x = out[i];
        unsigned j = i;
        while (j > 0 && out[j - 1].value < x.value) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = x;
    }
    return n;
}

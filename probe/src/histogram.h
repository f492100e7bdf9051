/* Log-linear (HDR-style) histogram of counter-tick deltas, for the latency loops.
 *
 * Bucket scheme (docs/results-format.md, `histogram`): a value v in ticks falls in
 *   - bucket v itself when v < HIST_EXACT (256): one tick wide, exact;
 *   - otherwise, with msb = floor(log2 v) and shift = msb - HIST_SUB_BITS,
 *     bucket shift * HIST_SUB + (v >> shift), which is 2^shift ticks wide and starts at
 *     (v >> shift) << shift >= HIST_SUB << shift, so its width is at most 1/128 (0.78 %)
 *     of any value in it.
 * min, max, count and sum are kept exactly beside the buckets; the HIST_TOP largest
 * values are kept with the tick at which they ended; the first raw_cap values can be
 * kept verbatim in a buffer the caller bounds.
 */
#ifndef PLATPERF_HISTOGRAM_H
#define PLATPERF_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_EXACT (2u * HIST_SUB)
#define HIST_BUCKETS ((64u - HIST_SUB_BITS + 1u) * HIST_SUB)
#define HIST_TOP 16

struct hist_top {
    uint64_t value;   /* ticks */
    uint64_t t;       /* counter value at the end of that pass */
};

struct histogram {
    uint64_t counts[HIST_BUCKETS];
    uint64_t count, sum, min, max;
    uint64_t threshold, over;        /* over counts values > threshold (UINT64_MAX: none) */
    struct hist_top top[HIST_TOP];   /* a min-heap on value: top[0] is the smallest kept */
    unsigned ntop;
    uint64_t *raw;                   /* caller-owned, raw_cap entries; NULL for none */
    size_t raw_cap, raw_n;
    uint64_t raw_seen;               /* values offered while raw was set */
};

/* raw may be NULL (raw_cap 0). */
void hist_init(struct histogram *h, uint64_t *raw, size_t raw_cap);
void hist_record(struct histogram *h, uint64_t value, uint64_t t);
/* Adds exact[v] passes of v ticks for every v < HIST_EXACT: the latency loops' fast path
 * counts short passes in such an array and folds it in once at the end. */
void hist_add_exact(struct histogram *h, const uint64_t exact[HIST_EXACT]);
/* into += from (counts, min, max, count, sum, top; raw samples are not merged). */
void hist_merge(struct histogram *into, const struct histogram *from);

unsigned hist_bucket(uint64_t value);
uint64_t hist_bucket_lower(unsigned bucket);
uint64_t hist_bucket_upper(unsigned bucket);   /* exclusive; UINT64_MAX for the last */
/* The value below which a fraction q (0..1] of the recorded values lie: the upper edge
 * of the bucket holding that rank, capped at max (exact); a one-tick bucket gives its
 * value. 0 when empty. */
uint64_t hist_quantile(const struct histogram *h, double q);
/* The kept top values, largest first; returns how many were written (<= HIST_TOP). */
unsigned hist_top_sorted(const struct histogram *h, struct hist_top out[HIST_TOP]);

#endif

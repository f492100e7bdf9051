/* The latency loop's contract between kernels/latency_loop.c and the per-architecture
 * loops in arch/<arch>/latency_loop.S (included from both; offsets are checked in C).
 *
 * Each pass reads the counter exactly as counter_read() does (x86_64 lfence;rdtsc,
 * aarch64 isb;mrs cntvct_el0, armv7 isb;mrrc CNTVCT) and takes the delta to the previous
 * read. The histogram update path, the only memory the loop body touches:
 *   delta <  fast_limit  ->  exact[delta] += 1        (one 64-bit load + store, or inc)
 *   delta >= fast_limit  ->  ctx->delta, ctx->now stored, call ctx->slow(ctx) (C: the full
 *                            histogram, top excursions, raw samples), then fast_limit and
 *                            end reloaded and the counter read again, so the bookkeeping
 *                            is not charged to the next pass.
 * The loop stops at the first read >= end. Variants add work between the reads:
 *   plain  nothing;  2ki  2048 dependent add instructions;  2kl  an inner loop of 2048
 *   increments (compare and branch each time).
 * Symbols per variant: latency_loop_<v> (entry), latency_loop_<v>_loop (head, .p2align 6),
 * latency_loop_<v>_done (first instruction after the loop), checked by tests/probe.
 */
#ifndef PLATPERF_LATENCY_LOOP_H
#define PLATPERF_LATENCY_LOOP_H

#define LL_EXACT 0        /* uint64_t *exact: HIST_EXACT counters */
#define LL_FAST_LIMIT 8   /* uint64_t: deltas below it take the fast path (<= HIST_EXACT) */
#define LL_END 16         /* uint64_t: counter value to stop at; slow() sets 0 to stop now */
#define LL_SLOW 24        /* void (*)(struct latency_loop_ctx *) */
#define LL_DELTA 32       /* uint64_t: for slow(): the pass in ticks */
#define LL_NOW 40         /* uint64_t: for slow(): the counter at its end */
#define LL_FIRST 48       /* uint64_t: written by the loop: first read */
#define LL_LAST 56        /* uint64_t: written by the loop: last read */
#define LL_INNER 2048     /* adds (2ki) or increments (2kl) per pass */

#ifndef __ASSEMBLER__
#include <stdint.h>

struct latency_loop_ctx {
    uint64_t *exact;
    uint64_t fast_limit;
    uint64_t end;
    void (*slow)(struct latency_loop_ctx *ctx);
    uint64_t delta, now, first, last;
    /* on armv7 the 32-bit pointers are followed by padding: every uint64_t is 8-aligned */
};

void latency_loop_plain(struct latency_loop_ctx *ctx);
void latency_loop_2ki(struct latency_loop_ctx *ctx);
void latency_loop_2kl(struct latency_loop_ctx *ctx);
#endif

#endif

/* The counter's effective step (counter_step.h), measured once by counter_init: back-to-back
 * reads, and pairs of reads with delays between them when the reads are slower than the step.
 * Only the raw reads are called (counter_read.h), never counter.c; probe-selfcheck runs the
 * same code over fake counters (counter_measure_step_with). */
#include "counter_step.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "platperf_instr.h"   /* pp_instr_monotonic_ns */

/* --- the effective step --------------------------------------------------------------------
 * A counter need not advance one tick at a time: a hypervisor's TSC may move in steps of ~25
 * ticks (10 ns), an Arm generic timer at 50 MHz in 20 ns ones. Nothing shorter than the step can
 * be told apart, so figures near it are quantised and samples must be long in steps, not ticks. */
#define STEP_BINS 16384             /* differences counted exactly, in ticks */
#define STEP_PAIRS 65536            /* back-to-back pairs of reads, at most */
#define STEP_BUDGET_NS 20000000u    /* and at most 20 ms of them */
#define STEP_DELAYED_NS 100000000u  /* pairs with delays: at most 100 ms */
static uint32_t step_hist[STEP_BINS];
/* differences past the bins (a counter stepping in microseconds or more): how many, and the
 * first STEP_FAR_KEPT of them */
#define STEP_FAR_KEPT 4096
static uint64_t step_far, step_far_kept[STEP_FAR_KEPT];

/* The read the step and the overhead are measured with: a fake counter's (probe-selfcheck), else
 * the latency loop's own read inline (platperf_instr.h: x86_64 lfence;rdtsc, aarch64
 * isb;mrs cntvct_el0, armv7 isb;mrrc CNTVCT), so that the read overhead and the loop's passes
 * are the same instructions, with no call between two reads; counter_read() where the loop
 * reads that too (the test switch's quantised reads, clock_gettime, the fallback build). */
static uint64_t (*fake_read)(void);
static int inline_reads;

static inline uint64_t step_read(void)
{
    if (fake_read)
        return fake_read();
#if defined(__x86_64__) || defined(__aarch64__) || defined(__arm__)
    if (inline_reads)
        return pp_instr_counter_read();
#endif
    return counter_read();
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* k one-cycle iterations (a dependent add and a branch): the delay between the reads of a pair. */
static void spin(uint64_t k)
{
    for (uint64_t j = 0; j < k; j++)
        __asm__ volatile("" : "+r"(j));
}

/* Differences of pairs of reads into step_hist: back-to-back (max_delay 0) or with a
 * pseudo-random delay of up to max_delay iterations between the reads; `pairs` of them or
 * as many as budget_ns allows. Returns the pairs. */
static uint64_t count_pairs(uint64_t max_delay, uint64_t pairs, uint64_t budget_ns, uint64_t *min_out)
{
    memset(step_hist, 0, sizeof step_hist);
    step_far = 0;
    uint64_t n = 0, best = UINT64_MAX, n0 = pp_instr_monotonic_ns();
    for (; n < pairs; n++) {
        if ((n & 255) == 255 && pp_instr_monotonic_ns() - n0 > budget_ns)
            break;
        uint64_t k = max_delay ? (n * 2654435761u) % max_delay : 0;
        uint64_t a = step_read();
        if (!fake_read)         /* a fake counter's time does not pass with the delay */
            spin(k);
        uint64_t d = step_read() - a;
        if (d < best)
            best = d;
        if (d < STEP_BINS) {
            step_hist[d]++;
        } else if (step_far < STEP_FAR_KEPT) {
            step_far_kept[step_far++] = d;
        }
    }
    *min_out = best;
    return n;
}

/* The read overhead is the floor of back-to-back reads, and a minimum falls the more pairs are
 * read: now and then a pair is faster than all the others (on a Xeon, 65,536 pairs gave 36
 * ticks where the latency loop's hundreds of millions of passes later found 32). So pairs go on
 * in batches, each as long as all before it, until one finds nothing lower: at most
 * FLOOR_PAIRS pairs or FLOOR_BUDGET_NS. A latency loop's pass is this read and its bookkeeping,
 * never shorter than the floor. Returns the floor; *pairs_done counts every pair. */
#define FLOOR_PAIRS (1u << 22)
#define FLOOR_BUDGET_NS 50000000u
static uint64_t read_floor(uint64_t best, uint64_t *pairs_done)
{
    uint64_t n0 = pp_instr_monotonic_ns(), done = *pairs_done;
    int lowered = 1, in_budget = 1;
    while (lowered && in_budget && done && done < FLOOR_PAIRS) {
        uint64_t lower = best, i = 0, batch = done;
        for (; i < batch; i++) {
            if ((i & 255) == 255 && pp_instr_monotonic_ns() - n0 > FLOOR_BUDGET_NS) {
                in_budget = 0;
                break;
            }
            uint64_t a = step_read();
            uint64_t d = step_read() - a;
            lower = d < lower ? d : lower;
        }
        done += i;
        lowered = lower < best;
        best = lower;
    }
    *pairs_done = done;
    return best;
}

/* Back-to-back reads: their minimum (the read overhead), the smallest and the most common
 * non-zero difference, and one read's mean cost over a run of 4096 (fastest of 3 runs).
 * Returns the mean non-zero difference when at least half the pairs read the same value
 * (the reads are faster than the step, so a non-zero difference is one step: 56 or 64 for a
 * 62.5-tick step read as multiples of 8), else 0. */
static double measure_pairs(struct counter_info *ci)
{
    ci->pairs = count_pairs(0, STEP_PAIRS, STEP_BUDGET_NS, &ci->read_overhead_ticks);
    ci->overhead_pairs = ci->pairs;
    ci->read_overhead_ticks = read_floor(ci->read_overhead_ticks, &ci->overhead_pairs);
    uint64_t near = 0;
    for (uint64_t d = 1; d < STEP_BINS; d++) {
        near += step_hist[d];
        if (!step_hist[d])
            continue;
        if (!ci->pair_min_ticks)
            ci->pair_min_ticks = d;
        if (!ci->pair_mode_ticks || step_hist[d] > step_hist[ci->pair_mode_ticks])
            ci->pair_mode_ticks = d;
    }
    uint64_t best = UINT64_MAX;
    for (int r = 0; r < 3; r++) {
        uint64_t t0 = step_read();
        for (int i = 0; i < 4096; i++)
            (void)step_read();
        uint64_t t = step_read() - t0;
        best = t < best ? t : best;
    }
    ci->read_mean_ns = (double)best * 1e9 / ci->freq_hz / 4097.0;   /* ticks_to_ns(best) / 4097 */
    int fast = 2 * (double)step_hist[0] >= (double)ci->pairs;
    if (step_far > near) {      /* the differences are mostly past the bins: a very coarse counter */
        uint64_t least = UINT64_MAX;
        for (uint64_t i = 0; i < step_far; i++)
            least = step_far_kept[i] < least ? step_far_kept[i] : least;
        double sum = 0, n = 0;
        for (uint64_t i = 0; i < step_far; i++)
            if (2 * step_far_kept[i] <= 3 * least) {
                sum += (double)step_far_kept[i];
                n++;
            }
        ci->pair_min_ticks = ci->pair_mode_ticks = least;
        return fast ? sum / n : 0;
    }
    /* the mean of the non-zero differences up to 1.5 x the most common: a longer one spanned
     * an interrupt or two steps */
    double sum = 0, changed = 0;
    for (uint64_t d = 1; d < STEP_BINS && 2 * d <= 3 * ci->pair_mode_ticks; d++) {
        sum += (double)d * step_hist[d];
        changed += step_hist[d];
    }
    return fast && changed > 0 ? sum / changed : 0;
}

/* Runs of neighbouring differences that at least `enough` pairs gave (step_hist). */
#define STEP_RUNS 512
struct step_runs {
    double centre[STEP_RUNS], weight[STEP_RUNS];
    int n, too_many;
    uint64_t populated, first, last;   /* values given, the first and last of them */
};

static void find_runs(struct step_runs *r, uint64_t enough)
{
    memset(r, 0, sizeof *r);
    for (uint64_t v = 1; v < STEP_BINS;) {
        if (step_hist[v] < enough) {
            v++;
            continue;
        }
        double sum = 0, w = 0;
        r->first = r->first ? r->first : v;
        for (; v < STEP_BINS && step_hist[v] >= enough; v++) {
            sum += (double)v * step_hist[v];
            w += step_hist[v];
            r->populated++;
            r->last = v;
        }
        if (r->n == STEP_RUNS) {
            r->too_many = 1;
            continue;
        }
        r->centre[r->n] = sum / w;
        r->weight[r->n++] = w;
    }
}

/* The distances between neighbouring runs, sorted, into gap[r->n - 1]. */
static void run_gaps(const struct step_runs *r, double *gap)
{
    for (int i = 1; i < r->n; i++)
        gap[i - 1] = r->centre[i] - r->centre[i - 1];
    qsort(gap, (size_t)(r->n - 1), sizeof gap[0], cmp_double);
}

/* Runs closer than `close` are one step read two ways: merged, weighted by their pairs. */
static void merge_runs(struct step_runs *r, double close)
{
    int kept = 0;
    for (int i = 0; i < r->n; i++) {
        if (kept && r->centre[i] - r->centre[kept - 1] <= close) {
            double w = r->weight[kept - 1] + r->weight[i];
            r->centre[kept - 1] = (r->centre[kept - 1] * r->weight[kept - 1] + r->centre[i] * r->weight[i]) / w;
            r->weight[kept - 1] = w;
        } else {
            r->centre[kept] = r->centre[i];
            r->weight[kept++] = r->weight[i];
        }
    }
    r->n = kept;
}

/* An integer step of g >= 2 ticks (a TSC that moves 2 ticks at a time, a hypervisor's 26): at
 * least 99% of the delayed pairs' differences are multiples of g, and at least 9 in 10 of the
 * multiples of g between the first and last value read were read (by `enough` pairs each).
 * The largest such g, else 0. Share and fill are counts over many pairs, so an odd difference
 * now and then (an interrupt, 2 in 2,000,000) cannot change g, and a 2-tick TSC reads 2 on
 * every start: with the fine-counter rule alone (the even values fill half the span, one
 * value short of "most"), one even value more or less read by 3 pairs made it 1 or 2. A
 * fractional step read as multiples of 8 (24.45: 48, 56, 72, 80, ...) leaves every third
 * multiple empty: not a lattice. */
static uint64_t lattice_step(uint64_t enough, uint64_t first, uint64_t last)
{
    uint64_t total = 0, best = 0;
    for (uint64_t v = 0; v < STEP_BINS; v++)
        total += step_hist[v];
    for (uint64_t g = 2; total && g <= last; g++) {
        uint64_t on = 0, cells = 0, filled = 0;
        for (uint64_t v = 0; v < STEP_BINS; v += g)
            on += step_hist[v];
        if (100 * on < 99 * total)
            continue;
        for (uint64_t v = (first + g - 1) / g * g; v <= last; v += g) {
            cells++;
            filled += step_hist[v] >= enough;
        }
        if (cells >= 2 && 10 * filled >= 9 * cells)
            best = g;
    }
    return best;
}

/* The step when the reads are slower than it (at most about two back-to-back differences,
 * or half the pairs would have read one value): pairs of reads with delays that cover 4
 * back-to-back differences, in steps of about a core cycle, 16 pairs per tick of the span
 * (or what 100 ms gives). An integer step shows as a lattice (lattice_step). A fine counter
 * then gives most differences in the span (step 1); a stepped one only values around multiples of its
 * step: one value (an integer step, 26), two (a fractional one: 24.45 gives 49, 73-74, 98),
 * or three (a clock in ns over a 10 ns step: 229-231). The step is the mean distance
 * between those runs of values. A value counts when at least max(3, pairs/20000) pairs gave
 * it: an odd difference of one tick (2 in 2,000,000 on a 26-tick TSC) does not. Runs closer
 * than half the common distance are one step read two ways (a 24.45-tick step read as
 * multiples of 8: 48 and 56, 72 and 80) and are merged first. When the runs hold under
 * half the pairs (too few pairs for the span: a slow emulated read on a loaded machine), the
 * step is not seen, and one back-to-back difference is its bound. */
static double measure_step(const struct counter_info *ci)
{
    uint64_t t0 = step_read();
    spin(1u << 16);
    uint64_t t = step_read() - t0;
    double per_tick = t ? 65536.0 / (double)t : 1.0;
    double mode = ci->pair_mode_ticks ? (double)ci->pair_mode_ticks : 1.0;
    double span = fmax(64.0, 4.0 * mode);
    if (span > STEP_BINS - 4 * mode)
        span = STEP_BINS - 4 * mode;
    if (span < 2 * mode)         /* too coarse for the bins: one back-to-back difference bounds it */
        return mode;
    double k = span * per_tick;
    uint64_t min_d, pairs = count_pairs(k < 64 ? 64 : k > 4e6 ? 4000000 : (uint64_t)k, (uint64_t)(16 * span),
                                        STEP_DELAYED_NS, &min_d);
    static struct step_runs r;
    static double gap[STEP_RUNS];
    uint64_t enough = pairs / 20000 > 3 ? pairs / 20000 : 3;
    find_runs(&r, enough);
    uint64_t lattice = lattice_step(enough, r.first, r.last);
    if (lattice)
        return (double)lattice;
    /* a fine counter fills most of the span; a stepped one a value or two per step */
    if (r.too_many || 2 * r.populated > r.last - r.first + 1)
        return 1.0;
    double held = 0;
    for (int i = 0; i < r.n; i++)
        held += r.weight[i];
    if (2 * held < (double)pairs)
        return mode;
    if (r.n > 1) {
        run_gaps(&r, gap);
        merge_runs(&r, 0.5 * gap[(3 * (r.n - 1)) / 4]);
    }
    if (r.n == 1)
        return fmax(1.0, r.centre[0]);
    /* the median distance between neighbouring runs is one step, or a few when the delays
     * missed the runs between; the whole span over the steps it holds averages the fraction */
    run_gaps(&r, gap);
    double span_ticks = r.centre[r.n - 1] - r.centre[0], g = gap[(r.n - 1) / 2];
    return fmax(1.0, span_ticks / fmax(1.0, round(span_ticks / g)));
}

double counter_measure_step(struct counter_info *ci)
{
    fake_read = NULL;
#if defined(PP_INSTR_COUNTER) && !defined(PLATPERF_FALLBACK)
    /* the fallback's latency loop, and a quantised or clock_gettime counter's, read through
     * counter_read() */
    inline_reads = !ci->quantum_ticks && strcmp(ci->name, PP_INSTR_COUNTER) == 0;
#endif
    double fast_reads_step = measure_pairs(ci);
    return fast_reads_step > 0 ? fast_reads_step : measure_step(ci);
}

double counter_measure_step_with(struct counter_info *ci, uint64_t (*read)(void))
{
    fake_read = read;
    double fast_reads_step = measure_pairs(ci);
    double step = fast_reads_step > 0 ? fast_reads_step : measure_step(ci);
    fake_read = NULL;
    return step;
}

/* Counter reads, frequency discovery and the core clock estimate (see counter.h). */
#include "counter.h"

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "platperf_instr.h"   /* the counter reads, shared with user programs */
#include "timed_loops.h"

static struct counter_info info;

/* The test switch (docs/probe.md, "The counter's step"): PLATPERF_COUNTER_QUANTUM=N makes every
 * read a multiple of N ticks, a counter coarse on purpose, so that a test sees on any machine
 * (and under qemu-user) what a coarse counter does to the figures. */
static uint64_t quantum;
static inline uint64_t quantise(uint64_t v) { return quantum ? v - v % quantum : v; }

static uint64_t monotonic_raw_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
#include <cpuid.h>

/* lfence before rdtsc waits for earlier instructions to finish; the one after keeps the
 * timed code from starting before the read (Intel's "How to benchmark code execution
 * times", also valid on AMD where Linux makes lfence dispatch-serialising). */
uint64_t counter_start(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return quantise(((uint64_t)hi << 32) | lo);
}

/* Set by arch_init from CPUID: QEMU's qemu64, Nehalem and Westmere models (LAVA's qemu
 * device type default) have no RDTSCP, and executing it there is SIGILL. Until then, and
 * without it, the stop read is lfence;rdtsc. */
static int have_rdtscp;

/* rdtscp waits for the timed code's instructions to execute; lfence keeps later ones out.
 * Without it, lfence;rdtsc waits the same way (lfence completes every earlier instruction). */
uint64_t counter_stop(void)
{
    uint32_t lo, hi, aux;
    if (have_rdtscp)
        __asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
    else
        __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return quantise(((uint64_t)hi << 32) | lo);
}

uint64_t counter_read(void) { return quantise(pp_instr_counter_read()); }

static double tsc_freq_from_cpuid(const char **source)
{
    unsigned a, b, c, d;
    unsigned max = __get_cpuid_max(0, NULL);
    if (max >= 0x15) {
        __cpuid(0x15, a, b, c, d);
        if (a && b && c) {          /* crystal Hz * numerator / denominator */
            *source = "cpuid-0x15";
            return (double)c * b / a;
        }
    }
    if (max >= 0x16) {
        __cpuid(0x16, a, b, c, d);
        if (a & 0xffff) {           /* processor base frequency, MHz */
            *source = "cpuid-0x16";
            return (a & 0xffff) * 1e6;
        }
    }
    return 0;
}

static void arch_init(void)
{
    unsigned a, b, c, d;
    /* CPUID 0x80000001 EDX bit 27: RDTSCP */
    have_rdtscp = __get_cpuid(0x80000001, &a, &b, &c, &d) && (d & (1u << 27));
    info.name = "tsc";
    info.stop_read = have_rdtscp ? "rdtscp;lfence" : "lfence;rdtsc;lfence";
    info.freq_hz = tsc_freq_from_cpuid(&info.freq_source);
}

#elif defined(__aarch64__)

uint64_t counter_start(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) : : "memory");
    return quantise(v);
}

uint64_t counter_stop(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return quantise(v);
}

uint64_t counter_read(void) { return quantise(pp_instr_counter_read()); }

static void arch_init(void)
{
    info.name = "cntvct_el0";
    info.freq_hz = (double)pp_instr_counter_freq();
    info.freq_source = "cntfrq";
}

#elif defined(__arm__)

/* The generic timer is readable from user space only if the kernel set CNTKCTL.PL0VCTEN
 * (probed once by pp_instr_arm_cntvct()); otherwise CLOCK_MONOTONIC_RAW. */
static int use_cntvct;

static inline uint64_t cntvct(void) { return pp_instr_counter_read(); }

uint64_t counter_start(void) { return quantise(use_cntvct ? cntvct() : monotonic_raw_ns()); }
uint64_t counter_stop(void) { return quantise(use_cntvct ? cntvct() : monotonic_raw_ns()); }
uint64_t counter_read(void) { return quantise(use_cntvct ? cntvct() : monotonic_raw_ns()); }

static void arch_init(void)
{
    uint32_t freq = pp_instr_arm_cntvct();
    use_cntvct = freq != 0;
    if (use_cntvct) {
        info.name = "cntvct";
        info.freq_hz = freq;
        info.freq_source = "cntfrq";
    } else {
        info.name = "clock_monotonic_raw";
        info.freq_hz = 1e9;
        info.freq_source = "nominal";
    }
}

#else

uint64_t counter_start(void) { return quantise(monotonic_raw_ns()); }
uint64_t counter_stop(void) { return quantise(monotonic_raw_ns()); }
uint64_t counter_read(void) { return quantise(monotonic_raw_ns()); }

static void arch_init(void)
{
    info.name = "clock_monotonic_raw";
    info.freq_hz = 1e9;
    info.freq_source = "nominal";
}

#endif

/* Counter ticks against CLOCK_MONOTONIC_RAW over ~20 ms, median of three. */
static double calibrate(void)
{
    double f[3];
    for (int i = 0; i < 3; i++) {
        uint64_t n0 = monotonic_raw_ns(), t0 = counter_start();
        while (monotonic_raw_ns() - n0 < 20000000u)
            ;
        uint64_t t1 = counter_stop(), n1 = monotonic_raw_ns();
        f[i] = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
    }
    double lo = fmin(f[0], fmin(f[1], f[2])), hi = fmax(f[0], fmax(f[1], f[2]));
    return f[0] + f[1] + f[2] - lo - hi;
}

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
    uint64_t n = 0, best = UINT64_MAX, n0 = monotonic_raw_ns();
    for (; n < pairs; n++) {
        if ((n & 255) == 255 && monotonic_raw_ns() - n0 > budget_ns)
            break;
        uint64_t k = max_delay ? (n * 2654435761u) % max_delay : 0;
        uint64_t a = counter_read();
        spin(k);
        uint64_t d = counter_read() - a;
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

/* Back-to-back reads: their minimum (the read overhead), the smallest and the most common
 * non-zero difference, and one read's mean cost over a run of 4096 (fastest of 3 runs).
 * Returns the mean non-zero difference when at least half the pairs read the same value
 * (the reads are faster than the step, so a non-zero difference is one step: 56 or 64 for a
 * 62.5-tick step read as multiples of 8), else 0. */
static double measure_pairs(void)
{
    info.pairs = count_pairs(0, STEP_PAIRS, STEP_BUDGET_NS, &info.read_overhead_ticks);
    uint64_t near = 0;
    for (uint64_t d = 1; d < STEP_BINS; d++) {
        near += step_hist[d];
        if (!step_hist[d])
            continue;
        if (!info.pair_min_ticks)
            info.pair_min_ticks = d;
        if (!info.pair_mode_ticks || step_hist[d] > step_hist[info.pair_mode_ticks])
            info.pair_mode_ticks = d;
    }
    uint64_t best = UINT64_MAX;
    for (int r = 0; r < 3; r++) {
        uint64_t t0 = counter_read();
        for (int i = 0; i < 4096; i++)
            (void)counter_read();
        uint64_t t = counter_read() - t0;
        best = t < best ? t : best;
    }
    info.read_mean_ns = ticks_to_ns(best) / 4097.0;
    int fast = 2 * (double)step_hist[0] >= (double)info.pairs;
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
        info.pair_min_ticks = info.pair_mode_ticks = least;
        return fast ? sum / n : 0;
    }
    /* the mean of the non-zero differences up to 1.5 x the most common: a longer one spanned
     * an interrupt or two steps */
    double sum = 0, changed = 0;
    for (uint64_t d = 1; d < STEP_BINS && 2 * d <= 3 * info.pair_mode_ticks; d++) {
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

/* The step when the reads are slower than it (at most about two back-to-back differences,
 * or half the pairs would have read one value): pairs of reads with delays that cover 4
 * back-to-back differences, in steps of about a core cycle, 8 pairs per tick of the span
 * (or what 100 ms gives). A fine counter then gives
 * most differences in the span (step 1); a stepped one only values around multiples of its
 * step: one value (an integer step, 26), two (a fractional one: 24.45 gives 49, 73-74, 98),
 * or three (a clock in ns over a 10 ns step: 229-231). The step is the mean distance
 * between those runs of values. A value counts when at least max(3, pairs/20000) pairs gave
 * it: an odd difference of one tick (2 in 2,000,000 on a 26-tick TSC) does not. Runs closer
 * than half the common distance are one step read two ways (a 24.45-tick step read as
 * multiples of 8: 48 and 56, 72 and 80) and are merged first. When the runs hold under
 * half the pairs (too few pairs for the span: a slow emulated read on a loaded machine), the
 * step is not seen, and one back-to-back difference is its bound. */
static double measure_step(void)
{
    uint64_t t0 = counter_start();
    spin(1u << 16);
    uint64_t t = counter_stop() - t0;
    double per_tick = t ? 65536.0 / (double)t : 1.0;
    double mode = info.pair_mode_ticks ? (double)info.pair_mode_ticks : 1.0;
    double span = fmax(64.0, 4.0 * mode);
    if (span > STEP_BINS - 4 * mode)
        span = STEP_BINS - 4 * mode;
    if (span < 2 * mode)         /* too coarse for the bins: one back-to-back difference bounds it */
        return mode;
    double k = span * per_tick;
    uint64_t min_d, pairs = count_pairs(k < 64 ? 64 : k > 4e6 ? 4000000 : (uint64_t)k, (uint64_t)(8 * span),
                                        STEP_DELAYED_NS, &min_d);
    static struct step_runs r;
    static double gap[STEP_RUNS];
    find_runs(&r, pairs / 20000 > 3 ? pairs / 20000 : 3);
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

void counter_init(void)
{
    if (info.name)
        return;
    const char *q = getenv("PLATPERF_COUNTER_QUANTUM");
    if (q && *q)
        quantum = strtoull(q, NULL, 10);
    info.quantum_ticks = quantum;
    arch_init();
    if (info.freq_hz <= 0) {
        info.freq_hz = calibrate();
        info.freq_source = "calibrated";
    }
    double fast_reads_step = measure_pairs();
    info.step_ticks = fast_reads_step > 0 ? fast_reads_step : measure_step();
    info.resolution_ns = ticks_to_ns(1) * info.step_ticks;
    if (strcmp(info.name, "clock_monotonic_raw") == 0) {
        struct timespec res;
        clock_getres(CLOCK_MONOTONIC_RAW, &res);
        info.resolution_ns = fmax(info.resolution_ns, res.tv_sec * 1e9 + res.tv_nsec);
    }
}

const struct counter_info *counter_info(void)
{
    counter_init();
    return &info;
}

double ticks_to_ns(uint64_t ticks)
{
    return (double)ticks * 1e9 / info.freq_hz;
}

double ticks_to_steps(double ticks)
{
    return ticks / (info.step_ticks >= 1.0 ? info.step_ticks : 1.0);
}

uint64_t steps_to_ticks(double steps)
{
    return (uint64_t)ceil(steps * (info.step_ticks >= 1.0 ? info.step_ticks : 1.0));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static long involuntary_switches(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : -1;
}

/* A chain of dependent adds retires one add per core cycle on every core the probe
 * targets, so adds/ticks is core cycles per counter tick. 15 runs of ~1 ms, leaving out
 * those the scheduler preempted: the fastest is the estimate (interruptions only
 * lengthen a run); the gap from it to the median, plus one counter step of quantisation,
 * is the stated error. */
#define CLOCK_RUNS 15
static void estimate(struct core_clock *cc)
{
    counter_init();
    uint64_t n = 16, t;
    for (;;) {
        uint64_t t0 = counter_start();
        pp_addchain(n);
        t = counter_stop() - t0;
        if (ticks_to_ns(t) >= 1e6 || n > (UINT64_MAX >> 2))
            break;
        n *= 2;
    }
    uint64_t runs[CLOCK_RUNS];
    int kept = 0;
    for (int i = 0; i < 4 * CLOCK_RUNS && kept < CLOCK_RUNS; i++) {
        long before = involuntary_switches();
        uint64_t t0 = counter_start();
        pp_addchain(n);
        uint64_t dt = counter_stop() - t0;
        if (before < 0 || involuntary_switches() == before || i >= 3 * CLOCK_RUNS)
            runs[kept++] = dt;
    }
    qsort(runs, (size_t)kept, sizeof runs[0], cmp_u64);
    if (kept == 0 || runs[0] == 0)
        return;
    double adds = (double)n * ADDCHAIN_UNROLL;
    cc->valid = 1;
    cc->cycles_per_tick = adds / (double)runs[0];
    cc->hz = cc->cycles_per_tick * info.freq_hz;
    cc->error_pct = 100.0 * ((double)(runs[kept / 2] - runs[0]) + info.step_ticks) / (double)runs[0];
}

static struct core_clock cc_main;
static void estimate_main(void) { estimate(&cc_main); }

const struct core_clock *core_clock_estimate(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, estimate_main);
    return &cc_main;
}

/* Per CPU: big.LITTLE clusters run at different clocks, so a latency in cycles must use
 * the estimate of the core it was measured on. Each CPU is estimated once, by the first
 * thread pinned to it that asks (the probe never runs two measuring threads on one CPU). */
const struct core_clock *core_clock_on_cpu(int cpu)
{
    static struct core_clock per_cpu[COUNTER_MAX_CPUS];
    static unsigned char done[COUNTER_MAX_CPUS];
    if (cpu < 0 || cpu >= COUNTER_MAX_CPUS)
        return core_clock_estimate();
    if (!done[cpu]) {
        estimate(&per_cpu[cpu]);
        done[cpu] = 1;
    }
    return &per_cpu[cpu];
}

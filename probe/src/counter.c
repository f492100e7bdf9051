/* The counter once set up (counter.h): its step, conversions, the core clock estimate. The
 * reads are counter_read.c's and the step counter_step.c's: called from here, never calling here. */
#include "counter.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "counter_step.h"
#include "platperf_instr.h"   /* PP_INSTR_MONOTONIC */
#include "timed_loops.h"

static struct counter_info info;

void counter_init(void)
{
    if (info.name)
        return;
    counter_read_init(&info);
    info.step_ticks = counter_measure_step(&info);
    info.resolution_ns = ticks_to_ns(1) * info.step_ticks;
    if (counter_is_monotonic()) {
        struct timespec res;
        clock_getres(CLOCK_MONOTONIC_RAW, &res);
        info.resolution_ns = fmax(info.resolution_ns, res.tv_sec * 1e9 + res.tv_nsec);
    }
}

int counter_is_monotonic(void) { return strcmp(info.name, PP_INSTR_MONOTONIC) == 0; }

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
